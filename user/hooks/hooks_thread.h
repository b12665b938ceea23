/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hooks_thread.h - the per-thread state of libfxtprof-hooks
 * (hooks_thread.c), and what an output is told of the threads: the
 * standalone output gives each a ring and names it.
 */
#ifndef FXTPROF_HOOKS_THREAD_H
#define FXTPROF_HOOKS_THREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/fxtprof.h>

#include "hooks_state.h"
#include "name_stack.h"
#include "thread_ring.h"

/* One application thread. */
struct hooks_thread {
	struct name_stack regions;
	struct name_stack kernels;	/* Kokkos kernels, by kernel id */
	unsigned int lost_depth;	/* regions refused as too deep, open */
	uint32_t pid, tid;
	/* Standalone: the queue to the writer thread, and its bookkeeping. */
	struct thread_ring ring;
	bool ring_ok;
	/* Records the ring refused since the last LOST record in it. */
	uint64_t lost_records, lost_bytes, lost_first_ns, lost_last_ns;
	/* The name the ring last gave the thread, and when it was checked. */
	char comm[FXTPROF_COMM_LEN];
	uint64_t comm_checked_ns;
	uint64_t exit_ns;		/* CLOCK_BOOTTIME, set before exited */
	_Atomic bool exited;		/* the thread is gone: free when drained */
	_Atomic int refs;		/* the thread, and the writer's list */
	struct hooks_thread *next;	/* the writer's list */
};

/* What an output does with the threads; set once its mode is chosen. */
struct hooks_thread_ops {
	/* A new thread (the caller): 0, or -errno and it has no ring. */
	int (*add)(struct hooks_thread *t);
	/*
	 * Re-read the calling thread's comm; if it changed since the ring
	 * last named it, a RENAME record in its ring.  @t is the caller's.
	 */
	void (*check_comm)(struct hooks_thread *t);
};

/* Once, before the first thread: the key whose destructor frees it. */
HIDDEN int hooks_thread__setup(void);
/* The output's thread operations; NULL (the device's): none. */
HIDDEN void hooks_thread__set_ops(const struct hooks_thread_ops *ops);
/* The calling thread's state, made on first use; NULL if out of memory. */
HIDDEN struct hooks_thread *hooks_thread__self(void);
HIDDEN void hooks_thread__put(struct hooks_thread *t);
/* The calling thread's last chance to be renamed (exit, finalize). */
HIDDEN void hooks_thread__check_comm(void);

#endif /* FXTPROF_HOOKS_THREAD_H */

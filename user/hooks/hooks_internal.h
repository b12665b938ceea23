/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hooks_internal.h - what the parts of libfxtprof-hooks share: the
 * library's state and counters, the per-thread state, and the two outputs
 * (the device, and the standalone writer).
 *
 * hooks.c holds the public entry points and enforces the rules; kokkos.c
 * maps the Kokkos Tools callbacks onto them; hooks_thread.c is the
 * per-thread state; out_device.c and out_standalone.c are where an
 * annotation goes once it passed the rules.
 */
#ifndef FXTPROF_HOOKS_INTERNAL_H
#define FXTPROF_HOOKS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/fxtprof.h>

#include "fxtprof_hooks.h"
#include "name_stack.h"
#include "thread_ring.h"

#define HIDDEN __attribute__((visibility("hidden")))

enum hooks_state {
	HOOKS_UNINIT = 0,	/* before initialize */
	HOOKS_FAILED,		/* initialize failed: only the version now */
	HOOKS_ACTIVE,
	HOOKS_FINALIZED,	/* or a fork's child in standalone mode */
};

enum hooks_mode {
	HOOKS_DEVICE = 1,	/* fxtprof: */
	HOOKS_STANDALONE,	/* file://, tcp://, unix:// */
};

/* Counters: the rule violations are rare, so plain shared atomics. */
struct hooks_counters {
	_Atomic uint64_t annotations;
	_Atomic uint64_t dropped;
	_Atomic uint64_t no_session;
	_Atomic uint64_t output_dropped;
	_Atomic uint64_t encode_errors;
	_Atomic uint64_t not_active;
	_Atomic uint64_t initialize_again;
	_Atomic uint64_t region_unbalanced;
	_Atomic uint64_t key_unknown;
	_Atomic uint64_t section_begun_twice;
	_Atomic uint64_t section_not_begun;
	_Atomic uint64_t section_destroyed_begun;
	_Atomic uint64_t too_deep;
	_Atomic uint64_t names_clipped;
	_Atomic uint64_t names_missing;
};

HIDDEN extern struct hooks_counters hooks_count;
HIDDEN extern _Atomic int hooks_state;
HIDDEN extern enum hooks_mode hooks_mode;

#define hooks_inc(field) \
	atomic_fetch_add_explicit(&hooks_count.field, 1, memory_order_relaxed)

/* Whether annotations are taken now; counts the call if not. */
static inline bool hooks_active(void)
{
	if (atomic_load_explicit(&hooks_state, memory_order_acquire) ==
	    HOOKS_ACTIVE)
		return true;
	hooks_inc(not_active);
	return false;
}

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
	_Atomic bool exited;		/* the thread is gone: free when drained */
	_Atomic int refs;		/* the thread, and the writer's list */
	struct hooks_thread *next;	/* the writer's list */
};

/* The calling thread's state, made on first use; NULL if out of memory. */
HIDDEN struct hooks_thread *hooks_thread__self(void);
HIDDEN void hooks_thread__put(struct hooks_thread *t);
HIDDEN int hooks_thread__setup(void);

/*
 * Where an annotation goes.  @name is 1..FXTPROF_ANNOTATION_NAME_MAX bytes
 * with no NUL, @key follows the kind's rule: the caller made sure.
 */
HIDDEN int out_device__open(void);
HIDDEN void out_device__close(void);
HIDDEN void out_device__emit(unsigned int kind, uint64_t key,
			     const char *name, uint16_t len);
/* FXTPROF_IOC_TRIGGER, opening the device for it if needed: 0/-errno. */
HIDDEN int out_device__trigger(const char *name);

/* Standalone: 0 or -errno, with a message on stderr. */
HIDDEN int out_standalone__open(const char *uri);
/* Flush within the linger time, stop the writer: 0, or -EIO if lost. */
HIDDEN int out_standalone__close(void);
HIDDEN void out_standalone__emit(struct hooks_thread *t, unsigned int kind,
				 uint64_t key, const char *name, uint16_t len);
/* A new thread's ring: joins the writer's list.  0 or -errno. */
HIDDEN int out_standalone__add_thread(struct hooks_thread *t);
/*
 * Re-read the calling thread's comm; if it changed since the ring last
 * named it, a RENAME record in its ring.  @t must be the caller's.
 */
HIDDEN void out_standalone__check_comm(struct hooks_thread *t);
/* The calling thread's last chance to be renamed (exit, finalize). */
HIDDEN void hooks_thread__check_comm(void);

/* The shared entry point of every annotation that passed the rules. */
static inline void hooks_emit(struct hooks_thread *t, unsigned int kind,
			      uint64_t key, const char *name, uint16_t len)
{
	if (hooks_mode == HOOKS_DEVICE)
		out_device__emit(kind, key, name, len);
	else
		out_standalone__emit(t, kind, key, name, len);
}

/* @name clipped (on a UTF-8 boundary) and counted; NULL/"" become "?". */
HIDDEN uint16_t hooks_name(const char **name);

/* Kokkos kernels (kokkos.c): begin returns the new kernel id. */
HIDDEN uint64_t hooks_kernel_begin(const char *name);
HIDDEN void hooks_kernel_end(uint64_t kid);

#endif /* FXTPROF_HOOKS_INTERNAL_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_unwind_procs.h - what the recorder's unwind side knows of each
 * process (user/cmd/record_unwind.c):
 *  - the mappings that wait for the process's first sample before their
 *    tables are built (those of processes already running when the
 *    recording starts: an idle daemon's tables would take the memory the
 *    profiled ones need);
 *  - the ranges it gave the source, with the mapping each came from, so
 *    that a child forked without exec is given the same ones, and so that
 *    a range whose table is evicted becomes a waiting mapping again;
 *  - when it was last sampled, which tells the tables to evict.
 */
#ifndef FXTPROF_RECORD_UNWIND_PROCS_H
#define FXTPROF_RECORD_UNWIND_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"
#include <libfxtprof.h>

/* A range given to the source: addresses [start, end) on table id. */
struct unwind_range {
	uint64_t start, end, bias;
	uint32_t id;
	struct fxtprof_mmap *m;		/* its mapping, a copy */
};

struct unwind_proc {
	uint32_t pid;
	bool sampled;			/* its mappings no longer wait */
	uint64_t last_ns;		/* its last sample (CLOCK_BOOTTIME) */
	uint64_t born_ns;		/* its fork or last exec, if seen */
	uint64_t retry_ns;		/* what waits is not tried before */
	struct fxtprof_mmap **waiting;	/* copies, each malloc'ed */
	unsigned int nr_waiting;
	size_t cap_waiting;
	struct unwind_range *ranges;
	unsigned int nr_ranges;
	size_t cap_ranges;
	unsigned int in_flight;		/* its mappings with the worker */
	uint32_t *heirs;		/* forked meanwhile: given them too */
	unsigned int nr_heirs;
	size_t cap_heirs;
};

struct unwind_procs {
	struct hmap by_pid;		/* pid -> struct unwind_proc * */
	uint64_t waiting;		/* mappings waiting, all processes */
};

/* @pid's entry; with @add, a new one if it has none.  NULL: none, -ENOMEM. */
struct unwind_proc *unwind_procs__get(struct unwind_procs *ps, uint32_t pid,
				      bool add);

/* Keep a copy of @m until @p is sampled.  0 or -ENOMEM. */
int unwind_proc__wait(struct unwind_procs *ps, struct unwind_proc *p,
		      const struct fxtprof_mmap *m);

/* The same, taking @m (malloc'ed) itself, which is freed on failure. */
int unwind_proc__wait_take(struct unwind_procs *ps, struct unwind_proc *p,
			   struct fxtprof_mmap *m);

/*
 * Take @p's waiting mappings (the caller frees each, and the array) and
 * mark @p sampled.  Their number.
 */
unsigned int unwind_proc__take_waiting(struct unwind_procs *ps,
				       struct unwind_proc *p,
				       struct fxtprof_mmap ***out);

/*
 * Remember a range given to the source for @p, from mapping @m (copied,
 * with @p's pid), in place of those it overlaps (as the source replaces
 * them).  0 or -ENOMEM.
 */
int unwind_proc__add_range(struct unwind_proc *p, const struct unwind_range *r,
			   const struct fxtprof_mmap *m);

/*
 * Every process's ranges on table @id: @fn(@ctx, p, r) for each, then
 * the range is dropped and its mapping waits again, to be tried at @p's
 * next sample.
 */
void unwind_procs__unmap_table(struct unwind_procs *ps, uint32_t id,
			       void (*fn)(void *ctx,
					  const struct unwind_proc *p,
					  const struct unwind_range *r),
			       void *ctx);

/* Mappings made this long before an exec's end are its new image's. */
#define UNWIND_EXEC_WINDOW_NS	100000000ull

/*
 * An exec that ended at @time_ns, whose record came after the new
 * image's mappings: the source dropped @p's ranges then, the new image's
 * with the old.  The ranges of the new image's mappings (made within
 * UNWIND_EXEC_WINDOW_NS before, and after @p's fork or last exec) are
 * kept first in @p->ranges, for the caller to give again; their number
 * is returned.  The others are forgotten.
 */
unsigned int unwind_proc__exec(struct unwind_proc *p, uint64_t time_ns);

/*
 * @pid was forked from @p while some of @p's mappings were with the
 * worker: the ranges they give are @pid's too.  0 or -ENOMEM.
 */
int unwind_proc__add_heir(struct unwind_proc *p, uint32_t pid);

/* One of @p's mappings is back from the worker; the last forgets heirs. */
void unwind_proc__landed(struct unwind_proc *p);

/* An exec: the old image's waiting mappings are no more. */
void unwind_proc__forget_waiting(struct unwind_procs *ps,
				 struct unwind_proc *p);

/* The process ended. */
void unwind_procs__drop(struct unwind_procs *ps, uint32_t pid);

/*
 * Drop the processes for which @gone(@pid) is true, each first handed to
 * @dropping(@ctx, process) if not NULL: how many.
 */
unsigned int unwind_procs__prune(struct unwind_procs *ps,
				 bool (*gone)(uint32_t pid),
				 void (*dropping)(void *ctx,
						  const struct unwind_proc *p),
				 void *ctx);

void unwind_procs__free(struct unwind_procs *ps);

#endif /* FXTPROF_RECORD_UNWIND_PROCS_H */

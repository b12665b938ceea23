/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_unwind.h - the recorder's side of unwinding user stacks from
 * tables (Documentation/unwinding.md): whether the session walks them,
 * and, for every executable mapping the recorder reports, the file's
 * table built (user/unwind/), loaded into the source once per build id
 * (source_ops.unwind_load) and mapped into the process at its bias
 * (unwind_map).
 *
 * A table is built once per build id (25 ms for libc.so.6, 0.6 s for a
 * 100 MB C++ library) by one worker thread, off the event loop: the loop
 * opens the mapping's file and queues it; the worker builds the table
 * and says so on an eventfd, which the loop reads through io_uring
 * (record_unwind__start); the loop then loads and maps it.  Until then
 * the process's frames are walked by frame pointers, and counted so.
 */
#ifndef FXTPROF_RECORD_UNWIND_H
#define FXTPROF_RECORD_UNWIND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "record_unwind_procs.h"
#include "transport/evloop.h"
#include "util/hmap.h"
#include <libfxtprof.h>

struct record_opts;
struct source;
struct source_ops;
struct unwind_cache;
struct unwind_job;

/*
 * The worker's queues, FIFO: jobs in, the urgent ones first (the
 * mappings of processes that started while recording, evictions and
 * what they made room for), built jobs out.
 */
struct unwind_queue {
	pthread_mutex_t lock;
	pthread_cond_t more;		/* a job in, or stop */
	struct unwind_job *urgent, **urgent_tail;
	struct unwind_job *in, **in_tail;
	struct unwind_job *out, **out_tail;
	bool stop;
};

struct record_unwind {
	struct source *src;		/* NULL: off */
	struct unwind_cache *cache;	/* the worker's until it is joined */
	uint64_t cache_cap;
	struct hmap ids;		/* table (pointer) -> its loaded_table */
	struct hmap pinned;		/* tables record_unwind__complete()
					 * hands out: not to evict */
	struct hmap known;		/* build id hash -> table, 0: none */
	/*
	 * Evictions, counted, and by build id hash the count after the
	 * last one of that id: a job queued before it may hold a table
	 * the worker has freed since (record_unwind__complete()).
	 */
	uint64_t evictions;
	struct hmap evicted_at;
	struct unwind_procs procs;	/* waiting mappings, ranges given */
	struct unwind_queue q;
	pthread_t worker;
	bool running;			/* the worker is */
	int efd;			/* the worker's "built", an eventfd */
	uint64_t efd_count;
	struct evloop *loop;		/* which reads it */
	struct ev_handler efd_h;
	unsigned int in_worker;		/* jobs given, not yet taken back */
	uint64_t queued;		/* mappings given to the worker */
	uint64_t unbuilt;		/* of them, still queued at the end */
	uint64_t mappings;		/* seen */
	uint64_t mapped;		/* given to the source */
	uint64_t unreadable;		/* files that could not be opened */
	uint64_t no_build_id;		/* mappings without one */
	uint64_t unplaced;		/* no PT_LOAD holds the offset */
	uint64_t load_failed;		/* tables the source refused */
	uint64_t source_full;		/* of them: -ENOSPC */
	uint64_t map_failed;
	uint64_t waited;		/* mappings that waited for a sample */
	uint64_t no_room;		/* mappings that found none, waiting */
	uint64_t evicted;		/* tables evicted for others */
	uint64_t evicted_bytes;
	uint64_t stale;			/* tables evicted while handed out */
	uint64_t unload_failed;		/* evictions the source refused */
	bool cannot_unload;		/* the source has no UNWIND_UNLOAD */
	uint64_t pruned_ns;		/* the last record_unwind__tick() sweep */
	uint64_t pruned;		/* processes gone without an exit */
	uint64_t ranges_taken_back;	/* ... whose ranges the source had */
	uint64_t evict_idle_ns;		/* idle this long: may be evicted */
	uint64_t inherited;		/* ranges given to forked children */
	uint64_t remapped;		/* the new image's, again at its exec */
	uint64_t build_ns;		/* spent building tables */
	uint64_t cache_bytes;		/* the worker's tables, under q.lock */
};

/*
 * Before the source is configured: ask for tables (FXTPROF_CFG_UNWIND,
 * unwind_memory) when user stacks are taken, the walk is --call-graph cfi
 * (not fp or dwarf), and @ops can load tables; say in one line when it
 * cannot.
 */
void record_unwind__config(const struct record_opts *o,
			   const struct source_ops *ops,
			   struct fxtprof_config *cfg);

/*
 * The source refused @cfg with @err (and the sentence @why): if tables
 * were asked for, drop them (a module older than ABI 5 does not know the
 * flag), say so and return true for the caller to configure again.
 */
bool record_unwind__fallback(const struct record_opts *o, int err,
			     const char *why, struct fxtprof_config *cfg);

/*
 * Once configured with @cfg: tables for @src if it walks them, and the
 * worker started.  -ENOMEM, or -errno of eventfd or pthread_create.
 */
int record_unwind__init(struct record_unwind *ru, struct source *src,
			const struct fxtprof_config *cfg);

/* Whether the session walks tables that @ru loads. */
static inline bool record_unwind__active(const struct record_unwind *ru)
{
	return ru->src;
}

/* Read the worker's eventfd in @loop from now on: tables get mapped. */
void record_unwind__start(struct record_unwind *ru, struct evloop *loop);

/*
 * An FXTPROF_REC_MMAP record the recorder writes: its file's table, now
 * if the build id's table was built, else once the worker has built it.
 * With @wait (the mappings of the processes running when the recording
 * starts), a table not built yet waits for the process's first sample:
 * the memory for tables goes to the processes that run, not to the first
 * ones swept.
 */
void record_unwind__mapping(struct record_unwind *ru,
			    const struct fxtprof_mmap *m, bool wait);

/*
 * A record from the source, before it is written: a sample builds its
 * process's waiting tables; a fork (not a thread) gives the child the
 * parent's ranges and waiting mappings, which fork does not report as
 * mappings; an exec or a process's end forgets what waited.
 */
void record_unwind__record(struct record_unwind *ru,
			   const struct fxtprof_rec_hdr *rec);

/*
 * Every 10 s of @now (CLOCK_BOOTTIME): forget the processes that are
 * gone, whose exit record never came (--no-tasks, or a full ring), so
 * that a recording of days stays flat.
 */
void record_unwind__tick(struct record_unwind *ru, uint64_t now);

/*
 * Load and map what the worker has built (what the eventfd's reader
 * calls; a caller without a loop polls record_unwind__fd() instead).
 * Whether no mapping is left with the worker.
 */
bool record_unwind__complete(struct record_unwind *ru);
int record_unwind__fd(const struct record_unwind *ru);

/*
 * The summary's line: tables, rows, bytes, what was not loaded.  It stops
 * the worker first (after the build it is in), as the end does.
 */
void record_unwind__summary(struct record_unwind *ru,
			    const struct fxtprof_stats *total);

void record_unwind__fini(struct record_unwind *ru);

/* The bytes of the tables the recorder keeps (its cache), 0 when off. */
uint64_t record_unwind__memory(struct record_unwind *ru);

#endif /* FXTPROF_RECORD_UNWIND_H */

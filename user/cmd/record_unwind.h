/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_unwind.h - the recorder's side of unwinding user stacks from
 * tables (Documentation/unwinding.md): whether the session walks them,
 * and, for every executable mapping the recorder reports, the file's
 * table built (user/unwind/), loaded into the source once per build id
 * (source_ops.unwind_load) and mapped into the process at its bias
 * (unwind_map).
 *
 * The tables are built in the event loop, synchronously, once per build
 * id: 25 ms for libc.so.6, 0.6 s for a 100 MB C++ library.
 */
#ifndef FXTPROF_RECORD_UNWIND_H
#define FXTPROF_RECORD_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "util/hmap.h"
#include <libfxtprof.h>

struct record_opts;
struct source;
struct source_ops;
struct unwind_cache;

struct record_unwind {
	struct source *src;		/* NULL: off */
	struct unwind_cache *cache;
	struct hmap ids;		/* table (pointer) -> source's id */
	uint64_t mappings;		/* seen */
	uint64_t mapped;		/* given to the source */
	uint64_t unreadable;		/* files that could not be opened */
	uint64_t no_build_id;		/* mappings without one */
	uint64_t unplaced;		/* no PT_LOAD holds the offset */
	uint64_t load_failed;		/* tables the source refused */
	uint64_t source_full;		/* of them: -ENOSPC */
	uint64_t map_failed;
	uint64_t build_ns;		/* spent building tables */
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

/* Once configured with @cfg: tables for @src if it walks them.  -ENOMEM. */
int record_unwind__init(struct record_unwind *ru, struct source *src,
			const struct fxtprof_config *cfg);

/* An FXTPROF_REC_MMAP record the recorder writes: its file's table. */
void record_unwind__mapping(struct record_unwind *ru,
			    const struct fxtprof_mmap *m);

/* The summary's line: tables, rows, bytes, what was not loaded. */
void record_unwind__summary(const struct record_unwind *ru,
			    const struct fxtprof_stats *total);

void record_unwind__fini(struct record_unwind *ru);

#endif /* FXTPROF_RECORD_UNWIND_H */

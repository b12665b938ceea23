/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_symbols.h - what `fxtprof record` writes so that the recording
 * can be symbolized later, beside the source's records
 * (Documentation/symbols.md): the kernel's images and the functions that
 * samples hit, the executable mappings that exist at start (a /proc
 * sweep) and those made while recording (perf's side-band events).
 */
#ifndef FXTPROF_RECORD_SYMBOLS_H
#define FXTPROF_RECORD_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "source/kernel_info.h"
#include "source/perf_mmap_source.h"
#include "source/proc_maps.h"

struct record_collect;
struct record_opts;
struct record_unwind;
struct source;
struct stream_state;
struct stream_stats;

struct record_symbols {
	struct stream_state *state;
	/* Sees every mapping record first (record_unwind.h); NULL: none. */
	struct record_unwind *unwind;
	/* Copies every mapped file (--collect); NULL: off. */
	struct record_collect *collect;
	struct kernel_info kinfo;	/* its symbols only if !src */
	/* Names kernel symbols (FXTPROF_IOC_KSYM); NULL: kinfo does. */
	struct source *src;
	struct fxtprof_ksym_query ksym_query;	/* the last answer */
	struct perf_mmap_source perf;	/* .nr == 0: not open */
	struct proc_maps_stats sweep;
	uint64_t kmods;
	bool perf_broken;		/* stopped draining it */
};

/*
 * Before sampling starts (@rs zeroed but for its unwind): the kernel's
 * images, the side-band events for mappings to come, then the mappings
 * that exist, into @state.  Kernel symbols are named by @src where it
 * can (kernel_symbol), else from a copy of /proc/kallsyms.
 * What cannot be had is said, and the recording goes on without it.
 */
void record_symbols__capture(struct record_symbols *rs,
			     const struct record_opts *o,
			     struct stream_state *state, struct source *src);

/* The mappings made since the last drain, into the capture's state. */
void record_symbols__drain(struct record_symbols *rs);
/* Readable when a mapping waits in the side-band; -1 if none to poll. */
int record_symbols__fd(const struct record_symbols *rs);

/* The summary's lines: mappings and kernel symbols. */
void record_symbols__summary(const struct record_symbols *rs,
			     const struct record_opts *o,
			     const struct stream_stats *ts);

void record_symbols__fini(struct record_symbols *rs);

#endif /* FXTPROF_RECORD_SYMBOLS_H */

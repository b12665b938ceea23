/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * export_stack.h - what both exporters do with a sample first: name each
 * of its frames with the symbolizer, count what stays unnamed, and give
 * unnamed frames the `dso+0xoffset` name every output shows for them.
 * Also the sampling period, which the stream does not carry.
 */
#ifndef FXTPROF_EXPORT_STACK_H
#define FXTPROF_EXPORT_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "symbolize/symbolizer.h"

struct export_stats {
	uint64_t samples;
	uint64_t waits;			/* off-CPU waits written (Perfetto) */
	uint64_t frames;		/* addresses looked up */
	uint64_t unresolved;		/* of them, not named */
	uint64_t by_status[SYM__NR];
	uint64_t period_ns;		/* the sampling period used */
	/* What was written: pprof or Perfetto objects. */
	uint64_t mappings, functions, locations, callstacks;
	uint64_t packets, bytes;
};

/* One sample's frames, named, leaf first: res[i] is ips[i]. */
struct export_stack {
	struct sym_result *res;
	size_t n, cap;
};

void export_stack__release(struct export_stack *st);
/* Name every frame of smp; counts into stats.  0 or -errno. */
int export_stack__symbolize(struct export_stack *st, struct symbolizer *s,
			    const struct profile *p,
			    const struct profile_sample *smp,
			    struct export_stats *stats);

/*
 * The name of inline frame j of r: its function, else "dso+0xrel_pc"
 * formatted into buf.
 */
const char *export_frame_name(const struct sym_result *r, unsigned int j,
			      char *buf, size_t len);

#endif /* FXTPROF_EXPORT_STACK_H */

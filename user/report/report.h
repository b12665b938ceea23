/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.h - the report engine (libreport.a), what the commands
 * `report`, `flamegraph` and `export` call:
 *   report_tree.h     a recording loaded, filtered and named: rtree, the
 *                     perf-like entries, folded stacks, the flame tree;
 *   report_annot.h    the region filters and --by-region;
 *   report_summary.h  the --summary section, fed from memory;
 *   report_diff.h     two recordings compared: diff, flamegraph --diff;
 * and here, the perf-like output of `fxtprof report` (report_print.c).
 */
#ifndef FXTPROF_REPORT_H
#define FXTPROF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "report_annot.h"
#include "report_summary.h"
#include "report_tree.h"

/* What `fxtprof report` prints of a loaded rtree. */
struct rt_print_opts {
	struct rt_sort sort;
	bool children;		/* a Children column, sorted by it */
	enum rt_graph graph;	/* -g: call chains under each entry */
	double percent_limit;	/* entries under this % are not printed */
};

/*
 * The header lines of @t (read from @path) and its entries by o->sort,
 * as perf report --stdio prints them.  0 or -ENOMEM.
 */
int rtree__print_report(const struct rtree *t, const struct rt_print_opts *o,
			const char *path, FILE *f);

#endif /* FXTPROF_REPORT_H */

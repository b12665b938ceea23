/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_diff.h - two recordings compared, for `fxtprof diff`,
 * `flamegraph --diff` and `export --diff-base`: BASE (before, board A)
 * and NEW (after, board B), each loaded as an rtree with the same options.
 *
 * Recordings of different lengths or sampling rates are compared by share:
 * a function's samples as a fraction of its own recording's samples.
 * Where counts are shown side by side (folded stacks, the flame graph's
 * widths), BASE's counts are scaled to NEW's total, as difffolded.pl -n
 * does: scale = NEW's samples / BASE's samples.
 */
#ifndef FXTPROF_REPORT_DIFF_H
#define FXTPROF_REPORT_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report_tree.h"

enum { RT_BASE, RT_NEW };

/* One function of either recording, matched by name, object and space. */
struct rt_diff_entry {
	const char *name, *dso;		/* held by the rtree it came from */
	bool kernel;
	uint64_t self[2], children[2];	/* samples, [RT_BASE] and [RT_NEW] */
	double d_self, d_children;	/* NEW's share - BASE's, in % points */
};

struct rt_diff {
	struct rt_diff_entry *e;	/* by |d_self| (or |d_children|) */
	size_t n;
	uint64_t total[2];		/* selected samples */
};

/*
 * Every function of @base and @new with its self and children counts in
 * both, sorted by the size of its change: of self, or of children when
 * @by_children.  0 or -ENOMEM.  Both trees must hold samples: the caller
 * says so otherwise (rt_diff__check_inputs()).
 */
int rt_diff__build(struct rt_diff *d, const struct rtree *base,
		   const struct rtree *new, bool by_children);
void rt_diff__free(struct rt_diff *d);

/*
 * 0 if both trees hold selected samples, else -ENODATA with a sentence
 * naming the empty one printed to stderr.
 */
int rt_diff__check_inputs(const struct rtree *base, const char *base_path,
			  const struct rtree *new, const char *new_path);

/*
 * The header (both recordings' own, their lengths and rates, how they are
 * normalised) and the first @limit entries that changed (0: all).
 */
void rt_diff__print(const struct rt_diff *d, const struct rtree *base,
		    const char *base_path, const struct rtree *new,
		    const char *new_path, size_t limit, FILE *f);

/*
 * Brendan Gregg's difffolded format: "comm;root;...;leaf BASE NEW" for
 * every stack of either, BASE's count scaled to NEW's total and rounded.
 * 0 or -ENOMEM.
 */
int rt_diff__print_folded(const struct rtree *base, const struct rtree *new,
			  FILE *f);

/*
 * For each node of @nf (NEW's flame tree), the node of @bf (BASE's) on the
 * same path of names, or 0: *out[i], allocated.  0 or -ENOMEM.
 */
int rt_flame__match(const struct rt_flame *nf, const struct rtree *nt,
		    const struct rt_flame *bf, const struct rtree *bt,
		    uint32_t **out);

#endif /* FXTPROF_REPORT_DIFF_H */

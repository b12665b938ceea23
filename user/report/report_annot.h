/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_annot.h - the application annotations in `report`,
 * `flamegraph` and `export` (Documentation/reports.md, "Regions"):
 *   --region GLOB, --kernel GLOB, --section GLOB
 *       keep the samples taken inside an interval of that kind whose name
 *       matches, on the sample's own thread, at any depth; repeatable,
 *       a sample matching any of them is kept;
 *   --by-region
 *       the thread's region and kernel stack at the sample become the
 *       root frames of its stack, so graphs and folded stacks split by
 *       region.
 * report_tree.c calls these hooks, and export.c the filters; the
 * intervals are user/profile's.
 */
#ifndef FXTPROF_REPORT_ANNOT_H
#define FXTPROF_REPORT_ANNOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct profile;

#define RT_ANNOT_MAX_PATTERNS	64
/* Nesting levels looked at per sample: the outermost ones. */
#define RT_ANNOT_MAX_DEPTH	256
/* The dso of the frames --by-region adds. */
#define RT_ANNOT_DSO		"[annotation]"

struct rt_annot_pattern {
	const char *glob;	/* fnmatch(3) pattern, argv's */
	uint8_t kind;		/* enum profile_annot_kind */
};

struct rt_annot_opts {
	struct rt_annot_pattern pats[RT_ANNOT_MAX_PATTERNS];
	unsigned int nr_pats;
	bool by_region;
};

/* What the load found, for the header, and per-interval caches. */
struct rt_annot_result {
	uint64_t matched;	/* intervals a pattern matches */
	uint64_t dropped;	/* samples the other filters kept, these not */
	const struct profile_annot *first;	/* the intervals' array */
	uint8_t *match;		/* per interval: a pattern matches it */
	uint32_t *frame;	/* per interval: --by-region symbol id + 1 */
};

/* As rt_opts__parse(): 1 if argv[*i] was one of ours, 0, or -EINVAL. */
int rt_annot__parse(struct rt_annot_opts *o, int argc, char **argv, int *i);
/* One pattern: kind "region", "kernel" or "section".  0 or -EINVAL. */
int rt_annot__add(struct rt_annot_opts *o, const char *kind,
		  const char *glob);
void rt_annot__usage(FILE *f);

/*
 * Count the intervals the patterns match (res is then released by
 * rt_annot__release()).  With patterns and no match, print which names
 * the recording has and return -ENOENT; -ENOMEM.
 */
int rt_annot__check(const struct rt_annot_opts *o, const struct profile *p,
		    const char *path, struct rt_annot_result *res);
void rt_annot__release(struct rt_annot_result *res);
/* Whether sample i is kept: true without patterns. */
bool rt_annot__keeps(const struct rt_annot_opts *o,
		     const struct rt_annot_result *res,
		     const struct profile *p, size_t i);
/* Interns a --by-region frame name: its symbol id to *id, or -errno. */
typedef int (*rt_annot_intern_fn)(void *ctx, const char *name,
				  const char *dso, uint32_t *id);
/*
 * With --by-region: sample i's region and kernel frames as symbol ids in
 * ids[] (at most RT_ANNOT_MAX_DEPTH, innermost first, as stacks are leaf
 * first), named once per interval through @intern.  Returns how many, or
 * -errno.
 */
int rt_annot__frames(const struct rt_annot_opts *o,
		     struct rt_annot_result *res, const struct profile *p,
		     size_t i, rt_annot_intern_fn intern, void *ctx,
		     uint32_t *ids);
/* "--region 'x': KEPT of OF samples kept, in N matching intervals". */
void rt_annot__print_kept(const struct rt_annot_opts *o,
			  const struct rt_annot_result *res, uint64_t kept,
			  uint64_t of, FILE *f);
/* Header lines ("# ..."): the annotations, and what the patterns kept. */
void rt_annot__print_header(const struct profile *p, uint64_t kept,
			    const struct rt_annot_opts *o,
			    const struct rt_annot_result *res, FILE *f);

#endif /* FXTPROF_REPORT_ANNOT_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_tree.h - what `fxtprof report` and `fxtprof flamegraph` share:
 * a loaded profile filtered, its frames named once per distinct address,
 * and the aggregations the two print (perf-like entries with self and
 * children counts, call trees, folded stacks).
 *
 * Every frame becomes a symbol id: one per distinct (function or
 * dso+0xoffset, dso, kernel or user), so aggregating is integer work.
 */
#ifndef FXTPROF_REPORT_TREE_H
#define FXTPROF_REPORT_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"
#include "report_annot.h"
#include "report_wall.h"
#include "symbolize/symbolizer.h"

#define RT_MAX_LIST	64	/* values of one --pid/--tid/--cpu/--comm */

/*
 * Reads a --time spec against the first sample's timestamp into an
 * inclusive range of absolute ns: 0, or -EINVAL with a sentence printed.
 * The front end's, so that the report and archive commands select alike.
 */
typedef int (*rt_time_parse_fn)(const char *spec, uint64_t first_sample,
				uint64_t *from_ns, uint64_t *to_ns);

/* Which samples count; empty lists select everything. */
struct rt_filter {
	uint32_t pids[RT_MAX_LIST], tids[RT_MAX_LIST], cpus[RT_MAX_LIST];
	unsigned int nr_pids, nr_tids, nr_cpus;
	const char *comms[RT_MAX_LIST];
	unsigned int nr_comms;
	/* fnmatch() patterns of the process's cgroup v2 path (--cgroup). */
	const char *cgroups[RT_MAX_LIST];
	unsigned int nr_cgroups;
	/* Pids as the processes see themselves, in their namespace. */
	uint32_t nspids[RT_MAX_LIST];
	unsigned int nr_nspids;
	const char *time;	/* --time FROM,TO as given, or NULL */
	rt_time_parse_fn parse_time;	/* needed with a --time */
};

/*
 * What the trees weigh: samples (one each), or ns: the off-CPU waits'
 * (--off-cpu), or every thread's elapsed time, its waits and its time on
 * a CPU spread over its samples (--wall, report_wall.h).
 */
enum rt_weigh {
	RT_WEIGH_SAMPLES,
	RT_WEIGH_OFF_CPU,
	RT_WEIGH_WALL,
};

/* The options the front ends share (filters, symbol sources). */
struct rt_opts {
	struct rt_filter filter;
	struct symbolizer_opts sym;
	struct rt_annot_opts annot;	/* --region..., --by-region */
	enum rt_weigh weigh;		/* --off-cpu, --wall */
	/*
	 * Set by the command (user/cmd/copy_unwind.h): gives the samples
	 * with a stack copy their unwound user frames after the load.
	 */
	int (*unwind_copies)(struct profile *p,
			     const struct symbolizer_opts *sym);
};

/*
 * Parse one shared option at argv[*i] (advancing *i past its value):
 * 1 if it was one, 0 if not, -EINVAL (with a message printed) if bad.
 */
int rt_opts__parse(struct rt_opts *o, int argc, char **argv, int *i);
/* The help lines of the shared options. */
void rt_opts__usage(FILE *f);

struct rt_sym {
	const char *name;	/* function, or "dso+0xoffset" */
	const char *dso;
	bool kernel;
	bool resolved;
	uint8_t status;		/* enum sym_status of its first frame */
};

/*
 * The selected samples with one comm, pid, idleness and stack: their
 * frames as symbol ids, leaf first, and how many they are.  s is the
 * first of them.
 */
struct rt_sample {
	const struct profile_sample *s;
	uint32_t first;		/* in rtree.stack[] */
	uint32_t n;
	bool idle;
	uint32_t leaf;		/* a wait's waker frame + 1: stack[first] */
	uint64_t weight;	/* samples, or ns (rtree.weigh) */
};

struct rtree {
	struct profile *p;
	struct symbolizer *sym;
	struct rt_sym *syms;
	size_t nr_syms, cap_syms;
	uint32_t *stack;
	size_t nr_stack, cap_stack;
	struct rt_sample *samples;	/* distinct stacks */
	size_t nr_samples;
	uint64_t total;			/* selected samples, or ns */
	enum rt_weigh weigh;		/* rt_opts.weigh */
	uint64_t waits, on_cpu;		/* selected waits; samples, --wall */
	uint64_t period_ns;		/* --wall: a sample's, without runs */
	struct wall_stats wall;		/* --wall: how the samples weighed */
	uint64_t t_from, t_to;		/* the --time window, ns */
	uint64_t frames, resolved;	/* of the selected samples */
	const struct rt_annot_opts *annot;
	struct rt_annot_result annot_res;
	void *priv;			/* caches */
};

/*
 * Load path, select the samples the filter keeps, name their frames.
 * Errors print a sentence (with the byte offset for bad input) and
 * return -errno.
 */
int rtree__load(struct rtree *t, const char *path, const struct rt_opts *o);
void rtree__free(struct rtree *t);
/* The symbol id of a frame that is not an address (user, named). */
int rtree__intern(struct rtree *t, const char *name, const char *dso,
		  uint32_t *id);

/* The header lines: samples, frames resolved, why names are missing. */
void rtree__print_header(const struct rtree *t, FILE *f, const char *path);

/* ---- perf-report entries ------------------------------------------- */

enum rt_key {
	RT_KEY_COMM = 1u << 0,
	RT_KEY_PID = 1u << 1,
	RT_KEY_DSO = 1u << 2,
	RT_KEY_SYM = 1u << 3,
};

/* Up to 4 keys in print order. */
struct rt_sort {
	enum rt_key keys[4];
	unsigned int n;
	unsigned int mask;
};
int rt_sort__parse(struct rt_sort *s, const char *spec);

struct rt_entry {
	const char *comm;
	uint32_t pid;
	const char *dso;
	uint32_t sym;		/* symbol id, when sorted by sym */
	bool kernel;
	uint64_t self, children;
	uint32_t graph;		/* root of its call graph in the node pool */
};

struct rt_node {
	uint32_t sym;
	uint32_t child, next;	/* 0 = none */
	uint64_t count;
};

struct rt_report {
	struct rt_entry *e;
	size_t n;
	struct rt_node *nodes;	/* [0] unused */
	size_t nr_nodes, cap_nodes;
	uint64_t total;
};

enum rt_graph { RT_GRAPH_NONE, RT_GRAPH_CALLER, RT_GRAPH_CALLEE };

/*
 * Entries by the sort keys, sorted by children (if children) else self
 * count.  With a graph, each entry gets the call chains from it up to
 * the root of the samples it counts in: with children, every sample it
 * is in; without, the samples it is the leaf of (as perf does).
 */
int rt_report__build(struct rt_report *r, const struct rtree *t,
		     const struct rt_sort *sort, bool children,
		     enum rt_graph graph);
void rt_report__free(struct rt_report *r);
/* Call-tree children of node, most samples first. */
void rt_report__sort_children(struct rt_report *r, uint32_t node);

/* ---- folded stacks and the flame graph tree ------------------------- */

/* One line per distinct stack, root first, sorted: comm;root;...;leaf N */
int rtree__print_folded(const struct rtree *t, FILE *f);

/* The same lines in memory: sorted by line (strcmp), each one distinct. */
struct rt_folded_line {
	char *line;		/* comm;root;...;leaf */
	uint64_t count;
};
struct rt_folded {
	struct rt_folded_line *l;
	size_t n;
};
int rtree__folded(const struct rtree *t, struct rt_folded *out);
void rt_folded__free(struct rt_folded *f);

/*
 * The flame graph's tree: node 1 is "all", its children the comms, then
 * frames root first.  Node names: sym ids; comms are given by comm[].
 */
struct rt_flame {
	struct rt_node *nodes;
	size_t nr_nodes, cap_nodes;
	const char **comm;	/* per node: the comm for level-1 nodes */
	bool *idle;
};
int rt_flame__build(struct rt_flame *fl, const struct rtree *t);
void rt_flame__free(struct rt_flame *fl);

#endif /* FXTPROF_REPORT_TREE_H */

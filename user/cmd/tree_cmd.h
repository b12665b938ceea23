/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tree_cmd.h - what the commands that print a recording's call tree
 * (report, flamegraph) share: their option loop around the tree options
 * of user/report/report_tree.h, and loading the tree from an FXT file or
 * an archive.
 */
#ifndef FXTPROF_CMD_TREE_CMD_H
#define FXTPROF_CMD_TREE_CMD_H

#include <stdio.h>

struct rt_opts;
struct rtree;

struct tree_cmd_args {
	const char *name;		/* "report": the error line names it */
	int (*usage)(FILE *f);		/* the command's; CMD_EXIT_USAGE */
	/*
	 * The command's own option at argv[*i], which may take its value
	 * at argv[++*i]: 1 taken, 0 not one of its own, -EINVAL for a bad
	 * value.
	 */
	int (*own_opt)(void *ctx, int argc, char **argv, int *i);
	void *ctx;			/* for own_opt */
	struct rt_opts *rt;		/* filled by rt_opts__parse() */
	const char **path;		/* the FILE operand, "-": stdin */
};

/*
 * Parse @argv: -h, the tree options, the command's own and one FILE.
 * 0, -1 when -h printed the usage (the command exits 0), or
 * CMD_EXIT_USAGE (a sentence or the usage was printed).
 */
int tree_cmd__parse(const struct tree_cmd_args *ta, int argc, char **argv);

/*
 * The call tree of @path (FXT, or an archive of which only the chunks
 * --time needs are read) as @rt selects: 0, or -errno with a sentence
 * printed and nothing left to free.
 */
int tree_cmd__load(struct rtree *t, const char *path, struct rt_opts *rt);

#endif /* FXTPROF_CMD_TREE_CMD_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * tree_cmd.c - the option loop and the tree loading that report and
 * flamegraph share (tree_cmd.h).
 */
#include <errno.h>
#include <string.h>

#include "cmd.h"
#include "archive_input.h"
#include "copy_unwind.h"
#include "tree_cmd.h"
#include "report/report_tree.h"

int tree_cmd__parse(const struct tree_cmd_args *ta, int argc, char **argv)
{
	int i, ret;

	ta->rt->filter.parse_time = archive_time_spec__parse;
	ta->rt->unwind_copies = copy_unwind__apply;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		ret = rt_opts__parse(ta->rt, argc, argv, &i);
		if (ret < 0)
			return CMD_EXIT_USAGE;	/* it said why */
		if (ret)
			continue;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			ta->usage(stdout);
			return -1;
		}
		ret = ta->own_opt(ta->ctx, argc, argv, &i);
		if (ret < 0)
			return ta->usage(stderr);
		if (ret)
			continue;
		if (*ta->path || (a[0] == '-' && strcmp(a, "-"))) {
			fprintf(stderr, "fxtprof: %s: unknown option or "
				"extra argument '%s'\n", ta->name, a);
			return ta->usage(stderr);
		}
		*ta->path = a;
	}
	if (!*ta->path)
		return ta->usage(stderr);
	return 0;
}

int tree_cmd__load(struct rtree *t, const char *path, struct rt_opts *rt)
{
	struct archive_input ain;
	const char *load = path;
	int ret;

	/* An archive: only the chunks --time needs, through a pipe. */
	ret = archive_input__open_profile(&ain, &load, &rt->filter.time);
	if (ret < 0)
		return ret;
	ret = rtree__load(t, load, rt);
	if (archive_input__close(&ain) && !ret)
		ret = reader_err(-EIO, "%s could not be read whole", path);
	if (ret)
		rtree__free(t);
	return ret;
}

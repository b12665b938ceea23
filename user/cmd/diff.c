// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff.c - `fxtprof diff BASE NEW`: the functions whose share of the
 * samples changed most between two recordings, with their self and
 * children shares in both, in the manner of `perf diff`; `--folded`
 * prints both recordings' stacks side by side for difffolded consumers
 * (flamegraph.pl, inferno).  The work is the report engine's
 * (user/report/report_diff.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "tree_cmd.h"
#include "report/report_diff.h"

#define DIFF_LIMIT_DEFAULT	25

struct diff_opts {
	struct rt_opts rt;
	const char *base, *path;
	bool folded, by_children;
	size_t limit;
};

static int usage(FILE *f)
{
	fprintf(f,
		"usage: fxtprof diff [options] BASE NEW\n"
		"  the functions whose share of the samples changed most from "
		"BASE to NEW,\n"
		"  with their self and children shares in both; recordings of "
		"different\n"
		"  lengths and rates compare by share\n"
		"  -n N          the first N functions (default %d; 0: all)\n"
		"  --children    rank by the change of children, not of self\n"
		"  --folded      both recordings' stacks instead, as difffolded "
		"prints\n"
		"                them: comm;root;...;leaf BASE NEW, BASE scaled "
		"to NEW's\n"
		"                samples\n", DIFF_LIMIT_DEFAULT);
	rt_opts__usage(f);
	fprintf(f, "  The options select and name the samples of both.\n");
	return f == stdout ? 0 : CMD_EXIT_USAGE;
}

/* diff's own options, and BASE: the first operand (tree_cmd_args). */
static int diff_opt(void *ctx, int argc, char **argv, int *i)
{
	struct diff_opts *o = ctx;
	const char *a = argv[*i];

	if (!strcmp(a, "-n") && *i + 1 < argc) {
		char *end;

		o->limit = strtoul(argv[++*i], &end, 10);
		if (*end || argv[*i][0] == '-')
			return -EINVAL;
	} else if (!strcmp(a, "--children")) {
		o->by_children = true;
	} else if (!strcmp(a, "--folded")) {
		o->folded = true;
	} else if (!o->base && (a[0] != '-' || !strcmp(a, "-"))) {
		o->base = a;
	} else {
		return 0;
	}
	return 1;
}

int cmd_diff(int argc, char **argv)
{
	const struct tree_cmd_args ta = {
		.name = "diff", .usage = usage, .own_opt = diff_opt,
	};
	struct tree_cmd_args args = ta;
	struct rtree base, new;
	struct rt_diff d;
	struct diff_opts o;
	int ret, status = CMD_EXIT_FAILED;

	memset(&o, 0, sizeof(o));
	o.limit = DIFF_LIMIT_DEFAULT;
	args.ctx = &o;
	args.rt = &o.rt;
	args.path = &o.path;
	ret = tree_cmd__parse(&args, argc, argv);
	if (ret)
		return ret < 0 ? CMD_EXIT_OK : ret;
	if (!strcmp(o.base, "-") && !strcmp(o.path, "-")) {
		fprintf(stderr, "fxtprof: diff: BASE and NEW cannot both be "
			"standard input\n");
		return CMD_EXIT_USAGE;
	}
	if (tree_cmd__load(&base, o.base, &o.rt))
		return CMD_EXIT_FAILED;
	if (tree_cmd__load(&new, o.path, &o.rt))
		goto out_base;
	if (rt_diff__check_inputs(&base, o.base, &new, o.path))
		goto out_new;
	if (o.folded) {
		ret = rt_diff__print_folded(&base, &new, stdout);
	} else {
		ret = rt_diff__build(&d, &base, &new, o.by_children);
		if (!ret) {
			rt_diff__print(&d, &base, o.base, &new, o.path,
				       o.limit, stdout);
			rt_diff__free(&d);
		}
	}
	if (ret)
		reader_err(ret, "diff");
	else if (!fflush(stdout))
		status = CMD_EXIT_OK;
out_new:
	rtree__free(&new);
out_base:
	rtree__free(&base);
	return status;
}

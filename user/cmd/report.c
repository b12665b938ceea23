// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - the `fxtprof report` command: `report FILE`, the top
 * functions of a recording in the manner of `perf report --stdio`
 * (Children, Self, Command, Shared Object, Symbol), with perf's --sort
 * keys, filters and -g call trees; `report --summary FILE`, the record
 * and process summary instead.  This file parses options and opens the
 * input; the work is the report engine's (user/report/report.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "archive_input.h"
#include "tree_cmd.h"
#include "report/report.h"

/* Bytes --summary reads at a time. */
#define SUMMARY_CHUNK	(256 * 1024)

struct report_opts {
	struct rt_opts rt;
	struct rt_print_opts print;
	const char *path;
};

static int usage(FILE *f)
{
	fprintf(f,
		"usage: fxtprof report [options] FILE|-\n"
		"  the top functions of a recording, as perf report --stdio "
		"prints them\n"
		"  --sort KEYS  comma list of comm, pid, dso, sym "
		"(default comm,dso,sym)\n"
		"  --no-children\n"
		"              self time only (default: Children and Self "
		"columns)\n"
		"  -g caller|callee\n"
		"              under each entry, its call chains up to the "
		"root: root\n"
		"              first (caller) or the entry first (callee)\n"
		"  --percent-limit P\n"
		"              hide entries under P%% (default 0)\n");
	rt_opts__usage(f);
	fprintf(f,
		"  --summary [-n N]\n"
		"              the record summary instead: records by type, "
		"events by\n"
		"              name, losses, top N processes and threads\n");
	return f == stdout ? 0 : CMD_EXIT_USAGE;
}

/* report's own options (tree_cmd_args.own_opt). */
static int report_opt(void *ctx, int argc, char **argv, int *i)
{
	struct rt_print_opts *p = ctx;
	const char *a = argv[*i];

	if (!strcmp(a, "--sort") && *i + 1 < argc) {
		if (rt_sort__parse(&p->sort, argv[++*i]))
			return -EINVAL;
	} else if (!strcmp(a, "--no-children")) {
		p->children = false;
	} else if (!strcmp(a, "--children")) {
		p->children = true;
	} else if (!strcmp(a, "-g") && *i + 1 < argc) {
		a = argv[++*i];
		if (!strcmp(a, "caller")) {
			p->graph = RT_GRAPH_CALLER;
		} else if (!strcmp(a, "callee")) {
			p->graph = RT_GRAPH_CALLEE;
		} else {
			fprintf(stderr, "fxtprof: -g wants caller or "
				"callee, not '%s'\n", a);
			return -EINVAL;
		}
	} else if (!strcmp(a, "--percent-limit") && *i + 1 < argc) {
		char *end;

		p->percent_limit = strtod(argv[++*i], &end);
		if (*end || !(p->percent_limit >= 0))
			return -EINVAL;
	} else {
		return 0;
	}
	return 1;
}

static int parse_args(struct report_opts *o, int argc, char **argv)
{
	const struct tree_cmd_args ta = {
		.name = "report", .usage = usage,
		.own_opt = report_opt, .ctx = &o->print,
		.rt = &o->rt, .path = &o->path,
	};

	memset(o, 0, sizeof(*o));
	o->print.children = true;
	rt_sort__parse(&o->print.sort, "comm,dso,sym");
	return tree_cmd__parse(&ta, argc, argv);
}

static int summary_usage(FILE *f)
{
	fprintf(f, "usage: fxtprof report --summary [-n N] FILE|-\n"
		   "  summarize an FXT trace: records by type, events by name,\n"
		   "  losses, and the top N (default 10) processes and threads\n"
		   "  by samples\n");
	return 2;
}

/* `fxtprof report --summary [-n N] FILE` (argv without --summary). */
static int summary_main(int argc, char **argv)
{
	struct report *rp = NULL;
	const struct fxt_error *e;
	const char *path = NULL;
	unsigned int top = 10;
	char *chunk = NULL;
	FILE *in = NULL;
	int i, err = 0, ret = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			summary_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			char *end;

			top = (unsigned int)strtoul(argv[++i], &end, 10);
			if (*end || !top)
				return summary_usage(stderr);
		} else if (!path && (argv[i][0] != '-' || !strcmp(argv[i], "-"))) {
			path = argv[i];
		} else {
			return summary_usage(stderr);
		}
	}
	if (!path)
		return summary_usage(stderr);
	in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!in) {
		reader_err(errno, "%s", path);
		return 2;
	}
	chunk = malloc(SUMMARY_CHUNK);
	if (!chunk || report__new(&rp)) {
		reader_err(ENOMEM, "report");
		goto out;
	}
	for (;;) {
		size_t got = fread(chunk, 1, SUMMARY_CHUNK, in);

		err = report__feed(rp, chunk, got);
		if (err < 0 || got < SUMMARY_CHUNK)
			break;
	}
	if (ferror(in)) {
		reader_err(EIO, "%s", path);
		goto out;
	}
	if (!err)
		err = report__finish(rp);
	report__print(rp, stdout, path, top);
	if (err) {
		e = report__error(rp);
		if (e)
			fprintf(stderr, "fxtprof report: stopped at offset 0x%"
				PRIx64 ": %s: %s\n", e->offset, e->rule, e->msg);
		else
			reader_err(err, "report: %s", path);
		goto out;
	}
	ret = 0;
out:
	report__free(rp);
	free(chunk);
	if (in && in != stdin)
		fclose(in);
	return ret;
}

static int strip_summary(int argc, char **argv, char ***out)
{
	char **nv = calloc((size_t)argc + 1, sizeof(*nv));
	int i, n = 0;

	if (!nv)
		return -ENOMEM;
	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "--summary"))
			nv[n++] = argv[i];
	*out = nv;
	return n;
}

/* --summary [-n N] FILE: an archive is summarized as its whole stream. */
static int summary_of_archive(int argc, char **argv)
{
	struct archive_input ain;
	const char *path;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n"))
			i++;
		else if (argv[i][0] != '-' || !strcmp(argv[i], "-"))
			break;
	}
	if (i >= argc)
		return summary_main(argc, argv);
	path = argv[i];
	if (archive_input__open(&ain, &path, 0, UINT64_MAX) < 0)
		return CMD_EXIT_FAILED;
	argv[i] = (char *)path;
	ret = summary_main(argc, argv);
	if (archive_input__close(&ain) && !ret) {
		reader_err(-EIO, "%s could not be read whole", ain.path);
		ret = CMD_EXIT_FAILED;
	}
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct rtree t;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--summary")) {
			char **nv;
			int n = strip_summary(argc, argv, &nv);

			if (n < 0)
				return reader_err(n, "report"), CMD_EXIT_FAILED;
			ret = summary_of_archive(n, nv);
			free(nv);
			return ret;
		}
	}
	ret = parse_args(&o, argc, argv);
	if (ret)
		return ret < 0 ? CMD_EXIT_OK : ret;
	if (tree_cmd__load(&t, o.path, &o.rt))
		return CMD_EXIT_FAILED;
	ret = rtree__print_report(&t, &o.print, o.path, stdout);
	if (ret)
		reader_err(ret, "report");
	rtree__free(&t);
	return ret || fflush(stdout) ? CMD_EXIT_FAILED : CMD_EXIT_OK;
}

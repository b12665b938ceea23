// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_cmd.c - `fxtprof report FILE`: the top functions of a recording
 * in the manner of `perf report --stdio` (Children, Self, Command, Shared
 * Object, Symbol), with perf's --sort keys, filters and -g call trees.
 * `--summary` prints the record/process summary of report.c instead.
 * The work is report_tree.c's; this file parses options and prints.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "archive_input.h"
#include "report.h"
#include "report_tree.h"

#define GRAPH_MIN_PCT	0.5	/* perf's default call-graph threshold */

struct report_opts {
	struct rt_opts rt;
	struct rt_sort sort;
	bool children;
	enum rt_graph graph;
	double percent_limit;
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

static int parse_args(struct report_opts *o, int argc, char **argv)
{
	int i, ret;

	memset(o, 0, sizeof(*o));
	o->children = true;
	rt_sort__parse(&o->sort, "comm,dso,sym");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		ret = rt_opts__parse(&o->rt, argc, argv, &i);
		if (ret < 0)
			return CMD_EXIT_USAGE;
		if (ret)
			continue;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		} else if (!strcmp(a, "--sort") && i + 1 < argc) {
			if (rt_sort__parse(&o->sort, argv[++i]))
				return CMD_EXIT_USAGE;
		} else if (!strcmp(a, "--no-children")) {
			o->children = false;
		} else if (!strcmp(a, "--children")) {
			o->children = true;
		} else if (!strcmp(a, "-g") && i + 1 < argc) {
			a = argv[++i];
			if (!strcmp(a, "caller"))
				o->graph = RT_GRAPH_CALLER;
			else if (!strcmp(a, "callee"))
				o->graph = RT_GRAPH_CALLEE;
			else {
				fprintf(stderr, "fxtprof: -g wants caller or "
					"callee, not '%s'\n", a);
				return CMD_EXIT_USAGE;
			}
		} else if (!strcmp(a, "--percent-limit") && i + 1 < argc) {
			char *end;

			o->percent_limit = strtod(argv[++i], &end);
			if (*end || !(o->percent_limit >= 0))
				return usage(stderr);
		} else if (!o->path && (a[0] != '-' || !strcmp(a, "-"))) {
			o->path = a;
		} else {
			fprintf(stderr, "fxtprof: report: unknown option or "
				"extra argument '%s'\n", a);
			return usage(stderr);
		}
	}
	if (!o->path)
		return usage(stderr);
	return 0;
}

static double pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

struct columns {
	int comm, pid, dso;
};

static const char *sym_label(const struct rtree *t, const struct rt_entry *e)
{
	return t->syms[e->sym].name;
}

static void print_keys(FILE *f, const struct rtree *t,
		       const struct rt_sort *sort, const struct columns *w,
		       const struct rt_entry *e)
{
	unsigned int k;

	for (k = 0; k < sort->n; k++) {
		/* The last column is not padded: no trailing blanks. */
		bool last = k + 1 == sort->n;

		switch (sort->keys[k]) {
		case RT_KEY_COMM:
			fprintf(f, "  %-*s", last ? 0 : w->comm, e->comm);
			break;
		case RT_KEY_PID:
			fprintf(f, "  %*" PRIu32, w->pid, e->pid);
			break;
		case RT_KEY_DSO:
			fprintf(f, "  %-*s", last ? 0 : w->dso, e->dso);
			break;
		case RT_KEY_SYM:
			fprintf(f, "  [%c] %s", e->kernel ? 'k' : '.',
				sym_label(t, e));
			break;
		}
	}
	fputc('\n', f);
}

static void print_graph(FILE *f, const struct rtree *t, struct rt_report *r,
			uint32_t node, unsigned int depth)
{
	uint32_t c;

	rt_report__sort_children(r, node);
	for (c = r->nodes[node].child; c; c = r->nodes[c].next) {
		const struct rt_sym *s = &t->syms[r->nodes[c].sym];
		double p = pct(r->nodes[c].count, r->total);

		if (p < GRAPH_MIN_PCT)
			continue;
		fprintf(f, "%*s%6.2f%%  %s%s\n", 14 + 2 * (int)(depth % 40), "",
			p, s->name, s->kernel ? " [k]" : "");
		print_graph(f, t, r, c, depth + 1);
	}
}

static void print_report(FILE *f, const struct rtree *t,
			 const struct report_opts *o, struct rt_report *r)
{
	struct columns w = { 7, 7, 13 };
	unsigned int k;
	size_t i;

	/* Column widths from what is printed, as perf sizes them. */
	for (i = 0; i < r->n; i++) {
		const struct rt_entry *e = &r->e[i];
		int n;

		if (e->comm && (n = (int)strlen(e->comm)) > w.comm)
			w.comm = n;
		if (e->dso && (n = (int)strlen(e->dso)) > w.dso)
			w.dso = n;
	}
	fprintf(f, "# Samples: %" PRIu64 "; percentages are of these\n#\n#",
		r->total);
	if (o->children)
		fprintf(f, " %9s", "Children");
	fprintf(f, " %9s", "Self");
	for (k = 0; k < o->sort.n; k++) {
		bool last = k + 1 == o->sort.n;

		switch (o->sort.keys[k]) {
		case RT_KEY_COMM:
			fprintf(f, "  %-*s", last ? 0 : w.comm, "Command");
			break;
		case RT_KEY_PID: fprintf(f, "  %*s", w.pid, "Pid"); break;
		case RT_KEY_DSO:
			fprintf(f, "  %-*s", last ? 0 : w.dso, "Shared Object");
			break;
		case RT_KEY_SYM: fprintf(f, "  Symbol"); break;
		}
	}
	fprintf(f, "\n#\n");
	for (i = 0; i < r->n; i++) {
		const struct rt_entry *e = &r->e[i];
		double shown = pct(o->children ? e->children : e->self,
				   r->total);

		if (shown < o->percent_limit || (!o->children && !e->self))
			continue;
		if (o->children)
			fprintf(f, "  %8.2f%%", pct(e->children, r->total));
		fprintf(f, "  %8.2f%%", pct(e->self, r->total));
		print_keys(f, t, &o->sort, &w, e);
		if (o->graph && e->graph) {
			print_graph(f, t, r, e->graph, 0);
			fputc('\n', f);
		}
	}
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
		return report_summary_main(argc, argv);
	path = argv[i];
	if (archive_input__open(&ain, &path, 0, UINT64_MAX) < 0)
		return CMD_EXIT_FAILED;
	argv[i] = (char *)path;
	ret = report_summary_main(argc, argv);
	if (archive_input__close(&ain) && !ret) {
		reader_err(-EIO, "%s could not be read whole", ain.path);
		ret = CMD_EXIT_FAILED;
	}
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct archive_input ain;
	const char *load;
	struct rt_report r;
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
	/* An archive: only the chunks --time needs, through a pipe. */
	load = o.path;
	if (archive_input__open_profile(&ain, &load, &o.rt.filter.time) < 0)
		return CMD_EXIT_FAILED;
	ret = rtree__load(&t, load, &o.rt);
	if (archive_input__close(&ain) && !ret)
		ret = reader_err(-EIO, "%s could not be read whole", o.path);
	if (ret) {
		rtree__free(&t);
		return CMD_EXIT_FAILED;
	}
	ret = rt_report__build(&r, &t, &o.sort, o.children, o.graph);
	if (ret) {
		reader_err(ret, "report");
		rtree__free(&t);
		return CMD_EXIT_FAILED;
	}
	rtree__print_header(&t, stdout, o.path);
	print_report(stdout, &t, &o, &r);
	rt_report__free(&r);
	rtree__free(&t);
	return fflush(stdout) ? CMD_EXIT_FAILED : CMD_EXIT_OK;
}

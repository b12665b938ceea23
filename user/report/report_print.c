// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_print.c - the output of `fxtprof report` in the manner of
 * `perf report --stdio`: the Children, Self, Command, Shared Object and
 * Symbol columns, sized from what is printed as perf sizes them, and the
 * -g call chains under each entry.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

#define GRAPH_MIN_PCT	0.5	/* perf's default call-graph threshold */

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

/*
 * A pid as the column shows it: "PID", or "PID/NSPID" for a process
 * whose pid in its own namespace (a container's) is another.
 */
static void pid_label(const struct rtree *t, uint32_t pid, char *buf,
		      size_t n)
{
	const struct profile_process *pr = t->p ? profile__process(t->p, pid) :
					   NULL;

	if (pr && pr->nspid >= 0 && (uint32_t)pr->nspid != pid)
		snprintf(buf, n, "%" PRIu32 "/%" PRId32, pid, pr->nspid);
	else
		snprintf(buf, n, "%" PRIu32, pid);
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
		case RT_KEY_PID: {
			char pid[32];

			pid_label(t, e->pid, pid, sizeof(pid));
			fprintf(f, "  %*s", w->pid, pid);
			break;
		}
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

static void print_entries(FILE *f, const struct rtree *t,
			  const struct rt_print_opts *o, struct rt_report *r)
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
		if (o->sort.mask & RT_KEY_PID) {
			char pid[32];

			pid_label(t, e->pid, pid, sizeof(pid));
			if ((n = (int)strlen(pid)) > w.pid)
				w.pid = n;
		}
	}
	if (t->weigh)
		fprintf(f, "# %s: %.3f s; percentages are of this\n#\n#",
			t->weigh == RT_WEIGH_WALL ? "Wall clock" : "Off-CPU",
			(double)r->total / 1e9);
	else
		fprintf(f, "# Samples: %" PRIu64 "; percentages are of "
			"these\n#\n#", r->total);
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

int rtree__print_report(const struct rtree *t, const struct rt_print_opts *o,
			const char *path, FILE *f)
{
	struct rt_report r;
	int ret;

	ret = rt_report__build(&r, t, &o->sort, o->children, o->graph);
	if (ret)
		return ret;
	rtree__print_header(t, f, path);
	print_entries(f, t, o, &r);
	rt_report__free(&r);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_diff.c - two recordings compared (report_diff.h): functions
 * matched by name, object and space across the two trees, folded stacks
 * merged, and NEW's flame tree matched node by node against BASE's.
 *
 * Symbol ids are each tree's own, so everything is matched by name: a
 * function is the same in both when its name, its object's name and its
 * space (kernel or user) are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "report/report_diff.h"
#include "util/array_grow.h"

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

/* ---- functions ---------------------------------------------------------- */

struct side_entry {
	const struct rtree *t;
	const struct rt_entry *e;
	int side;
};

static int name_cmp(const char *an, const char *ad, bool ak,
		    const char *bn, const char *bd, bool bk)
{
	int c = strcmp(an, bn);

	if (c)
		return c;
	c = strcmp(ad, bd);
	if (c)
		return c;
	return (int)ak - (int)bk;
}

static int side_cmp(const void *a, const void *b)
{
	const struct side_entry *x = a, *y = b;
	int c = name_cmp(x->t->syms[x->e->sym].name, x->e->dso, x->e->kernel,
			 y->t->syms[y->e->sym].name, y->e->dso, y->e->kernel);

	return c ? c : x->side - y->side;
}

static bool diff_by_children;

static double magnitude(double x)
{
	return x < 0 ? -x : x;
}

static int change_cmp(const void *a, const void *b)
{
	const struct rt_diff_entry *x = a, *y = b;
	double dx = magnitude(diff_by_children ? x->d_children : x->d_self);
	double dy = magnitude(diff_by_children ? y->d_children : y->d_self);
	double ex = magnitude(diff_by_children ? x->d_self : x->d_children);
	double ey = magnitude(diff_by_children ? y->d_self : y->d_children);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	if (ex != ey)
		return ex < ey ? 1 : -1;
	return name_cmp(x->name, x->dso, x->kernel, y->name, y->dso,
			y->kernel);
}

int rt_diff__build(struct rt_diff *d, const struct rtree *base,
		   const struct rtree *new, bool by_children)
{
	const struct rtree *t[2] = { base, new };
	struct rt_report r[2] = { { 0 } };
	struct side_entry *all = NULL;
	struct rt_sort sort;
	size_t n = 0, cap = 0, i;
	int side, ret;

	memset(d, 0, sizeof(*d));
	rt_sort__parse(&sort, "dso,sym");
	for (side = 0; side < 2; side++) {
		ret = rt_report__build(&r[side], t[side], &sort, true,
				       RT_GRAPH_NONE);
		if (ret)
			goto out_reports;
		d->total[side] = t[side]->total;
		if (array_grow((void **)&all, &cap, n + r[side].n,
			       sizeof(*all))) {
			ret = -ENOMEM;
			goto out_reports;
		}
		for (i = 0; i < r[side].n; i++)
			all[n++] = (struct side_entry){ t[side], &r[side].e[i],
							side };
	}
	array_sort(all, n, sizeof(*all), side_cmp);
	d->e = calloc(n ? n : 1, sizeof(*d->e));
	if (!d->e) {
		ret = -ENOMEM;
		goto out_reports;
	}
	for (i = 0; i < n; i++) {
		const struct side_entry *s = &all[i];
		struct rt_diff_entry *de = d->n ? &d->e[d->n - 1] : NULL;

		if (!de || name_cmp(de->name, de->dso, de->kernel,
				    s->t->syms[s->e->sym].name, s->e->dso,
				    s->e->kernel)) {
			de = &d->e[d->n++];
			de->name = s->t->syms[s->e->sym].name;
			de->dso = s->e->dso;
			de->kernel = s->e->kernel;
		}
		de->self[s->side] += s->e->self;
		de->children[s->side] += s->e->children;
	}
	for (i = 0; i < d->n; i++) {
		struct rt_diff_entry *de = &d->e[i];

		de->d_self = share(de->self[RT_NEW], d->total[RT_NEW]) -
			     share(de->self[RT_BASE], d->total[RT_BASE]);
		de->d_children =
			share(de->children[RT_NEW], d->total[RT_NEW]) -
			share(de->children[RT_BASE], d->total[RT_BASE]);
	}
	diff_by_children = by_children;
	array_sort(d->e, d->n, sizeof(*d->e), change_cmp);
	ret = 0;
out_reports:
	free(all);
	rt_report__free(&r[0]);
	rt_report__free(&r[1]);
	if (ret)
		rt_diff__free(d);
	return ret;
}

void rt_diff__free(struct rt_diff *d)
{
	free(d->e);
	memset(d, 0, sizeof(*d));
}

int rt_diff__check_inputs(const struct rtree *base, const char *base_path,
			  const struct rtree *new, const char *new_path)
{
	const struct rtree *t = !base->total ? base : !new->total ? new : NULL;

	if (!t)
		return 0;
	fprintf(stderr, "fxtprof: %s: %s: there is nothing to compare\n",
		t == base ? base_path : new_path,
		profile__nr_samples(t->p) ? "the options select no sample" :
					    "it holds no samples");
	return -ENODATA;
}

/* ---- the perf-diff-like listing ----------------------------------------- */

/* The recording's length, first sample to last, and its samples per second. */
static void print_extent(const struct rtree *t, const char *what, FILE *f)
{
	size_t n = profile__nr_samples(t->p);
	double secs = 0;

	if (n > 1)
		secs = (double)(profile__sample(t->p, n - 1)->ts -
				profile__sample(t->p, 0)->ts) / 1e9;
	fprintf(f, "%s %" PRIu64 " samples selected, of %zu over %.2f s", what,
		t->total, n, secs);
	if (secs > 0)
		fprintf(f, " (%.0f a second)", (double)(n - 1) / secs);
}

void rt_diff__print(const struct rt_diff *d, const struct rtree *base,
		    const char *base_path, const struct rtree *new,
		    const char *new_path, size_t limit, FILE *f)
{
	size_t i, shown = 0;
	int dso_w = 13;

	fprintf(f, "# BASE\n");
	rtree__print_header(base, f, base_path);
	fprintf(f, "# NEW\n");
	rtree__print_header(new, f, new_path);
	fprintf(f, "# Compared by share, so that recordings of different "
		"lengths and rates compare:\n#  ");
	print_extent(base, "BASE:", f);
	fprintf(f, ";\n#  ");
	print_extent(new, "NEW:", f);
	fprintf(f, ".\n# A share is a function's samples as a percentage of "
		"its own recording's.\n# Delta is NEW's share minus BASE's, "
		"in percentage points; the largest changes first.\n#\n");
	for (i = 0; i < d->n && (!limit || i < limit); i++) {
		int w = (int)strlen(d->e[i].dso);

		if (w > dso_w && w < 40)
			dso_w = w;
	}
	fprintf(f, "# %10s %10s %10s %10s %10s %10s  %-*s  Symbol\n",
		"Delta self", "BASE self", "NEW self", "Delta chld",
		"BASE chld", "NEW chld", dso_w, "Shared Object");
	fprintf(f, "#\n");
	for (i = 0; i < d->n && (!limit || shown < limit); i++) {
		const struct rt_diff_entry *e = &d->e[i];

		if (e->d_self == 0 && e->d_children == 0)
			continue;
		fprintf(f, "  %+9.2f%% %9.2f%% %9.2f%% %+9.2f%% %9.2f%% "
			"%9.2f%%  %-*s  [%c] %s\n", e->d_self,
			share(e->self[RT_BASE], d->total[RT_BASE]),
			share(e->self[RT_NEW], d->total[RT_NEW]), e->d_children,
			share(e->children[RT_BASE], d->total[RT_BASE]),
			share(e->children[RT_NEW], d->total[RT_NEW]),
			dso_w, e->dso, e->kernel ? 'k' : '.', e->name);
		shown++;
	}
	if (!shown)
		fprintf(f, "# no function's share changed\n");
}

/* ---- folded stacks -------------------------------------------------------- */

static uint64_t scaled(uint64_t n, const struct rtree *base,
		       const struct rtree *new)
{
	if (!base->total)
		return 0;
	return (uint64_t)((double)n * (double)new->total /
			  (double)base->total + 0.5);
}

int rt_diff__print_folded(const struct rtree *base, const struct rtree *new,
			  FILE *f)
{
	struct rt_folded b = { 0 }, n = { 0 };
	size_t i = 0, j = 0;
	int ret;

	ret = rtree__folded(base, &b);
	if (!ret)
		ret = rtree__folded(new, &n);
	/* Both are sorted by line: one merge. */
	while (!ret && (i < b.n || j < n.n)) {
		int c = i == b.n ? 1 : j == n.n ? -1 :
			strcmp(b.l[i].line, n.l[j].line);

		if (c < 0) {
			fprintf(f, "%s %" PRIu64 " 0\n", b.l[i].line,
				scaled(b.l[i].count, base, new));
			i++;
		} else if (c > 0) {
			fprintf(f, "%s 0 %" PRIu64 "\n", n.l[j].line,
				n.l[j].count);
			j++;
		} else {
			fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", n.l[j].line,
				scaled(b.l[i].count, base, new), n.l[j].count);
			i++;
			j++;
		}
	}
	rt_folded__free(&b);
	rt_folded__free(&n);
	return ret;
}

/* ---- the flame trees ------------------------------------------------------ */

static bool same_node(const struct rt_flame *nf, const struct rtree *nt,
		      uint32_t a, const struct rt_flame *bf,
		      const struct rtree *bt, uint32_t b)
{
	const struct rt_sym *x, *y;

	if (nf->comm[a] || bf->comm[b])
		return nf->comm[a] && bf->comm[b] &&
		       !strcmp(nf->comm[a], bf->comm[b]) &&
		       nf->idle[a] == bf->idle[b];
	x = &nt->syms[nf->nodes[a].sym];
	y = &bt->syms[bf->nodes[b].sym];
	return !name_cmp(x->name, x->dso, x->kernel, y->name, y->dso,
			 y->kernel);
}

int rt_flame__match(const struct rt_flame *nf, const struct rtree *nt,
		    const struct rt_flame *bf, const struct rtree *bt,
		    uint32_t **out)
{
	uint32_t *m = calloc(nf->nr_nodes ? nf->nr_nodes : 1, sizeof(*m));
	uint32_t *todo;
	size_t top = 0;

	if (!m)
		return -ENOMEM;
	todo = malloc((nf->nr_nodes ? nf->nr_nodes : 1) * sizeof(*todo));
	if (!todo) {
		free(m);
		return -ENOMEM;
	}
	/* Node 1 is "all" in both; each matched node's children in turn. */
	if (nf->nr_nodes > 1 && bf->nr_nodes > 1) {
		m[1] = 1;
		todo[top++] = 1;
	}
	while (top) {
		uint32_t a = todo[--top], c, b;

		for (c = nf->nodes[a].child; c; c = nf->nodes[c].next) {
			for (b = bf->nodes[m[a]].child; b;
			     b = bf->nodes[b].next)
				if (same_node(nf, nt, c, bf, bt, b))
					break;
			m[c] = b;
			if (b)
				todo[top++] = c;
		}
	}
	free(todo);
	*out = m;
	return 0;
}

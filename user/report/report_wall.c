// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_wall.c - see report_wall.h.
 */
#include <stdbool.h>

#include "util/array_grow.h"
#include "report_wall.h"

static int cmp_tid(const void *a, const void *b)
{
	const struct wall_sample *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool on_cpus(const uint32_t *cpus, unsigned int n, uint16_t cpu)
{
	if (!n)
		return true;
	for (unsigned int i = 0; i < n; i++)
		if (cpus[i] == cpu)
			return true;
	return false;
}

/* The ns thread tid ran within [from, to] on cpus. */
static uint64_t ran(const struct profile_runs *runs, uint32_t tid,
		    uint64_t from, uint64_t to, const uint32_t *cpus,
		    unsigned int nr_cpus)
{
	const struct profile_run *r;
	uint64_t ns = 0, a, b;
	size_t n;

	/* to is inclusive, as the samples' selection: the runs' end is not. */
	to = to == UINT64_MAX ? to : to + 1;
	r = profile_runs__of(runs, tid, &n);
	for (size_t i = 0; i < n; i++) {
		if (!on_cpus(cpus, nr_cpus, r[i].cpu))
			continue;
		a = r[i].start > from ? r[i].start : from;
		b = r[i].end < to ? r[i].end : to;
		if (b > a)
			ns += b - a;
	}
	return ns;
}

void wall__weigh(const struct profile_runs *runs, struct wall_sample *ws,
		 size_t n, uint64_t from, uint64_t to, const uint32_t *cpus,
		 unsigned int nr_cpus, uint64_t period_ns,
		 struct wall_stats *st)
{
	size_t i = 0, j, k;
	uint64_t ns, each;

	array_sort(ws, n, sizeof(*ws), cmp_tid);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && ws[j].tid == ws[i].tid; j++)
			;
		ns = ran(runs, ws[i].tid, from, to, cpus, nr_cpus);
		if (!ns) {
			for (k = i; k < j; k++)
				ws[k].weight = period_ns;
			st->by_period++;
			continue;
		}
		/* Evenly, the remainder to the first: the sum is the runs'. */
		each = ns / (j - i);
		for (k = i; k < j; k++)
			ws[k].weight = each;
		ws[i].weight += ns - each * (j - i);
		st->timed++;
	}
}

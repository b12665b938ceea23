// SPDX-License-Identifier: GPL-2.0-only
/*
 * profile_runs.c - when each thread ran, from the context switches
 * (profile_runs.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "util/array_grow.h"
#include "profile_runs.h"

/* What a CPU runs since its last switch, if that is known. */
struct cpu_chain {
	uint64_t since;
	uint32_t tid;
	bool known;
};

struct profile_runs {
	struct profile_run *runs;	/* by tid, then start, once indexed */
	size_t nr, cap;
	struct cpu_chain *cpus;		/* by cpu */
	size_t nr_cpus;
};

int profile_runs__new(struct profile_runs **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void profile_runs__free(struct profile_runs *r)
{
	if (!r)
		return;
	free(r->runs);
	free(r->cpus);
	free(r);
}

int profile_runs__switch(struct profile_runs *r, uint16_t cpu, uint64_t ts,
			 uint32_t out_tid, uint32_t in_tid)
{
	struct cpu_chain *c;

	if (cpu >= r->nr_cpus) {
		size_t n = (size_t)cpu + 1, cap = r->nr_cpus;
		void *p = r->cpus;

		if (array_grow(&p, &cap, n, sizeof(*r->cpus)))
			return -ENOMEM;
		r->cpus = p;
		for (size_t i = r->nr_cpus; i < cap; i++)
			r->cpus[i].known = false;
		r->nr_cpus = cap;
	}
	c = &r->cpus[cpu];
	/*
	 * The run ends here if this switch takes off the thread the last
	 * one brought on; a chain broken by lost records is not guessed at.
	 */
	if (c->known && c->tid == out_tid && out_tid && ts > c->since) {
		void *p = r->runs;

		if (array_grow(&p, &r->cap, r->nr + 1, sizeof(*r->runs)))
			return -ENOMEM;
		r->runs = p;
		r->runs[r->nr++] = (struct profile_run){
			.start = c->since, .end = ts, .tid = out_tid,
			.cpu = cpu,
		};
	}
	c->since = ts;
	c->tid = in_tid;
	c->known = true;
	return 0;
}

void profile_runs__segment(struct profile_runs *r)
{
	for (size_t i = 0; i < r->nr_cpus; i++)
		r->cpus[i].known = false;
}

static int cmp_run(const void *a, const void *b)
{
	const struct profile_run *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

int profile_runs__index(struct profile_runs *r)
{
	array_sort(r->runs, r->nr, sizeof(*r->runs), cmp_run);
	free(r->cpus);
	r->cpus = NULL;
	r->nr_cpus = 0;
	return 0;
}

size_t profile_runs__nr(const struct profile_runs *r)
{
	return r ? r->nr : 0;
}

const struct profile_run *profile_runs__of(const struct profile_runs *r,
					   uint32_t tid, size_t *n)
{
	size_t lo = 0, hi = r ? r->nr : 0, end;

	/* The first run of tid: the runs are sorted by tid. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->runs[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; r && end < r->nr && r->runs[end].tid == tid; end++)
		;
	*n = end - lo;
	return *n ? &r->runs[lo] : NULL;
}

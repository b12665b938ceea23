// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_unwind_procs.c - see record_unwind_procs.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record_unwind_procs.h"
#include "util/array_grow.h"

struct unwind_proc *unwind_procs__get(struct unwind_procs *ps, uint32_t pid,
				      bool add)
{
	struct unwind_proc *p;
	uint64_t *v;

	if (!add) {
		v = hmap__get(&ps->by_pid, pid);
		return v ? (struct unwind_proc *)(uintptr_t)*v : NULL;
	}
	if (hmap__get_or_add(&ps->by_pid, pid, &v) < 0)
		return NULL;
	if (*v)
		return (struct unwind_proc *)(uintptr_t)*v;
	p = calloc(1, sizeof(*p));
	if (!p) {
		hmap__del(&ps->by_pid, pid);
		return NULL;
	}
	p->pid = pid;
	*v = (uint64_t)(uintptr_t)p;
	return p;
}

static struct fxtprof_mmap *mmap_copy(const struct fxtprof_mmap *m,
				      uint32_t pid)
{
	struct fxtprof_mmap *copy = malloc(m->hdr.size);

	if (copy) {
		memcpy(copy, m, m->hdr.size);
		copy->pid = pid;
	}
	return copy;
}

int unwind_proc__wait_take(struct unwind_procs *ps, struct unwind_proc *p,
			   struct fxtprof_mmap *m)
{
	if (array_grow((void **)&p->waiting, &p->cap_waiting,
		       p->nr_waiting + 1, sizeof(*p->waiting))) {
		free(m);
		return -ENOMEM;
	}
	p->waiting[p->nr_waiting++] = m;
	ps->waiting++;
	return 0;
}

int unwind_proc__wait(struct unwind_procs *ps, struct unwind_proc *p,
		      const struct fxtprof_mmap *m)
{
	struct fxtprof_mmap *copy = mmap_copy(m, p->pid);

	return copy ? unwind_proc__wait_take(ps, p, copy) : -ENOMEM;
}

unsigned int unwind_proc__take_waiting(struct unwind_procs *ps,
				       struct unwind_proc *p,
				       struct fxtprof_mmap ***out)
{
	unsigned int n = p->nr_waiting;

	*out = p->waiting;
	ps->waiting -= n;
	p->waiting = NULL;
	p->nr_waiting = p->cap_waiting = 0;
	p->sampled = true;
	return n;
}

int unwind_proc__add_range(struct unwind_proc *p, const struct unwind_range *r,
			   const struct fxtprof_mmap *m)
{
	unsigned int i, kept = 0;
	struct unwind_range *n;

	for (i = 0; i < p->nr_ranges; i++) {
		if (p->ranges[i].end <= r->start ||
		    p->ranges[i].start >= r->end)
			p->ranges[kept++] = p->ranges[i];
		else
			free(p->ranges[i].m);
	}
	p->nr_ranges = kept;
	if (array_grow((void **)&p->ranges, &p->cap_ranges,
		       p->nr_ranges + 1, sizeof(*p->ranges)))
		return -ENOMEM;
	n = &p->ranges[p->nr_ranges];
	*n = *r;
	n->m = mmap_copy(m, p->pid);
	if (!n->m)
		return -ENOMEM;
	p->nr_ranges++;
	return 0;
}

unsigned int unwind_proc__exec(struct unwind_proc *p, uint64_t time_ns)
{
	unsigned int i, kept = 0;

	/*
	 * Not "since its last sample": a sample of the new image, from
	 * another CPU's ring, may be read before the exec's record.
	 */
	for (i = 0; i < p->nr_ranges; i++) {
		uint64_t t = p->ranges[i].m->hdr.time_ns;

		if (t > p->born_ns && t + UNWIND_EXEC_WINDOW_NS >= time_ns)
			p->ranges[kept++] = p->ranges[i];
		else
			free(p->ranges[i].m);
	}
	p->nr_ranges = kept;
	p->born_ns = time_ns;
	return kept;
}

void unwind_procs__unmap_table(struct unwind_procs *ps, uint32_t id,
			       void (*fn)(void *ctx,
					  const struct unwind_proc *p,
					  const struct unwind_range *r),
			       void *ctx)
{
	struct unwind_proc *p;
	struct hmap_slot *s;
	unsigned int i, kept;

	hmap__for_each(&ps->by_pid, s) {
		p = (struct unwind_proc *)(uintptr_t)s->val;
		for (i = kept = 0; i < p->nr_ranges; i++) {
			if (p->ranges[i].id != id) {
				p->ranges[kept++] = p->ranges[i];
				continue;
			}
			fn(ctx, p, &p->ranges[i]);
			/* Tried again at its next sample, from now. */
			unwind_proc__wait_take(ps, p, p->ranges[i].m);
			p->retry_ns = 0;
		}
		p->nr_ranges = kept;
	}
}

void unwind_proc__forget_waiting(struct unwind_procs *ps,
				 struct unwind_proc *p)
{
	unsigned int i;

	for (i = 0; i < p->nr_waiting; i++)
		free(p->waiting[i]);
	ps->waiting -= p->nr_waiting;
	free(p->waiting);
	p->waiting = NULL;
	p->nr_waiting = p->cap_waiting = 0;
}

int unwind_proc__add_heir(struct unwind_proc *p, uint32_t pid)
{
	if (array_grow((void **)&p->heirs, &p->cap_heirs, p->nr_heirs + 1,
		       sizeof(*p->heirs)))
		return -ENOMEM;
	p->heirs[p->nr_heirs++] = pid;
	return 0;
}

void unwind_proc__landed(struct unwind_proc *p)
{
	if (p->in_flight && !--p->in_flight)
		p->nr_heirs = 0;
}

static void proc__free(struct unwind_procs *ps, struct unwind_proc *p)
{
	unsigned int i;

	free(p->heirs);
	unwind_proc__forget_waiting(ps, p);
	for (i = 0; i < p->nr_ranges; i++)
		free(p->ranges[i].m);
	free(p->ranges);
	free(p);
}

void unwind_procs__drop(struct unwind_procs *ps, uint32_t pid)
{
	struct unwind_proc *p = unwind_procs__get(ps, pid, false);

	if (!p)
		return;
	hmap__del(&ps->by_pid, pid);
	proc__free(ps, p);
}

unsigned int unwind_procs__prune(struct unwind_procs *ps,
				 bool (*gone)(uint32_t pid),
				 void (*dropping)(void *ctx,
						  const struct unwind_proc *p),
				 void *ctx)
{
	const struct unwind_proc *p;
	struct hmap_slot *s;
	unsigned int n = 0, i;
	uint32_t *pids;

	/* A removal shifts slots (hmap.h): collect, then drop. */
	pids = malloc(ps->by_pid.len * sizeof(*pids) + 1);
	if (!pids)
		return 0;
	hmap__for_each(&ps->by_pid, s) {
		p = (const struct unwind_proc *)(uintptr_t)s->val;
		if (gone(p->pid)) {
			if (dropping)
				dropping(ctx, p);
			pids[n++] = p->pid;
		}
	}
	for (i = 0; i < n; i++)
		unwind_procs__drop(ps, pids[i]);
	free(pids);
	return n;
}

void unwind_procs__free(struct unwind_procs *ps)
{
	struct unwind_proc *p;
	struct hmap_slot *s;

	hmap__for_each(&ps->by_pid, s) {
		p = (struct unwind_proc *)(uintptr_t)s->val;
		proc__free(ps, p);
	}
	hmap__free(&ps->by_pid);
	memset(ps, 0, sizeof(*ps));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbol_tables.c - see symbol_tables.h.  Processes in a hash map by pid
 * (util/hmap.h), their mappings in a small vector each; kernel symbols in one array sorted by
 * address, searched by bisection (a recording hits a few thousand
 * functions, inserted once each, then looked up for every frame).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol_tables.h"

void symbol_tables__init(struct symbol_tables *t)
{
	memset(t, 0, sizeof(*t));
}

static void proc_clear(struct proc_mappings *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		free(p->maps[i]);
	free(p->maps);
	p->maps = NULL;
	p->n = p->cap = 0;
}

void symbol_tables__fini(struct symbol_tables *t)
{
	struct hmap_slot *s;
	size_t i;

	hmap__for_each(&t->procs, s) {
		proc_clear((struct proc_mappings *)(uintptr_t)s->val);
		free((void *)(uintptr_t)s->val);
	}
	hmap__free(&t->procs);
	for (i = 0; i < t->nkmods; i++)
		free(t->kmods[i]);
	free(t->kmods);
	for (i = 0; i < t->nksyms; i++)
		free(t->ksyms[i].rec);
	free(t->ksyms);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------ */
/* Processes                                                           */
/* ------------------------------------------------------------------ */

static struct proc_mappings *proc_find(const struct symbol_tables *t,
				       uint32_t pid)
{
	uint64_t *p = hmap__get(&t->procs, pid);

	return p ? (struct proc_mappings *)(uintptr_t)*p : NULL;
}

static struct proc_mappings *proc_get(struct symbol_tables *t, uint32_t pid)
{
	struct proc_mappings *p = proc_find(t, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (hmap__put(&t->procs, pid, (uintptr_t)p)) {
		free(p);
		return NULL;
	}
	return p;
}

static void proc_remove_at(struct symbol_tables *t, struct proc_mappings *p,
			   uint32_t i)
{
	free(p->maps[i]);
	p->maps[i] = p->maps[--p->n];
	t->nmaps--;
}

static int proc_append(struct symbol_tables *t, struct proc_mappings *p,
		       const struct fxtprof_mmap *m)
{
	struct fxtprof_mmap *c;

	if (p->n == p->cap) {
		uint32_t ncap = p->cap ? p->cap * 2 : 8;
		struct fxtprof_mmap **v = realloc(p->maps, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->maps = v;
		p->cap = ncap;
	}
	c = malloc(m->hdr.size);
	if (!c)
		return -ENOMEM;
	memcpy(c, m, m->hdr.size);
	p->maps[p->n++] = c;
	t->nmaps++;
	return 0;
}

int symbol_tables__add_mapping(struct symbol_tables *t,
			       const struct fxtprof_mmap *m)
{
	struct proc_mappings *p = proc_get(t, m->pid);
	uint64_t end = m->start + m->len;
	uint32_t i;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < p->n;) {
		const struct fxtprof_mmap *o = p->maps[i];

		if (o->start < end && m->start < o->start + o->len)
			proc_remove_at(t, p, i);
		else
			i++;
	}
	return proc_append(t, p, m);
}

void symbol_tables__drop_mappings(struct symbol_tables *t, uint32_t pid,
				  uint64_t ts)
{
	struct proc_mappings *p = proc_find(t, pid);
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->n;) {
		if (p->maps[i]->hdr.time_ns < ts)
			proc_remove_at(t, p, i);
		else
			i++;
	}
	if (!p->n) {
		hmap__del(&t->procs, pid);
		proc_clear(p);
		free(p);
	}
}

int symbol_tables__fork(struct symbol_tables *t, uint32_t parent,
			uint32_t child)
{
	struct proc_mappings *pp, *cp;
	uint32_t i;
	int ret;

	if (parent == child || !proc_find(t, parent))
		return 0;
	cp = proc_get(t, child);
	pp = proc_find(t, parent);
	if (!cp || !pp)
		return -ENOMEM;
	for (i = 0; i < pp->n; i++) {
		union {
			struct fxtprof_mmap m;
			uint64_t w[(sizeof(struct fxtprof_mmap) +
				    FXTPROF_MAX_PATH) / 8];
		} *b = malloc(pp->maps[i]->hdr.size);

		if (!b)
			return -ENOMEM;
		memcpy(b, pp->maps[i], pp->maps[i]->hdr.size);
		b->m.pid = b->m.tid = child;
		ret = symbol_tables__add_mapping(t, &b->m);
		free(b);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Kernel images and symbols                                           */
/* ------------------------------------------------------------------ */

static int push_copy(void ***v, size_t *n, size_t *cap,
		     const struct fxtprof_rec_hdr *rec)
{
	void *c;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		void **nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	c = malloc(rec->size);
	if (!c)
		return -ENOMEM;
	memcpy(c, rec, rec->size);
	(*v)[(*n)++] = c;
	return 0;
}

int symbol_tables__add_kmod(struct symbol_tables *t,
			    const struct fxtprof_kmod *k)
{
	/* The same image twice (a restarted sweep) replaces the first. */
	for (size_t i = 0; i < t->nkmods; i++) {
		if (t->kmods[i]->start == k->start &&
		    t->kmods[i]->hdr.size == k->hdr.size) {
			memcpy(t->kmods[i], k, k->hdr.size);
			return 0;
		}
	}
	return push_copy((void ***)&t->kmods, &t->nkmods, &t->kmods_cap,
			 &k->hdr);
}

void symbol_tables__begin_segment(struct symbol_tables *t)
{
	t->segment++;
}

/* The index of the first entry whose address is above @ip. */
static size_t ksym_upper(const struct symbol_tables *t, uint64_t ip)
{
	size_t lo = 0, hi = t->nksyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ksyms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct table_ksym *symbol_tables__find_ksym(struct symbol_tables *t,
					    uint64_t ip)
{
	size_t i = ksym_upper(t, ip);

	if (!i || ip >= t->ksyms[i - 1].end)
		return NULL;
	return &t->ksyms[i - 1];
}

int symbol_tables__add_ksym(struct symbol_tables *t,
			    const struct fxtprof_ksym *k,
			    struct table_ksym **out)
{
	size_t i = ksym_upper(t, k->addr);
	struct fxtprof_ksym *c;

	if (i && t->ksyms[i - 1].addr == k->addr) {
		if (out)
			*out = &t->ksyms[i - 1];
		return 0;
	}
	if (t->nksyms == t->ksyms_cap) {
		size_t ncap = t->ksyms_cap ? t->ksyms_cap * 2 : 256;
		struct table_ksym *v = realloc(t->ksyms, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->ksyms = v;
		t->ksyms_cap = ncap;
	}
	c = malloc(k->hdr.size);
	if (!c)
		return -ENOMEM;
	memcpy(c, k, k->hdr.size);
	memmove(&t->ksyms[i + 1], &t->ksyms[i],
		(t->nksyms - i) * sizeof(*t->ksyms));
	t->nksyms++;
	/* A symbol of size 0 (an assembler label) still holds its address. */
	t->ksyms[i] = (struct table_ksym){
		.addr = k->addr, .end = k->addr + (k->size ? k->size : 1),
		.rec = c,
	};
	if (out)
		*out = &t->ksyms[i];
	return 0;
}

int symbol_tables__for_each(const struct symbol_tables *t,
			    symbol_visit_fn fn, void *ctx)
{
	const struct hmap_slot *s;
	size_t i;
	uint32_t j;
	int ret;

	for (i = 0; i < t->nkmods; i++)
		if ((ret = fn(ctx, &t->kmods[i]->hdr)))
			return ret;
	hmap__for_each(&t->procs, s) {
		const struct proc_mappings *p = (void *)(uintptr_t)s->val;

		for (j = 0; j < p->n; j++)
			if ((ret = fn(ctx, &p->maps[j]->hdr)))
				return ret;
	}
	return 0;
}

void symbol_tables__bytes(const struct symbol_tables *t, size_t *mappings,
			  size_t *kernel)
{
	size_t i, j, m = hmap__bytes(&t->procs), k;

	for (i = 0; t->procs.slots && i <= t->procs.mask; i++) {
		const struct hmap_slot *s = &t->procs.slots[i];
		const struct proc_mappings *p;

		if (!s->hash)
			continue;
		p = (const struct proc_mappings *)(uintptr_t)s->val;
		m += sizeof(*p) + p->cap * sizeof(*p->maps);
		for (j = 0; j < p->n; j++)
			m += p->maps[j]->hdr.size;
	}
	k = t->kmods_cap * sizeof(*t->kmods) +
	    t->ksyms_cap * sizeof(*t->ksyms);
	for (i = 0; i < t->nkmods; i++)
		k += t->kmods[i]->hdr.size;
	for (i = 0; i < t->nksyms; i++)
		k += t->ksyms[i].rec->hdr.size;
	*mappings = m;
	*kernel = k;
}

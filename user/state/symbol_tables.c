// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbol_tables.c - see symbol_tables.h.  Processes in an open-addressing
 * map by pid (linear probing, tombstones, rebuilt past 3/4), their
 * mappings in a small vector each; kernel symbols in one array sorted by
 * address, searched by bisection (a recording hits a few thousand
 * functions, inserted once each, then looked up for every frame).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol_tables.h"

static size_t hash64(uint64_t k)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 29);
}

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
	size_t i;

	for (i = 0; i < t->procs_cap; i++)
		if (t->procs[i].used == 1)
			proc_clear(&t->procs[i]);
	free(t->procs);
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
	size_t i;

	if (!t->procs_cap)
		return NULL;
	for (i = hash64(pid) & (t->procs_cap - 1); t->procs[i].used;
	     i = (i + 1) & (t->procs_cap - 1))
		if (t->procs[i].used == 1 && t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

static int procs_grow(struct symbol_tables *t)
{
	size_t ncap = t->procs_live * 2 >= t->procs_cap / 2 ?
		      (t->procs_cap ? t->procs_cap * 2 : 256) : t->procs_cap;
	struct proc_mappings *old = t->procs, *n;
	size_t i, j;

	n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (i = 0; i < t->procs_cap; i++) {
		if (old[i].used != 1)
			continue;
		for (j = hash64(old[i].pid) & (ncap - 1); n[j].used;
		     j = (j + 1) & (ncap - 1))
			;
		n[j] = old[i];
	}
	free(old);
	t->procs = n;
	t->procs_cap = ncap;
	t->procs_used = t->procs_live;
	return 0;
}

static struct proc_mappings *proc_get(struct symbol_tables *t, uint32_t pid)
{
	struct proc_mappings *p = proc_find(t, pid);
	size_t i;

	if (p)
		return p;
	if ((t->procs_used + 1) * 4 > t->procs_cap * 3 && procs_grow(t))
		return NULL;
	for (i = hash64(pid) & (t->procs_cap - 1); t->procs[i].used == 1;
	     i = (i + 1) & (t->procs_cap - 1))
		;
	p = &t->procs[i];
	if (!p->used)
		t->procs_used++;
	memset(p, 0, sizeof(*p));
	p->used = 1;
	p->pid = pid;
	t->procs_live++;
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
		proc_clear(p);
		p->used = 2;	/* keeps probe chains intact */
		t->procs_live--;
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
	cp = proc_get(t, child);	/* may move the parent's slot */
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
	size_t i;
	uint32_t j;
	int ret;

	for (i = 0; i < t->nkmods; i++)
		if ((ret = fn(ctx, &t->kmods[i]->hdr)))
			return ret;
	for (i = 0; i < t->procs_cap; i++) {
		const struct proc_mappings *p = &t->procs[i];

		if (p->used != 1)
			continue;
		for (j = 0; j < p->n; j++)
			if ((ret = fn(ctx, &p->maps[j]->hdr)))
				return ret;
	}
	return 0;
}

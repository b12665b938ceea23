// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_cache.c - see sym_cache.h.  The map's key word holds the address,
 * its value the entry's position; the hash covers the object too.
 */
#include "symbolize/sym_cache.h"

#include <stdlib.h>
#include <string.h>

struct sym_cache_key {
	const struct sym_cache *c;
	const void *obj;
	uint64_t addr;
};

static uint64_t key_hash(const void *obj, uint64_t addr)
{
	return hmap_hash_u64(addr ^ (uint64_t)(uintptr_t)obj >> 4);
}

static bool key_eq(const void *ctx, const struct hmap_slot *s)
{
	const struct sym_cache_key *k = ctx;

	return s->key == k->addr && k->c->ents[s->val].obj == k->obj;
}

struct sym_cache_entry *sym_cache__find(const struct sym_cache *c,
					const void *obj, uint64_t addr)
{
	struct sym_cache_key k = { c, obj, addr };
	struct hmap_slot *s = hmap__find(&c->index, key_hash(obj, addr),
					 key_eq, &k);

	return s ? &c->ents[s->val] : NULL;
}

struct sym_cache_entry *sym_cache__insert(struct sym_cache *c,
					  const void *obj, uint64_t addr)
{
	struct sym_cache_entry *e;

	if (c->len == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 2048;

		if (cap > SIZE_MAX / sizeof(*e))
			return NULL;
		e = realloc(c->ents, cap * sizeof(*e));
		if (!e)
			return NULL;
		c->ents = e;
		c->cap = cap;
	}
	if (hmap__add(&c->index, key_hash(obj, addr), addr, c->len, NULL))
		return NULL;
	e = &c->ents[c->len++];
	memset(e, 0, sizeof(*e));
	e->obj = obj;
	e->addr = addr;
	return e;
}

void sym_cache__release(struct sym_cache *c)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		free(c->ents[i].more);
	free(c->ents);
	hmap__free(&c->index);
	memset(c, 0, sizeof(*c));
}

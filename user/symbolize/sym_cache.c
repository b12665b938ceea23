// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_cache.c - linear probing, power-of-two size, grown at half full so
 * that probes stay short.  Not util/hmap.h: the entries live in the slots
 * themselves, so a hit costs one cache miss, where an hmap of positions
 * costs two (3% of `fxtprof export` on 7 M frames).
 */
#include "symbolize/sym_cache.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const struct sym_cache *c, const void *obj,
		      uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)(uintptr_t)obj >> 4)) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & c->mask;
}

struct sym_cache_entry *sym_cache__find(const struct sym_cache *c,
					const void *obj, uint64_t addr)
{
	size_t i;

	if (!c->slots)
		return NULL;
	for (i = slot_of(c, obj, addr); c->slots[i].obj; i = (i + 1) & c->mask)
		if (c->slots[i].addr == addr && c->slots[i].obj == obj)
			return &c->slots[i];
	return NULL;
}

static int grow(struct sym_cache *c)
{
	size_t size = c->slots ? (c->mask + 1) * 2 : 4096, i;
	struct sym_cache_entry *old = c->slots;
	size_t old_size = c->slots ? c->mask + 1 : 0;
	struct sym_cache n = { .mask = size - 1, .used = c->used };

	n.slots = calloc(size, sizeof(*n.slots));
	if (!n.slots)
		return -1;
	for (i = 0; i < old_size; i++) {
		size_t j;

		if (!old[i].obj)
			continue;
		for (j = slot_of(&n, old[i].obj, old[i].addr); n.slots[j].obj;
		     j = (j + 1) & n.mask)
			;
		n.slots[j] = old[i];
	}
	free(old);
	*c = n;
	return 0;
}

struct sym_cache_entry *sym_cache__insert(struct sym_cache *c,
					  const void *obj, uint64_t addr)
{
	size_t i;

	if ((!c->slots || (c->used + 1) * 2 > c->mask + 1) && grow(c) != 0)
		return NULL;
	for (i = slot_of(c, obj, addr); c->slots[i].obj; i = (i + 1) & c->mask)
		;
	memset(&c->slots[i], 0, sizeof(c->slots[i]));
	c->slots[i].obj = obj;
	c->slots[i].addr = addr;
	c->used++;
	return &c->slots[i];
}

void sym_cache__release(struct sym_cache *c)
{
	size_t i;

	for (i = 0; c->slots && i <= c->mask; i++)
		free(c->slots[i].more);
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

// SPDX-License-Identifier: MIT
/*
 * hmap.c - growth, insertion and removal of the hash map (hmap.h); the
 * lookups are inline in the header.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"

#define HMAP_MIN_SLOTS	16

void hmap__free(struct hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	m->len = 0;
}

void hmap__clear(struct hmap *m)
{
	if (m->slots)
		memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->len = 0;
}

/* The first empty slot of @hash's probe run. */
static struct hmap_slot *hmap_free_slot(const struct hmap *m, uint64_t hash)
{
	size_t i;

	for (i = hash & m->mask; m->slots[i].hash; i = (i + 1) & m->mask)
		;
	return &m->slots[i];
}

/* Move every entry into @nslots slots (a power of two). */
static int hmap_resize(struct hmap *m, size_t nslots)
{
	struct hmap_slot *old = m->slots;
	size_t i, oslots = old ? m->mask + 1 : 0;

	if (nslots > SIZE_MAX / sizeof(*old))
		return -ENOMEM;
	m->slots = calloc(nslots, sizeof(*old));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	m->mask = nslots - 1;
	for (i = 0; i < oslots; i++)
		if (old[i].hash)
			*hmap_free_slot(m, old[i].hash) = old[i];
	free(old);
	return 0;
}

int hmap__reserve(struct hmap *m, size_t n)
{
	size_t nslots = m->slots ? m->mask + 1 : HMAP_MIN_SLOTS;

	/* At most half full: n entries need 2n slots. */
	if (n > SIZE_MAX / 2)
		return -ENOMEM;
	if (m->slots && n * 2 <= nslots)
		return 0;
	while (nslots < n * 2) {
		if (nslots > SIZE_MAX / 2)
			return -ENOMEM;
		nslots *= 2;
	}
	return hmap_resize(m, nslots);
}

int hmap__add(struct hmap *m, uint64_t hash, uint64_t key, uint64_t val,
	      struct hmap_slot **slot)
{
	struct hmap_slot *s;
	int err;

	if (m->len == SIZE_MAX)
		return -ENOMEM;
	err = hmap__reserve(m, m->len + 1);
	if (err)
		return err;
	hash = hash ? hash : 1;
	s = hmap_free_slot(m, hash);
	s->hash = hash;
	s->key = key;
	s->val = val;
	m->len++;
	if (slot)
		*slot = s;
	return 0;
}

/*
 * Backward-shift deletion (Knuth 6.4, algorithm R): a later slot of the
 * run moves into the hole unless its home lies cyclically in (hole, it].
 */
void hmap__remove(struct hmap *m, struct hmap_slot *s)
{
	size_t hole = (size_t)(s - m->slots), j = hole, home;

	for (;;) {
		j = (j + 1) & m->mask;
		if (!m->slots[j].hash)
			break;
		home = m->slots[j].hash & m->mask;
		if (((j - home) & m->mask) < ((j - hole) & m->mask))
			continue;
		m->slots[hole] = m->slots[j];
		hole = j;
	}
	m->slots[hole].hash = 0;
	m->len--;
}

int hmap__get_or_add(struct hmap *m, uint64_t key, uint64_t **val)
{
	struct hmap_slot *s = hmap__slot(m, key);
	int err;

	if (s) {
		*val = &s->val;
		return 0;
	}
	err = hmap__add(m, hmap_hash_u64(key), key, 0, &s);
	if (err)
		return err;
	*val = &s->val;
	return 1;
}

int hmap__put(struct hmap *m, uint64_t key, uint64_t val)
{
	uint64_t *v;
	int ret = hmap__get_or_add(m, key, &v);

	if (ret < 0)
		return ret;
	*v = val;
	return 0;
}

bool hmap__del(struct hmap *m, uint64_t key)
{
	struct hmap_slot *s = hmap__slot(m, key);

	if (!s)
		return false;
	hmap__remove(m, s);
	return true;
}

/*
 * Eight bytes at a time through a multiply-xorshift round; the tail is
 * read as one partial word with its length mixed in, so "a" and "a\0"
 * differ.
 */
uint64_t hmap_hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ULL), w;

	for (; len >= 8; b += 8, len -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	if (len) {
		w = 0;
		memcpy(&w, b, len);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	return hmap_hash_u64(h);
}

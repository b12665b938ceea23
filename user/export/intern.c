// SPDX-License-Identifier: GPL-2.0-only
/*
 * intern.c - byte strings to dense ids (intern.h).
 */
#include <stdlib.h>
#include <string.h>

#include "intern.h"

/* FNV-1a, 64 bit: keys are short, and an attacker gains nothing here. */
static uint64_t hash_bytes(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ (h >> 29);
}

void intern__init(struct intern *t)
{
	memset(t, 0, sizeof(*t));
}

void intern__release(struct intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free((void *)t->keys[i].data);
	free(t->keys);
	free(t->slots);
	free(t->hashes);
	intern__init(t);
}

static size_t probe(const struct intern *t, uint64_t h, const void *key,
		    size_t len)
{
	size_t mask = t->nslots - 1, i = (size_t)h & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t id = t->slots[i];
		const struct intern_key *k;

		if (!id)
			return i;
		k = &t->keys[id - 1];
		if (t->hashes[id - 1] == h && k->len == len &&
		    !memcmp(k->data, key, len))
			return i;
	}
}

static int grow_slots(struct intern *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 64;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	size_t mask = nslots - 1;

	if (!slots)
		return -1;
	for (size_t id = 1; id <= t->n; id++) {
		size_t i = (size_t)t->hashes[id - 1] & mask;

		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = (uint32_t)id;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

uint32_t intern__find(const struct intern *t, const void *key, size_t len)
{
	if (!t->nslots)
		return 0;
	return t->slots[probe(t, hash_bytes(key, len), key, len)];
}

uint32_t intern__id(struct intern *t, const void *key, size_t len,
		    bool *is_new)
{
	uint64_t h = hash_bytes(key, len);
	size_t slot;
	void *copy;

	if (is_new)
		*is_new = false;
	if (len > UINT32_MAX || t->n >= UINT32_MAX - 1)
		return 0;
	if (t->nslots) {
		slot = probe(t, h, key, len);
		if (t->slots[slot])
			return t->slots[slot];
	}
	if ((t->n + 1) * 2 > t->nslots) {
		if (grow_slots(t))
			return 0;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct intern_key *keys = realloc(t->keys, cap * sizeof(*keys));
		uint64_t *hashes;

		if (!keys)
			return 0;
		t->keys = keys;
		hashes = realloc(t->hashes, cap * sizeof(*hashes));
		if (!hashes)
			return 0;
		t->hashes = hashes;
		t->cap = cap;
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	if (len)
		memcpy(copy, key, len);
	slot = probe(t, h, key, len);
	t->keys[t->n].data = copy;
	t->keys[t->n].len = (uint32_t)len;
	t->hashes[t->n] = h;
	t->n++;
	t->slots[slot] = (uint32_t)t->n;
	if (is_new)
		*is_new = true;
	return (uint32_t)t->n;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * intern.c - byte strings to dense ids (intern.h).
 */
#include <stdlib.h>
#include <string.h>

#include "intern.h"

/* What intern__find() and intern__id() look for. */
struct intern_lookup {
	const struct intern *t;
	const void *key;
	size_t len;
};

static bool key_eq(const void *ctx, const struct hmap_slot *s)
{
	const struct intern_lookup *l = ctx;
	const struct intern_key *k = &l->t->keys[s->key - 1];

	return k->len == l->len && !memcmp(k->data, l->key, l->len);
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
	hmap__free(&t->index);
	intern__init(t);
}

uint32_t intern__find(const struct intern *t, const void *key, size_t len)
{
	struct intern_lookup l = { t, key, len };
	struct hmap_slot *s = hmap__find(&t->index,
					 hmap_hash_bytes(key, len, 0),
					 key_eq, &l);

	return s ? (uint32_t)s->key : 0;
}

uint32_t intern__id(struct intern *t, const void *key, size_t len,
		    bool *is_new)
{
	struct intern_lookup l = { t, key, len };
	uint64_t h = hmap_hash_bytes(key, len, 0);
	struct hmap_slot *s;
	void *copy;

	if (is_new)
		*is_new = false;
	if (len > UINT32_MAX || t->n >= UINT32_MAX - 1)
		return 0;
	s = hmap__find(&t->index, h, key_eq, &l);
	if (s)
		return (uint32_t)s->key;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct intern_key *keys;

		if (cap > SIZE_MAX / sizeof(*keys))
			return 0;
		keys = realloc(t->keys, cap * sizeof(*keys));
		if (!keys)
			return 0;
		t->keys = keys;
		t->cap = cap;
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	if (len)
		memcpy(copy, key, len);
	if (hmap__add(&t->index, h, t->n + 1, 0, NULL)) {
		free(copy);
		return 0;
	}
	t->keys[t->n].data = copy;
	t->keys[t->n].len = (uint32_t)len;
	t->n++;
	if (is_new)
		*is_new = true;
	return (uint32_t)t->n;
}

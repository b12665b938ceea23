// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_set.c - see archive_set.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive_set.h"

int arch_buf__put(struct arch_buf *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	if (data)
		memcpy(b->p + b->len, data, len);
	else
		memset(b->p + b->len, 0, len);
	b->len += len;
	return 0;
}

int arch_buf__pad8(struct arch_buf *b)
{
	return arch_buf__put(b, NULL, (8 - b->len % 8) % 8);
}

void arch_buf__fini(struct arch_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* What arch_set__add() looks for. */
struct arch_set_lookup {
	const struct arch_set *s;
	const void *key;
	uint32_t len;
};

static bool key_eq(const void *ctx, const struct hmap_slot *slot)
{
	const struct arch_set_lookup *l = ctx;
	const struct arch_set *s = l->s;

	return s->key_len[slot->key] == l->len &&
	       !memcmp(s->keys.p + s->key_off[slot->key], l->key, l->len);
}

long arch_set__add(struct arch_set *s, const void *key, uint32_t len,
		   bool *added)
{
	struct arch_set_lookup l = { s, key, len };
	uint64_t h = hmap_hash_bytes(key, len, 0);
	struct hmap_slot *slot;

	*added = false;
	slot = hmap__find(&s->index, h, key_eq, &l);
	if (slot)
		return (long)slot->key;
	if (s->n == s->idx_cap) {
		size_t cap = s->idx_cap ? 2 * s->idx_cap : 64;
		size_t *off;
		uint32_t *kl;

		if (cap > SIZE_MAX / sizeof(*off))
			return -ENOMEM;
		off = realloc(s->key_off, cap * sizeof(*off));
		if (!off)
			return -ENOMEM;
		s->key_off = off;
		kl = realloc(s->key_len, cap * sizeof(*kl));
		if (!kl)
			return -ENOMEM;
		s->key_len = kl;
		s->idx_cap = cap;
	}
	s->key_off[s->n] = s->keys.len;
	s->key_len[s->n] = len;
	if (arch_buf__put(&s->keys, key, len))
		return -ENOMEM;
	if (hmap__add(&s->index, h, s->n, 0, NULL)) {
		s->keys.len -= len;
		return -ENOMEM;
	}
	*added = true;
	return (long)s->n++;
}

const void *arch_set__key(const struct arch_set *s, size_t i, uint32_t *len)
{
	*len = s->key_len[i];
	return s->keys.p + s->key_off[i];
}

void arch_set__fini(struct arch_set *s)
{
	hmap__free(&s->index);
	free(s->key_off);
	free(s->key_len);
	arch_buf__fini(&s->keys);
	memset(s, 0, sizeof(*s));
}

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

/*
 * Eight bytes at a time, each word mixed in by a multiply and a shift
 * (the keys are mostly replays of the same entries: hashing them must be
 * cheap), the tail bytes one by one.
 */
static uint64_t key_hash(const void *key, uint32_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull ^ len, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	while (len--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h ^ (h >> 32);
}

static bool key_eq(const struct arch_set *s, uint32_t i, const void *key,
		   uint32_t len)
{
	return s->key_len[i] == len &&
	       !memcmp(s->keys.p + s->key_off[i], key, len);
}

static int grow_slots(struct arch_set *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		size_t j = key_hash(s->keys.p + s->key_off[i], s->key_len[i]) &
			   (cap - 1);

		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = (uint32_t)i + 1;
	}
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return 0;
}

long arch_set__add(struct arch_set *s, const void *key, uint32_t len,
		   bool *added)
{
	size_t j;

	*added = false;
	/* At most half full, so a probe ends soon. */
	if (2 * (s->n + 1) > s->cap && grow_slots(s))
		return -ENOMEM;
	j = key_hash(key, len) & (s->cap - 1);
	for (; s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (key_eq(s, s->slot[j] - 1, key, len))
			return s->slot[j] - 1;
	if (s->n == s->idx_cap) {
		size_t cap = s->idx_cap ? 2 * s->idx_cap : 64;
		size_t *off = realloc(s->key_off, cap * sizeof(*off));
		uint32_t *kl;

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
	s->slot[j] = (uint32_t)s->n + 1;
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
	free(s->slot);
	free(s->key_off);
	free(s->key_len);
	arch_buf__fini(&s->keys);
	memset(s, 0, sizeof(*s));
}

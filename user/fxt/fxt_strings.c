// SPDX-License-Identifier: MIT
/*
 * fxt_strings.c - the writer's string interning table.
 *
 * Maps byte strings to FXT string indices 1..size.  Lookups are an
 * open-addressing hash (linear probing, at most half full, so probes are
 * short and deletion can use backward shifting instead of tombstones that
 * would slowly fill the table under LRU churn).  When every index is taken
 * the least recently used unpinned entry is reassigned: the LRU list is
 * intrusive (16-bit links) so a hit costs two pointer updates, no malloc.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fxt_internal.h"

uint32_t fxt_strtab__hash(const char *s, size_t len)
{
	/*
	 * Eight bytes per step with a multiply-xorshift mix: names are short
	 * and this runs several times per sample, so byte-wise FNV showed up
	 * in profiles.  Quality only needs to be good enough for probing.
	 */
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t h = len * k;
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	if (len) {
		/* in registers: a partial memcpy would stall store forwarding */
		w = 0;
		for (size_t i = 0; i < len; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	h *= 0xbf58476d1ce4e5b9ULL;
	return (uint32_t)(h ^ (h >> 32));
}

/* Short keys are the common case; avoid a libc call for them. */
static inline bool key_equal(const char *a, const char *b, size_t len)
{
	if (len > 16)
		return memcmp(a, b, len) == 0;
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

int fxt_strtab__init(struct fxt_strtab *t, uint32_t size)
{
	uint32_t nslots = 1;

	memset(t, 0, sizeof(*t));
	if (size == 0 || size > FXT_MAX_STRING_INDEX)
		return -EINVAL;
	while (nslots < 2 * size)
		nslots <<= 1;
	t->ents = calloc(size + 1, sizeof(*t->ents));
	t->slots = calloc(nslots, sizeof(*t->slots));
	if (!t->ents || !t->slots) {
		free(t->ents);
		free(t->slots);
		t->ents = NULL;
		t->slots = NULL;
		return -ENOMEM;
	}
	t->nslots = nslots;
	t->size = size;
	return 0;
}

void fxt_strtab__fini(struct fxt_strtab *t)
{
	if (t->ents) {
		for (uint32_t i = 0; i <= t->size; i++)
			free(t->ents[i].str);
	}
	free(t->ents);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* Keeps the string buffers so that a new stream reuses them. */
void fxt_strtab__clear(struct fxt_strtab *t)
{
	for (uint32_t i = 1; i <= t->size; i++) {
		struct fxt_strent *e = &t->ents[i];

		e->len = 0;
		e->hash = 0;
		e->prev = e->next = 0;
		e->used = e->pinned = 0;
	}
	memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	t->nused = 0;
	t->lru_head = t->lru_tail = 0;
}

static void lru_unlink(struct fxt_strtab *t, unsigned int i)
{
	struct fxt_strent *e = &t->ents[i];

	if (e->prev)
		t->ents[e->prev].next = e->next;
	else
		t->lru_head = e->next;
	if (e->next)
		t->ents[e->next].prev = e->prev;
	else
		t->lru_tail = e->prev;
	e->prev = e->next = 0;
}

static void lru_push_head(struct fxt_strtab *t, unsigned int i)
{
	struct fxt_strent *e = &t->ents[i];

	e->prev = 0;
	e->next = t->lru_head;
	if (t->lru_head)
		t->ents[t->lru_head].prev = (uint16_t)i;
	t->lru_head = (uint16_t)i;
	if (!t->lru_tail)
		t->lru_tail = (uint16_t)i;
}

unsigned int fxt_strtab__lookup(struct fxt_strtab *t, const char *s,
				size_t len, uint32_t hash)
{
	uint32_t mask = t->nslots - 1;

	for (uint32_t pos = hash & mask;; pos = (pos + 1) & mask) {
		unsigned int i = t->slots[pos];
		struct fxt_strent *e;

		if (!i)
			return 0;
		e = &t->ents[i];
		if (e->hash == hash && e->len == len &&
		    key_equal(e->str, s, len)) {
			if (!e->pinned && t->lru_head != i) {
				lru_unlink(t, i);
				lru_push_head(t, i);
			}
			return i;
		}
	}
}

/*
 * Remove entry i from the hash slots.  Backward-shift deletion (Knuth
 * 6.4 algorithm R): later entries of the probe run move into the hole
 * unless their home slot lies cyclically in (hole, their slot].
 */
static void slots_remove(struct fxt_strtab *t, unsigned int i)
{
	uint32_t mask = t->nslots - 1;
	uint32_t hole = t->ents[i].hash & mask, j;

	while (t->slots[hole] != i)
		hole = (hole + 1) & mask;
	for (j = hole;;) {
		uint32_t home;

		j = (j + 1) & mask;
		if (!t->slots[j])
			break;
		home = t->ents[t->slots[j]].hash & mask;
		if (((j - home) & mask) < ((j - hole) & mask))
			continue;	/* home in (hole, j]: must stay */
		t->slots[hole] = t->slots[j];
		hole = j;
	}
	t->slots[hole] = 0;
}

int fxt_strtab__victim(struct fxt_strtab *t)
{
	if (t->nused < t->size)
		return (int)t->nused + 1;	/* indices are handed out in order */
	if (!t->lru_tail)
		return -ENOSPC;			/* everything is pinned */
	return t->lru_tail;
}

int fxt_strtab__reserve(struct fxt_strtab *t, unsigned int index, size_t len)
{
	struct fxt_strent *e;

	if (index == 0 || index > t->size || len > FXT_MAX_STRING_LEN)
		return -EINVAL;
	e = &t->ents[index];
	if (e->cap < len) {
		char *p = realloc(e->str, len);

		if (!p)
			return -ENOMEM;
		e->str = p;
		e->cap = (uint32_t)len;
	}
	return 0;
}

int fxt_strtab__assign(struct fxt_strtab *t, unsigned int index,
		       const char *s, size_t len, uint32_t hash, bool pin)
{
	struct fxt_strent *e = &t->ents[index];
	uint32_t mask = t->nslots - 1, pos;
	int err = fxt_strtab__reserve(t, index, len);

	if (err)
		return err;
	if (e->used) {
		slots_remove(t, index);
		if (!e->pinned)
			lru_unlink(t, index);
	} else {
		t->nused++;
	}
	if (len)
		memcpy(e->str, s, len);
	e->len = (uint32_t)len;
	e->hash = hash;
	e->used = 1;
	e->pinned = pin;
	for (pos = hash & mask; t->slots[pos]; pos = (pos + 1) & mask)
		;
	t->slots[pos] = (uint16_t)index;
	if (!pin)
		lru_push_head(t, index);
	return 0;
}

void fxt_strtab__pin(struct fxt_strtab *t, unsigned int index)
{
	struct fxt_strent *e = &t->ents[index];

	if (!e->used || e->pinned)
		return;
	lru_unlink(t, index);
	e->pinned = 1;
}

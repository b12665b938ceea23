/* SPDX-License-Identifier: MIT */
/*
 * fxt_internal.h - helpers shared by the FXT library's translation units.
 * Not installed, not included by users of the library.
 */
#ifndef FXT_INTERNAL_H
#define FXT_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "fxt.h"

/* Records are arrays of little-endian words; we copy them as host words. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "fxt: only little-endian hosts are supported");

#define FXT_WORDS(len)	(((uint64_t)(len) + 7) / 8)

/* Bits lo..hi (inclusive) of a value placed in a word. */
static inline uint64_t fxt_field(uint64_t v, unsigned int lo, unsigned int hi)
{
	uint64_t mask = hi - lo >= 63 ? ~0ULL : ((1ULL << (hi - lo + 1)) - 1);

	return (v & mask) << lo;
}

static inline uint64_t fxt_get(uint64_t w, unsigned int lo, unsigned int hi)
{
	uint64_t mask = hi - lo >= 63 ? ~0ULL : ((1ULL << (hi - lo + 1)) - 1);

	return (w >> lo) & mask;
}

/* Copy len bytes as a zero-padded stream; returns the word after it. */
static inline uint64_t *fxt_put_stream(uint64_t *p, const void *src,
				       size_t len)
{
	size_t full = len / 8, rest = len % 8;

	if (full)
		memcpy(p, src, full * 8);
	p += full;
	if (rest) {
		uint64_t w = 0;

		memcpy(&w, (const char *)src + full * 8, rest);
		*p++ = w;
	}
	return p;
}

/* ------------------------------------------------------------------ */
/* String interning table (fxt_strings.c)                              */
/* ------------------------------------------------------------------ */

struct fxt_strent {
	char *str;		/* key bytes as given (truncated), owned */
	uint32_t len;
	uint32_t cap;		/* allocated bytes of str, reused on eviction */
	uint32_t hash;
	uint16_t prev, next;	/* LRU list; 0 = none */
	uint8_t used;
	uint8_t pinned;
};

struct fxt_strtab {
	struct fxt_strent *ents;	/* [0] unused: index 0 = empty string */
	uint16_t *slots;		/* hash slots -> entry index, 0 = free */
	uint32_t nslots;		/* power of two, >= 2 * size */
	uint32_t size;			/* usable indices 1..size */
	uint32_t nused;
	uint16_t lru_head, lru_tail;	/* head = most recently used */
};

int fxt_strtab__init(struct fxt_strtab *t, uint32_t size);
void fxt_strtab__fini(struct fxt_strtab *t);
void fxt_strtab__clear(struct fxt_strtab *t);
uint32_t fxt_strtab__hash(const char *s, size_t len);
/* Index of s (and mark it recently used), or 0. */
unsigned int fxt_strtab__lookup(struct fxt_strtab *t, const char *s,
				size_t len, uint32_t hash);
/* Index the next assignment will use (free or LRU victim), or -ENOSPC. */
int fxt_strtab__victim(struct fxt_strtab *t);
/* Make index able to hold len bytes, so that a later assign cannot fail. */
int fxt_strtab__reserve(struct fxt_strtab *t, unsigned int index, size_t len);
/* Bind s to index (replacing its old string); -ENOMEM leaves t unchanged. */
int fxt_strtab__assign(struct fxt_strtab *t, unsigned int index,
		       const char *s, size_t len, uint32_t hash, bool pin);
/* Pin an existing entry. */
void fxt_strtab__pin(struct fxt_strtab *t, unsigned int index);

#endif /* FXT_INTERNAL_H */

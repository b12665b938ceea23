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
/* Size and put halves of the encoders (fxt_encode.c)                  */
/* ------------------------------------------------------------------ */

/*
 * fxt_size_*() validate every input and return the record's size in words
 * or -errno (the errors of fxt_enc_*() but -ENOSPC); fxt_put_*() write
 * exactly that many words and cannot fail.  Inputs must not change between
 * the two calls.
 */
int fxt_size_magic(void);
void fxt_put_magic(uint64_t *buf);
int fxt_size_provider_info(const char *name, size_t len);
void fxt_put_provider_info(uint64_t *buf, size_t words, uint32_t provider_id,
			   const char *name, size_t len);
int fxt_size_provider_section(void);
void fxt_put_provider_section(uint64_t *buf, uint32_t provider_id);
int fxt_size_provider_event(unsigned int event_id);
void fxt_put_provider_event(uint64_t *buf, uint32_t provider_id,
			    unsigned int event_id);
int fxt_size_init(uint64_t ticks_per_sec);
void fxt_put_init(uint64_t *buf, uint64_t ticks_per_sec);
int fxt_size_string(uint16_t index, const char *str, size_t len);
void fxt_put_string(uint64_t *buf, size_t words, uint16_t index,
		    const char *str, size_t len);
int fxt_size_thread(uint8_t index);
void fxt_put_thread(uint64_t *buf, uint8_t index, uint64_t pid, uint64_t tid);
int fxt_size_event(const struct fxt_event *ev);
void fxt_put_event(uint64_t *buf, size_t words, const struct fxt_event *ev);
int fxt_size_kobj(struct fxt_sref name, const struct fxt_arg *args,
		  unsigned int nargs);
void fxt_put_kobj(uint64_t *buf, size_t words, uint8_t obj_type,
		  uint64_t koid, struct fxt_sref name,
		  const struct fxt_arg *args, unsigned int nargs);
int fxt_size_large_blob(const struct fxt_tref *thread,
			struct fxt_sref category, struct fxt_sref name,
			const struct fxt_arg *args, unsigned int nargs,
			const void *data, size_t len);
void fxt_put_large_blob(uint64_t *buf, size_t words, uint64_t ts,
			const struct fxt_tref *thread,
			struct fxt_sref category, struct fxt_sref name,
			const struct fxt_arg *args, unsigned int nargs,
			const void *data, size_t len);

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

/* SPDX-License-Identifier: MIT */
/*
 * hmap.h - the one hash map of user/: open addressing, linear probing,
 * power-of-two capacity, at most half full (so a miss probes ~2.5 slots),
 * backward-shift deletion (no tombstones to sweep).
 *
 * A slot holds a 64-bit hash, a 64-bit key and a 64-bit value; hash 0
 * marks an empty slot (the map turns a computed 0 into 1).  Two ways in:
 *  - u64 keys (addresses, ids, pid << 32 | tid): hmap__get(), hmap__put(),
 *    hmap__get_or_add(), hmap__del(); the map hashes the key itself;
 *  - keys the caller holds (strings, byte spans, structs): the caller
 *    hashes them (hmap_hash_bytes()), stores whatever names them in the
 *    key word (an index, a pointer) and gives an equality callback to
 *    hmap__find(), which is inline so that the callback is too.
 * Values are u64: an index, or a pointer through (uintptr_t).  A set
 * ignores them.
 *
 * Written here rather than taken from a library: uthash (Debian's
 * uthash-dev, header-only) chains intrusive per-item handles of 56 bytes
 * and pointer-chases on every probe; khash and glib are bigger than the
 * 24-byte slot, and no Debian library gives a flat table with
 * overflow-checked growth in ~200 lines for a static arm64 binary.
 */
#ifndef FXTPROF_UTIL_HMAP_H
#define FXTPROF_UTIL_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	uint64_t hash;		/* 0: empty */
	uint64_t key;
	uint64_t val;
};

struct hmap {
	struct hmap_slot *slots;	/* NULL until the first insertion */
	size_t mask;			/* capacity - 1 */
	size_t len;			/* slots in use */
};

/* An empty map needs no call: zero it (struct hmap m = { 0 }). */
void hmap__free(struct hmap *m);
/* The bytes @m holds. */
static inline size_t hmap__bytes(const struct hmap *m)
{
	return m->slots ? (m->mask + 1) * sizeof(struct hmap_slot) : 0;
}
/* Empty @m and keep its memory. */
void hmap__clear(struct hmap *m);
/* Room for @n entries without growing: 0, -ENOMEM (or too many). */
int hmap__reserve(struct hmap *m, size_t n);

/* A 64-bit mix of @k (the murmur3 finalizer), never 0. */
static inline uint64_t hmap_hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k ? k : 1;
}

/* A hash of @len bytes at @p, seeded with @seed (chain spans); never 0. */
uint64_t hmap_hash_bytes(const void *p, size_t len, uint64_t seed);

/*
 * Keys the caller holds.  The slot of @hash that @eq(@ctx, slot) accepts,
 * or NULL.  @hash as the caller computed it (0 is taken as 1).
 */
static inline struct hmap_slot *
hmap__find(const struct hmap *m, uint64_t hash,
	   bool (*eq)(const void *ctx, const struct hmap_slot *s),
	   const void *ctx)
{
	size_t i;

	if (!m->len)
		return NULL;
	hash = hash ? hash : 1;
	for (i = hash & m->mask; m->slots[i].hash; i = (i + 1) & m->mask)
		if (m->slots[i].hash == hash && eq(ctx, &m->slots[i]))
			return &m->slots[i];
	return NULL;
}

/*
 * Add an entry the caller knows is not there (hmap__find() missed).
 * The new slot in *@slot if @slot: valid until the next insertion or
 * removal.  0 or -ENOMEM.
 */
int hmap__add(struct hmap *m, uint64_t hash, uint64_t key, uint64_t val,
	      struct hmap_slot **slot);

/* Remove @s, a slot of @m; later slots of its probe run move up. */
void hmap__remove(struct hmap *m, struct hmap_slot *s);

/* u64 keys. */
static inline struct hmap_slot *hmap__slot(const struct hmap *m,
					   uint64_t key)
{
	uint64_t hash = hmap_hash_u64(key);
	size_t i;

	if (!m->len)
		return NULL;
	for (i = hash & m->mask; m->slots[i].hash; i = (i + 1) & m->mask)
		if (m->slots[i].key == key && m->slots[i].hash == hash)
			return &m->slots[i];
	return NULL;
}

/* The value of @key, NULL if absent; valid until the next change. */
static inline uint64_t *hmap__get(const struct hmap *m, uint64_t key)
{
	struct hmap_slot *s = hmap__slot(m, key);

	return s ? &s->val : NULL;
}

/*
 * The value of @key in *@val, added as 0 if absent: 1 if added, 0 if it
 * was there, -ENOMEM.
 */
int hmap__get_or_add(struct hmap *m, uint64_t key, uint64_t **val);
/* Set @key to @val, adding or replacing: 0 or -ENOMEM. */
int hmap__put(struct hmap *m, uint64_t key, uint64_t val);
/* Remove @key: true if it was there. */
bool hmap__del(struct hmap *m, uint64_t key);

/* Every slot in use, in no order; no insertion or removal meanwhile. */
#define hmap__for_each(m, s)						\
	for ((s) = (m)->slots;						\
	     (m)->slots && (s) <= &(m)->slots[(m)->mask]; (s)++)	\
		if ((s)->hash)

#endif /* FXTPROF_UTIL_HMAP_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * codec_table.h - what the encoder of chunk codec 2 (chunk_codec2.c)
 * builds its per-chunk lookup tables from: the hash step, the thread
 * slot, and the grow step of an open-addressed table whose slots are live
 * only while they carry the table's generation (a new chunk empties every
 * table by bumping the generation, not by clearing it).  Only an encoder
 * looks records up; the decoders (codec 1 is decode-only) find every
 * entry by the index the coded chunk gives.
 */
#ifndef FXTPROF_CODEC_TABLE_H
#define FXTPROF_CODEC_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t codec_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* A chunk's thread: its pid/tid pair and its index in the chunk. */
struct thread_slot {
	uint64_t pid, tid;
	uint32_t idx, gen;
};

static inline uint32_t thread_slot_hash(const void *slot)
{
	const struct thread_slot *s = slot;

	return (uint32_t)codec_mix(s->pid, s->tid);
}

static inline uint32_t slot_gen(const unsigned char *slot, size_t gen_off)
{
	uint32_t gen;

	memcpy(&gen, slot + gen_off, sizeof(gen));
	return gen;
}

/*
 * A table of twice @n slots of @slot_size bytes holding @old's slots of
 * generation @gen, each placed by @hash (linear probing, @n a power of
 * two), or NULL.  The caller frees @old.
 */
static inline void *codec_table__rehash(const void *old, uint32_t n,
					size_t slot_size, size_t gen_off,
					uint32_t gen,
					uint32_t (*hash)(const void *slot))
{
	uint32_t mask = n * 2 - 1;
	unsigned char *t = calloc((size_t)n * 2, slot_size);

	if (!t)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *o = (const unsigned char *)old + i * slot_size;
		uint32_t j;

		if (slot_gen(o, gen_off) != gen)
			continue;
		j = hash(o) & mask;
		while (slot_gen(t + j * slot_size, gen_off) == gen)
			j = (j + 1) & mask;
		memcpy(t + j * slot_size, o, slot_size);
	}
	return t;
}

#endif /* FXTPROF_CODEC_TABLE_H */

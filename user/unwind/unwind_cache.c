// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_cache.c - see unwind_cache.h.  An entry per build id seen, in an
 * array that the hash map (util/hmap.h) indexes by a hash of the id; an
 * entry keeps its table, or the error it gave, so that a build id is
 * read and counted once.
 */
#include "unwind/unwind_cache.h"
#include "unwind/unwind_internal.h"
#include "util/hmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct unwind_cache_entry {
	uint8_t build_id[FXTPROF_BUILD_ID_MAX];
	uint8_t build_id_size;
	int err;			/* what a get answers, 0: table */
	struct unwind_table *table;
};

struct unwind_cache {
	uint64_t cap;
	struct hmap index;		/* hash of a build id -> entry */
	struct unwind_cache_entry *entries;
	size_t nr, alloc;
	struct unwind_cache_stats stats;
};

struct build_id_key {
	const struct unwind_cache *c;
	const uint8_t *id;
	size_t size;
};

struct unwind_cache *unwind_cache__new(uint64_t cap)
{
	struct unwind_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->cap = cap;
	return c;
}

void unwind_cache__free(struct unwind_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++)
		unwind_table__free(c->entries[i].table);
	free(c->entries);
	hmap__free(&c->index);
	free(c);
}

static bool build_id_eq(const void *ctx, const struct hmap_slot *s)
{
	const struct build_id_key *k = ctx;
	const struct unwind_cache_entry *e = &k->c->entries[s->val];

	return e->build_id_size == k->size &&
	       !memcmp(e->build_id, k->id, k->size);
}

/* A new entry for @id, its error to be set by the caller. */
static struct unwind_cache_entry *
cache_add(struct unwind_cache *c, uint64_t hash, const uint8_t *id,
	  size_t size)
{
	struct unwind_cache_entry *e;

	if (c->nr == c->alloc) {
		size_t n = c->alloc ? 2 * c->alloc : 64;

		e = realloc(c->entries, n * sizeof(*e));
		if (!e)
			return NULL;
		c->entries = e;
		c->alloc = n;
	}
	if (hmap__add(&c->index, hash, 0, c->nr, NULL))
		return NULL;
	e = &c->entries[c->nr++];
	memset(e, 0, sizeof(*e));
	memcpy(e->build_id, id, size);
	e->build_id_size = (uint8_t)size;
	return e;
}

/* Build @elf's table into @e, keep it if it fits, count what happened. */
static int cache_fill(struct unwind_cache *c, struct unwind_cache_entry *e,
		      Elf *elf, char *why)
{
	struct unwind_table *t;
	size_t size;
	int err;

	err = unwind_table__build_elf(elf, &t, why);
	if (err) {
		c->stats.failed++;
		return err;
	}
	if (!t->nr_rows) {
		unwind_table__free(t);
		c->stats.no_cfi++;
		return unwind__why(why, -ENODATA, "no CFI");
	}
	size = unwind_table__size(t);
	if (size > c->cap - c->stats.bytes || c->stats.bytes > c->cap) {
		c->stats.over_cap++;
		c->stats.over_cap_bytes += size;
		unwind_table__free(t);
		return unwind__why(why, -ENOSPC,
				   "its table (%zu bytes) is over the unwind memory cap",
				   size);
	}
	e->table = t;
	c->stats.tables++;
	c->stats.rows += t->nr_rows;
	c->stats.bytes += size;
	return 0;
}

int unwind_cache__get(struct unwind_cache *c, int fd,
		      const struct unwind_table **out, char *why)
{
	uint8_t id[FXTPROF_BUILD_ID_MAX];
	struct unwind_cache_entry *e;
	struct build_id_key key = { .c = c, .id = id };
	struct hmap_slot *slot;
	uint64_t hash;
	Elf *elf;
	int n, err;

	*out = NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = unwind__why(why, -ENOEXEC, "not an ELF file");
		c->stats.failed++;
		goto end_elf;
	}
	n = unwind_table__build_id(elf, id);
	if (n < 0) {
		err = unwind__why(why, n, "no build id");
		c->stats.no_build_id++;
		goto end_elf;
	}
	key.size = (size_t)n;
	hash = hmap_hash_bytes(id, key.size, 0);
	slot = hmap__find(&c->index, hash, build_id_eq, &key);
	if (slot) {
		e = &c->entries[slot->val];
		err = e->err;
		if (why && err)
			unwind__why(why, err, "already counted");
		goto found;
	}
	e = cache_add(c, hash, id, key.size);
	if (!e) {
		err = unwind__why(why, -ENOMEM, "no memory for the cache");
		goto end_elf;
	}
	err = e->err = cache_fill(c, e, elf, why);
found:
	*out = e->table;
end_elf:
	if (elf)
		elf_end(elf);
	return err;
}

void unwind_cache__stats(const struct unwind_cache *c,
			 struct unwind_cache_stats *st)
{
	*st = c->stats;
}

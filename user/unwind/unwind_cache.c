// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_cache.c - see unwind_cache.h.  An entry per build id seen, in an
 * array that the hash map (util/hmap.h) indexes by a hash of the id; an
 * entry keeps its table, or the error it gave, so that a build id is
 * read and counted once.
 */
#include "unwind/unwind_cache.h"
#include "unwind/unwind_internal.h"
#include "util/array_grow.h"
#include "util/hmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct unwind_cache_entry {
	uint8_t build_id[FXTPROF_BUILD_ID_MAX];
	uint8_t build_id_size;
	bool counted_over;		/* in stats.over_cap already */
	int err;			/* what a get answers, 0: table */
	size_t need;			/* with -ENOSPC: the table's size */
	struct unwind_table *table;
};

/* An evicted entry's err: a get builds its table again. */
#define EVICTED		(-ESTALE)

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

	/* libelf wants it before the first elf_begin, of the caller's too. */
	elf_version(EV_CURRENT);
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

	if (array_grow((void **)&c->entries, &c->alloc, c->nr + 1,
		       sizeof(*c->entries)))
		return NULL;
	if (hmap__add(&c->index, hash, 0, c->nr, NULL))
		return NULL;
	e = &c->entries[c->nr++];
	memset(e, 0, sizeof(*e));
	memcpy(e->build_id, id, size);
	e->build_id_size = (uint8_t)size;
	return e;
}

static struct unwind_cache_entry *entry_of(const struct unwind_cache *c,
					   const uint8_t *id, size_t size)
{
	const struct build_id_key key = { .c = c, .id = id, .size = size };
	struct hmap_slot *slot;

	slot = hmap__find(&c->index, hmap_hash_bytes(id, size, 0),
			  build_id_eq, &key);
	return slot ? &c->entries[slot->val] : NULL;
}

/*
 * Whether a get of @e builds its table again: once evicted, or when a
 * table that did not fit fits now (others were evicted meanwhile).
 */
static bool retry(const struct unwind_cache *c,
		  const struct unwind_cache_entry *e)
{
	return e->err == EVICTED ||
	       (e->err == -ENOSPC && c->stats.bytes <= c->cap &&
		e->need <= c->cap - c->stats.bytes);
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
		if (!e->counted_over) {
			c->stats.over_cap++;
			c->stats.over_cap_bytes += size;
			e->counted_over = true;
		}
		e->need = size;
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

int unwind_cache__get_elf(struct unwind_cache *c, Elf *elf,
			  const struct unwind_table **out, char *why)
{
	uint8_t id[FXTPROF_BUILD_ID_MAX];
	struct unwind_cache_entry *e;
	int n, err;

	*out = NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		c->stats.failed++;
		return unwind__why(why, -ENOEXEC, "not an ELF file");
	}
	n = unwind_table__build_id(elf, id);
	if (n < 0) {
		c->stats.no_build_id++;
		return unwind__why(why, n, "no build id");
	}
	e = entry_of(c, id, (size_t)n);
	if (e && !retry(c, e)) {
		*out = e->table;
		return e->err ? unwind__why(why, e->err, "counted before") : 0;
	}
	if (!e)
		e = cache_add(c, hmap_hash_bytes(id, (size_t)n, 0), id,
			      (size_t)n);
	if (!e)
		return unwind__why(why, -ENOMEM, "no memory for the cache");
	err = e->err = cache_fill(c, e, elf, why);
	*out = e->table;
	return err;
}

int unwind_cache__get(struct unwind_cache *c, int fd,
		      const struct unwind_table **out, char *why)
{
	Elf *elf;
	int err;

	elf = elf_begin(fd, ELF_C_READ, NULL);
	err = unwind_cache__get_elf(c, elf, out, why);
	elf_end(elf);
	return err;
}

bool unwind_cache__find(const struct unwind_cache *c, const uint8_t *id,
			size_t size, const struct unwind_table **out, int *err)
{
	const struct unwind_cache_entry *e = entry_of(c, id, size);

	*out = NULL;
	if (!e || e->err == EVICTED)
		return false;
	*out = e->table;
	*err = e->err;
	return true;
}

size_t unwind_cache__need(const struct unwind_cache *c, const uint8_t *id,
			  size_t size)
{
	const struct unwind_cache_entry *e = entry_of(c, id, size);

	return e && e->err == -ENOSPC ? e->need : 0;
}

size_t unwind_cache__evict(struct unwind_cache *c, const uint8_t *id,
			   size_t size)
{
	struct unwind_cache_entry *e = entry_of(c, id, size);
	size_t bytes;

	if (!e || !e->table)
		return 0;
	bytes = unwind_table__size(e->table);
	c->stats.tables--;
	c->stats.rows -= e->table->nr_rows;
	c->stats.bytes -= bytes;
	c->stats.evicted++;
	unwind_table__free(e->table);
	e->table = NULL;
	e->err = EVICTED;
	return bytes;
}

void unwind_cache__stats(const struct unwind_cache *c,
			 struct unwind_cache_stats *st)
{
	*st = c->stats;
}

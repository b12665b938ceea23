/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sym_cache.h - what one (object, address) was named, in an open
 * addressing hash table, so that a repeated address costs one lookup.
 */
#ifndef FXTPROF_SYMBOLIZE_SYM_CACHE_H
#define FXTPROF_SYMBOLIZE_SYM_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/symbolizer.h"

struct sym_cache_entry {
	const void *obj;	/* NULL: empty slot */
	uint64_t addr;		/* the address looked up */
	uint64_t sym_start;
	uint8_t status;		/* enum sym_status */
	uint8_t nr_frames;
	struct sym_frame frame0;
	struct sym_frame *more;	/* frames 1 .. nr_frames - 1 */
};

struct sym_cache {
	struct sym_cache_entry *slots;
	size_t mask, used;
};

struct sym_cache_entry *sym_cache__find(const struct sym_cache *c,
					const void *obj, uint64_t addr);
/* A new entry for (obj, addr), not yet present; NULL when out of memory. */
struct sym_cache_entry *sym_cache__insert(struct sym_cache *c,
					  const void *obj, uint64_t addr);
void sym_cache__release(struct sym_cache *c);

#endif /* FXTPROF_SYMBOLIZE_SYM_CACHE_H */

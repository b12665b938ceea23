/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind_cache.h - unwind tables by build id, within a memory cap.
 *
 * Every process that maps a file shares its table, so a table is built
 * once per build id, at the first mapping seen, and kept while the cache
 * lives.  Tables count against the cap by unwind_table__size(); a table
 * that does not fit is not kept, and is counted (over_cap) once per build
 * id, as are files without CFI and files that cannot be read: a later
 * get of the same build id answers from the cache without reading the
 * file again.
 *
 *	struct unwind_cache *c = unwind_cache__new(FXTPROF_DEFAULT_UNWIND_MEMORY);
 *	const struct unwind_table *t;
 *	int err = unwind_cache__get(c, fd, &t, why);
 *	// 0: t has rows; -ENODATA: no CFI; -ENOSPC: over the cap;
 *	// -ENOENT: no build id; another -errno: unreadable (why says)
 *	unwind_cache__free(c);	// and every table
 */
#ifndef FXTPROF_UNWIND_CACHE_H
#define FXTPROF_UNWIND_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "unwind/unwind_table.h"

struct unwind_cache_stats {
	uint64_t tables;	/* kept */
	uint64_t rows;		/* of the tables kept */
	uint64_t bytes;		/* of the tables kept, against the cap */
	uint64_t no_cfi;	/* files without CFI */
	uint64_t over_cap;	/* tables that did not fit */
	uint64_t over_cap_bytes;
	uint64_t no_build_id;	/* files without one: never cached */
	uint64_t failed;	/* files that could not be read */
};

struct unwind_cache;

/* A cache that keeps at most @cap bytes of tables; NULL: no memory. */
struct unwind_cache *unwind_cache__new(uint64_t cap);
void unwind_cache__free(struct unwind_cache *c);

/*
 * The table of the ELF file open on @fd, built at the first get of its
 * build id.  *@out is valid until unwind_cache__free().  Errors as above,
 * with a sentence in @why (UNWIND_WHY_LEN bytes, or NULL) the first time.
 */
int unwind_cache__get(struct unwind_cache *c, int fd,
		      const struct unwind_table **out, char *why);

/* The counts so far. */
void unwind_cache__stats(const struct unwind_cache *c,
			 struct unwind_cache_stats *st);

#endif /* FXTPROF_UNWIND_CACHE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind_cache.h - unwind tables by build id, within a memory cap.
 *
 * Every process that maps a file shares its table, so a table is built
 * once per build id, at the first mapping seen, and kept until it is
 * evicted (unwind_cache__evict: the recorder makes room for the tables
 * of the processes that run now).  Tables count against the cap by
 * unwind_table__size(); a table that does not fit is not kept, and is
 * counted (over_cap) once per build id, as are files without CFI and
 * files that cannot be read: a later get of the same build id answers
 * from the cache without reading the file again, unless the table was
 * evicted, or did not fit and fits now.
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

#include <stdbool.h>
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
	uint64_t evicted;	/* tables evicted */
};

struct unwind_cache;

/*
 * A cache that keeps at most @cap bytes of tables; NULL: no memory.  It
 * sets libelf's version, so that a caller may elf_begin() an image for
 * unwind_cache__get_elf().
 */
struct unwind_cache *unwind_cache__new(uint64_t cap);
void unwind_cache__free(struct unwind_cache *c);

/*
 * The table of the ELF file open on @fd, built at the first get of its
 * build id.  *@out is valid until unwind_cache__free().  Errors as above,
 * with a sentence in @why (UNWIND_WHY_LEN bytes, or NULL) the first time.
 */
int unwind_cache__get(struct unwind_cache *c, int fd,
		      const struct unwind_table **out, char *why);
/* The same for an ELF image libelf has open (a vDSO: elf_memory()). */
int unwind_cache__get_elf(struct unwind_cache *c, Elf *elf,
			  const struct unwind_table **out, char *why);

/*
 * What a get of build id @id (@size bytes) answers, if one was made:
 * true with *@err and *@out as that get gave them (*@out NULL unless
 * *@err is 0); false if the build id was never got.  Reads no file.
 */
bool unwind_cache__find(const struct unwind_cache *c, const uint8_t *id,
			size_t size, const struct unwind_table **out, int *err);

/* With -ENOSPC for build id @id: the size of its table, else 0. */
size_t unwind_cache__need(const struct unwind_cache *c, const uint8_t *id,
			  size_t size);

/*
 * Free the table of build id @id: its bytes (0 if it has none kept).
 * What earlier gets gave of it is freed too; a later get builds it again.
 */
size_t unwind_cache__evict(struct unwind_cache *c, const uint8_t *id,
			   size_t size);

/* The counts so far. */
void unwind_cache__stats(const struct unwind_cache *c,
			 struct unwind_cache_stats *st);

#endif /* FXTPROF_UNWIND_CACHE_H */

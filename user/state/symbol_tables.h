/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbol_tables.h - what a stream has said about address spaces: the
 * live executable mappings of every process, the kernel's images and the
 * kernel symbols written so far.
 *
 * Like the names (names.h), a consumer that joins at a new segment has
 * seen none of it, so the stream state keeps it here and replays it at
 * the start of every segment.  Records are kept as copies of the uapi
 * records that carried them.
 *
 *  - Mappings are kept per process.  A new mapping replaces the older
 *    ones it overlaps (the kernel replaced them too); a fork copies the
 *    parent's to the child (the child's address space is a copy); the end
 *    of the process drops them all.  An exec drops nothing: the new
 *    image's mappings come before the EXEC record, and the old ones they
 *    do not overlap stay (harmless: no sample of the new image is in
 *    them).
 *  - Kernel images (KMOD) are kept for the whole recording.
 *  - Kernel symbols are kept for the whole recording, sorted by address,
 *    but not replayed: a segment writes only the ones its own samples
 *    hit, each once, before the first sample that needs it.  Every entry
 *    remembers the segment that last wrote it, so a new segment costs
 *    nothing here (a counter goes up) and replays none of the thousands
 *    of symbols a long recording collects.
 */
#ifndef FXTPROF_SYMBOL_TABLES_H
#define FXTPROF_SYMBOL_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libfxtprof.h>

#include "util/hmap.h"

struct proc_mappings {
	uint32_t pid;
	uint32_t n, cap;
	struct fxtprof_mmap **maps;	/* malloc'd copies */
};

struct table_ksym {
	uint64_t addr, end;		/* [addr, end) */
	uint64_t written;		/* the segment that last wrote it; 0 */
	struct fxtprof_ksym *rec;	/* malloc'd copy */
};

struct symbol_tables {
	struct hmap procs;		/* pid -> struct proc_mappings * */
	size_t nmaps;			/* live mappings, all processes */

	struct fxtprof_kmod **kmods;
	size_t nkmods, kmods_cap;

	struct table_ksym *ksyms;	/* sorted by address */
	size_t nksyms, ksyms_cap;
	uint64_t segment;		/* the segment being written, from 1 */
};


void symbol_tables__init(struct symbol_tables *t);
/* The bytes @t holds for mappings, and for kernel images and symbols. */
void symbol_tables__bytes(const struct symbol_tables *t, size_t *mappings,
			  size_t *kernel);
void symbol_tables__fini(struct symbol_tables *t);

/* 0 or -ENOMEM (the table then misses the record, nothing else). */
int symbol_tables__add_mapping(struct symbol_tables *t,
			       const struct fxtprof_mmap *m);
/* Drop @pid's mappings older than @ts; all of them: UINT64_MAX. */
void symbol_tables__drop_mappings(struct symbol_tables *t, uint32_t pid,
				  uint64_t ts);
int symbol_tables__fork(struct symbol_tables *t, uint32_t parent,
			uint32_t child);
int symbol_tables__add_kmod(struct symbol_tables *t,
			    const struct fxtprof_kmod *k);

/* A new segment begins: no kernel symbol is written in it yet. */
void symbol_tables__begin_segment(struct symbol_tables *t);
/* The known kernel symbol holding @ip, or NULL. */
struct table_ksym *symbol_tables__find_ksym(struct symbol_tables *t,
					    uint64_t ip);
/*
 * Keep a copy of @k (the entry already held at its address, if any, is
 * kept instead) and, through @out if not NULL, its entry.  0 or -ENOMEM.
 */
int symbol_tables__add_ksym(struct symbol_tables *t,
			    const struct fxtprof_ksym *k,
			    struct table_ksym **out);

/* Visit what a new segment replays: kmods first, then mappings. */
typedef int (*symbol_visit_fn)(void *ctx, const struct fxtprof_rec_hdr *rec);
int symbol_tables__for_each(const struct symbol_tables *t,
			    symbol_visit_fn fn, void *ctx);

#endif /* FXTPROF_SYMBOL_TABLES_H */

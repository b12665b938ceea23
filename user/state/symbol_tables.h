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
 *  - Kernel symbols are kept for the whole recording and written once
 *    per segment: ksym_seen() tells whether one was.
 */
#ifndef FXTPROF_SYMBOL_TABLES_H
#define FXTPROF_SYMBOL_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libfxtprof.h>

struct proc_mappings {
	uint32_t pid;
	uint8_t used;			/* 1 = in use, 2 = tombstone */
	uint32_t n, cap;
	struct fxtprof_mmap **maps;	/* malloc'd copies */
};

struct symbol_tables {
	struct proc_mappings *procs;	/* open addressing by pid */
	size_t procs_cap, procs_used, procs_live;
	size_t nmaps;			/* live mappings, all processes */

	struct fxtprof_kmod **kmods;
	size_t nkmods, kmods_cap;

	struct fxtprof_ksym **ksyms;	/* in the order written */
	size_t nksyms, ksyms_cap;
	uint64_t *ksym_set;		/* addresses + 1; 0 = free slot */
	size_t ksym_set_cap;
};

void symbol_tables__init(struct symbol_tables *t);
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

bool symbol_tables__ksym_seen(const struct symbol_tables *t, uint64_t addr);
int symbol_tables__add_ksym(struct symbol_tables *t,
			    const struct fxtprof_ksym *k);

/* Visit what a new segment replays, kmods first, then mappings, ksyms. */
typedef int (*symbol_visit_fn)(void *ctx, const struct fxtprof_rec_hdr *rec);
int symbol_tables__for_each(const struct symbol_tables *t,
			    symbol_visit_fn fn, void *ctx);

#endif /* FXTPROF_SYMBOL_TABLES_H */

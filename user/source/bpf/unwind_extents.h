/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind_extents.h - where the bpf source puts each table's rows in its
 * unwind_rows array: first fit, space never used before first, freed
 * extents kept sorted and merged with their neighbours.  Without libbpf,
 * so that tests/bpf/test_unwind_extents needs no privileges.
 *
 * Never-used space goes first so that a freed extent, which a walk that
 * found its table just before the unload may still read, is reused as
 * late as possible.  Even then such a walk is safe: it reads rows only
 * through row_at() (unwind.bpf.h), which bounds every index, so the worst
 * a reuse gives is a wrong frame in that one sample.
 */
#ifndef FXTPROF_UNWIND_EXTENTS_H
#define FXTPROF_UNWIND_EXTENTS_H

#include <stddef.h>
#include <linux/types.h>

struct unwind_extent {
	__u32 first, nr;
};

struct unwind_extents {
	__u32 size;			/* rows in all */
	__u32 top;			/* [top, size) was never used */
	struct unwind_extent *free;	/* below top, sorted, apart */
	__u32 nr_free;
	size_t max_free;
};

/* An allocator of @size rows, all free. */
void unwind_extents__init(struct unwind_extents *x, __u32 size);
void unwind_extents__fini(struct unwind_extents *x);

/* @nr rows (> 0) in *@first: 0, or -ENOSPC (or -ENOMEM). */
int unwind_extents__alloc(struct unwind_extents *x, __u32 nr, __u32 *first);

/* Give back what alloc gave: 0, or -ENOMEM (the rows are then lost). */
int unwind_extents__free(struct unwind_extents *x, __u32 first, __u32 nr);

/* Rows free in all (never used, or freed). */
__u32 unwind_extents__avail(const struct unwind_extents *x);

#endif /* FXTPROF_UNWIND_EXTENTS_H */

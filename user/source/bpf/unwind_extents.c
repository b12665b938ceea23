// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_extents.c - see unwind_extents.h.  A few hundred tables at most
 * live at once, so the free list is a sorted array, searched in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind_extents.h"
#include "util/array_grow.h"

void unwind_extents__init(struct unwind_extents *x, __u32 size)
{
	memset(x, 0, sizeof(*x));
	x->size = size;
}

void unwind_extents__fini(struct unwind_extents *x)
{
	free(x->free);
	memset(x, 0, sizeof(*x));
}

static void remove_at(struct unwind_extents *x, __u32 i)
{
	memmove(&x->free[i], &x->free[i + 1],
		(x->nr_free - i - 1) * sizeof(x->free[0]));
	x->nr_free--;
}

int unwind_extents__alloc(struct unwind_extents *x, __u32 nr, __u32 *first)
{
	__u32 i;

	if (!nr)
		return -EINVAL;
	if (nr <= x->size - x->top) {
		*first = x->top;
		x->top += nr;
		return 0;
	}
	for (i = 0; i < x->nr_free; i++) {
		struct unwind_extent *e = &x->free[i];

		if (e->nr < nr)
			continue;
		*first = e->first;
		e->first += nr;
		e->nr -= nr;
		if (!e->nr)
			remove_at(x, i);
		return 0;
	}
	return -ENOSPC;
}

int unwind_extents__free(struct unwind_extents *x, __u32 first, __u32 nr)
{
	__u32 i, end = first + nr;

	if (!nr)
		return 0;
	/* The first extent after it: merge with it and the one before. */
	for (i = 0; i < x->nr_free && x->free[i].first < first; i++)
		;
	if (i && x->free[i - 1].first + x->free[i - 1].nr == first) {
		x->free[i - 1].nr += nr;
		if (i < x->nr_free && x->free[i].first == end) {
			x->free[i - 1].nr += x->free[i].nr;
			remove_at(x, i);
		}
		i--;
	} else if (i < x->nr_free && x->free[i].first == end) {
		x->free[i].first = first;
		x->free[i].nr += nr;
	} else {
		if (array_grow((void **)&x->free, &x->max_free,
			       x->nr_free + 1, sizeof(x->free[0])))
			return -ENOMEM;
		memmove(&x->free[i + 1], &x->free[i],
			(x->nr_free - i) * sizeof(x->free[0]));
		x->free[i].first = first;
		x->free[i].nr = nr;
		x->nr_free++;
	}
	/* The last extent reaching top is never-used space again. */
	if (x->nr_free && i == x->nr_free - 1 &&
	    x->free[i].first + x->free[i].nr == x->top) {
		x->top = x->free[i].first;
		x->nr_free--;
	}
	return 0;
}

__u32 unwind_extents__avail(const struct unwind_extents *x)
{
	__u32 i, n = x->size - x->top;

	for (i = 0; i < x->nr_free; i++)
		n += x->free[i].nr;
	return n;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * array_grow.h - the two helpers growing arrays are built with (the
 * profile model, the reports, the unwind tables).
 */
#ifndef FXTPROF_ARRAY_GROW_H
#define FXTPROF_ARRAY_GROW_H

#include <errno.h>
#include <stdlib.h>

/*
 * Make room for @need elements of @elem bytes in *@arr (capacity *@cap),
 * doubling from 64 so that appends cost O(1) amortized.  0 or -ENOMEM;
 * on failure the array is unchanged.
 */
static inline int array_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

/* qsort(), but an empty array may be NULL (qsort's may not). */
static inline void array_sort(void *base, size_t n, size_t size,
			      int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif /* FXTPROF_ARRAY_GROW_H */

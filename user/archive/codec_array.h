/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * codec_array.h - the growing arrays both chunk codecs (chunk_codec.c,
 * chunk_codec2.c) keep a chunk's threads and stacks in: appended to one
 * entry at a time, emptied for the next chunk but never shrunk.
 */
#ifndef FXTPROF_CODEC_ARRAY_H
#define FXTPROF_CODEC_ARRAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Room for entry @n of @size bytes in *@p (capacity *@cap entries),
 * doubling from @first: true, or false with the array unchanged when
 * memory runs out.
 */
static inline bool codec_array__room(void **p, uint32_t *cap, uint32_t n,
				     size_t size, uint32_t first)
{
	uint32_t c = *cap ? *cap * 2 : first;
	void *q;

	if (n < *cap)
		return true;
	q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

#endif /* FXTPROF_CODEC_ARRAY_H */

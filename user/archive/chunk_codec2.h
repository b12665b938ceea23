/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunk_codec2.h - chunk codec 2 (ARCH_CODEC_MODELLED,
 * Documentation/archive-format.md, "Chunk codec 2"): the record shapes of
 * codec 1 (chunk_codec.h), every field of a sample and its stack coded by
 * an adaptive range coder (range_coder.h) under a model of the chunk so
 * far; every other record verbatim.  Lossless for any FXT.
 */
#ifndef FXTPROF_ARCHIVE_CHUNK_CODEC2_H
#define FXTPROF_ARCHIVE_CHUNK_CODEC2_H

#include <stddef.h>
#include <stdint.h>

/* The encoder's tables, models and coder buffer, kept from chunk to chunk. */
struct chunk_codec2;

int chunk_codec2__new(struct chunk_codec2 **cp);
void chunk_codec2__free(struct chunk_codec2 *c);

/*
 * @len bytes of whole FXT records, @records of them, coded into @out
 * (@cap bytes).  Returns the coded length; 0 when the coded form would
 * not be shorter than @len or not fit (store the chunk another way), or
 * -ENOMEM.
 */
long chunk_codec2__encode(struct chunk_codec2 *c, const void *fxt, size_t len,
			  uint32_t records, void *out, size_t cap);

/*
 * @len coded bytes back into exactly @out_len bytes of FXT holding
 * @records records.  0; -EBADMSG if the input is not a sound coded chunk
 * of that size (every index, length and count is checked against the
 * sizes, and the coder's bytes must be consumed exactly); or -ENOMEM.
 */
int chunk_codec2__decode(const void *in, size_t len, void *out,
			 size_t out_len, uint32_t records);

#endif /* FXTPROF_ARCHIVE_CHUNK_CODEC2_H */

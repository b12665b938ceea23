/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunk_codec.h - the archive's chunk transform, applied to a chunk's FXT
 * records before LZ4 and undone after it (ARCH_CODEC_COLUMNS,
 * Documentation/archive-format.md, "Chunk codec 1"): sample events split
 * into columns, stack blobs interned in a chunk-local table, every other
 * record verbatim.  Lossless for any FXT: what it does not recognise is
 * stored verbatim, and it decodes to exactly the bytes it was given.
 */
#ifndef FXTPROF_ARCHIVE_CHUNK_CODEC_H
#define FXTPROF_ARCHIVE_CHUNK_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* The encoder's tables and streams, kept from chunk to chunk. */
struct chunk_codec;

int chunk_codec__new(struct chunk_codec **cp);
void chunk_codec__free(struct chunk_codec *c);

/*
 * @len bytes of whole FXT records, @records of them, coded into @out
 * (@cap bytes).  Returns the coded length; 0 when the coded form would
 * not be shorter than @len or not fit (store the chunk uncoded), or
 * -ENOMEM.
 */
long chunk_codec__encode(struct chunk_codec *c, const void *fxt, size_t len,
			 uint32_t records, void *out, size_t cap);

/*
 * @len coded bytes back into exactly @out_len bytes of FXT holding
 * @records records.  0, -EBADMSG if the input is not a sound coded chunk
 * of that size (every index, length and varint is checked), or -ENOMEM.
 */
int chunk_codec__decode(const void *in, size_t len, void *out,
			size_t out_len, uint32_t records);

#endif /* FXTPROF_ARCHIVE_CHUNK_CODEC_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunk_codec.h - the decoder of chunk codec 1 (ARCH_CODEC_COLUMNS,
 * Documentation/archive-format.md, "Chunk codec 1"), undone after LZ4:
 * sample events split into columns, stack blobs interned in a
 * chunk-local table, every other record verbatim.  fxtprof writes codec
 * 2 now (chunk_codec2.h); archives written with codec 1 still read.
 */
#ifndef FXTPROF_ARCHIVE_CHUNK_CODEC_H
#define FXTPROF_ARCHIVE_CHUNK_CODEC_H

#include <stddef.h>
#include <stdint.h>

/*
 * @len coded bytes back into exactly @out_len bytes of FXT holding
 * @records records.  0, -EBADMSG if the input is not a sound coded chunk
 * of that size (every index, length and varint is checked), or -ENOMEM.
 */
int chunk_codec__decode(const void *in, size_t len, void *out,
			size_t out_len, uint32_t records);

#endif /* FXTPROF_ARCHIVE_CHUNK_CODEC_H */

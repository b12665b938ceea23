/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * codec_record.h - the FXT record shapes both chunk codecs (chunk_codec.c,
 * chunk_codec2.c) take apart, and the word access they read them with.
 * A sample is the encoder's: its event (enum fxt_sample_word, fxt_profile.h)
 * and its stack, a large record of at least FXT_STACK_FRAMES words.  What
 * each codec writes of them is its own format (archive-format.md), and
 * stays in its own file.
 */
#ifndef FXTPROF_CODEC_RECORD_H
#define FXTPROF_CODEC_RECORD_H

#include <stdint.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_profile.h"

/* A sample's words that repeat from sample to sample. */
struct template {
	uint64_t w0, w5;
	uint32_t w4lo, w6lo;
};

/* Chunk bytes are not aligned to words. */
static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void store64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A record's words from its header, 0 if it has none. */
static inline uint64_t record_words(uint64_t w0)
{
	return (w0 & 0xf) == FXT_REC_LARGE ? (w0 >> 4) & 0xffffffffu
				       : (w0 >> 4) & 0xfff;
}

#endif /* FXTPROF_CODEC_RECORD_H */

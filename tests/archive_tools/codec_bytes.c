// SPDX-License-Identifier: GPL-2.0-only
/*
 * codec_bytes.c - where an archive's bytes go, for iterating on the chunk
 * codecs (Documentation/performance.md, the archive section): read an FXT
 * file, cut it into chunks of about CHUNK bytes at record boundaries, and
 * code every chunk with codec 2 + LZ4, checking that each decodes back to
 * its bytes.  Prints the bytes per sample and the coding and decoding
 * speed, then what codec 2's range-coded bits are spent on, per sample (the codec is built here with RC_COST, which
 * counts the bits each field costs; the verbatim records are counted as
 * their LZ4 HC block, which the chunk's LZ4 block then holds).
 *
 * usage: codec_bytes IN.fxt [CHUNK_BYTES]
 */
#define _GNU_SOURCE
#define RC_COST
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lz4.h>

#include "archive/range_coder.c"
#include "archive/chunk_codec2.c"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const field_names[NFIELDS] = {
	"kind", "template", "cpu", "time", "thread", "kframes", "stack op",
	"stack earlier", "stack words", "stack differ", "stack leaf",
	"stack frames", "blob time",
};

int main(int argc, char **argv)
{
	size_t chunk = argc > 2 ? strtoul(argv[2], NULL, 0) : 4u << 20;
	unsigned char *data, *coded, *z, *back;
	struct chunk_codec2 *c2;
	double t_enc = 0, t_dec = 0, t0;
	uint64_t out = 0, samples = 0, verb_lz4 = 0, nchunks = 0;
	size_t len = 0, cap = 1 << 20, off = 0;
	FILE *f;

	if (argc < 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: codec_bytes IN.fxt [CHUNK_BYTES]\n");
		return 2;
	}
	data = malloc(cap);
	for (size_t n; data && (n = fread(data + len, 1, cap - len, f)) > 0;)
		if ((len += n) == cap)
			data = realloc(data, cap *= 2);
	fclose(f);
	coded = malloc(2 * chunk + (1 << 20));
	back = malloc(2 * chunk + (1 << 20));
	z = malloc(LZ4_compressBound((int)(2 * chunk + (1 << 20))));
	if (!data || !coded || !back || !z || chunk_codec2__new(&c2))
		return 1;
	while (off < len) {
		size_t end = off;
		uint32_t records = 0;

		/* Whole records up to about @chunk bytes. */
		while (end + 8 <= len && end - off < chunk) {
			uint64_t h, words;

			memcpy(&h, data + end, 8);
			words = record_words(h);
			if (!words || words * 8 > len - end)
				break;
			if ((h & 0xf) == FXT_REC_EVENT &&
			    words == FXT_SAMPLE_EVENT_WORDS)
				samples++;
			end += words * 8;
			records++;
		}
		if (end == off)
			break;
		nchunks++;
		{
			long n;
			int zn, ret;
			uint32_t zl;

			t0 = now();
			n = chunk_codec2__encode(c2, data + off, end - off,
						 records, coded, end - off);
			if (n <= 0) {
				fprintf(stderr, "chunk at %zu not coded (%ld)\n",
					off, n);
				return 1;
			}
			zn = LZ4_compress_default((char *)coded, (char *)z, (int)n,
						  LZ4_compressBound((int)n));
			t_enc += now() - t0;
			out += (uint64_t)zn + 64;
			memcpy(&zl, coded + 4, 4);
			verb_lz4 += zl;
			t0 = now();
			if (LZ4_decompress_safe((char *)z, (char *)coded, zn, (int)n) != n)
				return 1;
			ret = chunk_codec2__decode(coded, (size_t)n, back,
						   end - off, records);
			t_dec += now() - t0;
			if (ret || memcmp(back, data + off, end - off)) {
				fprintf(stderr, "chunk at %zu does not round-trip (%d)\n",
					off, ret);
				return 1;
			}
		}
		off = end;
	}
	printf("%zu bytes of FXT, %llu samples, %llu chunks of about %zu bytes\n",
	       len, (unsigned long long)samples, (unsigned long long)nchunks, chunk);
	printf("codec 2 + LZ4: %llu bytes, %.3f bytes/sample, code %.0f MB/s, decode %.0f MB/s\n",
	       (unsigned long long)out, (double)out / samples,
	       len / 1e6 / t_enc, len / 1e6 / t_dec);
	printf("codec 2 per sample:\n");
	for (int i = 0; i < NFIELDS; i++)
		if (c2->rc.cost[i] > 0)
			printf("  %-14s %7.3f bytes\n", field_names[i],
			       c2->rc.cost[i] / 8 / samples);
	printf("  %-14s %7.3f bytes (their LZ4 HC block)\n", "verbatim",
	       (double)verb_lz4 / samples);
	printf("  %-14s %7.3f bytes\n", "chunk headers", 64.0 * nchunks / samples);
	chunk_codec2__free(c2);
	return 0;
}

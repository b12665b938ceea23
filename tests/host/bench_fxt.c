// SPDX-License-Identifier: MIT
/*
 * bench_fxt.c - encoder micro benchmark.
 *
 * One "sample" = what the reader will write per timer sample: an instant
 * event cpu/sample on an inline (pid, tid) with args cpu (uint32) and pc
 * (pointer), plus a Fuchsia-style stack blob with 16 frames.  The string
 * refs are looked up through the interning table every time (hash hits),
 * as a reader that does not cache refs would.  The sink copies into a
 * 1 MiB ring.  Baseline: memcpy of the same bytes per sample.
 *
 * usage: bench_fxt [iterations]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fxt.h"

#define RING (1u << 20)

struct ring {
	uint8_t *buf;
	size_t pos;
	uint64_t bytes;
};

static int ring_write(void *ctx, const void *rec, size_t len)
{
	struct ring *r = ctx;

	if (r->pos + len > RING)
		r->pos = 0;
	memcpy(r->buf + r->pos, rec, len);
	r->pos += len;
	r->bytes += len;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 5000000;
	struct ring ring = { .buf = malloc(RING) };
	struct fxt_writer_opts o = { .sz = sizeof(o), .write = ring_write,
				     .ctx = &ring };
	struct fxt_writer *w;
	uint64_t pcs[16], sink = 0;
	size_t per_sample;
	double t0, t_enc, t_pin, t_cpy;
	uint8_t *src;

	if (!ring.buf || fxt_writer__new(&o, &w))
		return 1;
	for (int i = 0; i < 16; i++)
		pcs[i] = 0xffffffff81000000ULL + (uint64_t)i * 0x1234;
	fxt_writer__prologue(w, 1, "bench", FXT_NS_PER_SEC);

	/* 1: intern on every sample; best of 3 rounds (round 1 warms up) */
	t_enc = 1e9;
	for (int round = 0; round < 3; round++) {
	ring.bytes = 0;
	t0 = now();
	for (long i = 0; i < iters; i++) {
		struct fxt_sref cat, name, kcpu, kpc;
		struct fxt_tref t = fxt_tref_inline(1000 + (i & 63), 1000 + (i & 255));
		struct fxt_arg a[2];

		fxt_writer__string_ref(w, "cpu", 3, &cat);
		fxt_writer__string_ref(w, "sample", 6, &name);
		fxt_writer__string_ref(w, "cpu", 3, &kcpu);
		fxt_writer__string_ref(w, "pc", 2, &kpc);
		a[0] = (struct fxt_arg){ .name = kcpu, .type = FXT_ARG_UINT32,
					 .v.u32 = (uint32_t)(i & 7) };
		a[1] = (struct fxt_arg){ .name = kpc, .type = FXT_ARG_POINTER,
					 .v.ptr = pcs[0] + (uint64_t)i };
		pcs[0] = 0xffffffff81000000ULL + (uint64_t)i;
		fxt_writer__instant(w, (uint64_t)i, &t, cat, name, a, 2);
		fxt_writer__stack_sample(w, (uint64_t)i, t.pid, t.tid, pcs, 16);
	}
	if (now() - t0 < t_enc)
		t_enc = now() - t0;
	}
	per_sample = (size_t)(ring.bytes / (uint64_t)iters);

	/* 2: refs pinned once and cached by the caller */
	{
		struct fxt_sref cat, name, kcpu, kpc;

		fxt_writer__string_pin(w, "cpu", 3, &cat);
		fxt_writer__string_pin(w, "sample", 6, &name);
		kcpu = cat;
		fxt_writer__string_pin(w, "pc", 2, &kpc);
		t_pin = 1e9;
		for (int round = 0; round < 3; round++) {
		t0 = now();
		for (long i = 0; i < iters; i++) {
			struct fxt_tref t = fxt_tref_inline(1000 + (i & 63),
							    1000 + (i & 255));
			struct fxt_arg a[2] = {
				{ .name = kcpu, .type = FXT_ARG_UINT32,
				  .v.u32 = (uint32_t)(i & 7) },
				{ .name = kpc, .type = FXT_ARG_POINTER,
				  .v.ptr = pcs[0] },
			};

			pcs[0] = 0xffffffff81000000ULL + (uint64_t)i;
			fxt_writer__instant(w, (uint64_t)i, &t, cat, name, a, 2);
			fxt_writer__stack_sample(w, (uint64_t)i, t.pid, t.tid,
						 pcs, 16);
		}
		if (now() - t0 < t_pin)
			t_pin = now() - t0;
		}
	}

	/* baseline: copy the same bytes (two records) per sample */
	src = malloc(per_sample);
	memset(src, 0x5a, per_sample);
	t_cpy = 1e9;
	for (int round = 0; round < 3; round++) {
	t0 = now();
	for (long i = 0; i < iters; i++) {
		src[0] = (uint8_t)i;
		ring_write(&ring, src, 8 * 6);
		ring_write(&ring, src, per_sample - 8 * 6);
		sink += ring.buf[ring.pos - 1];
	}
	if (now() - t0 < t_cpy)
		t_cpy = now() - t0;
	}

	printf("samples: %ld, %zu bytes/sample (instant + 16-frame blob)\n",
	       iters, per_sample);
	printf("encode (interning lookups): %7.1f ns/sample  %6.2f M samples/s  %6.0f MB/s\n",
	       t_enc * 1e9 / iters, iters / t_enc / 1e6,
	       iters * (double)per_sample / t_enc / 1e6);
	printf("encode (pinned refs):       %7.1f ns/sample  %6.2f M samples/s  %6.0f MB/s\n",
	       t_pin * 1e9 / iters, iters / t_pin / 1e6,
	       iters * (double)per_sample / t_pin / 1e6);
	printf("memcpy baseline:            %7.1f ns/sample  %6.2f M samples/s  %6.0f MB/s\n",
	       t_cpy * 1e9 / iters, iters / t_cpy / 1e6,
	       iters * (double)per_sample / t_cpy / 1e6);
	fxt_writer__free(w);
	free(src);
	free(ring.buf);
	return sink == 42 ? 1 : 0;	/* keep the baseline loop alive */
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_receive_framer.c - libFuzzer target for receive's framing
 * (user/cmd/framer.c).  Beyond "no sanitizer report": cutting the
 * input into feeds changes nothing (bytes taken, boundary, records,
 * gaps, error offset and rule); the last boundary is never past what was
 * taken; at an error, the bytes taken end at the bad header (or inside
 * it, for the part of it earlier feeds gave);
 * and the whole records up to the boundary frame again with no error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "framer.h"

/* A small record limit, so the fuzzer reaches it; a large one too. */
static size_t run(const uint8_t *data, size_t size, size_t piece,
		  uint64_t max_record, struct framer *f)
{
	size_t off = 0, taken = 0, k, t;

	framer__init(f, max_record);
	while (off < size) {
		k = size - off < piece ? size - off : piece;
		t = framer__feed(f, data + off, k);
		if (t > k)
			abort();
		taken += t;
		if (framer__failed(f)) {
			/* All before the bad header, and of the header
			 * only what earlier feeds gave (at most 7). */
			if (taken < f->err_offset || taken > f->err_offset + 7)
				abort();
			break;
		}
		if (t != k)
			abort();
		off += k;
	}
	if (f->boundary > f->offset || f->boundary > size)
		abort();
	return framer__failed(f) ? f->err_offset : taken;
}

static void same(const struct framer *a, const struct framer *b)
{
	if (a->boundary != b->boundary || a->records != b->records ||
	    a->gaps != b->gaps || framer__failed(a) != framer__failed(b) ||
	    (framer__failed(a) && (a->err_offset != b->err_offset ||
				   strcmp(a->rule, b->rule))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t limits[] = { 64, FRAMER_DEFAULT_MAX_RECORD };
	struct framer whole, cut, again;

	for (unsigned int i = 0; i < 2; i++) {
		size_t kept = run(data, size, size ? size : 1, limits[i], &whole);

		if (run(data, size, 3, limits[i], &cut) != kept)
			abort();
		same(&whole, &cut);
		/* What is kept is a valid stream of whole records. */
		run(data, (size_t)whole.boundary, 5, limits[i], &again);
		if (framer__failed(&again) || again.boundary != whole.boundary ||
		    again.records != whole.records)
			abort();
	}
	return 0;
}

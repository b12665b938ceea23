// SPDX-License-Identifier: MIT
/*
 * fuzz_fxt_reader.c - libFuzzer target for the FXT decoder, checker and
 * text formatter.  Invariants beyond "no sanitizer report": the reader
 * never returns a record that extends past the bytes it was given, every
 * record advances by at least one word, and feeding the same input in two
 * pieces gives the same verdict as feeding it whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"

static char line[1 << 18];

static int run(const uint8_t *data, size_t size, size_t split,
	       unsigned int flags, uint64_t *nrec)
{
	struct fxt_reader *r;
	struct fxt_record *rec = malloc(sizeof(*rec));
	uint64_t last = 0;
	int ret;

	if (!rec || fxt_reader__new(flags, &r))
		abort();
	*nrec = 0;
	fxt_reader__feed(r, data, split);
	for (int pass = 0; pass < 2; pass++) {
		while ((ret = fxt_reader__next(r, rec)) > 0) {
			if (rec->offset + (uint64_t)rec->size * 8 > size ||
			    rec->size == 0 || (*nrec && rec->offset <= last))
				abort();
			last = rec->offset;
			(*nrec)++;
			fxt_record__format(rec, line, sizeof(line));
		}
		if (ret < 0 || pass == 1)
			break;
		fxt_reader__feed(r, data + split, size - split);
	}
	if (ret == 0)
		ret = fxt_reader__finish(r);
	fxt_reader__free(r);
	free(rec);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t n1, n2, n3;
	int a, b;

	a = run(data, size, size, 0, &n1);
	b = run(data, size, size / 2, 0, &n2);
	if (a != b || n1 != n2)
		abort();
	run(data, size, size / 3, FXT_READER_LENIENT, &n3);
	fxt_check_buffer(data, size, NULL);
	return 0;
}

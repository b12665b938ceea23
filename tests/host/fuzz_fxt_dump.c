// SPDX-License-Identifier: MIT
/*
 * fuzz_fxt_dump.c - libFuzzer target for what `fxtprof dump` does with
 * each record (user/fxt/fxt_tools.c): the lenient reader, the text
 * formatter and the warning, into buffers of several sizes.  Beyond "no
 * sanitizer report": a formatted line is NUL-terminated within its
 * buffer, the returned length is that of what was written, and a short
 * buffer gets a prefix of what a long one gets.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"

#define LINE_MAX_LEN	(256 * 1024)	/* as fxt_tools.c */

static char line[LINE_MAX_LEN], shorter[97];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fxt_record *rec = malloc(sizeof(*rec));
	struct fxt_reader *r;
	size_t n, m;
	int err;

	if (!rec || fxt_reader__new(FXT_READER_LENIENT, &r))
		abort();
	/* Fed in two pieces, as chunks of a file would be. */
	err = fxt_reader__feed(r, data, size / 2);
	while (!err && (err = fxt_reader__next(r, rec)) > 0)
		err = 0;
	if (!err)
		err = fxt_reader__feed(r, data + size / 2, size - size / 2);
	while (!err && (err = fxt_reader__next(r, rec)) > 0) {
		n = fxt_record__format(rec, line, sizeof(line));
		m = fxt_record__format(rec, shorter, sizeof(shorter));
		if (m > n || m != strlen(shorter) || n != strlen(line) ||
		    strncmp(line, shorter, m))
			abort();
		if (rec->warn_rule && !fxt_reader__warning(r)->rule)
			abort();
		err = 0;
	}
	if (!err)
		fxt_reader__finish(r);
	fxt_reader__free(r);
	free(rec);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * fuzz_fxt_check.c - libFuzzer target for the checker behind `fxtprof
 * check` (fxt_checker__feed/finish, as user/fxt/fxt_tools.c drives it).
 * Beyond "no sanitizer report": the verdict, the error's offset and rule,
 * and the statistics do not depend on how the input is cut into feeds,
 * and the records counted never cover more bytes than were given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"

struct verdict {
	int err;
	uint64_t offset, records, bytes, warnings;
	const char *rule;
};

static void on_warning(void *ctx, const struct fxt_error *w)
{
	(void)w;
	(*(uint64_t *)ctx)++;
}

static void check(const uint8_t *data, size_t size, size_t piece,
		  struct verdict *v)
{
	const struct fxt_check_stats *st;
	struct fxt_checker *c;
	uint64_t warned = 0;
	size_t off = 0;
	int err = 0;

	if (fxt_checker__new(on_warning, &warned, &c))
		abort();
	while (!err && off < size) {
		size_t k = size - off < piece ? size - off : piece;

		err = fxt_checker__feed(c, data + off, k);
		off += k;
	}
	if (!err)
		err = fxt_checker__finish(c);
	memset(v, 0, sizeof(*v));
	v->err = err;
	if (err) {
		v->offset = fxt_checker__error(c)->offset;
		v->rule = fxt_checker__error(c)->rule;
	}
	st = fxt_checker__stats(c);
	v->records = st->records;
	v->bytes = st->bytes;
	v->warnings = warned;
	if (st->bytes > size)
		abort();
	fxt_checker__free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict whole, cut;

	check(data, size, size ? size : 1, &whole);
	check(data, size, 7, &cut);
	if (whole.err != cut.err || whole.offset != cut.offset ||
	    whole.records != cut.records || whole.bytes != cut.bytes ||
	    whole.warnings != cut.warnings ||
	    (whole.rule != cut.rule &&
	     (!whole.rule || !cut.rule || strcmp(whole.rule, cut.rule))))
		abort();
	return 0;
}

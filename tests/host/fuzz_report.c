// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_report.c - libFuzzer target for `fxtprof report`
 * (user/cmd/report.c on memory buffers, report.h), summary printed.
 * Beyond "no sanitizer report": the verdict and the record count do not
 * depend on how the input is cut into feeds.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

static FILE *devnull;

/* report.c's error printer lives in user/cmd/main.c. */
int reader_err(int err, const char *fmt, ...)
{
	(void)fmt;
	return err;
}

static int run(const uint8_t *data, size_t size, size_t piece,
	       uint64_t *records, bool print)
{
	struct report *rp;
	size_t off = 0;
	int err = 0;

	if (report__new(&rp))
		abort();
	while (!err && off < size) {
		size_t k = size - off < piece ? size - off : piece;

		err = report__feed(rp, data + off, k);
		off += k;
	}
	if (!err)
		err = report__finish(rp);
	*records = report__records(rp);
	if (print)
		report__print(rp, devnull, "fuzz", 10);
	report__free(rp);
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t n1, n2;
	int a, b;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	a = run(data, size, size ? size : 1, &n1, true);
	b = run(data, size, 13, &n2, false);
	if (a != b || n1 != n2)
		abort();
	return 0;
}

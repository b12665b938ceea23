// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_wait FILE [SECS] - wait until the FXT file that `fxtprof record` is
 * writing holds a sample's stack (a large record, type 15, or a shared
 * stack's definition, a blob record, type 5), for at most SECS
 * seconds (default 30).  Under TCG, record takes a second or more to
 * read the kernel's symbols and every process's mappings before it
 * starts sampling; the workloads must not be over by then.  Exits 0 once
 * a sample is there, 1 on timeout or a malformed file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FXT_RECORD_BLOB		5
#define FXT_RECORD_LARGE	15

int main(int argc, char **argv)
{
	double secs = argc > 2 ? strtod(argv[2], NULL) : 30;
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	long off = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: sym_wait FILE [SECS]\n");
		return 2;
	}
	for (double waited = 0; waited < secs; waited += 0.02) {
		FILE *f = fopen(argv[1], "rb");
		uint64_t word;

		/* Whole records only: the writer may be in the middle of one. */
		while (f && fseek(f, off, SEEK_SET) == 0 &&
		       fread(&word, sizeof(word), 1, f) == 1) {
			unsigned int words = (word >> 4) & 0xfff;

			if (words == 0) {
				fprintf(stderr, "sym_wait: zero-size record at %ld\n", off);
				return 1;
			}
			if (fseek(f, off + (long)words * 8 - 1, SEEK_SET) || fgetc(f) == EOF)
				break;
			if ((word & 0xf) == FXT_RECORD_LARGE ||
			    (word & 0xf) == FXT_RECORD_BLOB) {
				printf("sym_wait: first sample after %.2f s\n", waited);
				return 0;
			}
			off += (long)words * 8;
		}
		if (f)
			fclose(f);
		nanosleep(&nap, NULL);
	}
	fprintf(stderr, "sym_wait: no sample in %s after %.0f s\n", argv[1], secs);
	return 1;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * nofp.c - a program built as Debian builds its packages, -O2 and no
 * frame pointers, whose table test_unwind_cfi checks: work inside a libc
 * callback (qsort's comparison) and in a deep recursion.  Built for
 * x86_64 and, cross, for aarch64 (where the leaves keep their return
 * address in x30).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static int nofp_cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	sink += x ^ y;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static unsigned long recurse(int depth)
{
	unsigned long r;

	if (depth == 0)
		return sink;
	r = recurse(depth - 1);
	sink += r + (unsigned long)depth;
	return r + 1;
}

int main(int argc, char **argv)
{
	unsigned int v[256];
	int i, rounds = argc > 1 ? atoi(argv[1]) : 1;

	(void)argv;
	while (rounds-- > 0) {
		for (i = 0; i < 256; i++)
			v[i] = (unsigned int)rand();
		qsort(v, 256, sizeof(v[0]), nofp_cmp);
		recurse(41);
	}
	printf("%lu\n", sink);
	return 0;
}

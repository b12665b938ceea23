// SPDX-License-Identifier: GPL-2.0-only
/*
 * scopy_work.c - the workload test_stack_copy samples: built -O2
 * -fomit-frame-pointer -g, it spends its time, half each, in qsort's
 * comparison callback (main -> sort_round -> qsort -> ... -> slow_cmp)
 * and at the bottom of a 41-deep recursion (main -> run_deep -> descend
 * x 41 -> spin).  Runs for argv[1] rounds.
 */
#include <stdlib.h>

#define DEPTH	41

static volatile unsigned long sink;

__attribute__((noinline)) static int slow_cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;
	int i;

	for (i = 0; i < 64; i++)
		sink += x ^ (y + i);
	return (x > y) - (x < y);
}

__attribute__((noinline, noipa)) static void sort_round(unsigned int *v,
						       int n)
{
	int i;

	for (i = 0; i < n; i++)
		v[i] = (unsigned int)rand();
	qsort(v, n, sizeof(v[0]), slow_cmp);
	sink += v[0];	/* qsort is no tail call */
}

__attribute__((noinline)) static unsigned long spin(void)
{
	unsigned long i, r = 0;

	for (i = 0; i < 300000; i++)
		r += sink ^ i;
	return r;
}

/* No tail call: the sum after each call keeps every level's frame. */
__attribute__((noinline)) static unsigned long descend(int depth)
{
	unsigned long r;

	if (depth == 0)
		r = spin();
	else
		r = descend(depth - 1);
	sink += r;
	return r + (unsigned long)depth;
}

__attribute__((noinline)) static void run_deep(void)
{
	sink += descend(DEPTH - 1);
}

int main(int argc, char **argv)
{
	unsigned int v[512];
	long rounds = argc > 1 ? atol(argv[1]) : 1;

	while (rounds-- > 0) {
		sort_round(v, 512);
		run_deep();
	}
	return (int)(sink & 1);
}

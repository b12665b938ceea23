// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxt_fpchain - a VM test workload with a known call chain:
 * main -> level1 -> level2 -> level3 -> spin, spinning for argv[1]
 * milliseconds (default 1000).  Built static, non-PIE, with frame
 * pointers and no inlining (tests/vm/build.mk), so test_sampling can
 * resolve the functions from this file's ELF symbols and expect exactly
 * that chain in the user stacks of its samples.
 *
 * spin() checks the clock only every few million iterations, so nearly
 * every sample lands in spin() itself rather than in the vDSO.
 */
#include <stdlib.h>
#include <time.h>

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) unsigned long spin(unsigned long long until)
{
	volatile unsigned long n = 0;

	do {
		for (unsigned long i = 0; i < (1ul << 20); i++)
			n = n + 1;
	} while (now_ms() < until);
	return n;
}

/* Each level uses its callee's result, so the call is never a tail call. */
__attribute__((noinline)) unsigned long level3(unsigned long long until)
{
	return spin(until) + 3;
}

__attribute__((noinline)) unsigned long level2(unsigned long long until)
{
	return level3(until) + 2;
}

__attribute__((noinline)) unsigned long level1(unsigned long long until)
{
	return level2(until) + 1;
}

int main(int argc, char **argv)
{
	unsigned long long ms = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000;

	return level1(now_ms() + ms) == 0;
}

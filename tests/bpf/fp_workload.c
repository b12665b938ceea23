// SPDX-License-Identifier: GPL-2.0-only
/*
 * fp_workload.c - a CPU-bound program with known functions, built with
 * frame pointers and without PIE or inlining (tests/bpf/build.mk), so the
 * user stacks the bpf source samples can be checked against its symbol
 * table: every sample should sit in fxtbpf_leaf, called from
 * fxtbpf_middle, called from fxtbpf_outer.
 *
 *   fp_workload SECONDS
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long fxtbpf_sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void fxtbpf_leaf(void)
{
	unsigned long i;

	for (i = 0; i < 200000; i++)
		fxtbpf_sink += i * 7;
}

__attribute__((noinline)) void fxtbpf_middle(void)
{
	fxtbpf_leaf();
	fxtbpf_sink++;
}

__attribute__((noinline)) void fxtbpf_outer(double end)
{
	while (now() < end)
		fxtbpf_middle();
	fxtbpf_sink++;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;

	fxtbpf_outer(now() + secs);
	return 0;
}

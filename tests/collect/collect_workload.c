// SPDX-License-Identifier: GPL-2.0-only
/*
 * collect_workload.c - spins in collect_leaf (called through
 * collect_mid) for the seconds its argument gives (default 2): the
 * program whose file run_record_collect.sh has `record --collect stream`
 * send to `receive --collect`.  Without inlining, with frame pointers.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void collect_leaf(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i * i;
}

__attribute__((noinline)) void collect_mid(void)
{
	collect_leaf();
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);

	while (now() < end)
		collect_mid();
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ns_workload.c - spins in procs_ns_leaf (called through procs_ns_mid)
 * for the seconds its argument gives (default 2), then exits: the
 * process that tests/procs/run_record_container.sh runs inside a pid and
 * mount namespace of its own.  Built without inlining, with frame
 * pointers, so that each function keeps its frame.
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

__attribute__((noinline)) void procs_ns_leaf(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i * i;
}

__attribute__((noinline)) void procs_ns_mid(void)
{
	procs_ns_leaf();
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);

	while (now() < end)
		procs_ns_mid();
	return 0;
}

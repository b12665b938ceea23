// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff_workload.c - a CPU-bound program whose hot function is chosen on
 * its command line, for tests/bpf/run_record_diff.sh: two recordings of
 * it with different shares must rank the function that changed first.
 *
 *   diff_workload MS A B C
 *
 * For MS milliseconds, of every A + B + C calls, A go to fxtdiff_a, B to
 * fxtdiff_b and C to fxtdiff_c, which do the same work.  Built without
 * inlining (tests/bpf/build.mk), so each keeps its own samples.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long fxtdiff_sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define WORK(name)						\
	__attribute__((noinline)) void name(void)		\
	{							\
		for (unsigned long i = 0; i < 20000; i++)	\
			fxtdiff_sink += i * 3;			\
	}
WORK(fxtdiff_a)
WORK(fxtdiff_b)
WORK(fxtdiff_c)

int main(int argc, char **argv)
{
	unsigned long a, b, c;
	double end;

	if (argc != 5) {
		fprintf(stderr, "usage: diff_workload MS A B C\n");
		return 2;
	}
	end = now() + strtod(argv[1], NULL) / 1000;
	a = strtoul(argv[2], NULL, 10);
	b = strtoul(argv[3], NULL, 10);
	c = strtoul(argv[4], NULL, 10);
	while (now() < end) {
		for (unsigned long k = 0; k < a + b + c; k++) {
			if (k < a)
				fxtdiff_a();
			else if (k < a + b)
				fxtdiff_b();
			else
				fxtdiff_c();
		}
	}
	return 0;
}

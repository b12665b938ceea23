// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_dl.c - the library unwind_workload dlopens, built -O2
 * -fomit-frame-pointer: dl_spin() calls dl_inner() until a deadline.
 */
#include <time.h>

#define NOINLINE	__attribute__((noinline, noipa))

static volatile unsigned long dl_sink;

NOINLINE static unsigned long dl_inner(unsigned long x)
{
	int i;

	for (i = 0; i < 20000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

NOINLINE void dl_spin(unsigned long until)
{
	struct timespec ts;

	do {
		dl_sink += dl_inner(dl_sink);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while ((unsigned long)ts.tv_sec * 1000 +
		 (unsigned long)ts.tv_nsec / 1000000 < until);
}

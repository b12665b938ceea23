/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sym_util.h - what the symbol workloads share: a millisecond clock and
 * a spin that reads it only every 2^18 iterations.  The clock call also
 * makes every spinning function a non-leaf, so it builds a frame record
 * on arm64 too and the frame-pointer unwinder sees its caller.
 */
#ifndef SYM_UTIL_H
#define SYM_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline unsigned long long sym_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static inline unsigned long long sym_arg_ms(int argc, char **argv, int i,
					    unsigned long long dflt)
{
	return argc > i ? strtoull(argv[i], NULL, 0) : dflt;
}

#endif /* SYM_UTIL_H */

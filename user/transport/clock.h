/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clock.h - a clock read as nanoseconds: the records' timestamps are
 * CLOCK_BOOTTIME's, and deadlines and rates are measured on it too.
 */
#ifndef FXTPROF_CLOCK_H
#define FXTPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* FXTPROF_CLOCK_H */

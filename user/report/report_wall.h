/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_wall.h - what each sample of a --wall tree weighs.  The samples
 * say where a thread ran; its context switches say how long
 * (profile_runs.h): the time it ran within the selected time, on the
 * selected CPUs, spread evenly over its selected samples.  A sampling
 * timer that missed periods (a guest's vCPU run late, a CPU too busy to
 * take its interrupt in time) then costs no on-CPU time, only detail.  A
 * thread with samples but no run there (its switches lost, or outside
 * the recording) gets a sampling period a sample.
 */
#ifndef FXTPROF_REPORT_WALL_H
#define FXTPROF_REPORT_WALL_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile_runs.h"

struct wall_sample {
	size_t idx;		/* profile__sample() index */
	uint32_t tid;
	uint64_t weight;	/* ns, set by wall__weigh() */
};

struct wall_stats {
	uint64_t timed;		/* threads weighed by their runs */
	uint64_t by_period;	/* threads weighed a period a sample */
};

/*
 * Weigh the @n selected samples @ws (sorted by tid here): by @runs within
 * [from, to] on @cpus (any CPU when nr_cpus is 0), else @period_ns each.
 */
void wall__weigh(const struct profile_runs *runs, struct wall_sample *ws,
		 size_t n, uint64_t from, uint64_t to, const uint32_t *cpus,
		 unsigned int nr_cpus, uint64_t period_ns,
		 struct wall_stats *st);

#endif /* FXTPROF_REPORT_WALL_H */

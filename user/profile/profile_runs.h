/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * profile_runs.h - when each thread of a loaded recording ran on a CPU,
 * from its context switches (the sched.switch source: FXT scheduling
 * records of type 1, Documentation/fxt-mapping.md).  A run is the time
 * between the switch that brought a thread onto a CPU and the one that
 * took it off; each CPU's switches chain, and a chain starts over at a
 * new segment.  A run whose start or end the recording does not hold (at
 * its edges, or across lost records where the chain breaks) is not
 * counted.  The idle tasks (tid 0) have none.
 */
#ifndef FXTPROF_PROFILE_RUNS_H
#define FXTPROF_PROFILE_RUNS_H

#include <stddef.h>
#include <stdint.h>

struct profile_runs;

/* One run: [start, end) in ns, CLOCK_BOOTTIME like the samples. */
struct profile_run {
	uint64_t start, end;
	uint32_t tid;
	uint16_t cpu;
};

/* All runs: 0 when the recording has no context switches. */
size_t profile_runs__nr(const struct profile_runs *r);
/* Thread tid's runs in time order, *n of them (NULL, 0: none). */
const struct profile_run *profile_runs__of(const struct profile_runs *r,
					   uint32_t tid, size_t *n);

/* ---- for the loader (user/profile/profile.c) ------------------------ */

int profile_runs__new(struct profile_runs **out);
void profile_runs__free(struct profile_runs *r);
/* A context switch on cpu at ts: out_tid leaves it, in_tid comes on. */
int profile_runs__switch(struct profile_runs *r, uint16_t cpu, uint64_t ts,
			 uint32_t out_tid, uint32_t in_tid);
/* A new segment: no chain goes on across it. */
void profile_runs__segment(struct profile_runs *r);
/* After the last record: sort and index.  0 or -ENOMEM. */
int profile_runs__index(struct profile_runs *r);

#endif /* FXTPROF_PROFILE_RUNS_H */

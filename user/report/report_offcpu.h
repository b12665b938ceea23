/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report_offcpu.h - off-CPU waits in the report engine's stacks
 * (report --off-cpu, flamegraph --off-cpu, and --wall): each wait weighs
 * the nanoseconds it lasted, under a root frame naming the state the
 * thread left in, with a leaf frame naming the thread that woke it where
 * the recording knows one; with --wall the samples, under "on-cpu", share
 * their thread's time on a CPU (report_wall.h).  Documentation/reports.md.
 */
#ifndef FXTPROF_REPORT_OFFCPU_H
#define FXTPROF_REPORT_OFFCPU_H

#include <stdint.h>

#include "profile/profile.h"
#include "report_annot.h"

/* The dso of the frames below: not code, so never named or colored as it. */
#define RT_OFFCPU_DSO	"[off-cpu]"
/* --wall: the root frame of the samples, beside the waits' states. */
#define RT_ON_CPU_FRAME	"on-cpu"

/*
 * The frames wait @w adds: *@root, its state ("off-cpu: sleeping"), and
 * *@leaf + 1, "woken by COMM" (0: no waker known).  0 or -errno.
 */
int rt_offcpu__frames(const struct profile_sample *w,
		      rt_annot_intern_fn intern, void *ctx, uint32_t *root,
		      uint32_t *leaf);

#endif /* FXTPROF_REPORT_OFFCPU_H */

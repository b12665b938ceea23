/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind_ranges.h - a process's unwind ranges as the bpf source keeps them
 * (struct fxtprof_bpf_unwind_proc, the value of the unwind_procs map):
 * FXTPROF_IOC_UNWIND_MAP's semantics on that array, without libbpf, so
 * that the host tests check them directly.
 */
#ifndef FXTPROF_UNWIND_RANGES_H
#define FXTPROF_UNWIND_RANGES_H

#include <linux/fxtprof.h>

#include "fxtprof_bpf.h"

/*
 * Apply @m to @p: [m->start, m->end) runs table m->id at m->bias, and
 * replaces whatever of @p it overlaps (the parts of a range outside it
 * stay); id 0 only removes.  @p stays sorted by start.  0, or -ENOSPC
 * when the result has more than FXTPROF_BPF_UNWIND_MAX_RANGES ranges (@p
 * is then unchanged).  @m is checked by the caller.
 */
int unwind_ranges__update(struct fxtprof_bpf_unwind_proc *p,
			  const struct fxtprof_unwind_map *m);

#endif /* FXTPROF_UNWIND_RANGES_H */

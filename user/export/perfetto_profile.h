/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto_profile.h - a loaded recording as Perfetto TracePackets: its
 * processes and threads by name, every sample with its named call stack,
 * and every off-CPU wait with its stacks on a sequence of its own, through
 * the incremental emitter (perfetto.h).
 */
#ifndef FXTPROF_PERFETTO_PROFILE_H
#define FXTPROF_PERFETTO_PROFILE_H

#include "export_stack.h"
#include "perfetto.h"

/* 0 or -errno (-ENOMEM, a symbolizer error or emit's). */
int perfetto__export_profile(const struct profile *p, struct symbolizer *s,
			     perfetto_emit_fn emit, void *ctx,
			     struct export_stats *st);

#endif /* FXTPROF_PERFETTO_PROFILE_H */

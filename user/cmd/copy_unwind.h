/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * copy_unwind.h - the stack copies of a profile unwound on the host: the
 * profile's unwinder interface (struct profile_unwinder) served by
 * user/unwind/stack_copy.h, with the files the symbolizer finds.  What
 * report, flamegraph, export and symbolize call after loading.
 */
#ifndef FXTPROF_CMD_COPY_UNWIND_H
#define FXTPROF_CMD_COPY_UNWIND_H

#include "profile/profile.h"
#include "symbolize/symbolizer.h"

/*
 * Give p's samples with a copy and no walked user stack their unwound
 * frames, the files found as sym_opts says: 0, or -errno (a message
 * printed).  Nothing to do, and fast, without copies.
 */
int copy_unwind__apply(struct profile *p,
		       const struct symbolizer_opts *sym_opts);

#endif /* FXTPROF_CMD_COPY_UNWIND_H */

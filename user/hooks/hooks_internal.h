/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hooks_internal.h - what hooks.c, the public entry points, gives the
 * Kokkos Tools callbacks (kokkos.c) beyond the public API: the kernels.
 *
 * The parts below hooks.c, each with its header: hooks_state.c (state,
 * mode, counters), hooks_thread.c (the per-thread state), out_device.c
 * and out_standalone.c (hooks_out.h: where an annotation goes).  None of
 * them calls up into hooks.c.
 */
#ifndef FXTPROF_HOOKS_INTERNAL_H
#define FXTPROF_HOOKS_INTERNAL_H

#include <stdint.h>

#include "hooks_state.h"

/* Kokkos kernels: begin returns the new kernel id. */
HIDDEN uint64_t hooks_kernel_begin(const char *name);
HIDDEN void hooks_kernel_end(uint64_t kid);

#endif /* FXTPROF_HOOKS_INTERNAL_H */

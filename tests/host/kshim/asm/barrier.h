/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim: the kernel's acquire/release accessors as C11 acquire loads and
 * release stores (LDAR/STLR on arm64, plain moves on x86), the same
 * mapping libfxtprof's consumer uses (user/lib/libfxtprof_internal.h).
 */
#ifndef FXTPROF_KSHIM_BARRIER_H
#define FXTPROF_KSHIM_BARRIER_H

#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

#endif /* FXTPROF_KSHIM_BARRIER_H */

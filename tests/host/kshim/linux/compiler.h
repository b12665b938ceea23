/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim: READ_ONCE/WRITE_ONCE as relaxed C11 atomic accesses.  GCC's
 * __atomic builtins are the C11 memory model on plain objects; the ring's
 * fields are plain __u64 in the uapi structs, so <stdatomic.h>, which
 * wants _Atomic types, does not apply.  Relaxed is what the kernel's
 * volatile access gives: no tearing, no ordering.
 */
#ifndef FXTPROF_KSHIM_COMPILER_H
#define FXTPROF_KSHIM_COMPILER_H

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif /* FXTPROF_KSHIM_COMPILER_H */

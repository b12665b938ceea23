/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim: the kernel's short integer types on top of the system's
 * <linux/types.h>, for kmod/kring.c and kmod/unwind_*.c built on the
 * host.  The kshim directory goes first on the include path of those
 * builds only.
 */
#ifndef FXTPROF_KSHIM_TYPES_H
#define FXTPROF_KSHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s16 s16;
typedef __s64 s64;

#endif /* FXTPROF_KSHIM_TYPES_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim: user memory for kmod/unwind_walk.c on the host.  The test brings
 * copy_from_user_nofault(), over a stack it built or captured, and fails
 * outside it as the kernel's fails on an unmapped page: -EFAULT, nothing
 * copied.
 */
#ifndef FXTPROF_KSHIM_UACCESS_H
#define FXTPROF_KSHIM_UACCESS_H

#include <stddef.h>

#define __user

long copy_from_user_nofault(void *dst, const void __user *src, size_t size);

#endif /* FXTPROF_KSHIM_UACCESS_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim: the kernel's <linux/stddef.h> gives NULL and offsetof; the
 * system's uapi one does not, so add the C library's.
 */
#ifndef FXTPROF_KSHIM_STDDEF_H
#define FXTPROF_KSHIM_STDDEF_H

#include_next <linux/stddef.h>
#include <stddef.h>

#endif /* FXTPROF_KSHIM_STDDEF_H */

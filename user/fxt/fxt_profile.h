/* SPDX-License-Identifier: MIT */
/*
 * fxt_profile.h - fxtprof's conventions on top of FXT for what a
 * symbolizer needs: executable mappings, kernel images and kernel symbols;
 * and for the wall clock the trace's timestamps were taken against.
 *
 * They travel as kernel object records (type 7) of object types outside
 * Zircon's range (its ZX_OBJ_TYPE_UPPER_BOUND is 64), so that Perfetto's
 * importer and Fuchsia's tools skip them as objects of a type they do not
 * know, and every FXT reader can still print them with their arguments.
 * Kernel objects carry no timestamp: a mapping's creation time is its
 * "time" argument.  Documentation/fxt-mapping.md is the reference.
 *
 *   type  koid            name             arguments
 *   0x80  mapping serial  file path        pid u32, tid u32, start u64,
 *         (1, 2, ...)     (inline)         end u64, pgoff u64, time u64
 *                                          (ticks), [build_id str, hex],
 *                                          [initial bool: existed at start]
 *   0x81  start address   "[kernel.kallsyms]" end u64, [build_id str],
 *                         or module name   [kernel bool: the image]
 *   0x82  address         symbol (inline)  size u32
 *   0x83  0               "CLOCK_REALTIME" boot_ns u64, realtime_ns u64:
 *                                          the two clocks read together
 *                                          (timestamps are boot_ns's)
 */
#ifndef FXT_PROFILE_H
#define FXT_PROFILE_H

#define FXT_KOBJ_MAPPING	0x80
#define FXT_KOBJ_KMOD		0x81
#define FXT_KOBJ_KSYM		0x82
#define FXT_KOBJ_CLOCK		0x83

#define FXT_PROFILE_ARG_PID		"pid"
#define FXT_PROFILE_ARG_TID		"tid"
#define FXT_PROFILE_ARG_START		"start"
#define FXT_PROFILE_ARG_END		"end"
#define FXT_PROFILE_ARG_PGOFF		"pgoff"
#define FXT_PROFILE_ARG_TIME		"time"
#define FXT_PROFILE_ARG_BUILD_ID	"build_id"
#define FXT_PROFILE_ARG_INITIAL		"initial"
#define FXT_PROFILE_ARG_KERNEL		"kernel"
#define FXT_PROFILE_ARG_SIZE		"size"
#define FXT_PROFILE_ARG_BOOT_NS		"boot_ns"
#define FXT_PROFILE_ARG_REALTIME_NS	"realtime_ns"

/* The clock object's name: the clock its realtime_ns is read from. */
#define FXT_PROFILE_CLOCK_NAME		"CLOCK_REALTIME"

/* The kernel image's name, as perf names it. */
#define FXT_PROFILE_KERNEL_NAME		"[kernel.kallsyms]"

#endif /* FXT_PROFILE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compat.h - every kernel-version difference fxtprof cares about, in one
 * place.  The rest of kmod/ is written against the newest API and includes
 * this file instead of testing LINUX_VERSION_CODE itself.  Built and tested
 * on Debian's 6.1 and 6.12 kernels; the shims reach past 6.12 where the
 * change is known (6.13, 6.15, 6.16).
 */
#ifndef _FXTPROF_COMPAT_H
#define _FXTPROF_COMPAT_H

#include <linux/version.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>

/* hrtimer_setup() arrived in 6.13 and hrtimer_init() left in 6.15. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void fxtprof_hrtimer_setup(struct hrtimer *timer,
					 enum hrtimer_restart (*fn)(struct hrtimer *),
					 clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
#else
#define fxtprof_hrtimer_setup hrtimer_setup
#endif

/* vm_flags became read-only behind helpers in 6.3. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void fxtprof_vm_flags_set(struct vm_area_struct *vma,
					unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void fxtprof_vm_flags_clear(struct vm_area_struct *vma,
					  unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#else
#define fxtprof_vm_flags_set vm_flags_set
#define fxtprof_vm_flags_clear vm_flags_clear
#endif

/*
 * sched_process_exit gained a group_dead argument in 6.16.  Before that the
 * probe computes it: do_exit() has already decremented signal->live.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)
#define FXTPROF_EXIT_PROTO	void *data, struct task_struct *p
#define fxtprof_exit_group_dead(p)	(atomic_read(&(p)->signal->live) == 0)
#else
#define FXTPROF_EXIT_PROTO	void *data, struct task_struct *p, bool group_dead
#define fxtprof_exit_group_dead(p)	(group_dead)
#endif

/*
 * sched_switch: 5.18 added the prev_state argument, the __state value
 * __schedule() decided on (prev->__state may change under a concurrent
 * wakeup once the runqueue lock moves on).  6.1 and 6.12 both pass
 * (bool preempt, prev, next, unsigned int prev_state); before 5.18 the
 * probe reads prev->__state itself (5.14 renamed it from state).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 18, 0)
#define FXTPROF_SWITCH_PROTO	void *data, bool preempt, \
				struct task_struct *prev, struct task_struct *next
#define FXTPROF_SWITCH_PREV_STATE	READ_ONCE(prev->__state)
#else
#define FXTPROF_SWITCH_PROTO	void *data, bool preempt, \
				struct task_struct *prev, struct task_struct *next, \
				unsigned int prev_state
#define FXTPROF_SWITCH_PREV_STATE	(prev_state)
#endif

/*
 * ptrauth_strip_insn_pac() told kernel from user addresses by bit 55; 6.4
 * split it into one helper for each, since the caller always knows.
 */
#ifdef CONFIG_ARM64
#include <asm/pointer_auth.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define fxtprof_strip_kernel_pac(lr)	ptrauth_strip_insn_pac(lr)
#define fxtprof_strip_user_pac(lr)	ptrauth_strip_insn_pac(lr)
#else
#define fxtprof_strip_kernel_pac(lr)	ptrauth_strip_kernel_insn_pac(lr)
#define fxtprof_strip_user_pac(lr)	ptrauth_strip_user_insn_pac(lr)
#endif
#endif

/*
 * stack_trace_save_tsk() is exported to modules in 6.12 (not in 6.1): a
 * blocked task's kernel stack as the kernel reads it for /proc/PID/stack
 * and bpf_get_task_stack(), the scheduler's own frames left out.  Before,
 * stack.c walks the task's stack itself, and keeps them.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define FXTPROF_HAVE_STACK_TRACE_SAVE_TSK
#endif

/* device_type.devnode() takes a const struct device since 6.2. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define FXTPROF_DEVNODE_CONST
#else
#define FXTPROF_DEVNODE_CONST const
#endif

#endif /* _FXTPROF_COMPAT_H */

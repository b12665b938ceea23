// SPDX-License-Identifier: GPL-2.0-only
/*
 * stack.c - call stacks of the interrupted context, from hard irq, and of
 * a thread that left its CPU (offcpu.c).
 *
 * Kernel stacks: the exported ORC unwinder on x86 (what perf and
 * stack_trace_save_regs() do, neither of which a module can call), and a
 * frame-record walk on arm64, where every read goes through
 * copy_from_kernel_nofault() so a corrupt frame pointer cannot fault.  A
 * blocked thread's: stack_trace_save_tsk() where it is exported
 * (compat.h), else the same walks from where it switched away.
 *
 * User stacks: the registers of the interrupted user context, handed to
 * the walk of kmod/unwind_walk.c, which steps each frame by the session's
 * unwind tables (FXTPROF_CFG_UNWIND) or by its frame pointer, reading
 * with copy_from_user_nofault() (safe with interrupts off: it disables
 * page faults and checks that the current mm may be accessed).
 */

#include <linux/compat.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "fxtprof_module.h"
#include "unwind.h"

#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

#ifdef CONFIG_X86
/* The return addresses from @state on, after @n already in @ips. */
static unsigned int fxtprof_orc_walk(struct unwind_state *state, u64 *ips,
				     unsigned int n, unsigned int max,
				     u8 *flags)
{
	unsigned long addr;

	for (; !unwind_done(state); unwind_next_frame(state)) {
		addr = unwind_get_return_address(state);
		if (!addr)
			break;
		if (n == max) {
			*flags |= FXTPROF_SAMPLE_KSTACK_TRUNCATED;
			break;
		}
		ips[n++] = addr;
	}
	return n;
}

unsigned int fxtprof_kernel_stack(struct pt_regs *regs, u64 *ips,
				  unsigned int max, u8 *flags)
{
	struct unwind_state state;

	ips[0] = regs->ip;
	/* With regs, unwind_start() skips the regs frame itself. */
	unwind_start(&state, current, regs, NULL);
	return fxtprof_orc_walk(&state, ips, 1, max, flags);
}

#ifndef FXTPROF_HAVE_STACK_TRACE_SAVE_TSK
/* From the frame switch_to() left: the unwinder knows a task's. */
static unsigned int fxtprof_blocked_stack(struct task_struct *task, u64 *ips,
					  unsigned int max, u8 *flags)
{
	struct unwind_state state;

	unwind_start(&state, task, NULL, NULL);
	return fxtprof_orc_walk(&state, ips, 0, max, flags);
}
#endif

bool fxtprof_user_64bit(struct pt_regs *regs)
{
	return user_64bit_mode(regs);
}

/* No link register: a return address is always on the stack. */
static unsigned long fxtprof_user_lr(struct pt_regs *regs)
{
	return 0;
}

unsigned long fxtprof_ustack_strip_pac(unsigned long addr)
{
	return addr;
}
#endif /* CONFIG_X86 */

#ifdef CONFIG_ARM64
/* The frame records from @fp on, after @n addresses already in @ips. */
static unsigned int fxtprof_frame_walk(unsigned long fp, u64 *ips,
				       unsigned int n, unsigned int max,
				       u8 *flags)
{
	struct fxtprof_frame frame;

	/*
	 * Frame records are 16-byte aligned and their chain moves strictly
	 * towards the stack base; anything else ends the walk.
	 */
	while (fp && IS_ALIGNED(fp, 16)) {
		if (copy_from_kernel_nofault(&frame, (void *)fp, sizeof(frame)))
			break;
		frame.ret = fxtprof_strip_kernel_pac(frame.ret);
		if (!frame.ret)
			break;
		if (n == max) {
			*flags |= FXTPROF_SAMPLE_KSTACK_TRUNCATED;
			break;
		}
		ips[n++] = frame.ret;
		if (frame.next_fp <= fp)
			break;
		fp = frame.next_fp;
	}
	return n;
}

unsigned int fxtprof_kernel_stack(struct pt_regs *regs, u64 *ips,
				  unsigned int max, u8 *flags)
{
	ips[0] = regs->pc;
	return fxtprof_frame_walk(regs->regs[29], ips, 1, max, flags);
}

#ifndef FXTPROF_HAVE_STACK_TRACE_SAVE_TSK
/* From the context cpu_switch_to() saved: its return, then its frames. */
static unsigned int fxtprof_blocked_stack(struct task_struct *task, u64 *ips,
					  unsigned int max, u8 *flags)
{
	if (!max)
		return 0;
	ips[0] = fxtprof_strip_kernel_pac(task->thread.cpu_context.pc);
	return fxtprof_frame_walk(task->thread.cpu_context.fp, ips, 1, max,
				  flags);
}
#endif

bool fxtprof_user_64bit(struct pt_regs *regs)
{
	return !compat_user_mode(regs);
}

/* x30: a leaf's return address, until its prologue saves it. */
static unsigned long fxtprof_user_lr(struct pt_regs *regs)
{
	return procedure_link_pointer(regs);
}

/* Return addresses may carry a pointer-authentication code: strip it. */
unsigned long fxtprof_ustack_strip_pac(unsigned long addr)
{
	return fxtprof_strip_user_pac(addr);
}
#endif /* CONFIG_ARM64 */

#if !defined(CONFIG_X86) && !defined(CONFIG_ARM64)
#error "fxtprof supports x86_64 and arm64"
#endif

/*
 * The kernel stack of @task, which is not running: it left a CPU and has
 * not run since (its switch-in, before context_switch()), from the frame
 * where it stopped.  A task's stack is not freed while it is on a
 * runqueue, as @task is.
 */
#ifdef FXTPROF_HAVE_STACK_TRACE_SAVE_TSK
static_assert(sizeof(unsigned long) == sizeof(u64));

unsigned int fxtprof_task_kernel_stack(struct task_struct *task, u64 *ips,
				       unsigned int max, u8 *flags)
{
	unsigned int n;

	/* One more than asked tells a truncated stack: @ips has room. */
	n = stack_trace_save_tsk(task, (unsigned long *)ips, max + 1, 0);
	if (n > max) {
		n = max;
		*flags |= FXTPROF_SAMPLE_KSTACK_TRUNCATED;
	}
	return n;
}
#else
unsigned int fxtprof_task_kernel_stack(struct task_struct *task, u64 *ips,
				       unsigned int max, u8 *flags)
{
	return fxtprof_blocked_stack(task, ips, max, flags);
}
#endif

/*
 * The user stack of @regs into @w (kmod/unwind.h), whose ranges are the
 * task's unwind ranges or NULL.  32-bit tasks have other frame layouts:
 * their pc is all they get.
 */
void fxtprof_user_stack(struct pt_regs *regs, struct fxtprof_ustack *w)
{
	struct fxtprof_uregs r = {
		.pc = instruction_pointer(regs),
		.sp = user_stack_pointer(regs),
		.fp = frame_pointer(regs),
		.lr = fxtprof_user_lr(regs),
	};

	if (fxtprof_user_64bit(regs)) {
		fxtprof_ustack_walk(w, &r);
		return;
	}
	w->nr = 0;
	w->flags = 0;
	w->end = FXTPROF_USTACK_END_COMPAT;
	if (w->max)
		w->ips[w->nr++] = r.pc;
}

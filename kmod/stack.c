// SPDX-License-Identifier: GPL-2.0-only
/*
 * stack.c - call stacks of the interrupted context, from hard irq.
 *
 * Kernel stacks: the exported ORC unwinder on x86 (what perf and
 * stack_trace_save_regs() do, neither of which a module can call), and a
 * frame-record walk on arm64, where every read goes through
 * copy_from_kernel_nofault() so a corrupt frame pointer cannot fault.
 *
 * User stacks: a frame-pointer walk with copy_from_user_nofault(), which is
 * safe with interrupts off (it disables page faults and checks that the
 * current mm may be accessed).  Programs built without frame pointers give
 * short stacks; that is the documented limit of this method.
 */

#include <linux/compat.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "fxtprof_module.h"

#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

/* A frame record as both x86-64 (rbp chain) and arm64 (x29 chain) lay it out. */
struct fxtprof_frame {
	unsigned long next_fp;
	unsigned long ret;
};

#ifdef CONFIG_X86
unsigned int fxtprof_kernel_stack(struct pt_regs *regs, u64 *ips,
				  unsigned int max, u8 *flags)
{
	struct unwind_state state;
	unsigned int n = 0;
	unsigned long addr;

	ips[n++] = regs->ip;
	/* With regs, unwind_start() skips the regs frame itself. */
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
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

static bool fxtprof_user_64bit(struct pt_regs *regs)
{
	return user_64bit_mode(regs);
}

static unsigned long fxtprof_strip_pac(unsigned long addr)
{
	return addr;
}
#endif /* CONFIG_X86 */

#ifdef CONFIG_ARM64
unsigned int fxtprof_kernel_stack(struct pt_regs *regs, u64 *ips,
				  unsigned int max, u8 *flags)
{
	unsigned long fp = regs->regs[29];
	struct fxtprof_frame frame;
	unsigned int n = 0;

	ips[n++] = regs->pc;
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

static bool fxtprof_user_64bit(struct pt_regs *regs)
{
	return !compat_user_mode(regs);
}

/* Return addresses may carry a pointer-authentication code: strip it. */
static unsigned long fxtprof_strip_pac(unsigned long addr)
{
	return fxtprof_strip_user_pac(addr);
}
#endif /* CONFIG_ARM64 */

#if !defined(CONFIG_X86) && !defined(CONFIG_ARM64)
#error "fxtprof supports x86_64 and arm64"
#endif

unsigned int fxtprof_user_stack(struct pt_regs *regs, u64 *ips,
				unsigned int max, u8 *flags)
{
	unsigned long fp = frame_pointer(regs);
	unsigned long sp = user_stack_pointer(regs);
	struct fxtprof_frame frame;
	unsigned int n = 0;

	if (!max)
		return 0;
	ips[n++] = instruction_pointer(regs);
	/* 32-bit tasks have another frame layout; their pc is all we give. */
	if (!fxtprof_user_64bit(regs))
		return n;

	while (fp) {
		if (fp < sp || !IS_ALIGNED(fp, sizeof(long)))
			break;
		if (copy_from_user_nofault(&frame, (void __user *)fp,
					   sizeof(frame))) {
			*flags |= FXTPROF_SAMPLE_USTACK_FAULT;
			break;
		}
		frame.ret = fxtprof_strip_pac(frame.ret);
		if (!frame.ret)
			break;
		if (n == max) {
			*flags |= FXTPROF_SAMPLE_USTACK_TRUNCATED;
			break;
		}
		ips[n++] = frame.ret;
		/* Callers' frames lie above; this also bounds loops. */
		if (frame.next_fp <= fp)
			break;
		fp = frame.next_fp;
	}
	return n;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * stack_copy.c - the user registers and the top of the user stack of a
 * sample (FXTPROF_CFG_STACK_COPY), for the reader to unwind with the
 * files' own CFI, as perf's PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER.
 *
 * Runs in the sampling timer's hard irq, writing straight into the
 * sample's ring reservation: the registers come from the pt_regs saved at
 * the last kernel entry, the stack through copy_from_user_nofault(), a
 * page at a time, so that the first unreadable page (the stack's top, a
 * guard page, memory unmapped by another thread) ends the copy there.
 */

#include <linux/elf-em.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>

#include "fxtprof_module.h"

#ifdef CONFIG_X86
#define FXTPROF_STACK_COPY_MACHINE	EM_X86_64
#define FXTPROF_STACK_COPY_NR_REGS	FXTPROF_STACK_COPY_REGS_X86_64

/* In DWARF register order (the x86-64 psABI's), rip last. */
static void fxtprof_stack_copy_regs(const struct pt_regs *regs, u64 *r)
{
	r[0] = regs->ax;
	r[1] = regs->dx;
	r[2] = regs->cx;
	r[3] = regs->bx;
	r[4] = regs->si;
	r[5] = regs->di;
	r[6] = regs->bp;
	r[7] = regs->sp;
	r[8] = regs->r8;
	r[9] = regs->r9;
	r[10] = regs->r10;
	r[11] = regs->r11;
	r[12] = regs->r12;
	r[13] = regs->r13;
	r[14] = regs->r14;
	r[15] = regs->r15;
	r[16] = regs->ip;
}
#endif /* CONFIG_X86 */

#ifdef CONFIG_ARM64
#define FXTPROF_STACK_COPY_MACHINE	EM_AARCH64
#define FXTPROF_STACK_COPY_NR_REGS	FXTPROF_STACK_COPY_REGS_ARM64

/* x0 .. x30, sp, pc: the AArch64 DWARF numbers 0 .. 31, then the pc. */
static void fxtprof_stack_copy_regs(const struct pt_regs *regs, u64 *r)
{
	unsigned int i;

	for (i = 0; i < 31; i++)
		r[i] = regs->regs[i];
	r[31] = regs->sp;
	r[32] = regs->pc;
}
#endif /* CONFIG_ARM64 */

/* The bytes a copy of @stack_size bytes of stack takes at most. */
u32 fxtprof_stack_copy_max(u32 stack_size)
{
	return sizeof(struct fxtprof_stack_copy) +
	       FXTPROF_STACK_COPY_NR_REGS * sizeof(u64) + stack_size;
}

/* Up to @size bytes from @sp into @dst; returns how many were readable. */
static u32 fxtprof_stack_copy_read(u8 *dst, unsigned long sp, u32 size)
{
	unsigned long addr;
	u32 done = 0, n;

	while (done < size) {
		addr = sp + done;
		n = min_t(u32, size - done, PAGE_SIZE - offset_in_page(addr));
		if (copy_from_user_nofault(dst + done,
					   (const void __user *)addr, n))
			break;
		done += n;
	}
	return done;
}

/**
 * fxtprof_stack_copy - copy the user context of the current task
 * @regs: its user registers (user_mode() regs, or task_pt_regs())
 * @dst: where to write, fxtprof_stack_copy_max(@stack_size) bytes
 * @stack_size: bytes of stack to copy at most, a multiple of 8
 *
 * Return: the bytes written to @dst, a multiple of 8, or 0 for a task whose
 * registers have another layout (a 32-bit task), which gets no copy.
 */
u32 fxtprof_stack_copy(struct pt_regs *regs, struct fxtprof_stack_copy *dst,
		       u32 stack_size)
{
	u8 *stack = (u8 *)&dst->regs[FXTPROF_STACK_COPY_NR_REGS];
	u32 size;

	if (!fxtprof_user_64bit(regs))
		return 0;
	dst->machine = FXTPROF_STACK_COPY_MACHINE;
	dst->nr_regs = FXTPROF_STACK_COPY_NR_REGS;
	fxtprof_stack_copy_regs(regs, dst->regs);
	size = fxtprof_stack_copy_read(stack, user_stack_pointer(regs),
				       stack_size);
	/* The reader must not see ring bytes of an older record. */
	memset(stack + size, 0, round_up(size, 8) - size);
	dst->size = size;
	return fxtprof_stack_copy_max(round_up(size, 8));
}

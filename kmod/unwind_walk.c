// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_walk.c - the user stack walk of a sample, from the sampling
 * hrtimer's handler (hard irq, interrupts off).
 *
 * Each frame is stepped to its caller by one of two rules:
 *  - a table row (kmod/unwind_rows.c) for the pc, when the process has a
 *    range for it (FXTPROF_IOC_UNWIND_MAP): CFA = sp or fp + offset, the
 *    return address (and maybe the caller's fp) saved at CFA + offset, or
 *    the return address still in the link register in the interrupted
 *    frame (arm64);
 *  - the frame pointer otherwise, or where the row has no rule: the frame
 *    record {next fp, return address} at fp.  Without tables every frame
 *    takes this step: that is the walk of FXTPROF_CFG_USTACK alone.
 *
 * Memory is read with copy_from_user_nofault() only, which fails instead
 * of faulting pages in, so nothing here sleeps, allocates or locks (the
 * caller holds rcu_read_lock() over the ranges).  The walk always ends:
 * every step moves sp strictly up, and the reads are bounded by a budget
 * and the frames by ustack_depth.  Why it ended is the sample's ustack_end.
 *
 * Built into the module and on the host (kmod/unwind.h).
 */

#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/fxtprof.h>

#include "unwind.h"

/* One read of user memory, 0 or the reason to stop. */
static int fxtprof_ustack_read(struct fxtprof_ustack *w, unsigned long addr,
			       void *dst, size_t size)
{
	if (w->reads == w->budget)
		return FXTPROF_USTACK_END_BUDGET;
	w->reads++;
	if (copy_from_user_nofault(dst, (const void __user *)addr, size))
		return FXTPROF_USTACK_END_FAULT;
	return 0;
}

/*
 * The frame-pointer step: the record at fp holds the caller's fp and the
 * return address, and the caller's sp is just above it (exact on x86_64,
 * where the CFA is rbp + 16; on arm64 the record may sit lower in the
 * frame than that, so a caller stepped by a row of CFA sp + offset would
 * be placed too low: the check below still keeps the walk moving up).
 */
static int fxtprof_ustack_fp_step(struct fxtprof_ustack *w,
				  struct fxtprof_uregs *r)
{
	struct fxtprof_frame frame;
	int end;

	/* A record lies above sp, word aligned; fp 0 ends the chain. */
	if (!r->fp || r->fp < r->sp || r->fp & (sizeof(long) - 1))
		return FXTPROF_USTACK_END_FP_CHAIN;
	end = fxtprof_ustack_read(w, r->fp, &frame, sizeof(frame));
	if (end)
		return end;
	frame.ret = fxtprof_ustack_strip_pac(frame.ret);
	if (!frame.ret)
		return FXTPROF_USTACK_END_FP_CHAIN;
	r->pc = frame.ret;
	r->sp = r->fp + sizeof(frame);
	r->fp = frame.next_fp;
	return 0;
}

static int fxtprof_ustack_row_step(struct fxtprof_ustack *w,
				   struct fxtprof_uregs *r,
				   const struct fxtprof_unwind_row *row,
				   bool leaf)
{
	unsigned long cfa, ra, fp = r->fp;
	bool in_lr = row->flags & FXTPROF_UNWIND_ROW_RA_IN_LR;
	int end;

	cfa = (row->cfa_reg == FXTPROF_UNWIND_CFA_SP ? r->sp : r->fp) +
	      (long)row->cfa_offset;
	if (in_lr) {
		/* Only the interrupted frame's lr is known: x30 of a caller is not. */
		if (!leaf)
			return FXTPROF_USTACK_END_RA_IN_LR;
		ra = r->lr;
	} else {
		end = fxtprof_ustack_read(w, cfa + (long)row->ra_offset, &ra,
					  sizeof(ra));
		if (end)
			return end;
	}
	if (row->flags & FXTPROF_UNWIND_ROW_FP_SAVED) {
		end = fxtprof_ustack_read(w, cfa + (long)row->fp_offset, &fp,
					  sizeof(fp));
		if (end)
			return end;
	}
	ra = fxtprof_ustack_strip_pac(ra);
	/*
	 * The stack grows down: the caller's frame, whose sp is this CFA,
	 * lies strictly above this one's sp.  Equal only in a leaf that has
	 * not touched the stack, its return address still in lr; that can
	 * happen once, so the walk still moves up.
	 */
	if (!ra || cfa < r->sp || (cfa == r->sp && !in_lr))
		return FXTPROF_USTACK_END_BAD_FRAME;
	r->pc = ra;
	r->sp = cfa;
	r->fp = fp;
	return 0;
}

/*
 * Step @r from its frame to the caller's: 0, and in @found the counter of
 * the rule that found it, or why the stack ends.
 */
static int fxtprof_ustack_step(struct fxtprof_ustack *w,
			       struct fxtprof_uregs *r, bool leaf,
			       unsigned int **found)
{
	const struct fxtprof_unwind_range *range;
	const struct fxtprof_unwind_row *row = NULL;
	/*
	 * Above the leaf, pc is a return address: it points after the call,
	 * which may be past the caller's last row (a call to a noreturn
	 * function ends it).  The call itself is one byte earlier.
	 */
	u64 pc = leaf ? r->pc : r->pc - 1;

	range = fxtprof_unwind_range_find(w->ranges, w->nr_ranges, pc);
	if (range)
		row = fxtprof_unwind_row_find(range->tab, pc - range->bias);
	if (row && row->flags & FXTPROF_UNWIND_ROW_OUTERMOST)
		return FXTPROF_USTACK_END_COMPLETE;
	if (!row || row->cfa_reg == FXTPROF_UNWIND_CFA_NONE) {
		*found = row && row->flags & FXTPROF_UNWIND_ROW_NO_RULE ?
			 &w->rule_frames : &w->fp_frames;
		return fxtprof_ustack_fp_step(w, r);
	}
	*found = &w->table_frames;
	return fxtprof_ustack_row_step(w, r, row, leaf);
}

/*
 * Walk the user stack of @regs, the interrupted user context of a 64-bit
 * task, into w->ips (leaf first), and say in w->end why it stopped.
 * @regs is left at the last frame reached.
 */
void fxtprof_ustack_walk(struct fxtprof_ustack *w, struct fxtprof_uregs *regs)
{
	unsigned int *found;
	bool leaf = true;
	int end;

	w->nr = 0;
	w->reads = 0;
	w->flags = 0;
	w->table_frames = 0;
	w->fp_frames = 0;
	w->rule_frames = 0;
	if (!w->max) {
		w->end = FXTPROF_USTACK_END_DEPTH;
		return;
	}
	w->ips[w->nr++] = regs->pc;
	for (;;) {
		end = fxtprof_ustack_step(w, regs, leaf, &found);
		if (end)
			break;
		if (w->nr == w->max) {
			/* One more caller exists: the stack is cut. */
			end = FXTPROF_USTACK_END_DEPTH;
			w->flags |= FXTPROF_SAMPLE_USTACK_TRUNCATED;
			break;
		}
		w->ips[w->nr++] = regs->pc;
		(*found)++;
		leaf = false;
	}
	if (end == FXTPROF_USTACK_END_FAULT)
		w->flags |= FXTPROF_SAMPLE_USTACK_FAULT;
	w->end = end;
}

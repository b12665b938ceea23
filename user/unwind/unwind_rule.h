/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind_rule.h - one row of an unwind table from one libdw frame state:
 * the CFA rule, the return address's and the frame pointer's, said with
 * the registers of the file's machine (struct unwind_arch, one per
 * e_machine), or NO_RULE where a row cannot say them.
 */
#ifndef FXTPROF_UNWIND_RULE_H
#define FXTPROF_UNWIND_RULE_H

#include <stdbool.h>
#include <elfutils/libdw.h>
#include <linux/fxtprof.h>

/* The DWARF register numbers a row speaks of, for one machine. */
struct unwind_arch {
	unsigned int machine;	/* EM_* */
	const char *name;
	int sp;
	int fp;			/* rbp, x29 */
	int ra;			/* the CIEs' return-address column */
	/*
	 * The return address column is a register (arm64's x30, the link
	 * register): "same value" there means the return address is still
	 * in it (RA_IN_LR), as at a function's entry.
	 */
	bool ra_is_lr;
};

/* The machine's registers, or NULL if tables cannot be built for it. */
const struct unwind_arch *unwind_arch__find(unsigned int machine);

/*
 * The rule of @frame (from dwarf_cfi_addrframe) in @row, all but row->pc.
 * Never fails: what a row cannot say becomes CFA_NONE with NO_RULE.
 */
void unwind_rule__row(const struct unwind_arch *arch, Dwarf_Frame *frame,
		      struct fxtprof_unwind_row *row);

#endif /* FXTPROF_UNWIND_RULE_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_rule.c - see unwind_rule.h.  libdw gives each rule as a DWARF
 * expression (dwarf_frame_cfa, dwarf_frame_register): the simple rules a
 * row can say come out in fixed shapes, which are recognised here;
 * anything else (a DW_CFA_def_cfa_expression as in the PLT, a register
 * saved in another register, a signal frame) is NO_RULE.
 */
#include "unwind/unwind_rule.h"

#include <dwarf.h>
#include <elf.h>
#include <stddef.h>
#include <stdint.h>

static const struct unwind_arch unwind_archs[] = {
	{ .machine = EM_X86_64, .name = "x86_64",
	  .sp = 7, .fp = 6, .ra = 16, .ra_is_lr = false },
	{ .machine = EM_AARCH64, .name = "aarch64",
	  .sp = 31, .fp = 29, .ra = 30, .ra_is_lr = true },
};

const struct unwind_arch *unwind_arch__find(unsigned int machine)
{
	size_t i;

	for (i = 0; i < sizeof(unwind_archs) / sizeof(unwind_archs[0]); i++)
		if (unwind_archs[i].machine == machine)
			return &unwind_archs[i];
	return NULL;
}

/* A saved-register offset a row can hold: the module wants 8-aligned. */
static bool offset_fits(int64_t off, bool saved_reg)
{
	if (off < INT16_MIN || off > INT16_MAX)
		return false;
	return !saved_reg || (off != 0 && off % 8 == 0);
}

enum reg_rule {
	REG_UNDEFINED,		/* the caller's value is lost */
	REG_SAME,		/* unchanged by this frame */
	REG_AT_CFA,		/* saved at CFA + *off */
	REG_OTHER,		/* more than a row says */
};

/*
 * libdw's shapes (frame_register.c): undefined is no ops with *ops the
 * caller's ops_mem, same value is no ops and NULL; "offset(N)" is
 * DW_OP_call_frame_cfa, then DW_OP_plus_uconst N unless N is 0, with N a
 * signed value stored in the unsigned operand.
 */
static enum reg_rule reg_rule(Dwarf_Frame *frame, int regno, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops) < 0)
		return REG_OTHER;
	if (nops == 0)
		return ops ? REG_UNDEFINED : REG_SAME;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return REG_OTHER;
	if (nops == 1) {
		*off = 0;
		return REG_AT_CFA;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return REG_AT_CFA;
	}
	return REG_OTHER;
}

/* The CFA as sp or fp plus an offset (DW_OP_bregx, execute_cfi's shape). */
static bool cfa_rule(const struct unwind_arch *arch, Dwarf_Frame *frame,
		     struct fxtprof_unwind_row *row)
{
	Dwarf_Op *ops;
	size_t nops;
	int64_t off;

	if (dwarf_frame_cfa(frame, &ops, &nops) < 0 || nops != 1 ||
	    ops[0].atom != DW_OP_bregx)
		return false;
	off = (int64_t)ops[0].number2;
	if (!offset_fits(off, false))
		return false;
	if (ops[0].number == (Dwarf_Word)arch->sp)
		row->cfa_reg = FXTPROF_UNWIND_CFA_SP;
	else if (ops[0].number == (Dwarf_Word)arch->fp)
		row->cfa_reg = FXTPROF_UNWIND_CFA_FP;
	else
		return false;
	row->cfa_offset = (int16_t)off;
	return true;
}

static void no_rule(struct fxtprof_unwind_row *row, uint8_t flags)
{
	row->cfa_reg = FXTPROF_UNWIND_CFA_NONE;
	row->cfa_offset = 0;
	row->ra_offset = 0;
	row->fp_offset = 0;
	row->flags = flags;
}

void unwind_rule__row(const struct unwind_arch *arch, Dwarf_Frame *frame,
		      struct fxtprof_unwind_row *row)
{
	Dwarf_Addr start, end;
	bool signal = false;
	int64_t off = 0;
	int ra;

	no_rule(row, 0);
	ra = dwarf_frame_info(frame, &start, &end, &signal);
	if (ra < 0 || signal) {
		no_rule(row, FXTPROF_UNWIND_ROW_NO_RULE);
		return;
	}
	/* Where the return address is undefined the stack ends, CFA or not. */
	if (reg_rule(frame, ra, &off) == REG_UNDEFINED) {
		if (!cfa_rule(arch, frame, row))
			no_rule(row, 0);
		row->flags = FXTPROF_UNWIND_ROW_OUTERMOST;
		return;
	}
	if (!cfa_rule(arch, frame, row))
		goto no_rule;

	switch (reg_rule(frame, ra, &off)) {
	case REG_AT_CFA:
		if (!offset_fits(off, true))
			goto no_rule;
		row->ra_offset = (int16_t)off;
		break;
	case REG_SAME:
		if (!arch->ra_is_lr || ra != arch->ra)
			goto no_rule;
		row->flags |= FXTPROF_UNWIND_ROW_RA_IN_LR;
		break;
	default:
		goto no_rule;
	}

	switch (reg_rule(frame, arch->fp, &off)) {
	case REG_AT_CFA:
		if (!offset_fits(off, true))
			goto no_rule;
		row->fp_offset = (int16_t)off;
		row->flags |= FXTPROF_UNWIND_ROW_FP_SAVED;
		break;
	case REG_SAME:
	case REG_UNDEFINED:	/* not restored: the caller's fp is moot */
		break;
	default:
		goto no_rule;
	}
	return;

no_rule:
	no_rule(row, FXTPROF_UNWIND_ROW_NO_RULE);
}

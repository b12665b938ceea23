// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_rows.c - the rows of an unwind table: checked once when
 * FXTPROF_IOC_UNWIND_LOAD copies them in, then searched by the walk, and
 * the search of a process's sorted ranges.
 *
 * Built into the module and, through tests/host/kshim, into the host
 * tests, which fuzz the check (see kmod/unwind.h).  The walk trusts what
 * the check let through: a row that passed cannot make it read outside
 * the table or divide the stack in a way it does not bound.
 */

#include <linux/errno.h>
#include <linux/types.h>
#include <linux/fxtprof.h>

#include "unwind.h"

/* A saved register's slot: a whole word, away from the CFA itself. */
static bool fxtprof_unwind_slot_ok(s16 offset)
{
	return offset && !(offset % 8);
}

static bool fxtprof_unwind_row_ok(const struct fxtprof_unwind_row *row)
{
	if (row->cfa_reg >= FXTPROF_UNWIND_CFA_MAX ||
	    row->flags & ~FXTPROF_UNWIND_ROW_FLAGS)
		return false;
	if (row->cfa_reg == FXTPROF_UNWIND_CFA_NONE)
		/* No rule: the frame pointer steps it; nothing is saved. */
		return !(row->flags & (FXTPROF_UNWIND_ROW_RA_IN_LR |
				       FXTPROF_UNWIND_ROW_FP_SAVED));
	if (row->flags & FXTPROF_UNWIND_ROW_NO_RULE)
		return false;
	/* The stack ends at an outermost row: its offsets are not used. */
	if (row->flags & FXTPROF_UNWIND_ROW_OUTERMOST)
		return true;
	if (!(row->flags & FXTPROF_UNWIND_ROW_RA_IN_LR) &&
	    !fxtprof_unwind_slot_ok(row->ra_offset))
		return false;
	if (row->flags & FXTPROF_UNWIND_ROW_FP_SAVED &&
	    !fxtprof_unwind_slot_ok(row->fp_offset))
		return false;
	return true;
}

/*
 * 0 if @nr rows (1 .. FXTPROF_UNWIND_MAX_ROWS) are strictly sorted by
 * pc, all below @pc_end, and each one known and sane; -EINVAL otherwise.
 */
int fxtprof_unwind_rows_check(const struct fxtprof_unwind_row *rows, u32 nr,
			      u32 pc_end)
{
	u32 i;

	if (!nr || nr > FXTPROF_UNWIND_MAX_ROWS)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (!fxtprof_unwind_row_ok(&rows[i]))
			return -EINVAL;
		if (i && rows[i].pc <= rows[i - 1].pc)
			return -EINVAL;
	}
	return rows[nr - 1].pc < pc_end ? 0 : -EINVAL;
}

/*
 * The row covering the file address @pc: the last one at or below it, if
 * @pc is below the table's end.  A binary search over a checked table.
 */
const struct fxtprof_unwind_row *
fxtprof_unwind_row_find(const struct fxtprof_unwind_tab *tab, u64 pc)
{
	u32 lo = 0, hi = tab->nr_rows, mid;

	if (pc < tab->rows[0].pc || pc >= tab->pc_end)
		return NULL;
	/* Invariant: rows[lo].pc <= pc, and every row from hi on is above. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (tab->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &tab->rows[lo];
}

/* The range of @nr, sorted and disjoint, that holds @addr, or NULL. */
const struct fxtprof_unwind_range *
fxtprof_unwind_range_find(const struct fxtprof_unwind_range *ranges,
			  unsigned int nr, u64 addr)
{
	unsigned int lo = 0, hi = nr, mid;

	/* The first range that ends above @addr is the only candidate. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ranges[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nr && ranges[lo].start <= addr)
		return &ranges[lo];
	return NULL;
}

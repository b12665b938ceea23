// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_rows.c - the rows of an unwind table, searched by the walk once
 * FXTPROF_IOC_UNWIND_LOAD has checked them (fxtprof_unwind_rows__check(),
 * include/fxtprof_unwind_check.h: the rules the bpf source's loader
 * applies too), and the search of a process's sorted ranges.
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

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fxtprof_unwind_check.h - the checks FXTPROF_IOC_UNWIND_LOAD and _MAP
 * make of their input (include/uapi/linux/fxtprof.h, ABI 5), as pure C
 * over the uapi structures, so that the module (kmod/) and the bpf
 * source's loader (user/source/bpf/) refuse exactly the same tables.
 * Not installed: it is the two back ends' one definition of the rules,
 * not an API.
 *
 * Include <linux/fxtprof.h> and the errno definitions (<linux/errno.h> in
 * the kernel, <errno.h> in user space) first.  Each function returns 0
 * or -EINVAL; copying the rows in and the memory cap are the caller's.
 */
#ifndef FXTPROF_UNWIND_CHECK_H
#define FXTPROF_UNWIND_CHECK_H

/* The fixed part of a load: sizes, flags, reserved fields, build id. */
static inline int fxtprof_unwind_table__check(
	const struct fxtprof_unwind_table *t)
{
	if (t->size < FXTPROF_UNWIND_TABLE_SIZE_VER0 || t->flags ||
	    t->reserved[0] || t->reserved[1] || t->reserved[2] ||
	    t->reserved2)
		return -EINVAL;
	if (!t->build_id_size || t->build_id_size > FXTPROF_BUILD_ID_MAX)
		return -EINVAL;
	if (!t->nr_rows || t->nr_rows > FXTPROF_UNWIND_MAX_ROWS || !t->rows_ptr)
		return -EINVAL;
	return 0;
}

/* A saved register sits in a whole word of the frame, never at the CFA. */
static inline int fxtprof_unwind_offset__check(__s16 off)
{
	return off && !(off % 8) ? 0 : -EINVAL;
}

/*
 * One row, whose successor starts at @next (pc_end for the last): pcs
 * strictly increasing and below pc_end, a known register, known flags,
 * NO_RULE only without a CFA rule, and the offsets of what the row says
 * is saved nonzero and word multiples.
 */
static inline int fxtprof_unwind_row__check(
	const struct fxtprof_unwind_row *r, __u32 next)
{
	if (r->pc >= next || r->cfa_reg >= FXTPROF_UNWIND_CFA_MAX ||
	    (r->flags & ~FXTPROF_UNWIND_ROW_FLAGS))
		return -EINVAL;
	if (r->cfa_reg == FXTPROF_UNWIND_CFA_NONE)
		/* No rule: the frame pointer steps it; nothing is saved. */
		return r->flags & (FXTPROF_UNWIND_ROW_RA_IN_LR |
				   FXTPROF_UNWIND_ROW_FP_SAVED) ? -EINVAL : 0;
	if (r->flags & FXTPROF_UNWIND_ROW_NO_RULE)
		return -EINVAL;
	if (r->flags & FXTPROF_UNWIND_ROW_OUTERMOST)
		return 0;
	if (!(r->flags & FXTPROF_UNWIND_ROW_RA_IN_LR) &&
	    fxtprof_unwind_offset__check(r->ra_offset))
		return -EINVAL;
	if ((r->flags & FXTPROF_UNWIND_ROW_FP_SAVED) &&
	    fxtprof_unwind_offset__check(r->fp_offset))
		return -EINVAL;
	return 0;
}

/*
 * Every row of a table of @nr rows (1 .. FXTPROF_UNWIND_MAX_ROWS) that
 * ends at @pc_end.
 */
static inline int fxtprof_unwind_rows__check(
	const struct fxtprof_unwind_row *rows, __u32 nr, __u32 pc_end)
{
	__u32 i;

	if (!nr || nr > FXTPROF_UNWIND_MAX_ROWS)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (fxtprof_unwind_row__check(&rows[i], i + 1 < nr ?
					      rows[i + 1].pc : pc_end))
			return -EINVAL;
	}
	return 0;
}

/* The fixed part of a map: the range and the reserved field. */
static inline int fxtprof_unwind_map__check(const struct fxtprof_unwind_map *m)
{
	if (m->size < FXTPROF_UNWIND_MAP_SIZE_VER0 || m->reserved ||
	    m->start >= m->end)
		return -EINVAL;
	return 0;
}

#endif /* FXTPROF_UNWIND_CHECK_H */

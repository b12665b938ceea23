/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind_internal.h - between the builder (unwind_build.c), which reads
 * the rules, and the table (unwind_table.c), which orders them into rows.
 */
#ifndef FXTPROF_UNWIND_INTERNAL_H
#define FXTPROF_UNWIND_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "unwind/unwind_table.h"

/* One rule of the CFI over [pc, end), before ordering. */
struct unwind_span {
	uint64_t pc, end;
	struct fxtprof_unwind_row row;	/* row.pc unused */
};

struct unwind_spans {
	struct unwind_span *v;
	size_t nr, cap;
};

int unwind_spans__push(struct unwind_spans *s, uint64_t pc, uint64_t end,
		       const struct fxtprof_unwind_row *row);

/*
 * @t's rows from @s: sorted, an overlap given to the span that starts
 * first, a CFA_NONE row for each gap, equal neighbours merged, counted.
 * 0, -ERANGE (a pc above 4 GiB), -E2BIG or -ENOMEM, with @why.
 */
int unwind_table__assemble(struct unwind_table *t, struct unwind_spans *s,
			   char *why);

/* Put the sentence in @why (UNWIND_WHY_LEN bytes, or NULL); return @err. */
int unwind__why(char *why, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* FXTPROF_UNWIND_INTERNAL_H */

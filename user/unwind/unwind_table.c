// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_table.c - the table object: its rows put in order from the
 * spans the builder read, looked up, sized, and handed to the ioctl.
 */
#include "unwind/unwind_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int unwind_spans__push(struct unwind_spans *s, uint64_t pc, uint64_t end,
		       const struct fxtprof_unwind_row *row)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct unwind_span *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->nr++] = (struct unwind_span){ .pc = pc, .end = end,
					      .row = *row };
	return 0;
}

static int span_cmp(const void *a, const void *b)
{
	const struct unwind_span *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static bool same_rule(const struct fxtprof_unwind_row *a,
		      const struct fxtprof_unwind_row *b)
{
	return a->cfa_reg == b->cfa_reg && a->cfa_offset == b->cfa_offset &&
	       a->ra_offset == b->ra_offset && a->fp_offset == b->fp_offset &&
	       a->flags == b->flags;
}

static void count_row(struct unwind_table_counts *c,
		      const struct fxtprof_unwind_row *r)
{
	if (r->cfa_reg == FXTPROF_UNWIND_CFA_SP)
		c->cfa_sp++;
	else if (r->cfa_reg == FXTPROF_UNWIND_CFA_FP)
		c->cfa_fp++;
	else if (r->flags & FXTPROF_UNWIND_ROW_NO_RULE)
		c->no_rule++;
	else if (!(r->flags & FXTPROF_UNWIND_ROW_OUTERMOST))
		c->no_cfi++;
	if (r->flags & FXTPROF_UNWIND_ROW_OUTERMOST)
		c->outermost++;
	if (r->flags & FXTPROF_UNWIND_ROW_RA_IN_LR)
		c->ra_in_lr++;
	if (r->flags & FXTPROF_UNWIND_ROW_FP_SAVED)
		c->fp_saved++;
}

static int append_row(struct unwind_table *t, size_t cap, uint64_t pc,
		      const struct fxtprof_unwind_row *rule)
{
	struct fxtprof_unwind_row *last = t->nr_rows ?
					  &t->rows[t->nr_rows - 1] : NULL;

	if (last && same_rule(last, rule))
		return 0;
	if (t->nr_rows == cap)
		return -E2BIG;
	t->rows[t->nr_rows] = *rule;
	t->rows[t->nr_rows].pc = (uint32_t)pc;
	t->nr_rows++;
	return 0;
}

int unwind__why(char *why, int err, const char *fmt, ...)
{
	va_list ap;

	if (why) {
		va_start(ap, fmt);
		vsnprintf(why, UNWIND_WHY_LEN, fmt, ap);
		va_end(ap);
	}
	return err;
}

int unwind_table__assemble(struct unwind_table *t, struct unwind_spans *s,
			   char *why)
{
	static const struct fxtprof_unwind_row gap = {
		.cfa_reg = FXTPROF_UNWIND_CFA_NONE,
	};
	uint64_t covered = 0;	/* the end of the rows so far */
	size_t i, cap;
	int err;

	if (s->nr)
		qsort(s->v, s->nr, sizeof(*s->v), span_cmp);
	/* At most a gap row before each span. */
	cap = s->nr > FXTPROF_UNWIND_MAX_ROWS / 2 ? FXTPROF_UNWIND_MAX_ROWS :
						    2 * s->nr;
	t->rows = calloc(cap ? cap : 1, sizeof(*t->rows));
	if (!t->rows)
		return unwind__why(why, -ENOMEM, "no memory for %zu rows", cap);
	for (i = 0; i < s->nr; i++) {
		const struct unwind_span *sp = &s->v[i];
		uint64_t pc = sp->pc;

		if (sp->end > UINT32_MAX)
			return unwind__why(why, -ERANGE,
					   "CFI for an address above 4 GiB (%#llx)",
					   (unsigned long long)sp->pc);
		if (t->nr_rows) {
			if (pc < covered)	/* overlapping FDEs: first wins */
				pc = covered;
			if (pc >= sp->end)
				continue;
			if (pc > covered) {
				err = append_row(t, cap, covered, &gap);
				if (err)
					goto too_many;
			}
		}
		err = append_row(t, cap, pc, &sp->row);
		if (err)
			goto too_many;
		covered = sp->end;
	}
	t->pc_end = (uint32_t)covered;
	for (i = 0; i < t->nr_rows; i++)
		count_row(&t->counts, &t->rows[i]);
	return 0;

too_many:
	return unwind__why(why, err, "more than %u rows",
			(unsigned int)FXTPROF_UNWIND_MAX_ROWS);
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

size_t unwind_table__size(const struct unwind_table *t)
{
	return sizeof(*t) + (size_t)t->nr_rows * sizeof(*t->rows);
}

const struct fxtprof_unwind_row *
unwind_table__lookup(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nr_rows;

	if (!t->nr_rows || pc < t->rows[0].pc || pc >= t->pc_end)
		return NULL;
	/* The last row whose pc is <= @pc. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

void unwind_table__to_uapi(const struct unwind_table *t,
			   struct fxtprof_unwind_table *arg)
{
	memset(arg, 0, sizeof(*arg));
	arg->size = sizeof(*arg);
	arg->rows_ptr = (uint64_t)(uintptr_t)t->rows;
	arg->nr_rows = t->nr_rows;
	arg->pc_end = t->pc_end;
	arg->build_id_size = t->build_id_size;
	memcpy(arg->build_id, t->build_id, t->build_id_size);
}

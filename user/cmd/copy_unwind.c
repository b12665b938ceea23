// SPDX-License-Identifier: GPL-2.0-only
/*
 * copy_unwind.c - see copy_unwind.h.  One stack_copy_unwinder per process
 * and epoch of its mappings (profile__mapping_epoch()): adding the files
 * is what costs, and samples of one process mostly share an epoch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_unwind.h"
#include "unwind/stack_copy.h"

struct copy_unwinder_ent {
	uint32_t pid;
	uint64_t epoch;
	struct stack_copy_unwinder *u;	/* NULL: could not be made */
};

struct copy_unwind {
	struct symbolizer *sym;
	struct copy_unwinder_ent *ents;
	size_t nr;
	size_t last;			/* index + 1 of the last one used */
};

struct add_ctx {
	struct copy_unwind *cu;
	struct stack_copy_unwinder *u;
};

static int add_mapping(void *ctx, const struct profile_mapping *m)
{
	struct add_ctx *a = ctx;
	struct stack_copy_module mod = {
		.start = m->start, .end = m->end, .pgoff = m->pgoff,
		.path = symbolizer__mapping_file(a->cu->sym, m),
	};

	/* A file not found leaves its frames to end the unwind. */
	if (mod.path)
		stack_copy_unwinder__add(a->u, &mod);
	return 0;
}

static struct stack_copy_unwinder *
unwinder_of(struct copy_unwind *cu, const struct profile *p,
	    const struct profile_sample *smp, unsigned int machine)
{
	uint64_t epoch = profile__mapping_epoch(p, smp->pid, smp->ts);
	struct copy_unwinder_ent *e;
	struct add_ctx a = { .cu = cu };
	size_t i;

	if (cu->last && cu->ents[cu->last - 1].pid == smp->pid &&
	    cu->ents[cu->last - 1].epoch == epoch)
		return cu->ents[cu->last - 1].u;
	for (i = 0; i < cu->nr; i++)
		if (cu->ents[i].pid == smp->pid && cu->ents[i].epoch == epoch) {
			cu->last = i + 1;
			return cu->ents[i].u;
		}
	e = realloc(cu->ents, (cu->nr + 1) * sizeof(*e));
	if (!e)
		return NULL;
	cu->ents = e;
	e = &cu->ents[cu->nr++];
	e->pid = smp->pid;
	e->epoch = epoch;
	e->u = NULL;
	cu->last = cu->nr;
	if (stack_copy_unwinder__new(machine, &a.u))
		return NULL;
	profile__for_each_mapping(p, smp->pid, smp->ts, add_mapping, &a);
	e->u = a.u;
	return a.u;
}

static int copy_unwind(void *ctx, const struct profile *p,
		       const struct profile_sample *smp, const void *copy,
		       size_t len, uint64_t *pcs, unsigned int max,
		       unsigned int *why)
{
	const struct fxtprof_stack_copy *c;
	struct stack_copy_unwinder *u;
	enum stack_copy_end end;
	unsigned int nr = 0;
	int err = stack_copy__check(copy, len, &c);

	if (err) {
		*why = err == -EPROTONOSUPPORT ? STACK_COPY_WRONG_MACHINE :
						 STACK_COPY_BAD_COPY;
		return 0;
	}
	u = unwinder_of(ctx, p, smp, c->machine);
	if (!u) {
		*why = STACK_COPY_FAILED;
		return 0;
	}
	end = stack_copy_unwinder__unwind(u, copy, len, pcs, max, &nr);
	if (end > STACK_COPY_END_SHORT) {
		*why = end;
		return 0;
	}
	/* The leaf alone is what the sample had: no caller was found. */
	if (nr < 2) {
		*why = STACK_COPY_FAILED;
		return 0;
	}
	return (int)nr;
}

static const char *copy_why_name(unsigned int why)
{
	return stack_copy_end__name(why);
}

int copy_unwind__apply(struct profile *p,
		       const struct symbolizer_opts *sym_opts)
{
	struct copy_unwind cu = { 0 };
	struct profile_unwinder uw = {
		.unwind = copy_unwind,
		.why_name = copy_why_name,
		.ctx = &cu,
	};
	struct profile_copy_stats st;
	size_t i;
	int err;

	profile__copy_stats(p, &st);
	if (!st.copies)
		return 0;
	err = symbolizer__new(sym_opts, &cu.sym);
	if (err) {
		fprintf(stderr, "fxtprof: cannot start the symbolizer: %s\n",
			strerror(-err));
		return err;
	}
	err = profile__unwind_copies(p, &uw);
	if (err)
		fprintf(stderr, "fxtprof: unwinding the stack copies: %s\n",
			strerror(-err));
	for (i = 0; i < cu.nr; i++)
		stack_copy_unwinder__free(cu.ents[i].u);
	free(cu.ents);
	symbolizer__free(cu.sym);
	return err;
}

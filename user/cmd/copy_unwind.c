// SPDX-License-Identifier: GPL-2.0-only
/*
 * copy_unwind.c - see copy_unwind.h.  One stack_copy_unwinder per process
 * and epoch of its mappings (profile__mapping_epoch()), in a hash map:
 * adding the files is what costs, and samples of one process mostly
 * share an epoch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_unwind.h"
#include "unwind/stack_copy.h"
#include "util/hmap.h"

struct copy_unwind {
	struct symbolizer *sym;
	/* pid << 32 | epoch -> its unwinder (0: it could not be made) */
	struct hmap unwinders;
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

/*
 * The unwinder of smp's process in its epoch, made at its first copy
 * with every mapping of that epoch; NULL if it cannot be (remembered).
 */
static struct stack_copy_unwinder *
unwinder_of(struct copy_unwind *cu, const struct profile *p,
	    const struct profile_sample *smp, unsigned int machine)
{
	/* Epochs count the profile's mapping events: 32 bits hold them. */
	uint64_t key = (uint64_t)smp->pid << 32 |
		       (uint32_t)profile__mapping_epoch(p, smp->pid, smp->ts);
	struct add_ctx a = { .cu = cu };
	uint64_t *v = hmap__get(&cu->unwinders, key);

	if (v)
		return (struct stack_copy_unwinder *)(uintptr_t)*v;
	if (!stack_copy_unwinder__new(machine, &a.u))
		profile__for_each_mapping(p, smp->pid, smp->ts, add_mapping,
					  &a);
	if (hmap__put(&cu->unwinders, key, (uintptr_t)a.u)) {
		stack_copy_unwinder__free(a.u);
		return NULL;
	}
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
	struct hmap_slot *slot;
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
	hmap__for_each(&cu.unwinders, slot)
		stack_copy_unwinder__free((void *)(uintptr_t)slot->val);
	hmap__free(&cu.unwinders);
	symbolizer__free(cu.sym);
	return err;
}

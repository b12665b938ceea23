/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * name_stack.h - one thread's open regions (or Kokkos kernels): a stack of
 * names with their keys, because every end annotation carries the name of
 * its begin and the end calls give none (end region) or only a key (end
 * of a kernel).
 *
 * Names live one after the other in a byte buffer, entries in an array;
 * both grow by doubling and are never shrunk, so a thread that keeps
 * opening and closing regions allocates nothing after warming up.  Depth
 * is capped at NAME_STACK_MAX_DEPTH: deeper pushes are refused, and the
 * caller keeps count of them so their ends are absorbed.
 */
#ifndef FXTPROF_HOOKS_NAME_STACK_H
#define FXTPROF_HOOKS_NAME_STACK_H

#include <stddef.h>
#include <stdint.h>

#define NAME_STACK_MAX_DEPTH	1024u

struct name_stack_entry {
	uint64_t key;
	uint32_t off;		/* in buf */
	uint16_t len;
};

struct name_stack {
	struct name_stack_entry *e;
	unsigned int depth, cap;
	char *buf;
	size_t used, buf_cap;
};

/* 0, or -ENOMEM / -E2BIG (too deep): nothing was pushed. */
int name_stack__push(struct name_stack *s, uint64_t key, const char *name,
		     uint16_t len);
/*
 * The top entry (key @key, or any when @key is 0: the innermost region),
 * searched from the top; NULL if absent.  Its name is valid until the next
 * push; drop it with name_stack__remove().
 */
const struct name_stack_entry *name_stack__find(const struct name_stack *s,
						uint64_t key);
static inline const char *name_stack__name(const struct name_stack *s,
					   const struct name_stack_entry *e)
{
	return s->buf + e->off;
}
void name_stack__remove(struct name_stack *s, const struct name_stack_entry *e);
void name_stack__fini(struct name_stack *s);

#endif /* FXTPROF_HOOKS_NAME_STACK_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * name_stack.c - a thread's stack of open names (name_stack.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "name_stack.h"

int name_stack__push(struct name_stack *s, uint64_t key, const char *name,
		     uint16_t len)
{
	struct name_stack_entry *e;

	if (s->depth >= NAME_STACK_MAX_DEPTH)
		return -E2BIG;
	if (s->depth == s->cap) {
		unsigned int cap = s->cap ? s->cap * 2 : 16;

		e = realloc(s->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		s->e = e;
		s->cap = cap;
	}
	if (s->used + len > s->buf_cap) {
		size_t cap = s->buf_cap ? s->buf_cap : 1024;
		char *b;

		while (cap < s->used + len)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->buf_cap = cap;
	}
	memcpy(s->buf + s->used, name, len);
	e = &s->e[s->depth++];
	e->key = key;
	e->off = (uint32_t)s->used;
	e->len = len;
	s->used += len;
	return 0;
}

const struct name_stack_entry *name_stack__find(const struct name_stack *s,
						uint64_t key)
{
	for (unsigned int i = s->depth; i-- > 0;) {
		if (!key || s->e[i].key == key)
			return &s->e[i];
	}
	return NULL;
}

void name_stack__remove(struct name_stack *s, const struct name_stack_entry *e)
{
	unsigned int i = (unsigned int)(e - s->e);

	if (i + 1 == s->depth) {
		s->used = e->off;
		s->depth--;
		return;
	}
	/* Out of order (a kernel ended under a newer one): close the gap. */
	memmove(s->buf + e->off, s->buf + e->off + e->len,
		s->used - e->off - e->len);
	s->used -= e->len;
	for (unsigned int j = i + 1; j < s->depth; j++)
		s->e[j].off -= e->len;
	memmove(&s->e[i], &s->e[i + 1], (s->depth - i - 1) * sizeof(s->e[0]));
	s->depth--;
}

void name_stack__fini(struct name_stack *s)
{
	free(s->e);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intern.h - byte strings to dense ids 1, 2, 3, ... in first-seen order.
 *
 * The exporters give every distinct function name, frame, callstack,
 * location and string an id, and pprof's string table is the list of
 * its strings by id.  Keys are any bytes (a frame's key is a packed
 * struct), copied into the table, and found by util/hmap.h.
 */
#ifndef FXTPROF_INTERN_H
#define FXTPROF_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

struct intern_key {
	const void *data;
	uint32_t len;
};

struct intern {
	struct intern_key *keys;	/* [id - 1], owned copies */
	struct hmap index;		/* the key's hash -> id */
	size_t n;			/* ids given: 1..n */
	size_t cap;			/* of keys */
};

void intern__init(struct intern *t);
void intern__release(struct intern *t);
/*
 * The id of key, giving it the next id if it is new (*is_new, which may
 * be NULL, then says so).  Returns the id (>= 1), or 0 on -ENOMEM.
 */
uint32_t intern__id(struct intern *t, const void *key, size_t len,
		    bool *is_new);
/* The id of key if known, else 0. */
uint32_t intern__find(const struct intern *t, const void *key, size_t len);
/* The key of id (1..n). */
static inline const struct intern_key *intern__key(const struct intern *t,
						    uint32_t id)
{
	return &t->keys[id - 1];
}
static inline size_t intern__count(const struct intern *t)
{
	return t->n;
}

#endif /* FXTPROF_INTERN_H */

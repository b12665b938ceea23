/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_set.h - the two containers the summaries are built from: a
 * growable byte buffer, and a set of byte-string keys that numbers each
 * distinct key in the order it was first seen (util/hmap.h).
 */
#ifndef FXTPROF_ARCHIVE_SET_H
#define FXTPROF_ARCHIVE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

struct arch_buf {
	unsigned char *p;
	size_t len, cap;
};

/* Append @len bytes (@data NULL: zeros); 0 or -ENOMEM. */
int arch_buf__put(struct arch_buf *b, const void *data, size_t len);
/* Zeros up to the next multiple of 8. */
int arch_buf__pad8(struct arch_buf *b);
void arch_buf__fini(struct arch_buf *b);

struct arch_set {
	struct hmap index;	/* the key's hash -> its index */
	size_t n;
	struct arch_buf keys;	/* every key, back to back */
	size_t *key_off;	/* by index: offset in keys, and length */
	uint32_t *key_len;
	size_t idx_cap;
};

/*
 * The index of @key (@len bytes), added if new (*@added then true).
 * Returns the index, or -ENOMEM.
 */
long arch_set__add(struct arch_set *s, const void *key, uint32_t len,
		   bool *added);
const void *arch_set__key(const struct arch_set *s, size_t i, uint32_t *len);
void arch_set__fini(struct arch_set *s);

#endif /* FXTPROF_ARCHIVE_SET_H */

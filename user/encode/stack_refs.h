/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stack_refs.h - which stacks the encoder has already written in this
 * segment, so that a sample of one of them names it by id instead of
 * repeating its frames (fxt_profile.h, "Stack references").
 *
 * The table is direct-mapped: FXT_STACK_REFS_MAX slots, a stack's slot
 * (and id) chosen by its hash, and a slot holds the last stack defined
 * under that id.  A slot keeps two independent 64-bit hashes of the
 * stack, not its frames, so the table is 64 KiB whatever the stacks'
 * depth: two different stacks are taken for one only if both hashes
 * collide, about one chance in 2^128 a lookup.
 */
#ifndef FXTPROF_STACK_REFS_H
#define FXTPROF_STACK_REFS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>

struct stack_refs;

/* A stack's identity: both hashes, never both 0 (0, 0 is an empty slot). */
struct stack_key {
	uint64_t a, b;
};

/* An empty table: 0 or -ENOMEM. */
int stack_refs__new(struct stack_refs **rp);
void stack_refs__free(struct stack_refs *r);

/* A new segment: nothing is defined. */
void stack_refs__reset(struct stack_refs *r);

/*
 * The id of the stack of @n frames at @ips (a ring record's) whose first
 * @kframes are the kernel's, and its key in *@key.  True if that id already holds it in
 * this segment (name it); false if the stack must be defined first, then
 * stack_refs__defined() once the definition is written.
 */
bool stack_refs__find(const struct stack_refs *r, const __u64 *ips,
		      unsigned int n, unsigned int kframes, uint32_t *id,
		      struct stack_key *key);
void stack_refs__defined(struct stack_refs *r, uint32_t id,
			 const struct stack_key *key);

#endif /* FXTPROF_STACK_REFS_H */

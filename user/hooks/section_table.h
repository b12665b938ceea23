/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * section_table.h - the sections' keys and what each key is: created,
 * begun, or destroyed, with its name.
 *
 * Keys are handed out in order from 1 and never reused, so a slot is
 * found by its key alone: a two-level array whose pages are allocated on
 * first use and published with a compare-and-swap.  A key's state moves
 * with compare-and-swaps too; nothing is locked, and threads that use
 * different keys touch different slots.  A destroyed key keeps its slot
 * (and its name) until the table is freed, which is what lets a later use
 * of it be told apart from a key that never existed, and what makes a
 * racing use of a destroyed key harmless instead of a use after free.
 */
#ifndef FXTPROF_HOOKS_SECTION_TABLE_H
#define FXTPROF_HOOKS_SECTION_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#define SECTION_PAGE_SLOTS	1024u
#define SECTION_PAGES		4096u	/* 4 Mi keys */

enum section_state {
	SECTION_FREE = 0,	/* not created (or not yet published) */
	SECTION_CREATED,
	SECTION_BEGUN,
	SECTION_DESTROYED,
};

struct section_slot {
	_Atomic uint32_t state;		/* enum section_state */
	uint16_t name_len;
	const char *name;		/* set before state leaves FREE */
};

struct section_table {
	_Atomic uint64_t next_key;	/* the next key to hand out */
	struct section_slot *_Atomic pages[SECTION_PAGES];
};

/* Outcomes of the transitions, for the caller to count. */
enum section_result {
	SECTION_OK = 0,
	SECTION_UNKNOWN,	/* never created, or destroyed */
	SECTION_WAS_BEGUN,	/* begin: already begun; destroy: ended first */
	SECTION_NOT_BEGUN,	/* end of a section not begun */
};

void section_table__init(struct section_table *t);
/* Frees every name and page: no other call may run. */
void section_table__fini(struct section_table *t);

/* A new key for @name (@len bytes, copied), or 0: table full, no memory. */
uint64_t section_table__create(struct section_table *t, const char *name,
			       uint16_t len);

/*
 * CREATED -> BEGUN, BEGUN -> CREATED, CREATED or BEGUN -> DESTROYED.  On
 * SECTION_OK (and, for destroy, SECTION_WAS_BEGUN) *name and *len are the
 * section's, valid until section_table__fini().
 */
enum section_result section_table__begin(struct section_table *t,
					 uint64_t key, const char **name,
					 uint16_t *len);
enum section_result section_table__end(struct section_table *t, uint64_t key,
				       const char **name, uint16_t *len);
enum section_result section_table__destroy(struct section_table *t,
					   uint64_t key, const char **name,
					   uint16_t *len);

#endif /* FXTPROF_HOOKS_SECTION_TABLE_H */

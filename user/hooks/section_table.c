// SPDX-License-Identifier: GPL-2.0-only
/*
 * section_table.c - the lock-free key table of sections (section_table.h).
 */
#include <stdlib.h>
#include <string.h>

#include "section_table.h"

void section_table__init(struct section_table *t)
{
	memset(t, 0, sizeof(*t));
	atomic_init(&t->next_key, 1);
}

void section_table__fini(struct section_table *t)
{
	for (unsigned int p = 0; p < SECTION_PAGES; p++) {
		struct section_slot *page = atomic_load(&t->pages[p]);

		if (!page)
			continue;
		for (unsigned int i = 0; i < SECTION_PAGE_SLOTS; i++)
			free((void *)page[i].name);
		free(page);
		atomic_store(&t->pages[p], NULL);
	}
}

/* The slot of @key, allocating its page if @create; NULL if none. */
static struct section_slot *slot_of(struct section_table *t, uint64_t key,
				    int create)
{
	uint64_t p = key / SECTION_PAGE_SLOTS;
	struct section_slot *page, *expected = NULL;

	if (!key || p >= SECTION_PAGES)
		return NULL;
	page = atomic_load_explicit(&t->pages[p], memory_order_acquire);
	if (page || !create)
		return page ? &page[key % SECTION_PAGE_SLOTS] : NULL;
	page = calloc(SECTION_PAGE_SLOTS, sizeof(*page));
	if (!page)
		return NULL;
	/* Another creator may have published the page first: use theirs. */
	if (!atomic_compare_exchange_strong_explicit(&t->pages[p], &expected,
						     page, memory_order_acq_rel,
						     memory_order_acquire)) {
		free(page);
		page = expected;
	}
	return &page[key % SECTION_PAGE_SLOTS];
}

uint64_t section_table__create(struct section_table *t, const char *name,
			       uint16_t len)
{
	struct section_slot *s;
	uint64_t key;
	char *copy;

	key = atomic_fetch_add_explicit(&t->next_key, 1, memory_order_relaxed);
	s = slot_of(t, key, 1);
	if (!s)
		return 0;
	copy = malloc(len);
	if (!copy)
		return 0;	/* the key is skipped: it stays FREE, unknown */
	memcpy(copy, name, len);
	s->name = copy;
	s->name_len = len;
	atomic_store_explicit(&s->state, SECTION_CREATED, memory_order_release);
	return key;
}

/* Move @key from @from to @to; the state found when it was not @from. */
static uint32_t transition(struct section_table *t, uint64_t key,
			   uint32_t from, uint32_t to,
			   struct section_slot **sp)
{
	struct section_slot *s = slot_of(t, key, 0);
	uint32_t cur = from;

	*sp = s;
	if (!s)
		return SECTION_FREE;
	if (atomic_compare_exchange_strong_explicit(&s->state, &cur, to,
						    memory_order_acq_rel,
						    memory_order_acquire))
		return from;
	return cur;
}

static void name_of(const struct section_slot *s, const char **name,
		    uint16_t *len)
{
	*name = s->name;
	*len = s->name_len;
}

enum section_result section_table__begin(struct section_table *t,
					 uint64_t key, const char **name,
					 uint16_t *len)
{
	struct section_slot *s;

	switch (transition(t, key, SECTION_CREATED, SECTION_BEGUN, &s)) {
	case SECTION_CREATED:
		name_of(s, name, len);
		return SECTION_OK;
	case SECTION_BEGUN:
		return SECTION_WAS_BEGUN;
	default:
		return SECTION_UNKNOWN;
	}
}

enum section_result section_table__end(struct section_table *t, uint64_t key,
				       const char **name, uint16_t *len)
{
	struct section_slot *s;

	switch (transition(t, key, SECTION_BEGUN, SECTION_CREATED, &s)) {
	case SECTION_BEGUN:
		name_of(s, name, len);
		return SECTION_OK;
	case SECTION_CREATED:
		return SECTION_NOT_BEGUN;
	default:
		return SECTION_UNKNOWN;
	}
}

enum section_result section_table__destroy(struct section_table *t,
					   uint64_t key, const char **name,
					   uint16_t *len)
{
	struct section_slot *s = slot_of(t, key, 0);
	uint32_t cur;

	if (!s)
		return SECTION_UNKNOWN;
	cur = atomic_load_explicit(&s->state, memory_order_acquire);
	/* Retry while a begin or an end moves the state under us. */
	while (cur == SECTION_CREATED || cur == SECTION_BEGUN) {
		if (atomic_compare_exchange_weak_explicit(&s->state, &cur,
							  SECTION_DESTROYED,
							  memory_order_acq_rel,
							  memory_order_acquire)) {
			name_of(s, name, len);
			return cur == SECTION_BEGUN ? SECTION_WAS_BEGUN :
						      SECTION_OK;
		}
	}
	return SECTION_UNKNOWN;
}

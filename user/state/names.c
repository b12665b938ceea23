// SPDX-License-Identifier: GPL-2.0-only
/*
 * names.c - see names.h.  Two open-addressing hash maps with linear
 * probing and tombstones; rebuilt when live + tombstones pass 3/4.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

static size_t hash32(uint32_t k)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 32);
}

static struct name_entry *map_find(const struct name_map *m, uint32_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = hash32(key) & (m->cap - 1); m->slots[i].used;
	     i = (i + 1) & (m->cap - 1))
		if (m->slots[i].used == 1 && m->slots[i].tid == key)
			return &m->slots[i];
	return NULL;
}

static int map_grow(struct name_map *m)
{
	size_t ncap = m->live * 2 >= m->cap / 2 ? (m->cap ? m->cap * 2 : 256)
						 : m->cap, i;
	struct name_entry *old = m->slots, *slots;

	slots = calloc(ncap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (old[i].used != 1)
			continue;
		for (j = hash32(old[i].tid) & (ncap - 1); slots[j].used;
		     j = (j + 1) & (ncap - 1))
			;
		slots[j] = old[i];
	}
	free(old);
	m->slots = slots;
	m->cap = ncap;
	m->used = m->live;
	return 0;
}

static int map_set(struct name_map *m, uint32_t key, uint32_t pid,
		   const char *comm)
{
	struct name_entry *e = map_find(m, key);
	size_t i;

	if (!e) {
		if ((m->used + 1) * 4 > m->cap * 3 && map_grow(m))
			return -ENOMEM;
		for (i = hash32(key) & (m->cap - 1); m->slots[i].used == 1;
		     i = (i + 1) & (m->cap - 1))
			;
		e = &m->slots[i];
		if (!e->used)
			m->used++;
		e->used = 1;
		e->tid = key;
		m->live++;
	}
	e->pid = pid;
	/* A fixed, NUL-padded field, as in the records; not a C string. */
	strncpy(e->comm, comm, sizeof(e->comm) - 1);
	e->comm[sizeof(e->comm) - 1] = 0;
	return 0;
}

static void map_remove(struct name_map *m, uint32_t key)
{
	struct name_entry *e = map_find(m, key);

	if (e) {
		e->used = 2;	/* keeps probe chains intact */
		m->live--;
	}
}

static int map_for_each(const struct name_map *m, name_visit_fn fn,
			void *ctx)
{
	char comm[FXTPROF_COMM_LEN + 1];
	size_t i;
	int ret;

	for (i = 0; i < m->cap; i++) {
		if (m->slots[i].used != 1)
			continue;
		memcpy(comm, m->slots[i].comm, FXTPROF_COMM_LEN);
		comm[FXTPROF_COMM_LEN] = '\0';
		ret = fn(ctx, m->slots[i].pid, m->slots[i].tid, comm);
		if (ret)
			return ret;
	}
	return 0;
}

void name_table__init(struct name_table *nt)
{
	memset(nt, 0, sizeof(*nt));
}

void name_table__fini(struct name_table *nt)
{
	free(nt->processes.slots);
	free(nt->threads.slots);
	memset(nt, 0, sizeof(*nt));
}

int name_table__set_process(struct name_table *nt, uint32_t pid,
			    const char *comm)
{
	return map_set(&nt->processes, pid, pid, comm);
}

int name_table__set_thread(struct name_table *nt, uint32_t pid, uint32_t tid,
			   const char *comm)
{
	return map_set(&nt->threads, tid, pid, comm);
}

void name_table__remove_thread(struct name_table *nt, uint32_t tid)
{
	map_remove(&nt->threads, tid);
}

void name_table__remove_process(struct name_table *nt, uint32_t pid)
{
	map_remove(&nt->processes, pid);
}

int name_table__for_each_process(const struct name_table *nt,
				 name_visit_fn fn, void *ctx)
{
	return map_for_each(&nt->processes, fn, ctx);
}

int name_table__for_each_thread(const struct name_table *nt,
				name_visit_fn fn, void *ctx)
{
	return map_for_each(&nt->threads, fn, ctx);
}

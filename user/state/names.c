// SPDX-License-Identifier: GPL-2.0-only
/*
 * names.c - see names.h.  Each map keeps its entries in a dense array
 * (the replay walks it) and finds them through a hash map from key to
 * position; a removal moves the last entry into the hole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

static int map_set(struct name_map *m, uint32_t key, uint32_t pid,
		   const char *comm, uint64_t ts)
{
	struct name_entry *e;
	uint64_t *pos;
	int ret;

	if (m->len == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;

		if (cap > SIZE_MAX / 2 / sizeof(*e))
			return -ENOMEM;
		e = realloc(m->ents, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->ents = e;
		m->cap = cap;
	}
	ret = hmap__get_or_add(&m->index, key, &pos);
	if (ret < 0)
		return ret;
	if (ret) {
		*pos = m->len++;
		m->ents[*pos].tid = key;
		m->ents[*pos].has_info = false;
		m->ents[*pos].nspid = -1;
		m->ents[*pos].cgroup = NULL;
	} else if (m->ents[*pos].ts > ts) {
		return 1;		/* a newer name is in effect */
	}
	e = &m->ents[*pos];
	e->pid = pid;
	e->ts = ts;
	/* A fixed, NUL-padded field, as in the records; not a C string. */
	strncpy(e->comm, comm, sizeof(e->comm) - 1);
	e->comm[sizeof(e->comm) - 1] = 0;
	return 0;
}

static void map_remove(struct name_map *m, uint32_t key)
{
	struct hmap_slot *s = hmap__slot(&m->index, key);
	size_t hole;

	if (!s)
		return;
	hole = s->val;
	if (m->ents[hole].cgroup)
		m->cgroup_bytes -= strlen(m->ents[hole].cgroup) + 1;
	free(m->ents[hole].cgroup);
	hmap__remove(&m->index, s);
	if (hole != --m->len) {
		m->ents[hole] = m->ents[m->len];
		*hmap__get(&m->index, m->ents[hole].tid) = hole;
	}
}

static void map_free(struct name_map *m)
{
	for (size_t i = 0; i < m->len; i++)
		free(m->ents[i].cgroup);
	hmap__free(&m->index);
	free(m->ents);
}

static int map_for_each(const struct name_map *m, name_visit_fn fn,
			void *ctx)
{
	char comm[FXTPROF_COMM_LEN + 1];
	size_t i;
	int ret;

	for (i = 0; i < m->len; i++) {
		memcpy(comm, m->ents[i].comm, FXTPROF_COMM_LEN);
		comm[FXTPROF_COMM_LEN] = '\0';
		ret = fn(ctx, m->ents[i].pid, m->ents[i].tid, comm);
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
	map_free(&nt->processes);
	map_free(&nt->threads);
	memset(nt, 0, sizeof(*nt));
}

int name_table__set_process(struct name_table *nt, uint32_t pid,
			    const char *comm, uint64_t ts)
{
	return map_set(&nt->processes, pid, pid, comm, ts);
}

int name_table__set_thread(struct name_table *nt, uint32_t pid, uint32_t tid,
			   const char *comm, uint64_t ts)
{
	return map_set(&nt->threads, tid, pid, comm, ts);
}

int name_table__set_process_info(struct name_table *nt, uint32_t pid,
				 int64_t nspid, const char *cgroup)
{
	uint64_t *pos = hmap__get(&nt->processes.index, pid);
	struct name_entry *e;
	char *cg = NULL;

	if (!pos)
		return -ENOENT;
	if (cgroup && !(cg = strdup(cgroup)))
		return -ENOMEM;
	e = &nt->processes.ents[*pos];
	if (e->cgroup)
		nt->processes.cgroup_bytes -= strlen(e->cgroup) + 1;
	if (cg)
		nt->processes.cgroup_bytes += strlen(cg) + 1;
	free(e->cgroup);
	e->cgroup = cg;
	e->nspid = nspid;
	e->has_info = true;
	return 0;
}

const struct name_entry *name_table__process(const struct name_table *nt,
					     uint32_t pid)
{
	uint64_t *pos = hmap__get(&nt->processes.index, pid);

	return pos ? &nt->processes.ents[*pos] : NULL;
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

static size_t name_map_bytes(const struct name_map *m)
{
	return m->cap * sizeof(*m->ents) + hmap__bytes(&m->index) +
	       m->cgroup_bytes;
}

size_t name_table__bytes(const struct name_table *nt)
{
	return name_map_bytes(&nt->processes) + name_map_bytes(&nt->threads);
}

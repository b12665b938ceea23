// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_unwind.c - see bpf_unwind.h.
 *
 * A table's rows take an extent of unwind_rows (unwind_extents.c), which
 * is mmapped, and a load is a memcpy, a check of the copy
 * (fxtprof_unwind_check.h, the module's checks) and then one update of
 * unwind_tables that publishes it: the programs never see a table before
 * its rows.  An unload (once no range runs the table) writes an entry of
 * no rows in its place, which the walk takes for no table, and frees the
 * extent and the id.  A process's ranges are read, changed
 * (unwind_ranges.c) and written back whole, which the hash map swaps in
 * atomically; the programs drop them at exec and exit.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf_unwind.h"
#include <fxtprof_unwind_check.h>
#include "unwind_ranges.h"

/* The kernel's cost of an element of unwind_tables (values are 8-aligned). */
#define TABLE_ELEM_BYTES	16
#define MIN_PROCS		16
#define MAX_PROCS		65536

void bpf_unwind__size(__u64 unwind_memory, struct bpf_unwind_sizes *sz)
{
	__u64 procs, fixed, rows;

	/* An eighth for the processes' ranges, the rest for rows. */
	procs = unwind_memory / 8 / sizeof(struct fxtprof_bpf_unwind_proc);
	if (procs < MIN_PROCS)
		procs = MIN_PROCS;
	if (procs > MAX_PROCS)
		procs = MAX_PROCS;
	fixed = procs * sizeof(struct fxtprof_bpf_unwind_proc) +
		FXTPROF_BPF_UNWIND_MAX_TABLES * TABLE_ELEM_BYTES;
	rows = unwind_memory > fixed ? (unwind_memory - fixed) /
	       sizeof(struct fxtprof_bpf_unwind_rows) : 0;
	sz->procs = (__u32)procs;
	sz->row_elems = rows ? (__u32)rows : 1;
}

int bpf_unwind__init(struct bpf_unwind *u, int rows_fd, int tables_fd,
		     int procs_fd, const struct bpf_unwind_sizes *sz)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *rows;

	memset(u, 0, sizeof(*u));
	u->rows_fd = rows_fd;
	u->tables_fd = tables_fd;
	u->procs_fd = procs_fd;
	u->rows_len = ((size_t)sz->row_elems *
		       sizeof(struct fxtprof_bpf_unwind_rows) + page - 1) &
		      ~(page - 1);
	rows = mmap(NULL, u->rows_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		    rows_fd, 0);
	if (rows == MAP_FAILED)
		return -errno;
	u->rows = rows;
	unwind_extents__init(&u->extents,
			     sz->row_elems * FXTPROF_BPF_UNWIND_ROWS_PER_ELEM);
	return 0;
}

void bpf_unwind__close(struct bpf_unwind *u)
{
	if (u->rows)
		munmap(u->rows, u->rows_len);
	u->rows = NULL;
	unwind_extents__fini(&u->extents);
}

static bool same_build_id(const struct bpf_unwind_build_id *b,
			  const struct fxtprof_unwind_table *t)
{
	return b->size == t->build_id_size &&
	       !memcmp(b->id, t->build_id, t->build_id_size);
}

/* The lowest free table id, or 0 if all FXTPROF_BPF_UNWIND_MAX_TABLES - 1
 * are taken. */
static __u32 free_id(const struct bpf_unwind *u)
{
	__u32 i;

	for (i = 0; i < u->nr_tables; i++)
		if (!u->build_ids[i].size)
			return i + 1;
	return u->nr_tables + 1 < FXTPROF_BPF_UNWIND_MAX_TABLES ?
	       u->nr_tables + 1 : 0;
}

int bpf_unwind__load(struct bpf_unwind *u, struct fxtprof_unwind_table *t)
{
	struct fxtprof_unwind_row *dst;
	struct fxtprof_bpf_unwind_table e;
	__u32 i, id, first;
	int err;

	err = fxtprof_unwind_table__check(t);
	if (err)
		return err;
	for (i = 0; i < u->nr_tables; i++) {
		if (same_build_id(&u->build_ids[i], t)) {
			t->id = i + 1;
			return -EEXIST;
		}
	}
	id = free_id(u);
	if (!id || unwind_extents__alloc(&u->extents, t->nr_rows, &first))
		return -ENOSPC;

	/* Checked where the programs will read it: nothing can change it
	 * between the check and the use but this process. */
	dst = (struct fxtprof_unwind_row *)u->rows + first;
	memcpy(dst, (const void *)(uintptr_t)t->rows_ptr,
	       (size_t)t->nr_rows * sizeof(*dst));
	err = fxtprof_unwind_rows__check(dst, t->nr_rows, t->pc_end);
	if (err)
		goto out_free_rows;

	memset(&e, 0, sizeof(e));
	e.first = first;
	e.nr_rows = t->nr_rows;
	e.pc_end = t->pc_end;
	if (bpf_map_update_elem(u->tables_fd, &id, &e, BPF_ANY)) {
		err = -errno;
		goto out_free_rows;
	}
	u->build_ids[id - 1].size = t->build_id_size;
	memcpy(u->build_ids[id - 1].id, t->build_id, t->build_id_size);
	u->build_ids[id - 1].first = first;
	u->build_ids[id - 1].nr_rows = t->nr_rows;
	if (id > u->nr_tables)
		u->nr_tables = id;
	t->id = id;
	return 0;

out_free_rows:
	unwind_extents__free(&u->extents, first, t->nr_rows);
	return err;
}

static bool id_live(const struct bpf_unwind *u, __u32 id)
{
	return id && id <= u->nr_tables && u->build_ids[id - 1].size;
}

/* Whether a range of some process runs table @id: 0, 1 or -errno. */
static int id_in_use(const struct bpf_unwind *u, __u32 id)
{
	struct fxtprof_bpf_unwind_proc p;
	__u32 key, next, i;
	void *prev = NULL;

	while (!bpf_map_get_next_key(u->procs_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(u->procs_fd, &key, &p))
			continue;	/* gone since: its exit dropped it */
		for (i = 0; i < p.nr && i < FXTPROF_BPF_UNWIND_MAX_RANGES; i++)
			if (p.r[i].id == id)
				return 1;
	}
	return errno == ENOENT ? 0 : -errno;
}

int bpf_unwind__unload(struct bpf_unwind *u, __u32 id)
{
	struct fxtprof_bpf_unwind_table e = { 0 };
	struct bpf_unwind_build_id *b;
	int err;

	if (!id)
		return -EINVAL;
	if (!id_live(u, id))
		return -ENOENT;
	err = id_in_use(u, id);
	if (err)
		return err < 0 ? err : -ENOTEMPTY;
	/* No rows: the walk takes it for no table from now on. */
	if (bpf_map_update_elem(u->tables_fd, &id, &e, BPF_ANY))
		return -errno;
	b = &u->build_ids[id - 1];
	unwind_extents__free(&u->extents, b->first, b->nr_rows);
	memset(b, 0, sizeof(*b));
	return 0;
}

int bpf_unwind__map(struct bpf_unwind *u, const struct fxtprof_unwind_map *m)
{
	struct fxtprof_bpf_unwind_proc p;
	__u32 pid = m->pid;
	int err;

	err = fxtprof_unwind_map__check(m);
	if (err)
		return err;
	if (m->id && !id_live(u, m->id))
		return -EINVAL;
	if (bpf_map_lookup_elem(u->procs_fd, &pid, &p)) {
		if (errno != ENOENT)
			return -errno;
		memset(&p, 0, sizeof(p));
	}
	err = unwind_ranges__update(&p, m);
	if (err)
		return err;
	if (!p.nr) {
		if (bpf_map_delete_elem(u->procs_fd, &pid) && errno != ENOENT)
			return -errno;
		return 0;
	}
	/* A full hash refuses a new key with E2BIG: the memory is used up. */
	if (bpf_map_update_elem(u->procs_fd, &pid, &p, BPF_ANY))
		return errno == E2BIG ? -ENOSPC : -errno;
	return 0;
}

void bpf_unwind__stats(int stats_fd, unsigned int nr_cpus,
		       struct fxtprof_stats *total)
{
	struct fxtprof_bpf_unwind_stats *v;
	unsigned int cpu, i;
	__u32 key = 0;

	/* A per-CPU value per possible CPU, each 8-aligned (it is). */
	v = calloc(nr_cpus, sizeof(*v));
	if (!v)
		return;
	if (!bpf_map_lookup_elem(stats_fd, &key, v)) {
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			total->unwind_table_frames += v[cpu].table_frames;
			total->unwind_fp_frames += v[cpu].fp_frames;
			total->unwind_rule_frames += v[cpu].rule_frames;
			total->ustack_faults += v[cpu].ustack_faults;
			for (i = 0; i < FXTPROF_USTACK_END_SLOTS; i++)
				total->ustack_ends[i] += v[cpu].ustack_ends[i];
		}
	}
	free(v);
}

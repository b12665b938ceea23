/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_unwind.h - the bpf source's unwind tables, the loader's side: the
 * maps of unwind.bpf.h sized from the session's unwind_memory, tables
 * loaded into them and processes' ranges mapped, with the contract of
 * FXTPROF_IOC_UNWIND_LOAD and _MAP (include/uapi/linux/fxtprof.h), and
 * the walk's per-CPU counters summed.  Documentation/unwinding.md, "The
 * bpf source's walk".
 */
#ifndef FXTPROF_BPF_UNWIND_H
#define FXTPROF_BPF_UNWIND_H

#include <stddef.h>

#include <linux/fxtprof.h>

#include "fxtprof_bpf.h"
#include "unwind_extents.h"

/* How unwind_memory is shared out: the maps' max_entries. */
struct bpf_unwind_sizes {
	__u32 row_elems;	/* unwind_rows' elements, of two rows */
	__u32 procs;		/* unwind_procs: processes with ranges */
};

/* A table id's: its build id (size 0: the id is free) and its rows. */
struct bpf_unwind_build_id {
	__u8 size;
	__u8 id[FXTPROF_BUILD_ID_MAX];
	__u32 first, nr_rows;
};

struct bpf_unwind {
	int rows_fd, tables_fd, procs_fd;
	struct fxtprof_bpf_unwind_rows *rows;	/* unwind_rows, mmapped */
	size_t rows_len;			/* bytes mapped */
	struct unwind_extents extents;		/* of the rows */
	__u32 nr_tables;			/* ids 1 .. nr_tables used */
	/* the build id of each table id, for -EEXIST, and its rows */
	struct bpf_unwind_build_id build_ids[FXTPROF_BPF_UNWIND_MAX_TABLES];
};

/* The maps' sizes for @unwind_memory bytes. */
void bpf_unwind__size(__u64 unwind_memory, struct bpf_unwind_sizes *sz);

/* Take the loaded maps' fds and map the rows: 0/-errno. */
int bpf_unwind__init(struct bpf_unwind *u, int rows_fd, int tables_fd,
		     int procs_fd, const struct bpf_unwind_sizes *sz);
void bpf_unwind__close(struct bpf_unwind *u);

/* FXTPROF_IOC_UNWIND_LOAD's contract: sets @t->id (also with -EEXIST). */
int bpf_unwind__load(struct bpf_unwind *u, struct fxtprof_unwind_table *t);
/* FXTPROF_IOC_UNWIND_MAP's contract. */
int bpf_unwind__map(struct bpf_unwind *u, const struct fxtprof_unwind_map *m);
/* FXTPROF_IOC_UNWIND_UNLOAD's contract. */
int bpf_unwind__unload(struct bpf_unwind *u, __u32 id);

/* Add the walk's counters, over @nr_cpus possible CPUs, to @total. */
void bpf_unwind__stats(int stats_fd, unsigned int nr_cpus,
		       struct fxtprof_stats *total);

#endif /* FXTPROF_BPF_UNWIND_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * names.h - the latest process and thread names a stream has carried.
 *
 * An output names threads and processes once (FXT: in kernel object
 * records); a consumer that joins later (a reconnected socket) has never
 * seen them.  The stream state records every name the records carry here
 * and replays the table at the start of each new segment.  Entries go
 * when their task exits, so the table tracks live tasks only (and a
 * record behind an exit is not remembered, state/recent_exits.h).
 */
#ifndef FXTPROF_NAMES_H
#define FXTPROF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libfxtprof.h>

#include "util/hmap.h"

struct name_entry {
	uint32_t tid;		/* for processes, the pid */
	uint32_t pid;
	uint64_t ts;		/* of the record that gave the name */
	char comm[FXTPROF_COMM_LEN];
	/* Processes: their container (name_table__set_process_info()). */
	bool has_info;
	int64_t nspid;		/* -1: unknown */
	char *cgroup;		/* NULL: unknown; owned */
};

/* The entries, dense; the index maps a key to its entry's position. */
struct name_map {
	struct hmap index;
	struct name_entry *ents;
	size_t len, cap;
	size_t cgroup_bytes;	/* the entries' cgroup strings hold */
};

struct name_table {
	struct name_map processes;	/* keyed by pid */
	struct name_map threads;	/* keyed by tid */
};

void name_table__init(struct name_table *nt);
/* The bytes @nt holds: its entries and indexes, at their capacity. */
size_t name_table__bytes(const struct name_table *nt);
void name_table__fini(struct name_table *nt);

/*
 * Remember the name (copied, at most FXTPROF_COMM_LEN bytes) a record of
 * time @ts gave: 0; 1 if a record of a later time gave one already (the
 * reader drains CPU after CPU, so a fork can come after its child's
 * rename), which stays; or -ENOMEM.
 */
int name_table__set_process(struct name_table *nt, uint32_t pid,
			    const char *comm, uint64_t ts);
int name_table__set_thread(struct name_table *nt, uint32_t pid, uint32_t tid,
			   const char *comm, uint64_t ts);
/*
 * What process @pid's container is: its pid in its own namespace (-1:
 * unknown) and cgroup path (NULL: unknown, copied).  0, -ENOENT for a
 * process without a name here, -ENOMEM.
 */
int name_table__set_process_info(struct name_table *nt, uint32_t pid,
				 int64_t nspid, const char *cgroup);
/* Process @pid's entry, or NULL. */
const struct name_entry *name_table__process(const struct name_table *nt,
					     uint32_t pid);
void name_table__remove_thread(struct name_table *nt, uint32_t tid);
void name_table__remove_process(struct name_table *nt, uint32_t pid);

/* Visit every entry; processes are visited with tid == pid. */
typedef int (*name_visit_fn)(void *ctx, uint32_t pid, uint32_t tid,
			     const char *comm);
int name_table__for_each_process(const struct name_table *nt,
				 name_visit_fn fn, void *ctx);
int name_table__for_each_thread(const struct name_table *nt,
				name_visit_fn fn, void *ctx);

#endif /* FXTPROF_NAMES_H */

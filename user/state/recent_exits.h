/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recent_exits.h - the threads and processes whose exit the stream has
 * just seen, so that their records that arrive after it are not taken
 * for a live one's.
 *
 * The reader drains the rings one CPU after another, not merged by time:
 * a child forked on one CPU that exits on another can have its EXIT
 * handled before its FORK.  Remembering the FORK then would keep the
 * child's names and a copy of its parent's mappings for the rest of the
 * recording: on a machine that forks forever, a table that only grows.
 * A record of a thread or process older than an exit seen here is still
 * written; it is only not remembered.
 *
 * Bounded: the last RECENT_EXITS_MAX exits, far more than one drain pass
 * sees (out of order is only ever within one pass over the rings).
 */
#ifndef FXTPROF_STATE_RECENT_EXITS_H
#define FXTPROF_STATE_RECENT_EXITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

#define RECENT_EXITS_MAX	2048

struct recent_exits {
	struct hmap by_id;		/* thread id, or process bit | pid -> time */
	struct recent_exit {
		uint64_t id, ts;
	} *fifo;			/* RECENT_EXITS_MAX, oldest at head */
	size_t head, len;
};

/* An empty one is zeroed memory; this frees what it holds. */
void recent_exits__fini(struct recent_exits *r);

/* Thread @tid, or process @pid (its last thread), exited at @ts. */
int recent_exits__add_thread(struct recent_exits *r, uint32_t tid,
			     uint64_t ts);
int recent_exits__add_process(struct recent_exits *r, uint32_t pid,
			      uint64_t ts);

/* Whether an exit at or after @ts was seen for @tid, or for @pid. */
bool recent_exits__thread_gone(const struct recent_exits *r, uint32_t tid,
			       uint64_t ts);
bool recent_exits__process_gone(const struct recent_exits *r, uint32_t pid,
				uint64_t ts);

size_t recent_exits__bytes(const struct recent_exits *r);

#endif /* FXTPROF_STATE_RECENT_EXITS_H */

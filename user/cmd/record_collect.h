/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_collect.h - `fxtprof record --collect DIR`: every mapped file
 * that has a build id, copied while its process lives into DIR in the
 * .build-id layout (util/build_id_path.h), once per build id, so that
 * `report --debug-dir DIR` names the frames of a container that is gone.
 *
 * The event loop only opens the file (through /proc/PID/map_files, the
 * very file the process maps, even in another mount namespace) when it
 * meets the mapping record: it must, while the process lives.  A worker
 * thread copies it, off the drain path.  Files are 0600, directories
 * 0700; a file already in DIR is kept.
 */
#ifndef FXTPROF_RECORD_COLLECT_H
#define FXTPROF_RECORD_COLLECT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <libfxtprof.h>

#include "util/hmap.h"

struct collect_job;

struct record_collect {
	const char *dir;		/* NULL: off */
	struct hmap seen;		/* build id hash: met once */
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct collect_job *head, **tail;
	bool stop, running;
	pthread_t worker;
	/* The loop's counts. */
	uint64_t unreadable;		/* files that could not be opened */
	uint64_t queued;
	/* The worker's, read once it is joined. */
	uint64_t copied, bytes, present, failed;
	int first_err;
	char first_err_path[256];
};

/* Start the worker for @dir (created 0700 if missing): 0 or -errno. */
int record_collect__init(struct record_collect *rc, const char *dir);

/* A mapping record: its file opened and queued if its build id is new. */
void record_collect__mapping(struct record_collect *rc,
			     const struct fxtprof_mmap *m);

/* Copy what is queued, stop the worker, free.  Safe on one never begun. */
void record_collect__fini(struct record_collect *rc);

/* The summary's line. */
void record_collect__summary(const struct record_collect *rc);

#endif /* FXTPROF_RECORD_COLLECT_H */

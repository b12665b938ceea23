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
 *
 * `--collect stream`: the same files go inside the stream instead, for
 * `receive --collect DIR` to put in its DIR (collect/file_reasm.h): the
 * worker reads each in chunks (fxt_profile.h's FXT_PROFILE_FILE) into a
 * queue of at most COLLECT_QUEUE chunks; the event loop, at each drain
 * and tick, hands them to the encoder while the output holds less than
 * COLLECT_BACKLOG bytes unsent, so that files never crowd out samples and
 * a slow peer never blocks the drain: a chunk the sink drops loses its
 * file (the receiver drops it whole).  Up to --collect-max bytes of files
 * are sent; those past it are skipped and counted.
 */
#ifndef FXTPROF_RECORD_COLLECT_H
#define FXTPROF_RECORD_COLLECT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <libfxtprof.h>

#include "util/hmap.h"

struct collect_job;
struct collect_chunk;
struct sink;
struct stream_state;

#define COLLECT_QUEUE		16		/* chunks read ahead */
#define COLLECT_BACKLOG		(1u << 20)	/* output bytes unsent */
#define COLLECT_DEFAULT_MAX	(256ull << 20)	/* --collect-max */

struct record_collect {
	const char *dir;		/* NULL: off */
	struct hmap seen;		/* build id hash: met once */
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct collect_job *head, **tail;
	struct collect_job **urgent_tail;	/* after the last urgent job */
	bool stop, running;
	pthread_t worker;
	/* --collect stream: chunks from the worker, into @state. */
	bool stream;
	struct stream_state *state;
	struct sink *out;
	uint64_t max_bytes;		/* --collect-max */
	uint64_t budget;		/* bytes the worker took on */
	struct collect_chunk *ready, **ready_tail;
	unsigned int nready;
	bool in_file;			/* the worker reads one */
	pthread_cond_t room;		/* a chunk taken, or stop */
	uint64_t file_seq;		/* the worker's, from 1 */
	uint64_t lost_seq;		/* the last file a drop lost */
	uint64_t sent_files, sent_bytes, lost, chunks, chunks_dropped;
	uint64_t skipped, cut, abandoned;
	uint64_t abandon_seq;		/* the file the worker gave up on */
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

/*
 * --collect stream: start the worker, its chunks for @state (whose sink
 * is @out), at most @max_bytes of files: 0 or -errno.
 */
int record_collect__init_stream(struct record_collect *rc,
				struct stream_state *state, struct sink *out,
				uint64_t max_bytes);

/* --collect stream: the chunks read, into the stream (the event loop's). */
void record_collect__send(struct record_collect *rc);

/* --collect stream: whether files wait or are being read. */
bool record_collect__pending(struct record_collect *rc);

/*
 * A mapping record: its file opened and queued if its build id is new;
 * @urgent (a mapping made while recording, of a process that may be
 * short-lived, where those swept at the start are of processes that ran
 * already) before those that are not.
 */
void record_collect__mapping(struct record_collect *rc,
			     const struct fxtprof_mmap *m, bool urgent);

/*
 * Copy what is queued, stop the worker, free.  Safe on one never begun.
 * --collect stream: what is not sent yet is abandoned (and counted).
 */
void record_collect__fini(struct record_collect *rc);

/* The summary's line. */
void record_collect__summary(const struct record_collect *rc);

#endif /* FXTPROF_RECORD_COLLECT_H */

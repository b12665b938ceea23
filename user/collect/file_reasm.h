/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file_reasm.h - the files a board sends inside its stream (`record
 * --collect stream`, fxt_profile.h's FXT_PROFILE_FILE blobs) put back
 * together on the host, `receive --collect DIR`: each into
 * DIR/.build-id/xx/rest (util/build_id_path.h), the layout that `report
 * --debug-dir` reads.
 *
 * The peer is not trusted.  A file is written chunk by chunk at its
 * offset into a temporary file beside its place (0600, directories
 * 0700), never held in memory, and renamed into place only when every
 * byte came, in order, and the GNU build id the file holds is the one
 * the chunks announced.  A file already there is kept.  A chunk out of
 * order (the sender's sink dropped one: a gap; or one that overlaps), a
 * malformed chunk, a build id that cannot be a path, a file larger than
 * the limit, one that never completes: the file is dropped and counted
 * by its reason, and its later chunks are ignored.  At most
 * FILE_REASM_OPEN files are open at once (the sender sends one at a
 * time); the memory is that and one record's buffer.
 *
 * The work per record is bounded: one pwrite() of at most a chunk, and
 * at a file's last chunk reading its ELF notes and a rename.
 */
#ifndef FXTPROF_FILE_REASM_H
#define FXTPROF_FILE_REASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt/fxt_profile.h"

#define FILE_REASM_OPEN		4
/* --collect-max default: the largest file taken. */
#define FILE_REASM_DEFAULT_MAX	(256ull << 20)

/* Why a file was dropped. */
enum file_reasm_why {
	FILE_REASM_MALFORMED,	/* a chunk's payload does not parse */
	FILE_REASM_BAD_ID,	/* a build id of under 2 or over 64 bytes */
	FILE_REASM_TOO_BIG,	/* larger than the limit */
	FILE_REASM_GAP,		/* a chunk missing (the sender dropped it) */
	FILE_REASM_OVERLAP,	/* a chunk again, or overlapping */
	FILE_REASM_INCOMPLETE,	/* the stream ended first */
	FILE_REASM_MISMATCH,	/* its build id is not the announced one */
	FILE_REASM_BUSY,	/* FILE_REASM_OPEN files open already */
	FILE_REASM_IO,		/* a write, mkdir or rename failed */
	FILE_REASM_NR_WHY,
};

struct file_reasm_stats {
	uint64_t chunks;		/* file chunks seen */
	uint64_t collected;		/* files put in place */
	uint64_t bytes;			/* their bytes */
	uint64_t present;		/* files that were there already */
	uint64_t dropped;		/* the sum of why[] */
	uint64_t why[FILE_REASM_NR_WHY];
	int io_err;			/* the first FILE_REASM_IO's -errno */
};

struct file_reasm_file {
	bool used;
	uint8_t id_len;
	uint8_t id[FXT_FILE_ID_MAX];
	uint64_t size, next;		/* next: the bytes written so far */
	int fd;
	char tmp[4096 + 32];
};

struct file_reasm {
	const char *dir;
	uint64_t max_file;
	struct file_reasm_file files[FILE_REASM_OPEN];
	/* The last file dropped or found present: its chunks are ignored. */
	uint8_t ignore_id[FXT_FILE_ID_MAX];
	uint8_t ignore_len;
	/* The record walk over the stream's bytes (file_reasm__feed). */
	unsigned char *rec;		/* a file blob being gathered */
	size_t rec_len, rec_need;
	uint64_t skip;			/* bytes of a record not wanted */
	unsigned char hdr[8];
	unsigned int hdr_len;
	struct file_reasm_stats st;
};

/* Into @dir (made 0700 if missing), files up to @max_file bytes: 0/-errno. */
int file_reasm__init(struct file_reasm *r, const char *dir, uint64_t max_file);

/*
 * @len bytes of an FXT stream, whole records as a framer passed them,
 * cut anywhere: every FXT_PROFILE_FILE blob is handed to __chunk().
 */
void file_reasm__feed(struct file_reasm *r, const void *data, size_t len);

/* One blob record whole (@len bytes): if it is a file's chunk, taken. */
void file_reasm__record(struct file_reasm *r, const void *rec, size_t len);

/* One chunk's payload (fxt_profile.h's FXT_PROFILE_FILE layout). */
void file_reasm__chunk(struct file_reasm *r, const void *payload, size_t len);

/* The stream ended: files not complete are dropped.  Frees. */
void file_reasm__end(struct file_reasm *r);

/* The short name of a reason, for summaries ("gap", "mismatch"...). */
const char *file_reasm__why_name(enum file_reasm_why why);

#endif /* FXTPROF_FILE_REASM_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_extract.h - one time range of a recording as a self-contained
 * FXT stream: from an archive, decompressing only the chunks the range
 * needs, or from a plain FXT stream record by record (the clip).
 *
 * The range is [from_ns, to_ns], both ends included: a timed record with
 * from_ns <= ts <= to_ns is kept.  Timed records are FXT events and
 * scheduling records (their word 1); a record with no timestamp of its
 * own that is not a definition (a stack blob after its sample event)
 * goes with the timed record before it.  Definitions (FXT kinds 0, 1, 2,
 * 3, 5, 6, 7: metadata, initialization, strings, threads, blobs, which
 * hold shared stacks (fxt_profile.h), userspace and kernel objects) are
 * always kept, so every record written refers only to definitions before
 * it.
 *
 * From an archive the stream is built as the flight recorder's snapshot
 * is (user/sink/flight_window.c): the chunks that overlap the range, and
 * before them back to the chunk that starts their segment (a
 * continuation chunk decodes only after it), are concatenated; the first
 * keeps its stream header (magic, provider records, initialization),
 * later ones leave theirs out, their string and thread records
 * redefining the tables from where the writer's reset left them.  A
 * range with no record in it still gets the prologue and definitions of
 * the nearest chunk: a valid, empty stream.  An archive with no chunk
 * gives just the FXT magic record.
 */
#ifndef FXTPROF_ARCHIVE_EXTRACT_H
#define FXTPROF_ARCHIVE_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct archive_reader;

/* Where the records go: 0 or -errno (which stops the extraction). */
typedef int (*archive_emit_fn)(void *ctx, const void *rec, size_t len,
			       unsigned int kind);

struct archive_extract_stats {
	uint64_t chunks_read;		/* decompressed */
	uint64_t chunks_bad;		/* failed their checksum, skipped */
	uint64_t bytes_read;		/* compressed payloads of those */
	uint64_t records;		/* written */
	uint64_t events;		/* timed records written */
	uint64_t bytes;			/* written */
	uint64_t first_ns, last_ns;	/* of the timed records written */
};

/* ---- the clip: one FXT record stream, filtered by time --------------- */

struct archive_clip {
	uint64_t from_ns, to_ns;
	uint64_t last_ts;	/* of the last timed record seen */
	bool in_range;		/* the last timed record was in range */
	bool header_done;	/* a stream header was written */
	bool skip_header;	/* in a later segment: leave its header out */
	struct archive_extract_stats *st;
	archive_emit_fn emit;
	void *ctx;
};

void archive_clip__init(struct archive_clip *c, uint64_t from_ns,
			uint64_t to_ns, archive_emit_fn emit, void *ctx,
			struct archive_extract_stats *st);
/*
 * Clip the whole records in @buf (@len bytes): 0, -EPROTO if a record is
 * cut or has no size (@bad gets its offset), or the emitter's error.
 */
int archive_clip__feed(struct archive_clip *c, const void *buf, size_t len,
		       size_t *bad);
/* A new segment starts: its stream header is left out if one was written. */
void archive_clip__segment(struct archive_clip *c);

/* The FXT kinds that are definitions, see above. */
bool archive_kind_is_def(unsigned int kind);

/* ---- from an archive ---------------------------------------------------- */

/*
 * Write [from_ns, to_ns] of @a through @emit.  A chunk that fails its
 * checksum is reported in @err (it names the chunk), skipped with the
 * continuation chunks that depend on it, and the rest is still written;
 * the return is then -EBADMSG (@err names the first such chunk).  Other
 * errors stop it: -errno, @err saying why.
 */
int archive_extract(const struct archive_reader *a, uint64_t from_ns,
		    uint64_t to_ns, archive_emit_fn emit, void *ctx,
		    struct archive_extract_stats *st, char *err,
		    size_t errlen);

/*
 * The recording's start: the first event time of the metrics, or the
 * earliest chunk's for a scanned archive (0 when it has none).
 */
uint64_t archive_extract__start(const struct archive_reader *a);

#endif /* FXTPROF_ARCHIVE_EXTRACT_H */

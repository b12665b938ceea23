/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive.h - the replayable archive (.fxtz): an FXT recording as
 * independent LZ4 chunks, each one segment of the pipeline (it starts with
 * the prologue and the replay of names, mappings and kernel symbols, so it
 * decodes alone), followed at close by a manifest, summary sections and a
 * fixed-size footer.  Documentation/archive-format.md has the bytes.
 *
 * The file is append-only: a file cut anywhere (kill -9, power loss) reads
 * up to its last complete chunk by scanning the chunk headers, and
 * archive__repair() writes the missing trailer.  Readers use positional
 * reads only, so any number of them may share a file, also while a live
 * writer appends to it.
 *
 * Every function returns 0 (or a count) or -errno; those taking @err fill
 * it with one sentence naming the file, chunk and offset concerned.
 */
#ifndef FXTPROF_ARCHIVE_H
#define FXTPROF_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Chunk limits: a chunk is cut at the first one reached. */
/*
 * Every chunk repeats its segment's replay of names, mappings and kernel
 * symbols: a second of trace per chunk keeps that replay a small share of
 * the file (Documentation/archive-format.md, "When a chunk is cut").
 */
#define ARCHIVE_DEFAULT_WINDOW_NS	1000000000ull	/* 1 s of trace time */
#define ARCHIVE_DEFAULT_CHUNK_BYTES	(4u << 20)	/* uncompressed */
#define ARCHIVE_DEFAULT_CHUNK_RECORDS	200000u
/* Live archives: a partial chunk is written after this long. */
#define ARCHIVE_DEFAULT_FLUSH_MS	200u
/* The largest chunk a reader accepts (uncompressed), and a writer makes. */
#define ARCHIVE_MAX_CHUNK_BYTES		(64u << 20)

/* Chunk flags (struct archive_chunk_info.flags). */
/* Does not start a segment: decodes only after the chunk before it. */
#define ARCHIVE_CHUNK_CONTINUATION	(1u << 0)
/* Cut by the live flush timer, not by a limit. */
#define ARCHIVE_CHUNK_FLUSHED		(1u << 1)

/* Stream id of a chunk holding every CPU's records (the reader's). */
#define ARCHIVE_STREAM_ALL		0xffffffffu

/* Trailer section ids: append-only, never reused; readers skip others. */
enum archive_section_id {
	ARCHIVE_SEC_MANIFEST = 1,
	ARCHIVE_SEC_METRICS = 2,
	ARCHIVE_SEC_THREADS = 3,	/* samples per thread */
	ARCHIVE_SEC_PROCESSES = 4,	/* samples per process */
	ARCHIVE_SEC_WINDOWS = 5,	/* samples per CPU per window */
	ARCHIVE_SEC_NAMES = 6,		/* process/thread names, time ranges */
	ARCHIVE_SEC_MAPPINGS = 7,
	ARCHIVE_SEC_KIMAGES = 8,
	ARCHIVE_SEC_KSYMS = 9,
};

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

struct archive_writer_opts {
	uint64_t window_ns;	/* 0: ARCHIVE_DEFAULT_WINDOW_NS */
	uint32_t max_bytes;	/* 0: ARCHIVE_DEFAULT_CHUNK_BYTES */
	uint32_t max_records;	/* 0: ARCHIVE_DEFAULT_CHUNK_RECORDS */
	uint32_t stream;	/* the chunks' stream id: ARCHIVE_STREAM_ALL */
	bool live;		/* chunks only: no trailer at finish */
	bool uncoded;		/* LZ4 alone, no chunk codec (for measuring) */
};

struct archive_writer_stats {
	uint64_t chunks;
	uint64_t records;		/* appended */
	uint64_t bytes_in;		/* uncompressed FXT */
	uint64_t bytes_out;		/* file size so far */
	uint64_t refused;		/* records larger than a chunk, or after an error */
	uint64_t records_written;	/* in chunks on disk */
	uint64_t bytes_written;		/* their uncompressed FXT bytes */
	uint64_t records_lost;		/* in a chunk whose write failed */
	uint64_t bytes_lost;
	int error;			/* -errno of the first write failure, sticky */
};

struct archive_writer;

/*
 * Write the file header to @fd (empty, opened for writing; the writer
 * never closes it) and get ready for records.
 */
int archive_writer__open(struct archive_writer **wp, int fd,
			 const struct archive_writer_opts *o);
void archive_writer__free(struct archive_writer *w);

/*
 * Room for one whole FXT record of @len bytes (a multiple of 8) in the
 * current chunk, or NULL (refused and counted: too large, or the file
 * failed).  Fill it, then commit with its kind (the FXT record type).
 */
void *archive_writer__reserve(struct archive_writer *w, size_t len);
void archive_writer__commit(struct archive_writer *w, unsigned int kind);

/*
 * The current chunk reached a limit: the sink should ask for a new
 * segment, and cut when it begins.  Past twice a limit with no segment
 * begun, the writer cuts by itself (a CONTINUATION chunk follows).
 */
bool archive_writer__cut_wanted(const struct archive_writer *w);
/*
 * Compress and write the current chunk now (nothing if empty), with
 * @flags (ARCHIVE_CHUNK_FLUSHED for the live timer).  Call it only
 * between records that start a segment: before the prologue, or, with a
 * new segment asked for, between two of the state's calls.
 */
int archive_writer__cut(struct archive_writer *w, unsigned int flags);
/*
 * Live: write the partial chunk now, flagged ARCHIVE_CHUNK_FLUSHED.  1: it
 * held enough events to be worth a segment's replay, so the sink should
 * ask for one (and cut where it begins, as above); 0: the next chunk
 * continues this one (ARCHIVE_CHUNK_CONTINUATION) until a limit cuts it
 * at a segment; or -errno.  Between two of the state's calls only.
 */
int archive_writer__flush(struct archive_writer *w);
/* Records the sink dropped before the writer (they go in the metrics). */
void archive_writer__count_dropped(struct archive_writer *w,
				   uint64_t records, uint64_t bytes);
/*
 * Cut the last chunk and, unless live, write the manifest, the sections
 * and the footer.  0 or -errno; nothing is appended after it.
 */
int archive_writer__finish(struct archive_writer *w);
/* The bytes of the writer's chunk buffers (its codec's tables apart). */
size_t archive_writer__bytes(const struct archive_writer *w);
void archive_writer__stats(const struct archive_writer *w,
			   struct archive_writer_stats *st);

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

/* How the reader found the chunks. */
enum archive_index {
	ARCHIVE_INDEX_FOOTER,	/* a finished archive: manifest and trailer */
	ARCHIVE_INDEX_SCAN,	/* no valid footer: the chunk headers scanned */
};

/* archive_reader__open() flags. */
#define ARCHIVE_OPEN_SCAN	(1u << 0)	/* ignore the footer: scan */

struct archive_chunk_info {
	uint64_t offset;	/* of its chunk header in the file */
	uint32_t compressed;	/* payload bytes after the header */
	uint32_t uncompressed;
	uint64_t t_first, t_last;	/* trace clock ns of its first/last event */
	uint32_t records;
	uint32_t stream;	/* CPU, or ARCHIVE_STREAM_ALL */
	uint32_t flags;		/* ARCHIVE_CHUNK_* */
	uint32_t crc;		/* crc32c of header and payload */
};

struct archive_metrics {
	uint64_t t_first, t_last;	/* of every event (0, 0: none) */
	uint64_t chunks;
	uint64_t records;		/* FXT records */
	uint64_t bytes;			/* uncompressed FXT */
	uint64_t compressed;		/* the chunks' payload bytes */
	uint64_t records_by_kind[16];	/* by FXT record type */
	uint64_t bytes_by_kind[16];
	uint64_t samples;		/* sample events */
	uint64_t segments;		/* streams begun (magic records) */
	/* The last totals in-band: counters fxtprof:kernel_lost and
	 * fxtprof:output_dropped (records, bytes). */
	uint64_t kernel_lost_records, kernel_lost_bytes;
	uint64_t output_dropped_records, output_dropped_bytes;
	/* Dropped by the archive's own sink, never in the file. */
	uint64_t sink_dropped_records, sink_dropped_bytes;
	uint64_t bad_chunks;		/* repair: chunks it could not read */
};

struct archive_thread_count {
	uint64_t pid, tid, samples;
};

struct archive_process_count {
	uint64_t pid, samples;
};

/* Samples per CPU per window: samples[w * ncpus + cpu], window w starting
 * at t0 + w * window_ns. */
struct archive_windows {
	uint64_t window_ns, t0;
	uint32_t ncpus, nwindows;
	const uint32_t *samples;
};

#define ARCHIVE_NAME_PROCESS	1
#define ARCHIVE_NAME_THREAD	2

/* A name held from t_from to t_to (trace ns; t_to: replaced, or the end). */
struct archive_name {
	uint32_t kind;		/* ARCHIVE_NAME_* */
	uint64_t pid, tid;	/* tid 0 for a process */
	uint64_t t_from, t_to;
	const char *name;	/* not NUL terminated */
	uint32_t name_len;
};

struct archive_mapping {
	uint64_t pid, start, end, pgoff, time;
	const char *path, *build_id;	/* not NUL terminated */
	uint32_t path_len, build_id_len;	/* build_id_len 0: none */
	bool initial;
};

struct archive_kimage {
	uint64_t start, end;
	const char *name, *build_id;
	uint32_t name_len, build_id_len;
	bool kernel;
};

struct archive_ksym {
	uint64_t addr;
	uint32_t size;
	const char *name;
	uint32_t name_len;
};

struct archive_reader;

/*
 * Open @path: the footer's manifest and sections if it has a valid one
 * (and no ARCHIVE_OPEN_SCAN), else scan the chunk headers up to the
 * first incomplete or unreadable one.  -ENOTSUP: not an archive or a
 * version this reader does not read; -EBADMSG: unsound header.
 */
int archive_reader__open(struct archive_reader **ap, const char *path,
			 unsigned int flags, char *err, size_t errlen);
/* The same on an open fd (kept open, not closed by the reader). */
int archive_reader__open_fd(struct archive_reader **ap, int fd,
			    unsigned int flags, char *err, size_t errlen);
void archive_reader__close(struct archive_reader *a);

enum archive_index archive_reader__index(const struct archive_reader *a);
/* Scanned: the bytes after the last complete chunk (a torn tail). */
uint64_t archive_reader__tail_bytes(const struct archive_reader *a);
/* Every reader call may run in several threads at once. */

size_t archive_reader__nchunks(const struct archive_reader *a);
const struct archive_chunk_info *
archive_reader__chunk(const struct archive_reader *a, size_t i);
/* The largest uncompressed chunk: a buffer that size reads any chunk. */
uint32_t archive_reader__max_chunk(const struct archive_reader *a);
/* The first chunk whose t_last >= @t_ns, or nchunks. */
size_t archive_reader__find_time(const struct archive_reader *a,
				 uint64_t t_ns);

/*
 * Read chunk @i, check its crc32c and decompress it into @buf (@cap
 * bytes, at least its uncompressed size): the number of bytes, or
 * -EBADMSG (checksum, LZ4 or size mismatch: @err names the chunk index
 * and offset), -ENOSPC (@cap too small), -EIO / -errno from pread.
 */
ssize_t archive_reader__read_chunk(const struct archive_reader *a, size_t i,
				   void *buf, size_t cap, char *err,
				   size_t errlen);

/*
 * The summaries, from the trailer (ARCHIVE_INDEX_FOOTER only: -ENOENT
 * when scanned or the section is absent).  Pointers stay valid until
 * archive_reader__close().
 */
int archive_reader__metrics(const struct archive_reader *a,
			    struct archive_metrics *m);
int archive_reader__threads(const struct archive_reader *a,
			    const struct archive_thread_count **v, size_t *n);
int archive_reader__processes(const struct archive_reader *a,
			      const struct archive_process_count **v,
			      size_t *n);
int archive_reader__windows(const struct archive_reader *a,
			    struct archive_windows *w);
int archive_reader__names(const struct archive_reader *a,
			  const struct archive_name **v, size_t *n);
int archive_reader__mappings(const struct archive_reader *a,
			     const struct archive_mapping **v, size_t *n);
int archive_reader__kimages(const struct archive_reader *a,
			    const struct archive_kimage **v, size_t *n);
int archive_reader__ksyms(const struct archive_reader *a,
			  const struct archive_ksym **v, size_t *n);

/* A section's raw bytes by id (known or not), -ENOENT if absent. */
int archive_reader__section(const struct archive_reader *a, uint32_t id,
			    const void **data, size_t *len);
/* Ids present, in table order: writes up to @cap, returns how many. */
size_t archive_reader__section_ids(const struct archive_reader *a,
				   uint32_t *ids, size_t cap);

/* ------------------------------------------------------------------ */
/* Repair                                                              */
/* ------------------------------------------------------------------ */

struct archive_repair_stats {
	bool was_finished;	/* it had a valid footer: left as it was */
	uint64_t chunks;	/* complete chunks kept */
	uint64_t bad_chunks;	/* of those, with a payload that fails */
	uint64_t cut_bytes;	/* torn tail truncated away */
};

/*
 * Make @path a finished archive: scan it, truncate the torn tail after
 * the last complete chunk, and append the manifest, the sections
 * (computed by decoding every chunk) and the footer.  An archive already
 * finished is left untouched.
 */
int archive__repair(const char *path, struct archive_repair_stats *st,
		    char *err, size_t errlen);

#endif /* FXTPROF_ARCHIVE_H */

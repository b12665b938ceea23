/* SPDX-License-Identifier: MIT */
/*
 * fxt.h - Fuchsia Trace Format (FXT) encoder.
 *
 * Two layers:
 *
 *  - fxt_enc_*(): stateless encoders.  Each builds one complete record in
 *    caller memory (an array of little-endian 64-bit words) and returns the
 *    number of words written, or -errno.  They never emit a zero word, a
 *    normal record over 4095 words, more than 15 arguments or a large
 *    record of 4096+ words (Perfetto's tokenizer reads only 12 size bits).
 *
 *  - struct fxt_writer: encodes each record in place, straight into memory
 *    its sink reserves for it (in the manner of Fuchsia's FxtWriter
 *    Reserve), or for a sink that only takes finished records, into one
 *    scratch buffer handed over by a call.  It owns the string table: the
 *    only way to get an indexed string ref is fxt_writer__string_ref(),
 *    which writes the string record to the sink before returning the ref,
 *    so a record can never use an index that the stream has not
 *    registered yet.
 *
 * All functions return 0 (or a word count where documented) on success
 * and a negative errno on failure; errno itself is never used.
 */
#ifndef FXT_H
#define FXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Format constants                                                    */
/* ------------------------------------------------------------------ */

#define FXT_MAGIC			0x0016547846040010ULL
#define FXT_MAX_RECORD_WORDS		4095u	/* 12-bit size field */
#define FXT_MAX_LARGE_RECORD_WORDS	4095u	/* our cap, see above */
#define FXT_MAX_ARGS			15u
#define FXT_MAX_STRING_LEN		32000u	/* trace-engine limit */
#define FXT_MAX_STRING_INDEX		0x7fffu
#define FXT_MAX_THREAD_INDEX		0xffu
#define FXT_MAX_PROVIDER_NAME		255u
#define FXT_NS_PER_SEC			1000000000ULL

/*
 * Stack samples are truncated to this many frames (leaf kept), so a sample
 * blob is at most 8 + 4 KiB: far below the 4096-word large-record cap and
 * below the 32 KiB Perfetto comfort limit.
 */
#define FXT_MAX_FRAMES			512u

enum fxt_record_type {
	FXT_REC_METADATA	= 0,
	FXT_REC_INIT		= 1,
	FXT_REC_STRING		= 2,
	FXT_REC_THREAD		= 3,
	FXT_REC_EVENT		= 4,
	FXT_REC_BLOB		= 5,
	FXT_REC_USERSPACE_OBJ	= 6,
	FXT_REC_KERNEL_OBJ	= 7,
	FXT_REC_SCHED		= 8,
	FXT_REC_LOG		= 9,
	FXT_REC_LARGE		= 15,
};

enum fxt_metadata_type {
	FXT_META_PROVIDER_INFO		= 1,
	FXT_META_PROVIDER_SECTION	= 2,
	FXT_META_PROVIDER_EVENT		= 3,
	FXT_META_TRACE_INFO		= 4,
};

#define FXT_PROVIDER_EVENT_BUFFER_OVERFLOW	0

enum fxt_event_type {
	FXT_EVENT_INSTANT		= 0,
	FXT_EVENT_COUNTER		= 1,
	FXT_EVENT_DURATION_BEGIN	= 2,
	FXT_EVENT_DURATION_END		= 3,
	FXT_EVENT_DURATION_COMPLETE	= 4,
	FXT_EVENT_ASYNC_BEGIN		= 5,
	FXT_EVENT_ASYNC_INSTANT		= 6,
	FXT_EVENT_ASYNC_END		= 7,
	FXT_EVENT_FLOW_BEGIN		= 8,
	FXT_EVENT_FLOW_STEP		= 9,
	FXT_EVENT_FLOW_END		= 10,
};

enum fxt_arg_type {
	FXT_ARG_NULL	= 0,
	FXT_ARG_INT32	= 1,
	FXT_ARG_UINT32	= 2,
	FXT_ARG_INT64	= 3,
	FXT_ARG_UINT64	= 4,
	FXT_ARG_DOUBLE	= 5,
	FXT_ARG_STRING	= 6,
	FXT_ARG_POINTER	= 7,
	FXT_ARG_KOID	= 8,
	FXT_ARG_BOOL	= 9,
	FXT_ARG_BLOB	= 10,	/* decoded, never encoded (Perfetto: "unknown") */
};

enum fxt_kobj_type {
	FXT_KOBJ_PROCESS	= 1,
	FXT_KOBJ_THREAD		= 2,
};

enum fxt_large_type {
	FXT_LARGE_BLOB		= 0,
};

/* Blob record (type 5) payload types. */
enum fxt_blob_type {
	FXT_BLOB_DATA		= 1,
	FXT_BLOB_LBR		= 2,
	FXT_BLOB_PERFETTO	= 3,	/* Perfetto TracePackets, Trace wire format */
};

/* Fuchsia's TRACE_MAX_BLOB_SIZE: a blob record's payload, at most. */
#define FXT_MAX_BLOB_LEN		32000u

enum fxt_blob_format {
	FXT_BLOB_FORMAT_METADATA	= 0,
	FXT_BLOB_FORMAT_NO_METADATA	= 1,
};

/* ------------------------------------------------------------------ */
/* References and arguments                                            */
/* ------------------------------------------------------------------ */

/*
 * A string reference as placed in a header: ref 0 = empty, 1..0x7fff =
 * table index, 0x8000|len = inline bytes (str, len; valid UTF-8,
 * len <= FXT_MAX_STRING_LEN).
 */
struct fxt_sref {
	uint16_t ref;
	uint32_t len;
	const char *str;
};

static inline struct fxt_sref fxt_sref_empty(void)
{
	struct fxt_sref r = { 0, 0, NULL };
	return r;
}

static inline struct fxt_sref fxt_sref_index(uint16_t index)
{
	struct fxt_sref r = { index, 0, NULL };
	return r;
}

/* The encoder rejects len > FXT_MAX_STRING_LEN rather than truncating. */
static inline struct fxt_sref fxt_sref_inline(const char *str, size_t len)
{
	struct fxt_sref r = { 0, 0, str };

	if (len) {
		r.ref = (uint16_t)(0x8000u | (len & 0x7fffu));
		r.len = len > 0xffffffffu ? 0xffffffffu : (uint32_t)len;
	}
	return r;
}

/* A thread reference: index 1..255, or 0 = inline (pid, tid) words. */
struct fxt_tref {
	uint8_t index;
	uint64_t pid;
	uint64_t tid;
};

static inline struct fxt_tref fxt_tref_inline(uint64_t pid, uint64_t tid)
{
	struct fxt_tref t = { 0, pid, tid };
	return t;
}

struct fxt_arg {
	struct fxt_sref name;
	uint8_t type;			/* enum fxt_arg_type, not BLOB */
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		double dbl;
		struct fxt_sref str;
		uint64_t ptr;
		uint64_t koid;
		bool b;
	} v;
};

/* Generic event; payload is the counter id, end time or correlation id. */
struct fxt_event {
	uint8_t type;			/* enum fxt_event_type */
	uint64_t ts;
	struct fxt_tref thread;
	struct fxt_sref category;
	struct fxt_sref name;
	const struct fxt_arg *args;
	unsigned int nargs;
	uint64_t payload;
};

/* ------------------------------------------------------------------ */
/* Stateless encoders: return words written (> 0) or -errno            */
/* -ENOSPC: cap (in words) too small; -E2BIG: over an FXT limit;       */
/* -EINVAL: bad field value; -EILSEQ: inline string is not UTF-8.      */
/* ------------------------------------------------------------------ */

/* The rest (magic, provider, init, thread, kobj, large blob): fxt_golden.h. */
int fxt_enc_string(uint64_t *buf, size_t cap, uint16_t index,
		   const char *str, size_t len);
int fxt_enc_event(uint64_t *buf, size_t cap, const struct fxt_event *ev);

/*
 * Blob record (type 5, fxt_blob.c): len <= FXT_MAX_BLOB_LEN payload bytes
 * of @blob_type (enum fxt_blob_type), named by @name (index or inline).
 */
int fxt_enc_blob(uint64_t *buf, size_t cap, struct fxt_sref name,
		 unsigned int blob_type, const void *data, size_t len);

/* ------------------------------------------------------------------ */
/* Header words, for records built word by word (fxt_writer__begin)   */
/* ------------------------------------------------------------------ */

/* A normal record's header: type and size in words. */
static inline uint64_t fxt_hdr(unsigned int type, size_t words)
{
	return (uint64_t)(type & 0xf) | ((uint64_t)words & 0xfff) << 4;
}

/* An event record's header; refs are the 16-bit fields of fxt_sref. */
static inline uint64_t fxt_event_hdr(size_t words, unsigned int ev_type,
				     unsigned int nargs, uint8_t thread_index,
				     uint16_t category_ref, uint16_t name_ref)
{
	return fxt_hdr(FXT_REC_EVENT, words) |
	       (uint64_t)(ev_type & 0xf) << 16 | (uint64_t)(nargs & 0xf) << 20 |
	       (uint64_t)thread_index << 24 | (uint64_t)category_ref << 32 |
	       (uint64_t)name_ref << 48;
}

/*
 * The header of an argument whose value fits in the header (int32,
 * uint32, bool, an indexed string ref), named by an indexed ref: one word.
 */
static inline uint64_t fxt_arg_hdr32(unsigned int arg_type, uint16_t name_ref,
				     uint32_t value)
{
	return (uint64_t)(arg_type & 0xf) | (uint64_t)1 << 4 |
	       (uint64_t)name_ref << 16 | (uint64_t)value << 32;
}

/* A two-word argument's header (koid, 64-bit numbers): the value follows. */
static inline uint64_t fxt_arg_hdr_koid(uint16_t name_ref)
{
	return (uint64_t)FXT_ARG_KOID | (uint64_t)2 << 4 |
	       (uint64_t)name_ref << 16;
}

/*
 * Scheduling record headers (type 8): context switch (1) with the
 * outgoing thread's state, and thread wakeup (2).  The thread koids, the
 * timestamp and the arguments follow.
 */
static inline uint64_t fxt_sched_switch_hdr(size_t words, unsigned int nargs,
					    uint16_t cpu,
					    unsigned int out_state)
{
	return fxt_hdr(FXT_REC_SCHED, words) |
	       (uint64_t)(nargs & 0xf) << 16 | (uint64_t)cpu << 20 |
	       (uint64_t)(out_state & 0xf) << 36 | (uint64_t)1 << 60;
}

static inline uint64_t fxt_sched_wakeup_hdr(size_t words, unsigned int nargs,
					    uint16_t cpu)
{
	return fxt_hdr(FXT_REC_SCHED, words) |
	       (uint64_t)(nargs & 0xf) << 16 | (uint64_t)cpu << 20 |
	       (uint64_t)2 << 60;
}

/*
 * A large blob record with metadata: header and format header for
 * indexed (or empty) category and name, @nargs arguments, thread ref.
 */
static inline uint64_t fxt_large_blob_hdr(size_t words)
{
	return (uint64_t)FXT_REC_LARGE | ((uint64_t)words & 0xffffffffu) << 4 |
	       (uint64_t)FXT_LARGE_BLOB << 36 |
	       (uint64_t)FXT_BLOB_FORMAT_METADATA << 40;
}

static inline uint64_t fxt_large_blob_format(uint16_t category_ref,
					     uint16_t name_ref,
					     unsigned int nargs,
					     uint8_t thread_index)
{
	return (uint64_t)category_ref | (uint64_t)name_ref << 16 |
	       (uint64_t)(nargs & 0xf) << 32 | (uint64_t)thread_index << 36;
}

/* ------------------------------------------------------------------ */
/* UTF-8                                                               */
/* ------------------------------------------------------------------ */

bool fxt_utf8_valid(const char *s, size_t len);

/*
 * Copy src to dst replacing each maximal ill-formed subsequence with U+FFFD
 * (EF BF BD); stops at a character boundary when dst_cap would be
 * exceeded.  Returns the bytes written.
 */
size_t fxt_utf8_sanitize(char *dst, size_t dst_cap, const char *src,
			 size_t len);

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

/*
 * A sink takes whole records, in one of two ways.
 *
 * Copying: write() receives exactly one complete record per call.  It must
 * either take all len bytes and return 0, or take nothing and return
 * -errno (e.g. -ENOBUFS when a queue is full).
 *
 * In place: reserve() returns room for exactly one record of len bytes
 * (8-byte aligned), or NULL to refuse it whole (the writer then fails with
 * -ENOBUFS); @type is the record's FXT type (enum fxt_record_type), so
 * that the sink can count what it refuses without reading the record.
 * The writer fills the room completely and then calls commit(); nothing
 * can fail in between, because every input was validated before the
 * reserve.  At most one record is reserved at a time.
 *
 * The writer relies on all-or-nothing: a string index is only considered
 * registered once its record was taken.
 */
typedef int (*fxt_sink_fn)(void *ctx, const void *rec, size_t len);
typedef void *(*fxt_reserve_fn)(void *ctx, size_t len, unsigned int type);
typedef void (*fxt_commit_fn)(void *ctx);

struct fxt_writer_opts {
	size_t sz;			/* sizeof(struct fxt_writer_opts) */
	fxt_sink_fn write;		/* copying sink, or NULL ... */
	void *ctx;
	/*
	 * String table slots, 0 = FXT_MAX_STRING_INDEX.  Minimum 64, so that
	 * the refs one record needs (at most 2 + 2 * 15) never evict each
	 * other.  Small values are meant for tests.
	 */
	uint32_t strtab_size;
	fxt_reserve_fn reserve;		/* ... in place: both set, write NULL */
	fxt_commit_fn commit;
};

struct fxt_writer;

int fxt_writer__new(const struct fxt_writer_opts *opts,
		    struct fxt_writer **out);
void fxt_writer__free(struct fxt_writer *w);

/*
 * Forget every interned string (pinned ones too) so that the next records
 * form a self-contained stream; the caller then writes the prologue and its
 * tables again.  Increments the generation, which callers caching refs can
 * compare to know their cache is stale.
 */
void fxt_writer__reset_state(struct fxt_writer *w);
uint64_t fxt_writer__generation(const struct fxt_writer *w);

/*
 * Intern a string and return the ref to embed.  Writes the string record
 * first if the string is not in the table (evicting the least recently
 * used unpinned entry when full).  Strings are truncated to
 * FXT_MAX_STRING_LEN bytes and invalid UTF-8 is replaced by U+FFFD in the
 * emitted record.  A ref stays valid until 63 other distinct strings have
 * been interned (with the default table: 32766), or until reset_state.
 * An empty string yields ref 0 and writes nothing.
 */
int fxt_writer__string_ref(struct fxt_writer *w, const char *str, size_t len,
			   struct fxt_sref *ref);
/* Same, but the entry is never evicted until reset_state: cache the ref. */
int fxt_writer__string_pin(struct fxt_writer *w, const char *str, size_t len,
			   struct fxt_sref *ref);

/*
 * Build a record word by word, in place: room for @words words of FXT
 * type @type (the header words above help), or NULL with -errno in *err
 * (-ENOBUFS: the sink refused it whole).  Fill all of it, then
 * fxt_writer__end() with the same @words.  Nothing is checked: this is
 * for encoders that precompute the constant words of their hot records;
 * everything else should use the functions below.  A record may not use
 * a string index that was not registered through this writer.
 */
uint64_t *fxt_writer__begin(struct fxt_writer *w, size_t words,
			    unsigned int type, int *err);
int fxt_writer__end(struct fxt_writer *w, size_t words);

/* Write an already encoded record (checked for a plausible header). */
int fxt_writer__raw(struct fxt_writer *w, const uint64_t *words, size_t n);

int fxt_writer__magic(struct fxt_writer *w);
int fxt_writer__provider_info(struct fxt_writer *w, uint32_t id,
			      const char *name, size_t len);
int fxt_writer__provider_section(struct fxt_writer *w, uint32_t id);
int fxt_writer__provider_event(struct fxt_writer *w, uint32_t id,
			       unsigned int event_id);
int fxt_writer__init(struct fxt_writer *w, uint64_t ticks_per_sec);
/* magic, provider info, provider section, initialization. */
int fxt_writer__prologue(struct fxt_writer *w, uint32_t provider_id,
			 const char *name, uint64_t ticks_per_sec);
int fxt_writer__thread(struct fxt_writer *w, uint8_t index, uint64_t pid,
		       uint64_t tid);

int fxt_writer__event(struct fxt_writer *w, const struct fxt_event *ev);
int fxt_writer__instant(struct fxt_writer *w, uint64_t ts,
			const struct fxt_tref *thread, struct fxt_sref category,
			struct fxt_sref name, const struct fxt_arg *args,
			unsigned int nargs);
int fxt_writer__counter(struct fxt_writer *w, uint64_t ts,
			const struct fxt_tref *thread, struct fxt_sref category,
			struct fxt_sref name, const struct fxt_arg *args,
			unsigned int nargs, uint64_t counter_id);

int fxt_writer__kobj(struct fxt_writer *w, uint8_t obj_type, uint64_t koid,
		     struct fxt_sref name, const struct fxt_arg *args,
		     unsigned int nargs);
/* KernelObject(process): name inline, sanitized, truncated. */
int fxt_writer__process_name(struct fxt_writer *w, uint64_t pid,
			     const char *name, size_t len);
/* The same with @args (their strings valid UTF-8 already). */
int fxt_writer__process_name_args(struct fxt_writer *w, uint64_t pid,
				  const char *name, size_t len,
				  const struct fxt_arg *args,
				  unsigned int nargs);
/* KernelObject(thread, {process: koid(pid)}): name inline, sanitized. */
int fxt_writer__thread_name(struct fxt_writer *w, uint64_t pid, uint64_t tid,
			    const char *name, size_t len);

int fxt_writer__large_blob(struct fxt_writer *w, uint64_t ts,
			   const struct fxt_tref *thread,
			   struct fxt_sref category, struct fxt_sref name,
			   const struct fxt_arg *args, unsigned int nargs,
			   const void *data, size_t len);
/*
 * Fuchsia kernel-sampler convention: large blob with metadata, empty
 * category and name, inline pid/tid, payload = u64 PCs leaf first.  More
 * than FXT_MAX_FRAMES frames are truncated (the leaf end is kept).
 */
int fxt_writer__stack_sample(struct fxt_writer *w, uint64_t ts, uint64_t pid,
			     uint64_t tid, const uint64_t *pcs,
			     size_t nr_frames);

#ifdef __cplusplus
}
#endif

#endif /* FXT_H */

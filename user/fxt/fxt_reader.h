/* SPDX-License-Identifier: MIT */
/*
 * fxt_reader.h - incremental FXT decoder.
 *
 * Feed bytes in chunks of any size; fxt_reader__next() returns one
 * complete record at a time with its fields decoded, and tracks provider
 * state (string table, thread table, ticks per second) in file order, as
 * the spec and Perfetto's importer do.
 *
 * Malformed input yields -errno plus a struct fxt_error naming the byte
 * offset and the rule; after an error the reader stays in that state.
 * Unknown record, event and argument types are skipped by their size (the
 * spec's extensibility rule) and returned with what could be decoded.
 *
 * Strict mode (default) treats semantic problems (an unregistered string
 * or thread index, invalid UTF-8, an unknown provider section) as errors.
 * FXT_READER_LENIENT turns those into a per-record warning instead, for
 * tools that must show any stream (dump).
 */
#ifndef FXT_READER_H
#define FXT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FXT_READER_LENIENT	(1u << 0)

/* A decoded string: data is NOT NUL terminated; ref as in the header. */
struct fxt_str {
	const char *data;
	uint32_t len;
	uint16_t ref;		/* 0 empty, 1..0x7fff index, 0x8000|len inline */
};

struct fxt_thr {
	uint8_t index;		/* 0 = inline */
	uint64_t pid;
	uint64_t tid;
};

struct fxt_argv {
	uint8_t type;		/* enum fxt_arg_type, or unknown 11..15 */
	uint16_t size;		/* words, header included */
	struct fxt_str name;
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		double dbl;
		struct fxt_str str;
		uint64_t ptr;
		uint64_t koid;
		bool b;
		struct {
			const void *data;
			uint32_t len;
		} blob;
	} v;
};

struct fxt_record {
	uint64_t offset;		/* byte offset of the header */
	const uint64_t *words;		/* raw record, size words */
	uint32_t size;			/* words, header included */
	uint8_t type;			/* enum fxt_record_type */
	uint8_t subtype;		/* metadata/event/sched/large/kobj type */
	bool has_ts;
	uint64_t ts;			/* ticks */
	struct fxt_thr thread;		/* events, large blobs, logs */
	unsigned int nargs;
	struct fxt_argv args[FXT_MAX_ARGS];
	/* Set in lenient mode when a semantic rule was broken. */
	const char *warn_rule;
	union {
		struct {
			uint32_t provider_id;
			uint8_t event_id;		/* provider event */
			uint8_t trace_info_type;
			uint64_t trace_info;		/* bits 24..63 */
			struct fxt_str name;		/* provider info */
		} meta;
		struct {
			uint64_t ticks_per_sec;
		} init;
		struct {
			uint16_t index;
			struct fxt_str str;
		} string;
		struct {
			uint8_t index;
			uint64_t pid;
			uint64_t tid;
		} thread_rec;
		struct {
			struct fxt_str category;
			struct fxt_str name;
			bool has_payload;
			uint64_t payload;	/* counter id / end ts / id */
		} event;
		struct {
			struct fxt_str name;
			uint8_t blob_type;
			const void *data;
			uint32_t len;
		} blob;
		struct {
			uint64_t koid;
			struct fxt_str name;
		} kobj;
		struct {
			uint64_t ptr;
			struct fxt_thr process;	/* index or inline pid */
			struct fxt_str name;
		} uobj;
		struct {
			uint16_t cpu;
			uint8_t out_state;
			uint64_t out_tid;	/* type 1: koid; type 0: ref'd */
			uint64_t in_tid;
			uint64_t out_pid, in_pid;	/* type 0 only */
			uint8_t out_prio, in_prio;	/* type 0 only */
			uint64_t tid;		/* type 2 (wakeup) */
		} sched;
		struct {
			struct fxt_str message;
		} log;
		struct {
			uint8_t format;		/* enum fxt_blob_format */
			struct fxt_str category;
			struct fxt_str name;
			const void *data;
			uint64_t len;
		} large;
	};
};

struct fxt_error {
	uint64_t offset;	/* byte offset in the stream */
	const char *rule;	/* short stable rule name, e.g. "record-size-zero" */
	char msg[192];
};

struct fxt_reader;

int fxt_reader__new(unsigned int flags, struct fxt_reader **out);
void fxt_reader__free(struct fxt_reader *r);

/* Append bytes (copied).  -ENOMEM, -E2BIG beyond an internal cap. */
int fxt_reader__feed(struct fxt_reader *r, const void *data, size_t len);
/*
 * 1: *rec holds the next record (pointers valid until the next call);
 * 0: need more bytes; <0: malformed input, see fxt_reader__error().
 */
int fxt_reader__next(struct fxt_reader *r, struct fxt_record *rec);
/* End of input: 0, or -EPROTO if a partial record remains. */
int fxt_reader__finish(struct fxt_reader *r);
const struct fxt_error *fxt_reader__error(const struct fxt_reader *r);
/* Lenient mode: details of the last record's warn_rule. */
const struct fxt_error *fxt_reader__warning(const struct fxt_reader *r);

/* Current provider's state. */
uint32_t fxt_reader__provider_id(const struct fxt_reader *r);
/* 0 if no initialization record was seen for the current provider. */
uint64_t fxt_reader__ticks_per_sec(const struct fxt_reader *r);
/* Nanoseconds as Perfetto computes them; -ERANGE if not in [0, INT64_MAX]. */
int fxt_reader__ticks_to_ns(const struct fxt_reader *r, uint64_t ticks,
			    int64_t *ns);

/* Text form of one record, trace2json-like, no newline.  Returns length. */
size_t fxt_record__format(const struct fxt_record *rec, char *buf,
			  size_t cap);
const char *fxt_record_type__name(unsigned int type);

/* ------------------------------------------------------------------ */
/* Validation (fxt_check.c)                                            */
/* ------------------------------------------------------------------ */

struct fxt_check_stats {
	uint64_t records;
	uint64_t bytes;
	uint64_t by_type[16];
	uint64_t warnings;
};

struct fxt_checker;

/* Called for every warning (rule broken that importers survive). */
typedef void (*fxt_warn_fn)(void *ctx, const struct fxt_error *warn);

int fxt_checker__new(fxt_warn_fn warn, void *ctx,
		     struct fxt_checker **out);
void fxt_checker__free(struct fxt_checker *c);
/* 0 while valid, else -errno; fxt_checker__error() names offset + rule. */
int fxt_checker__feed(struct fxt_checker *c, const void *data, size_t len);
int fxt_checker__finish(struct fxt_checker *c);
const struct fxt_error *fxt_checker__error(const struct fxt_checker *c);
const struct fxt_check_stats *fxt_checker__stats(const struct fxt_checker *c);
/* One-shot convenience; err may be NULL. */
int fxt_check_buffer(const void *data, size_t len, struct fxt_error *err);

/* ------------------------------------------------------------------ */
/* Command-line tools (fxt_tools.c): `fxtprof dump|check FILE|-`       */
/* ------------------------------------------------------------------ */

int fxt_dump_main(int argc, char **argv);
int fxt_check_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* FXT_READER_H */

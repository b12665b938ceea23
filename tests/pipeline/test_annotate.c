// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_annotate.c - application annotations (ANNOTATION records, ABI 4)
 * through the reader's pipeline:
 *  - libfxtprof's validation of the record, field by field;
 *  - the FXT encoder's events for each kind, word for word, as the stream
 *    state hands them on (Documentation/fxt-mapping.md), and `fxtprof
 *    check` passing them, and `fxtprof dump` printing them;
 *  - the checker's pairing rules: nesting judged in time order, not file
 *    order; unmatched ends warned; bad nesting and duplicate async begins
 *    refused, and only warned once records were lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include <libfxtprof.h>
#include "encode/fxt_encoder.h"
#include "fxt_reader.h"
#include "state/stream_state.h"
#include "mem_sink.h"
#include "mem_readback.h"

union annot {
	struct fxtprof_annotation_rec r;
	uint64_t w[5 + (FXTPROF_ANNOTATION_NAME_MAX + 8) / 8];
};

static void mk(union annot *u, uint16_t kind, const char *name, uint64_t key,
	       uint64_t ts, uint32_t tid)
{
	size_t len = strlen(name);

	memset(u, 0, sizeof(*u));
	u->r.hdr.size = (uint32_t)(sizeof(u->r) + ((len + 7) & ~(size_t)7));
	u->r.hdr.type = FXTPROF_REC_ANNOTATION;
	u->r.hdr.time_ns = ts;
	u->r.pid = 100;
	u->r.tid = tid;
	u->r.kind = kind;
	u->r.name_len = (uint16_t)len;
	u->r.key = key;
	memcpy(u->r.name, name, len);
}

static int validate(const union annot *u)
{
	return fxtprof_rec__validate(&u->r.hdr, u->r.hdr.size);
}

TEST(validate_records)
{
	static const uint16_t keyed[] = {
		FXTPROF_ANNOT_SECTION_BEGIN, FXTPROF_ANNOT_SECTION_END,
		FXTPROF_ANNOT_KERNEL_BEGIN, FXTPROF_ANNOT_KERNEL_END,
	};
	static const uint16_t unkeyed[] = {
		FXTPROF_ANNOT_REGION_BEGIN, FXTPROF_ANNOT_REGION_END,
		FXTPROF_ANNOT_EVENT,
	};
	char big[FXTPROF_ANNOTATION_NAME_MAX + 2];
	union annot u;

	for (size_t i = 0; i < sizeof(keyed) / sizeof(keyed[0]); i++) {
		mk(&u, keyed[i], "s", 7, 1, 101);
		ASSERT_EQ(0, validate(&u));
		u.r.key = 0;
		ASSERT_EQ(-EPROTO, validate(&u));
	}
	for (size_t i = 0; i < sizeof(unkeyed) / sizeof(unkeyed[0]); i++) {
		mk(&u, unkeyed[i], "r", 0, 1, 101);
		ASSERT_EQ(0, validate(&u));
		u.r.key = 1;
		ASSERT_EQ(-EPROTO, validate(&u));
	}
	mk(&u, 0, "r", 0, 1, 101);
	ASSERT_EQ(-EPROTO, validate(&u));
	mk(&u, FXTPROF_ANNOT_KIND_MAX, "r", 0, 1, 101);
	ASSERT_EQ(-EPROTO, validate(&u));
	mk(&u, FXTPROF_ANNOT_EVENT, "r", 0, 1, 101);
	u.r.reserved = 1;
	ASSERT_EQ(-EPROTO, validate(&u));
	mk(&u, FXTPROF_ANNOT_EVENT, "r", 0, 1, 101);
	u.r.name_len = 0;
	ASSERT_EQ(-EPROTO, validate(&u));
	u.r.name_len = 9;		/* past the record's 8 name bytes */
	ASSERT_EQ(-EPROTO, validate(&u));
	mk(&u, FXTPROF_ANNOT_EVENT, "a\1c", 0, 1, 101);
	u.r.name[1] = '\0';
	ASSERT_EQ(-EPROTO, validate(&u));

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	mk(&u, FXTPROF_ANNOT_EVENT, big, 0, 1, 101);
	ASSERT_EQ(-EPROTO, validate(&u));	/* 513 bytes */
	big[FXTPROF_ANNOTATION_NAME_MAX] = '\0';
	mk(&u, FXTPROF_ANNOT_EVENT, big, 0, 1, 101);
	ASSERT_EQ(0, validate(&u));		/* 512 bytes */

	mk(&u, FXTPROF_ANNOT_EVENT, "r", 0, 1, 101);
	u.r.hdr.size = sizeof(u.r) - 8;		/* shorter than the record */
	ASSERT_EQ(-EPROTO, validate(&u));
}

/* An event header: 4 | size | type | nargs | inline thread | cat | name. */
static uint64_t ev_hdr(uint64_t words, uint64_t type, uint64_t nargs,
		       uint64_t cat, uint64_t name)
{
	return 4 | words << 4 | type << 16 | nargs << 20 | cat << 32 |
	       name << 48;
}

struct pipe {
	struct mem m;
	struct fxt_encoder *enc;
	struct stream_state st;
};

static int pipe_open(struct pipe *p)
{
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &p->m,
	};
	int ret;

	p->m.len = 0;
	ret = fxt_encoder__new_opts(&p->enc, &wo);
	if (ret)
		return ret;
	stream_state__init(&p->st, fxt_encoder__encoder(p->enc), NULL);
	return stream_state__sync(&p->st);
}

static void pipe_close(struct pipe *p)
{
	stream_state__fini(&p->st);
	fxt_encoder__free(p->enc);
}

static void feed_pid(struct pipe *p, uint32_t pid, uint16_t kind,
		     const char *name, uint64_t key, uint64_t ts, uint32_t tid)
{
	union annot u;

	mk(&u, kind, name, key, ts, tid);
	u.r.pid = pid;
	stream_state__record(&p->st, &u.r.hdr);
}

static void feed(struct pipe *p, uint16_t kind, const char *name,
		 uint64_t key, uint64_t ts, uint32_t tid)
{
	feed_pid(p, 100, kind, name, key, ts, tid);
}

static void feed_lost(struct pipe *p, uint64_t ts)
{
	struct fxtprof_lost l = {
		.hdr = { .size = sizeof(l), .type = FXTPROF_REC_LOST,
			 .time_ns = ts },
		.records = 3, .bytes = 96,
	};

	stream_state__record(&p->st, &l.hdr);
}

TEST(encode_each_kind)
{
	static struct pipe p;
	uint64_t w[16], region, section, kernel, event, kid, solve, halo,
		 axpy, frame;
	struct fxt_error err;
	unsigned int n;

	ASSERT_EQ(0, pipe_open(&p));
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, "solve", 0, 1000, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "halo", 42, 1100, 101);
	feed(&p, FXTPROF_ANNOT_KERNEL_BEGIN, "axpy", 7, 1200, 101);
	feed(&p, FXTPROF_ANNOT_KERNEL_END, "axpy", 7, 1300, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_END, "halo", 42, 1400, 102);
	feed(&p, FXTPROF_ANNOT_EVENT, "frame", 0, 1500, 101);
	feed(&p, FXTPROF_ANNOT_REGION_END, "solve", 0, 1600, 101);
	ASSERT_EQ(0, p.st.st.encode_errors);
	ASSERT_EQ(7, p.st.st.records[FXTPROF_REC_ANNOTATION]);
	ASSERT_EQ(0, fxt_check_buffer(p.m.buf, p.m.len, &err)) {
		TH_LOG("%s at %llu: %s", err.rule,
		       (unsigned long long)err.offset, err.msg);
	}

	region = mem_string_index(&p.m, "region");
	section = mem_string_index(&p.m, "section");
	kernel = mem_string_index(&p.m, "kernel");
	event = mem_string_index(&p.m, "event");
	kid = mem_string_index(&p.m, "kernel_id");
	solve = mem_string_index(&p.m, "solve");
	halo = mem_string_index(&p.m, "halo");
	axpy = mem_string_index(&p.m, "axpy");
	frame = mem_string_index(&p.m, "frame");
	ASSERT_NE(0, region);
	ASSERT_NE(0, section);
	ASSERT_NE(0, kernel);
	ASSERT_NE(0, event);
	ASSERT_NE(0, kid);
	ASSERT_NE(0, solve);
	ASSERT_NE(0, halo);
	ASSERT_NE(0, axpy);
	ASSERT_NE(0, frame);

	/* region: duration begin (2) / end (3), no payload, no argument */
	n = mem_record_words(&p.m, FXT_REC_EVENT, 0, w);
	ASSERT_WORDS(w, n, ev_hdr(4, 2, 0, region, solve), 1000, 100, 101);
	/* section: async begin (5) / end (7), the key as correlation id */
	n = mem_record_words(&p.m, FXT_REC_EVENT, 1, w);
	ASSERT_WORDS(w, n, ev_hdr(5, 5, 0, section, halo), 1100, 100, 101,
		     42);
	/* kernel: duration with a uint64 (4) argument "kernel_id" */
	n = mem_record_words(&p.m, FXT_REC_EVENT, 2, w);
	ASSERT_WORDS(w, n, ev_hdr(6, 2, 1, kernel, axpy), 1200, 100, 101,
		     4 | 2 << 4 | kid << 16, 7);
	n = mem_record_words(&p.m, FXT_REC_EVENT, 3, w);
	ASSERT_WORDS(w, n, ev_hdr(6, 3, 1, kernel, axpy), 1300, 100, 101,
		     4 | 2 << 4 | kid << 16, 7);
	/* a section may end on another thread of the process */
	n = mem_record_words(&p.m, FXT_REC_EVENT, 4, w);
	ASSERT_WORDS(w, n, ev_hdr(5, 7, 0, section, halo), 1400, 100, 102,
		     42);
	/* event: instant (0) */
	n = mem_record_words(&p.m, FXT_REC_EVENT, 5, w);
	ASSERT_WORDS(w, n, ev_hdr(4, 0, 0, event, frame), 1500, 100, 101);
	n = mem_record_words(&p.m, FXT_REC_EVENT, 6, w);
	ASSERT_WORDS(w, n, ev_hdr(4, 3, 0, region, solve), 1600, 100, 101);
	pipe_close(&p);
}

/* The @nth event, as `fxtprof dump` prints it, into @line. */
static void event_line(const struct mem *m, unsigned int nth, char *line,
		       size_t cap)
{
	struct fxt_reader *rd;
	struct fxt_record rec;
	unsigned int n = 0;

	line[0] = '\0';
	if (fxt_reader__new(0, &rd))
		return;
	fxt_reader__feed(rd, m->buf, m->len);
	while (fxt_reader__next(rd, &rec) > 0) {
		if (rec.type != FXT_REC_EVENT || n++ != nth)
			continue;
		fxt_record__format(&rec, line, cap);
		break;
	}
	fxt_reader__free(rd);
}

TEST(dump_prints_each_kind)
{
	static const char *const want[] = {
		"Event(ts: 1000, pt: 100/101, category: \"region\", name: \"solve\", DurationBegin",
		"Event(ts: 1100, pt: 100/101, category: \"section\", name: \"halo\", AsyncBegin(id: 42)",
		"Event(ts: 1200, pt: 100/101, category: \"kernel\", name: \"axpy\", DurationBegin, {kernel_id: uint64(7)",
		"Event(ts: 1300, pt: 100/101, category: \"kernel\", name: \"axpy\", DurationEnd, {kernel_id: uint64(7)",
		"Event(ts: 1400, pt: 100/102, category: \"section\", name: \"halo\", AsyncEnd(id: 42)",
		"Event(ts: 1500, pt: 100/101, category: \"event\", name: \"frame\", Instant",
		"Event(ts: 1600, pt: 100/101, category: \"region\", name: \"solve\", DurationEnd",
	};
	static struct pipe p;
	char line[512];

	ASSERT_EQ(0, pipe_open(&p));
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, "solve", 0, 1000, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "halo", 42, 1100, 101);
	feed(&p, FXTPROF_ANNOT_KERNEL_BEGIN, "axpy", 7, 1200, 101);
	feed(&p, FXTPROF_ANNOT_KERNEL_END, "axpy", 7, 1300, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_END, "halo", 42, 1400, 102);
	feed(&p, FXTPROF_ANNOT_EVENT, "frame", 0, 1500, 101);
	feed(&p, FXTPROF_ANNOT_REGION_END, "solve", 0, 1600, 101);
	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		event_line(&p.m, i, line, sizeof(line));
		EXPECT_EQ(0, strncmp(line, want[i], strlen(want[i])))
			TH_LOG("event %u: %s", i, line);
	}
	pipe_close(&p);
}

/* A name of 512 bytes is interned whole; UTF-8 passes unchanged. */
TEST(encode_long_and_utf8_names)
{
	static struct pipe p;
	char big[FXTPROF_ANNOTATION_NAME_MAX + 1];
	struct fxt_error err;

	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ASSERT_EQ(0, pipe_open(&p));
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, big, 0, 10, 101);
	feed(&p, FXTPROF_ANNOT_EVENT, "\xc3\xa9tape", 0, 11, 101);
	feed(&p, FXTPROF_ANNOT_REGION_END, big, 0, 12, 101);
	ASSERT_EQ(0, p.st.st.encode_errors);
	ASSERT_NE(0, mem_string_index(&p.m, big));
	ASSERT_NE(0, mem_string_index(&p.m, "\xc3\xa9tape"));
	ASSERT_EQ(0, fxt_check_buffer(p.m.buf, p.m.len, &err)) {
		TH_LOG("%s: %s", err.rule, err.msg);
	}
	pipe_close(&p);
}

struct verdict {
	int ret;
	const char *rule;	/* of the error */
	char warned[4][32];	/* rules of the first warnings */
	unsigned int nwarn;
};

static void on_warn(void *ctx, const struct fxt_error *w)
{
	struct verdict *v = ctx;

	if (v->nwarn < 4)
		snprintf(v->warned[v->nwarn], sizeof(v->warned[0]), "%s",
			 w->rule);
	v->nwarn++;
}

static void judge(const struct mem *m, struct verdict *v)
{
	struct fxt_checker *c;

	memset(v, 0, sizeof(*v));
	if (fxt_checker__new(on_warn, v, &c)) {
		v->ret = -ENOMEM;
		return;
	}
	v->ret = fxt_checker__feed(c, m->buf, m->len);
	if (!v->ret)
		v->ret = fxt_checker__finish(c);
	if (v->ret)
		v->rule = fxt_checker__error(c)->rule;
	fxt_checker__free(c);
}

/*
 * Per-CPU drain order: a thread that migrated has its end (CPU 0's block)
 * before its begin (CPU 1's block) in the file.  Time order is right.
 */
TEST(check_nesting_by_time_not_file_order)
{
	static struct pipe p;
	struct verdict v;

	ASSERT_EQ(0, pipe_open(&p));
	feed(&p, FXTPROF_ANNOT_REGION_END, "inner", 0, 300, 101);
	feed(&p, FXTPROF_ANNOT_REGION_END, "outer", 0, 400, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_END, "s", 9, 350, 101);
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, "outer", 0, 100, 101);
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, "inner", 0, 200, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "s", 9, 250, 101);
	/* another process's section, with the same name and key */
	feed_pid(&p, 200, FXTPROF_ANNOT_SECTION_BEGIN, "s", 9, 260, 201);
	feed_pid(&p, 200, FXTPROF_ANNOT_SECTION_END, "s", 9, 270, 201);
	judge(&p.m, &v);
	ASSERT_EQ(0, v.ret) TH_LOG("%s", v.rule);
	ASSERT_EQ(0, v.nwarn);
	pipe_close(&p);
}

/* Started inside a region, stopped inside another: warnings only. */
TEST(check_unmatched_ends_warn)
{
	static struct pipe p;
	struct verdict v;

	ASSERT_EQ(0, pipe_open(&p));
	feed(&p, FXTPROF_ANNOT_REGION_END, "before", 0, 100, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_END, "s", 3, 110, 101);
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, "after", 0, 200, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "s", 3, 210, 101);
	judge(&p.m, &v);
	ASSERT_EQ(0, v.ret) TH_LOG("%s", v.rule);
	ASSERT_EQ(2, v.nwarn);
	ASSERT_STREQ("duration-end-unmatched", v.warned[0]);
	ASSERT_STREQ("async-end-unmatched", v.warned[1]);
	pipe_close(&p);
}

TEST(check_bad_nesting_is_an_error)
{
	static struct pipe p;
	struct verdict v;

	ASSERT_EQ(0, pipe_open(&p));
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, "outer", 0, 100, 101);
	feed(&p, FXTPROF_ANNOT_KERNEL_BEGIN, "k", 5, 200, 101);
	feed(&p, FXTPROF_ANNOT_REGION_END, "outer", 0, 300, 101);
	feed(&p, FXTPROF_ANNOT_KERNEL_END, "k", 5, 400, 101);
	judge(&p.m, &v);
	ASSERT_EQ(-EPROTO, v.ret);
	ASSERT_STREQ("duration-nesting", v.rule);
	pipe_close(&p);
}

TEST(check_duplicate_async_begin_is_an_error)
{
	static struct pipe p;
	struct verdict v;

	ASSERT_EQ(0, pipe_open(&p));
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "s", 5, 100, 101);
	/* other keys and names may overlap it */
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "s", 6, 110, 102);
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "t", 5, 120, 102);
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "s", 5, 200, 102);
	judge(&p.m, &v);
	ASSERT_EQ(-EPROTO, v.ret);
	ASSERT_STREQ("async-begin-duplicate", v.rule);
	pipe_close(&p);
}

/* After lost records, the lost ones may be the missing begins and ends. */
TEST(check_after_loss_warns)
{
	static struct pipe p;
	struct verdict v;

	ASSERT_EQ(0, pipe_open(&p));
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, "outer", 0, 100, 101);
	feed(&p, FXTPROF_ANNOT_REGION_BEGIN, "inner", 0, 150, 101);
	feed_lost(&p, 160);
	feed(&p, FXTPROF_ANNOT_REGION_END, "outer", 0, 300, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "s", 5, 310, 101);
	feed(&p, FXTPROF_ANNOT_SECTION_BEGIN, "s", 5, 320, 101);
	judge(&p.m, &v);
	ASSERT_EQ(0, v.ret) TH_LOG("%s", v.rule);
	ASSERT_EQ(2, v.nwarn);
	ASSERT_STREQ("duration-nesting", v.warned[0]);
	ASSERT_STREQ("async-begin-duplicate", v.warned[1]);
	pipe_close(&p);
}

TEST_HARNESS_MAIN

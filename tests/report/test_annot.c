// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_annot.c - user/profile/profile_annot.c on recordings written in
 * memory with the FXT writer: the intervals each sample is in (regions
 * and kernels outermost first, then sections, half-open [begin, end)),
 * marks out of file order as merged rings give them, an end of one kind
 * closing what was opened inside the interval it ends, the section rules
 * (a second begin, an end with none, an end on another thread), a region
 * open at either end of the recording, and kernel ids; random recordings
 * against a brute-force answer, and byte flips.  Built plain and under
 * ASan+UBSan (asan/).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "fxt.h"
#include "profile/profile.h"
#include "profile/profile_annot.h"

#define PID	7

struct rec {
	struct fxt_writer *w;
	char *p;
	size_t n, cap;
};

static int sink(void *ctx, const void *data, size_t len)
{
	struct rec *r = ctx;

	if (r->n + len > r->cap) {
		r->cap = (r->n + len) * 2;
		r->p = realloc(r->p, r->cap);
		if (!r->p)
			abort();
	}
	memcpy(r->p + r->n, data, len);
	r->n += len;
	return 0;
}

static void rec_open(struct rec *r)
{
	struct fxt_writer_opts o = { .sz = sizeof(o), .write = sink, .ctx = r };

	memset(r, 0, sizeof(*r));
	if (fxt_writer__new(&o, &r->w) ||
	    fxt_writer__prologue(r->w, 1, "fxtprof", 1000000000ull))
		abort();
}

static struct fxt_sref ref(struct rec *r, const char *s)
{
	struct fxt_sref x;

	if (fxt_writer__string_ref(r->w, s, strlen(s), &x))
		abort();
	return x;
}

static void sample(struct rec *r, uint64_t ts, uint32_t tid)
{
	static const uint64_t ip = 0x401000;
	struct fxt_tref th = fxt_tref_inline(PID, tid);
	struct fxt_arg a = { .name = ref(r, "cpu"), .type = FXT_ARG_UINT32 };

	if (fxt_writer__instant(r->w, ts, &th, ref(r, "cpu"),
				ref(r, "sample"), &a, 1) ||
	    fxt_writer__stack_sample(r->w, ts, PID, tid, &ip, 1))
		abort();
}

/* One annotation event: type, category, name, section key or kernel id. */
static void annot(struct rec *r, uint8_t type, uint64_t ts, uint32_t tid,
		  const char *cat, const char *name, uint64_t id)
{
	struct fxt_arg a = { .name = ref(r, "kernel_id"),
			     .type = FXT_ARG_UINT64, .v.u64 = id };
	struct fxt_event ev = {
		.type = type, .ts = ts, .thread = fxt_tref_inline(PID, tid),
		.category = ref(r, cat), .name = ref(r, name),
		.args = &a, .nargs = !strcmp(cat, "kernel"), .payload = id,
	};

	if (fxt_writer__event(r->w, &ev))
		abort();
}

#define RB(r, ts, tid, n)	annot(r, FXT_EVENT_DURATION_BEGIN, ts, tid, "region", n, 0)
#define RE(r, ts, tid, n)	annot(r, FXT_EVENT_DURATION_END, ts, tid, "region", n, 0)
#define KB(r, ts, tid, n, id)	annot(r, FXT_EVENT_DURATION_BEGIN, ts, tid, "kernel", n, id)
#define KE(r, ts, tid, n, id)	annot(r, FXT_EVENT_DURATION_END, ts, tid, "kernel", n, id)
#define SB(r, ts, tid, n, k)	annot(r, FXT_EVENT_ASYNC_BEGIN, ts, tid, "section", n, k)
#define SE(r, ts, tid, n, k)	annot(r, FXT_EVENT_ASYNC_END, ts, tid, "section", n, k)

static struct profile *load(struct __test_metadata *_metadata, struct rec *r)
{
	struct profile_error err;
	struct profile *p = NULL;
	int ret = profile__load_buffer(r->p, r->n, &p, &err);

	EXPECT_EQ(0, ret) TH_LOG("load: %s at %llu", err.msg,
				 (unsigned long long)err.offset);
	fxt_writer__free(r->w);
	free(r->p);
	return p;
}

/* The names sample i is in, "A/B/S", "" for none. */
static const char *in(const struct profile *p, size_t i)
{
	static char buf[256];
	const struct profile_annot *v[8];
	unsigned int n, k;
	size_t len = 0;

	buf[0] = 0;
	n = profile_annots__of_sample(profile__annots(p), i, v, 8);
	for (k = 0; k < n && k < 8; k++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					k ? "/" : "", v[k]->name);
	return buf;
}

TEST(nesting_sections_and_bounds)
{
	const struct profile_annot *v[4];
	struct profile *p;
	struct rec r;

	rec_open(&r);
	RB(&r, 10, 1, "A");
	sample(&r, 10, 1);		/* at A's begin: in A */
	RB(&r, 20, 1, "B");
	SB(&r, 30, 1, "S", 5);
	sample(&r, 40, 1);
	RE(&r, 50, 1, "B");
	sample(&r, 50, 1);		/* at B's end: out of B */
	sample(&r, 60, 1);
	SE(&r, 80, 1, "S", 5);
	sample(&r, 90, 1);
	RE(&r, 100, 1, "A");
	sample(&r, 100, 1);
	sample(&r, 45, 2);		/* another thread: in nothing */
	p = load(_metadata, &r);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(7, profile__nr_samples(p));
	EXPECT_STREQ("A", in(p, 0));		/* 10 */
	EXPECT_STREQ("A/B/S", in(p, 1));	/* 40 */
	EXPECT_STREQ("", in(p, 2));		/* 45, thread 2 */
	EXPECT_STREQ("A/S", in(p, 3));		/* 50 */
	EXPECT_STREQ("A/S", in(p, 4));		/* 60 */
	EXPECT_STREQ("A", in(p, 5));		/* 90 */
	EXPECT_STREQ("", in(p, 6));		/* 100 */
	ASSERT_EQ(3, profile_annots__of_sample(profile__annots(p), 1, v, 4));
	EXPECT_EQ(0, v[0]->depth);
	EXPECT_EQ(1, v[1]->depth);
	EXPECT_EQ(PROFILE_ANNOT_REGION, v[1]->kind);
	EXPECT_EQ(20, v[1]->begin);
	EXPECT_EQ(50, v[1]->end);
	EXPECT_EQ(PROFILE_ANNOT_SECTION, v[2]->kind);
	EXPECT_EQ(5, v[2]->id);
	EXPECT_EQ(1, v[2]->tid);
	/* A short out array: the count is still all of them. */
	EXPECT_EQ(3, profile_annots__of_sample(profile__annots(p), 1, v, 1));
	EXPECT_STREQ("A", v[0]->name);
	EXPECT_EQ(3, profile_annots__nr(profile__annots(p)));
	profile__free(p);
}

TEST(marks_out_of_file_order)
{
	struct profile *p;
	struct rec r;

	rec_open(&r);
	/* CPU 1's block, later in time, first in the file. */
	sample(&r, 400, 1);
	RE(&r, 500, 1, "A");
	/* CPU 0's block. */
	RB(&r, 100, 1, "A");
	sample(&r, 200, 1);
	RB(&r, 250, 1, "B");
	RE(&r, 300, 1, "B");
	sample(&r, 600, 1);
	p = load(_metadata, &r);
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("A", in(p, 0));
	EXPECT_STREQ("A", in(p, 1));
	EXPECT_STREQ("", in(p, 2));
	profile__free(p);
}

TEST(an_end_closes_what_it_holds)
{
	struct profile_annot_stats st;
	struct profile *p;
	struct rec r;

	rec_open(&r);
	RB(&r, 10, 1, "R");
	KB(&r, 20, 1, "K", 42);
	sample(&r, 25, 1);
	RE(&r, 30, 1, "R");		/* K was still open inside R */
	sample(&r, 35, 1);
	KE(&r, 40, 1, "K", 42);		/* nothing open: ignored */
	/* B's end lost: A's end closes B too, not B alone. */
	RB(&r, 100, 1, "A");
	RB(&r, 110, 1, "B");
	sample(&r, 115, 1);
	RE(&r, 120, 1, "A");
	sample(&r, 125, 1);
	/* An end naming nothing open is ignored: C stays open. */
	RB(&r, 200, 1, "C");
	RE(&r, 210, 1, "Z");
	sample(&r, 220, 1);
	RE(&r, 230, 1, "C");
	p = load(_metadata, &r);
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("R/K", in(p, 0));
	EXPECT_STREQ("", in(p, 1));
	EXPECT_STREQ("A/B", in(p, 2));
	EXPECT_STREQ("", in(p, 3));
	EXPECT_STREQ("C", in(p, 4));
	profile_annots__stats(profile__annots(p), &st);
	EXPECT_EQ(4, st.by_kind[PROFILE_ANNOT_REGION]);
	EXPECT_EQ(1, st.by_kind[PROFILE_ANNOT_KERNEL]);
	EXPECT_EQ(2, st.closed_by_outer);
	EXPECT_EQ(2, st.unmatched_ends);
	EXPECT_EQ(0, st.open_at_end);
	profile__free(p);
}

TEST(kernel_id_and_events)
{
	const struct profile_annot *v[2];
	struct profile_annot_stats st;
	struct fxt_tref th = fxt_tref_inline(PID, 1);
	struct profile *p;
	struct rec r;

	rec_open(&r);
	KB(&r, 10, 1, "Kokkos::parallel_for x", 42);
	if (fxt_writer__instant(r.w, 15, &th, ref(&r, "event"),
				ref(&r, "frame 1042"), NULL, 0))
		abort();
	sample(&r, 20, 1);
	KE(&r, 30, 1, "Kokkos::parallel_for x", 42);
	p = load(_metadata, &r);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(1, profile_annots__of_sample(profile__annots(p), 0, v, 2));
	EXPECT_EQ(PROFILE_ANNOT_KERNEL, v[0]->kind);
	EXPECT_EQ(42, v[0]->id);
	EXPECT_STREQ("Kokkos::parallel_for x", v[0]->name);
	profile_annots__stats(profile__annots(p), &st);
	EXPECT_EQ(1, st.events);
	profile__free(p);
}

TEST(section_rules)
{
	struct profile_annot_stats st;
	struct profile *p;
	struct rec r;

	rec_open(&r);
	SB(&r, 10, 1, "S", 1);
	SB(&r, 20, 1, "S", 1);		/* begun already: ignored */
	sample(&r, 25, 1);
	SE(&r, 30, 1, "S", 1);
	sample(&r, 35, 1);
	SE(&r, 40, 1, "S", 1);		/* nothing open: ignored */
	/* Begun on thread 1, ended on thread 2: thread 1's samples. */
	SB(&r, 50, 1, "T", 2);
	sample(&r, 60, 1);
	sample(&r, 61, 2);
	SE(&r, 70, 2, "T", 2);
	sample(&r, 80, 1);
	/* Two keys, one name, overlapping: both. */
	SB(&r, 100, 1, "U", 3);
	SB(&r, 110, 1, "U", 4);
	sample(&r, 120, 1);
	SE(&r, 130, 1, "U", 3);
	SE(&r, 140, 1, "U", 4);
	p = load(_metadata, &r);
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("S", in(p, 0));
	EXPECT_STREQ("", in(p, 1));
	EXPECT_STREQ("T", in(p, 2));
	EXPECT_STREQ("", in(p, 3));
	EXPECT_STREQ("", in(p, 4));
	EXPECT_STREQ("U/U", in(p, 5));
	profile_annots__stats(profile__annots(p), &st);
	EXPECT_EQ(4, st.by_kind[PROFILE_ANNOT_SECTION]);
	EXPECT_EQ(1, st.section_rebegun);
	EXPECT_EQ(1, st.unmatched_ends);
	profile__free(p);
}

TEST(open_at_either_end)
{
	struct profile_annot_stats st;
	const struct profile_annot *v[2];
	struct profile *p;
	struct rec r;

	rec_open(&r);
	sample(&r, 10, 1);		/* inside a region begun before */
	RE(&r, 20, 1, "before");
	RB(&r, 30, 1, "after");
	SB(&r, 40, 1, "S", 9);
	sample(&r, 1000, 1);
	p = load(_metadata, &r);
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("", in(p, 0));
	EXPECT_STREQ("after/S", in(p, 1));
	ASSERT_EQ(2, profile_annots__of_sample(profile__annots(p), 1, v, 2));
	EXPECT_EQ(UINT64_MAX, v[0]->end);
	EXPECT_EQ(UINT64_MAX, v[1]->end);
	profile_annots__stats(profile__annots(p), &st);
	EXPECT_EQ(1, st.unmatched_ends);
	EXPECT_EQ(2, st.open_at_end);
	profile__free(p);
}

TEST(no_annotations)
{
	struct profile_annot_stats st;
	const struct profile_annot *v[1];
	struct profile *p;
	struct rec r;

	rec_open(&r);
	sample(&r, 10, 1);
	/* Durations of other categories are not annotations. */
	annot(&r, FXT_EVENT_DURATION_BEGIN, 5, 1, "sched", "x", 0);
	p = load(_metadata, &r);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, profile_annots__nr(profile__annots(p)));
	EXPECT_EQ(0, profile_annots__of_sample(profile__annots(p), 0, v, 1));
	EXPECT_EQ(0, profile_annots__of_sample(profile__annots(p), 99, v, 1));
	profile_annots__stats(profile__annots(p), &st);
	EXPECT_EQ(0, st.unmatched_ends);
	profile__free(p);
}

/*
 * What profile_annots__of_sample() must give, by brute force: every
 * interval of the sample's thread with begin <= ts < end, in order.
 */
static uint64_t check_all(struct __test_metadata *_metadata,
			  const struct profile *p)
{
	const struct profile_annots *a = profile__annots(p);
	uint64_t pairs = 0;
	size_t i, j;

	for (i = 0; i < profile__nr_samples(p); i++) {
		const struct profile_sample *s = profile__sample(p, i);
		const struct profile_annot *v[64];
		unsigned int n, want = 0, k;

		n = profile_annots__of_sample(a, i, v, 64);
		for (j = 0; j < profile_annots__nr(a); j++) {
			const struct profile_annot *x = profile_annots__get(a, j);

			if (x->pid == s->pid && x->tid == s->tid &&
			    x->begin <= s->ts && s->ts < x->end)
				want++;
		}
		EXPECT_EQ(want, n);
		if (want != n)
			return pairs;
		pairs += n;
		for (k = 0; k < n && k < 64; k++) {
			ASSERT_EQ(s->tid, v[k]->tid);
			ASSERT_LE(v[k]->begin, s->ts);
			ASSERT_GT(v[k]->end, s->ts);
			/* Durations outermost first, then sections by begin. */
			if (k && v[k]->kind != PROFILE_ANNOT_SECTION) {
				ASSERT_NE(PROFILE_ANNOT_SECTION, v[k - 1]->kind);
				ASSERT_EQ(v[k - 1]->depth + 1, v[k]->depth);
				ASSERT_EQ(v[k - 1], profile_annots__get(a,
					  v[k]->parent - 1));
			}
			if (k && v[k]->kind == PROFILE_ANNOT_SECTION &&
			    v[k - 1]->kind == PROFILE_ANNOT_SECTION)
				ASSERT_LE(v[k - 1]->begin, v[k]->begin);
		}
	}
	return pairs;
}

/* A random recording: three threads, marks and samples in random order. */
static void random_recording(struct rec *r, unsigned int seed)
{
	static const char *const names[] = { "a", "b", "c" };
	unsigned int i;

	srand(seed);
	rec_open(r);
	for (i = 0; i < 400; i++) {
		uint64_t ts = (uint64_t)(rand() % 1000);
		uint32_t tid = 1 + (uint32_t)(rand() % 3);
		const char *n = names[rand() % 3];

		switch (rand() % 7) {
		case 0: RB(r, ts, tid, n); break;
		case 1: RE(r, ts, tid, n); break;
		case 2: KB(r, ts, tid, n, 1); break;
		case 3: KE(r, ts, tid, n, 1); break;
		case 4:
			SB(r, ts, tid, n, (uint64_t)(rand() % 4));
			break;
		case 5:
			SE(r, ts, tid, n, (uint64_t)(rand() % 4));
			break;
		default: sample(r, ts, tid); break;
		}
	}
}

TEST(random_against_brute_force)
{
	uint64_t pairs = 0;
	unsigned int seed;

	for (seed = 1; seed <= 50; seed++) {
		struct profile *p;
		struct rec r;

		random_recording(&r, seed);
		p = load(_metadata, &r);
		ASSERT_NE(NULL, p);
		pairs += check_all(_metadata, p);
		profile__free(p);
	}
	/* The recordings put many samples inside intervals. */
	EXPECT_LT(1000, pairs) TH_LOG("%llu pairs", (unsigned long long)pairs);
}

/*
 * Every truncation and many byte flips of an annotated recording: each
 * load succeeds (and its intervals hold) or fails with a message, never
 * crashes or leaks (ASan).
 */
TEST(mutations)
{
	struct profile_error err;
	struct profile *p;
	struct rec r;
	unsigned int i;
	size_t cut;
	char *copy;

	random_recording(&r, 7);
	for (cut = 0; cut < r.n; cut += 8) {
		if (profile__load_buffer(r.p, cut, &p, &err)) {
			EXPECT_NE(0, err.msg[0]);
			continue;
		}
		check_all(_metadata, p);
		profile__free(p);
	}
	copy = malloc(r.n);
	ASSERT_NE(NULL, copy);
	for (i = 0; i < 2000; i++) {
		unsigned int k;

		memcpy(copy, r.p, r.n);
		for (k = 0; k < 1 + i % 4; k++)
			copy[(size_t)rand() % r.n] ^= (char)(1 << (rand() % 8));
		if (profile__load_buffer(copy, r.n, &p, &err)) {
			EXPECT_NE(0, err.msg[0]);
			continue;
		}
		check_all(_metadata, p);
		profile__free(p);
	}
	free(copy);
	fxt_writer__free(r.w);
	free(r.p);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_fxt_roundtrip.c - encode -> decode property tests with a fixed
 * seed, and the writer's string-table guarantees (string record before
 * first use, LRU reuse, pinning, sink failures, reset, truncation).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fxt_test_util.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic across libcs, unlike rand() */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned int rndn(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

#define POOL 300
static char pool[POOL][48];
static size_t pool_len[POOL];

static void make_pool(void)
{
	for (int i = 0; i < POOL; i++) {
		size_t len = 1 + rndn(40);

		for (size_t j = 0; j < len; j++) {
			/* mostly ASCII, sometimes stray high bytes */
			pool[i][j] = rndn(20) ? (char)('a' + rndn(26))
					      : (char)(0x80 + rndn(128));
		}
		/* make each distinct */
		len += (size_t)snprintf(pool[i] + len, 8, "%d", i);
		pool_len[i] = len;
	}
}

struct exp_str {
	const char *s;		/* as given to the writer (before sanitize) */
	size_t len;
};

struct exp_rec {
	bool blob;
	struct fxt_event ev;
	struct fxt_arg args[FXT_MAX_ARGS];
	struct exp_str cat, name, argname[FXT_MAX_ARGS], argstr[FXT_MAX_ARGS];
	uint64_t pcs[600];
	size_t nframes;
	uint64_t pid, tid;
};

#define NREC 3000
static struct exp_rec exp_recs[NREC];

static bool str_matches(const struct exp_str *e, const struct fxt_str *got)
{
	static char tmp[FXT_MAX_STRING_LEN];
	size_t n = fxt_utf8_sanitize(tmp, sizeof(tmp), e->s, e->len);

	return n == got->len && memcmp(tmp, got->data, n) == 0;
}

static int pick_str(struct fxt_writer *w, struct exp_str *e,
		    struct fxt_sref *ref, bool allow_empty)
{
	unsigned int k = rndn(10);

	if (allow_empty && k == 0) {
		e->s = "";
		e->len = 0;
		*ref = fxt_sref_empty();
		return 0;
	}
	if (k == 1) {		/* inline, already valid */
		static const char *const lits[] = { "x", "inline", "abcdefgh",
						    "h\xc3\xa9llo" };
		const char *s = lits[rndn(4)];

		e->s = s;
		e->len = strlen(s);
		*ref = fxt_sref_inline(s, e->len);
		return 0;
	}
	k = rndn(POOL);
	e->s = pool[k];
	e->len = pool_len[k];
	return fxt_writer__string_ref(w, pool[k], pool_len[k], ref);
}

static int gen_event(struct fxt_writer *w, struct exp_rec *r)
{
	struct fxt_event *ev = &r->ev;
	int err;

	memset(r, 0, sizeof(*r));
	ev->type = (uint8_t)rndn(11);
	ev->ts = rnd() >> 2;
	ev->thread = fxt_tref_inline(rnd() & 0xffffffff, rnd() & 0xffffffff);
	ev->payload = rnd();
	if (ev->type == FXT_EVENT_DURATION_COMPLETE)
		ev->payload = ev->ts + rndn(1000);	/* end >= begin */
	ev->nargs = rndn(16);
	ev->args = r->args;
	err = pick_str(w, &r->cat, &ev->category, true);
	if (!err)
		err = pick_str(w, &r->name, &ev->name, true);
	for (unsigned int i = 0; i < ev->nargs && !err; i++) {
		struct fxt_arg *a = &r->args[i];

		err = pick_str(w, &r->argname[i], &a->name, false);
		a->type = (uint8_t)rndn(10);
		switch (a->type) {
		case FXT_ARG_DOUBLE:
			a->v.dbl = (double)(int64_t)rnd() / 7.0;
			break;
		case FXT_ARG_STRING:
			if (!err)
				err = pick_str(w, &r->argstr[i], &a->v.str,
					       true);
			break;
		case FXT_ARG_BOOL:
			a->v.b = rnd() & 1;
			break;
		default:
			a->v.u64 = rnd();
			if (a->type == FXT_ARG_INT32 ||
			    a->type == FXT_ARG_UINT32)
				a->v.u64 &= 0xffffffff;
			break;
		}
	}
	if (err)
		return err;
	return fxt_writer__event(w, ev);
}

static bool arg_equal(const struct exp_rec *r, unsigned int i,
		      const struct fxt_argv *g)
{
	const struct fxt_arg *a = &r->args[i];

	if (a->type != g->type || !str_matches(&r->argname[i], &g->name))
		return false;
	switch (a->type) {
	case FXT_ARG_NULL:
		return true;
	case FXT_ARG_INT32:
		return a->v.i32 == g->v.i32;
	case FXT_ARG_UINT32:
		return a->v.u32 == g->v.u32;
	case FXT_ARG_DOUBLE:
		return memcmp(&a->v.dbl, &g->v.dbl, 8) == 0;
	case FXT_ARG_STRING:
		return str_matches(&r->argstr[i], &g->v.str);
	case FXT_ARG_BOOL:
		return a->v.b == g->v.b;
	default:
		return a->v.u64 == g->v.u64;
	}
}

static bool event_has_payload(uint8_t t)
{
	return t == FXT_EVENT_COUNTER || t >= FXT_EVENT_DURATION_COMPLETE;
}

TEST(random_roundtrip)
{
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 64);	/* force LRU reuse */
	struct fxt_reader *r;
	struct fxt_record rec;
	struct fxt_error e;
	size_t n = 0, i;
	int ret;

	ASSERT_NE(NULL, w);
	rng_state = 0x5eed0f0f1234ULL;
	make_pool();
	ASSERT_EQ(0, fxt_writer__prologue(w, 1, "roundtrip", FXT_NS_PER_SEC));
	for (i = 0; i < NREC; i++) {
		struct exp_rec *x = &exp_recs[i];

		if (rndn(4) == 0) {
			memset(x, 0, sizeof(*x));
			x->blob = true;
			x->pid = rnd() & 0xffffffff;
			x->tid = rnd() & 0xffffffff;
			x->nframes = rndn(600);
			for (size_t f = 0; f < x->nframes; f++)
				x->pcs[f] = rnd();
			ASSERT_EQ(0, fxt_writer__stack_sample(w, rnd() >> 2,
							      x->pid, x->tid,
							      x->pcs,
							      x->nframes));
			if (x->nframes > FXT_MAX_FRAMES)
				x->nframes = FXT_MAX_FRAMES;
		} else {
			ASSERT_EQ(0, gen_event(w, x));
		}
	}
	/* The whole stream is valid for the checker. */
	ret = fxt_check_buffer(m.buf, m.len, &e);
	if (ret)
		TH_LOG("offset 0x%llx: %s: %s", (unsigned long long)e.offset,
		       e.rule, e.msg);
	ASSERT_EQ(0, ret);

	ASSERT_EQ(0, fxt_reader__new(0, &r));
	ASSERT_EQ(0, fxt_reader__feed(r, m.buf, m.len));
	while ((ret = fxt_reader__next(r, &rec)) > 0) {
		struct exp_rec *x;

		if (rec.type != FXT_REC_EVENT && rec.type != FXT_REC_LARGE)
			continue;
		ASSERT_LT(n, NREC);
		x = &exp_recs[n++];
		if (x->blob) {
			ASSERT_EQ(FXT_REC_LARGE, rec.type);
			ASSERT_EQ(x->pid, rec.thread.pid);
			ASSERT_EQ(x->tid, rec.thread.tid);
			ASSERT_EQ(x->nframes * 8, rec.large.len);
			ASSERT_EQ(0, rec.large.category.len + rec.large.name.len);
			ASSERT_EQ(0, memcmp(x->pcs, rec.large.data,
					    x->nframes * 8));
			continue;
		}
		ASSERT_EQ(FXT_REC_EVENT, rec.type);
		ASSERT_EQ(x->ev.type, rec.subtype);
		ASSERT_EQ(x->ev.ts, rec.ts);
		ASSERT_EQ(x->ev.thread.pid, rec.thread.pid);
		ASSERT_EQ(x->ev.thread.tid, rec.thread.tid);
		ASSERT_TRUE(str_matches(&x->cat, &rec.event.category));
		ASSERT_TRUE(str_matches(&x->name, &rec.event.name));
		ASSERT_EQ(x->ev.nargs, rec.nargs);
		for (unsigned int a = 0; a < rec.nargs; a++)
			ASSERT_TRUE(arg_equal(x, a, &rec.args[a]));
		ASSERT_EQ(event_has_payload(x->ev.type), rec.event.has_payload);
		if (rec.event.has_payload)
			ASSERT_EQ(x->ev.payload, rec.event.payload);
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, fxt_reader__finish(r));
	ASSERT_EQ(NREC, n);
	fxt_reader__free(r);
	fxt_writer__free(w);
	memsink_free(&m);
}

/* Feeding one byte at a time yields the same records. */
TEST(bytewise_feed)
{
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 0);
	struct fxt_reader *r1, *r2;
	struct fxt_record a, b;
	size_t fed = 0;
	int n = 0, ret;

	ASSERT_NE(NULL, w);
	rng_state = 99;
	make_pool();
	ASSERT_EQ(0, fxt_writer__prologue(w, 1, "bytes", FXT_NS_PER_SEC));
	for (int i = 0; i < 200; i++)
		ASSERT_EQ(0, gen_event(w, &exp_recs[i]));
	ASSERT_EQ(0, fxt_reader__new(0, &r1));
	ASSERT_EQ(0, fxt_reader__new(0, &r2));
	ASSERT_EQ(0, fxt_reader__feed(r1, m.buf, m.len));
	while ((ret = fxt_reader__next(r1, &a)) > 0) {
		while ((ret = fxt_reader__next(r2, &b)) == 0) {
			ASSERT_LT(fed, m.len);
			ASSERT_EQ(0, fxt_reader__feed(r2, m.buf + fed++, 1));
		}
		ASSERT_EQ(1, ret);
		ASSERT_EQ(a.offset, b.offset);
		ASSERT_EQ(a.size, b.size);
		ASSERT_EQ(0, memcmp(a.words, b.words, a.size * 8));
		n++;
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(m.len, fed);
	ASSERT_EQ(0, fxt_reader__finish(r2));
	ASSERT_GT(n, 200);
	fxt_reader__free(r1);
	fxt_reader__free(r2);
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(intern_emits_once_and_first)
{
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 0);
	struct fxt_sref a, b;

	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, fxt_writer__string_ref(w, "cpu", 3, &a));
	ASSERT_EQ(1, a.ref);
	ASSERT_EQ(1u, m.calls);
	ASSERT_EQ(0x0000000300010022ULL, word_at(&m, 0));
	ASSERT_EQ(0, fxt_writer__string_ref(w, "cpu", 3, &b));
	ASSERT_EQ(1, b.ref);
	ASSERT_EQ(1u, m.calls);		/* no second record */
	ASSERT_EQ(0, fxt_writer__string_ref(w, "", 0, &b));
	ASSERT_EQ(0, b.ref);
	ASSERT_EQ(1u, m.calls);
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(lru_reuse)
{
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 64);
	struct fxt_sref ref;
	char s[16];
	unsigned int calls;

	ASSERT_NE(NULL, w);
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(s, sizeof(s), "s%d", i);

		ASSERT_EQ(0, fxt_writer__string_ref(w, s, (size_t)n, &ref));
		ASSERT_GE(ref.ref, 1);
		ASSERT_LE(ref.ref, 64);
	}
	calls = m.calls;
	/* the 64 most recent are still interned */
	for (int i = 999; i >= 936; i--) {
		int n = snprintf(s, sizeof(s), "s%d", i);

		ASSERT_EQ(0, fxt_writer__string_ref(w, s, (size_t)n, &ref));
	}
	ASSERT_EQ(calls, m.calls);
	/* an old one comes back with a new record, reusing the LRU slot */
	ASSERT_EQ(0, fxt_writer__string_ref(w, "s0", 2, &ref));
	ASSERT_EQ(calls + 1, m.calls);
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(pinning)
{
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 64);
	struct fxt_sref pinned[10], ref;
	char s[16];
	unsigned int calls;

	ASSERT_NE(NULL, w);
	for (int i = 0; i < 10; i++) {
		int n = snprintf(s, sizeof(s), "pin%d", i);

		ASSERT_EQ(0, fxt_writer__string_pin(w, s, (size_t)n, &pinned[i]));
	}
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(s, sizeof(s), "churn%d", i);

		ASSERT_EQ(0, fxt_writer__string_ref(w, s, (size_t)n, &ref));
		for (int p = 0; p < 10; p++)
			ASSERT_NE(pinned[p].ref, ref.ref);
	}
	calls = m.calls;
	for (int i = 0; i < 10; i++) {
		int n = snprintf(s, sizeof(s), "pin%d", i);

		ASSERT_EQ(0, fxt_writer__string_ref(w, s, (size_t)n, &ref));
		ASSERT_EQ(pinned[i].ref, ref.ref);
	}
	ASSERT_EQ(calls, m.calls);
	/* a table of nothing but pins is full */
	for (int i = 10; i < 64; i++) {
		int n = snprintf(s, sizeof(s), "pin%d", i);

		ASSERT_EQ(0, fxt_writer__string_pin(w, s, (size_t)n, &ref));
	}
	ASSERT_EQ(-ENOSPC, fxt_writer__string_ref(w, "more", 4, &ref));
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(sink_failure_keeps_table_consistent)
{
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 0);
	struct fxt_sref ref;

	ASSERT_NE(NULL, w);
	m.fail_next = -EAGAIN;
	ASSERT_EQ(-EAGAIN, fxt_writer__string_ref(w, "dropped", 7, &ref));
	ASSERT_EQ(0, (int)m.len);
	/* not considered registered: the next use emits the record */
	ASSERT_EQ(0, fxt_writer__string_ref(w, "dropped", 7, &ref));
	ASSERT_EQ(2 * 8, (int)m.len);
	ASSERT_EQ(1, ref.ref);
	m.fail_next = -EPIPE;
	ASSERT_EQ(-EPIPE, fxt_writer__magic(w));
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(reset_state_self_contained)
{
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 0);
	struct fxt_tref t = fxt_tref_inline(1, 2);
	struct fxt_sref cat, name;
	size_t mark;

	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, fxt_writer__prologue(w, 1, "a", FXT_NS_PER_SEC));
	ASSERT_EQ(0, fxt_writer__string_pin(w, "cat", 3, &cat));
	ASSERT_EQ(0, fxt_writer__string_ref(w, "name", 4, &name));
	ASSERT_EQ(0, fxt_writer__instant(w, 1, &t, cat, name, NULL, 0));
	ASSERT_EQ(0u, fxt_writer__generation(w));
	fxt_writer__reset_state(w);
	ASSERT_EQ(1u, fxt_writer__generation(w));
	mark = m.len;
	ASSERT_EQ(0, fxt_writer__prologue(w, 1, "a", FXT_NS_PER_SEC));
	ASSERT_EQ(0, fxt_writer__string_ref(w, "name", 4, &name));
	ASSERT_EQ(0, fxt_writer__string_ref(w, "cat", 3, &cat));
	ASSERT_EQ(0, fxt_writer__instant(w, 2, &t, cat, name, NULL, 0));
	/* the second connection's bytes are valid on their own */
	ASSERT_EQ(0, fxt_check_buffer(m.buf + mark, m.len - mark, NULL));
	/* and the refs were re-emitted: string records follow the prologue */
	ASSERT_EQ(FXT_REC_STRING, (int)(word_at(&m, mark / 8 + 6) & 0xf));
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(long_and_invalid_strings)
{
	static char big[40000];
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 0);
	struct fxt_reader *r;
	struct fxt_record rec;
	struct fxt_sref ref;

	ASSERT_NE(NULL, w);
	memset(big, 'z', sizeof(big));
	ASSERT_EQ(0, fxt_writer__string_ref(w, big, sizeof(big), &ref));
	ASSERT_EQ(0, fxt_writer__string_ref(w, "bad\xc3(", 5, &ref));
	ASSERT_EQ(0, fxt_reader__new(0, &r));
	ASSERT_EQ(0, fxt_reader__feed(r, m.buf, m.len));
	ASSERT_EQ(1, fxt_reader__next(r, &rec));
	ASSERT_EQ(FXT_MAX_STRING_LEN, rec.string.str.len);
	ASSERT_EQ(1, fxt_reader__next(r, &rec));
	ASSERT_EQ(7, (int)rec.string.str.len);
	ASSERT_EQ(0, memcmp("bad\xef\xbf\xbd(", rec.string.str.data, 7));
	fxt_reader__free(r);
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(writer_opts)
{
	struct fxt_writer_opts o = { .sz = sizeof(o), .write = memsink_write };
	struct fxt_writer *w;

	o.strtab_size = 63;
	ASSERT_EQ(-EINVAL, fxt_writer__new(&o, &w));
	ASSERT_EQ(NULL, w);
	o.strtab_size = 0x8000;
	ASSERT_EQ(-EINVAL, fxt_writer__new(&o, &w));
	o.strtab_size = 0;
	o.write = NULL;
	ASSERT_EQ(-EINVAL, fxt_writer__new(&o, &w));
}

TEST_HARNESS_MAIN

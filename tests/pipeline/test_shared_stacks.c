// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_shared_stacks.c - stack references (fxt_profile.h, "Stack
 * references"), from the encoder to the profile every report reads:
 *  - the same ring records, encoded with and without shared stacks, load
 *    into the same samples, frame for frame, and the shared stream is
 *    smaller, with one definition per distinct stack;
 *  - a definition the sink refuses leaves that sample with its frames,
 *    and the next sample of the stack defines it again;
 *  - a new segment defines its stacks again, and the reader forgets the
 *    old ones there;
 *  - the reader against hand-made streams: a redefined id, an id never
 *    defined (counted, no frames), and malformed definitions (an error);
 *  - a time range cut from a shared stream (what `fxtprof extract` does
 *    to an archive that `receive --archive` wrote from one) keeps the
 *    definitions made before it;
 *  - off-CPU waits, which always share their stacks, from their records
 *    to the profile's waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "archive/archive_extract.h"
#include "encode/fxt_encoder.h"
#include "fxt_reader.h"
#include "fxt_profile.h"
#include "profile/profile.h"
#include "state/stream_state.h"
#include "mem_sink.h"

/* A memory sink that refuses the first @refuse blobs (type 5) offered. */
struct refusing_mem {
	struct mem m;
	unsigned int refuse;
	unsigned int blobs_refused;
};

static void *refusing_reserve(void *ctx, size_t len, unsigned int type)
{
	struct refusing_mem *r = ctx;

	if (type == FXT_REC_BLOB && r->refuse) {
		r->refuse--;
		r->blobs_refused++;
		return NULL;
	}
	return mem_reserve(&r->m, len, type);
}

static void refusing_commit(void *ctx)
{
	mem_commit(&((struct refusing_mem *)ctx)->m);
}

/*
 * Sample @i of a recording that cycles through 7 stacks: kernel only,
 * user only, both, a partial user stack, a deep one capped by the
 * writer, one without frames, and a second user-only stack that differs
 * from the first in one frame.
 */
static void sample(struct stream_state *st, unsigned int i)
{
	static uint64_t buf[(sizeof(struct fxtprof_sample) + 8 * 700) / 8];
	static const uint16_t nk[] = { 3, 0, 2, 1, 4, 0, 0 };
	static const uint16_t nu[] = { 0, 5, 6, 3, 600, 0, 5 };
	struct fxtprof_sample *s = (void *)buf;
	unsigned int k = i % 7, f;

	memset(s, 0, sizeof(*s));
	s->hdr.size = sizeof(*s) + 8 * (nk[k] + nu[k]);
	s->hdr.type = FXTPROF_REC_SAMPLE;
	s->hdr.cpu = (uint16_t)(i % 2);
	s->hdr.time_ns = 1000 + i;
	s->pid = 40 + k;
	s->tid = 40 + k;
	s->mode = nk[k] ? FXTPROF_MODE_KERNEL : FXTPROF_MODE_USER;
	s->nr_kernel = nk[k];
	s->nr_user = nu[k];
	if (k == 3)
		s->ustack_end = FXTPROF_USTACK_END_FAULT;
	for (f = 0; f < nk[k]; f++)
		s->ips[f] = 0xffffffff81000000ull + 0x10 * f + k;
	for (f = 0; f < nu[k]; f++)
		s->ips[nk[k] + f] = 0x400000 + 0x100 * f + (k == 6 && f == 2);
	stream_state__record(st, &s->hdr);
}

/* @n samples through an encoder into @wo's sink, sharing stacks or not. */
static int encode(const struct fxt_writer_opts *wo, bool share,
		  unsigned int n, unsigned int new_segment_at)
{
	struct fxt_encoder *enc;
	struct stream_state st;
	struct encoder ei;
	unsigned int i;
	int ret;

	ret = fxt_encoder__new_opts(&enc, wo);
	if (ret)
		return ret;
	ret = fxt_encoder__share_stacks(enc, share);
	ei = fxt_encoder__encoder(enc);
	stream_state__init(&st, ei, NULL);
	if (!ret)
		ret = stream_state__sync(&st);
	for (i = 0; !ret && i < n; i++) {
		if (i && i == new_segment_at)
			ret = ei.ops->begin_segment(ei.ctx);
		sample(&st, i);
	}
	stream_state__fini(&st);
	fxt_encoder__free(enc);
	return ret;
}

/* Records of FXT type @type in @m, and samples carrying a stack argument. */
static unsigned int count_type(const struct mem *m, unsigned int type,
			       unsigned int *refs)
{
	struct fxt_reader *rd;
	struct fxt_record rec;
	unsigned int n = 0;

	*refs = 0;
	if (fxt_reader__new(0, &rd))
		return 0;
	fxt_reader__feed(rd, m->buf, m->len);
	while (fxt_reader__next(rd, &rec) > 0) {
		if (rec.type == type)
			n++;
		if (fxt_record__is_sample(&rec) &&
		    fxt_record__arg(&rec, FXT_PROFILE_ARG_STACK))
			(*refs)++;
	}
	fxt_reader__free(rd);
	return n;
}

/* Whether the two profiles hold the same samples, frame for frame. */
static void same_samples(struct __test_metadata *_metadata,
			 const struct profile *a, const struct profile *b)
{
	size_t i, n = profile__nr_samples(a);

	ASSERT_EQ(n, profile__nr_samples(b));
	for (i = 0; i < n; i++) {
		const struct profile_sample *x = profile__sample(a, i);
		const struct profile_sample *y = profile__sample(b, i);

		ASSERT_EQ(x->ts, y->ts);
		ASSERT_EQ(x->tid, y->tid);
		ASSERT_EQ(x->cpu, y->cpu);
		ASSERT_EQ(x->mode, y->mode);
		ASSERT_EQ(x->ustack_end, y->ustack_end);
		ASSERT_EQ(x->nr_kernel, y->nr_kernel);
		ASSERT_EQ(x->nr_user, y->nr_user);
		if (x->nr_kernel + x->nr_user)
			ASSERT_EQ(0, memcmp(x->ips, y->ips, 8 * (x->nr_kernel +
							       x->nr_user)));
	}
}

static int check(struct __test_metadata *_metadata, const struct mem *m)
{
	struct fxt_error err = { 0 };
	int ret = fxt_check_buffer(m->buf, m->len, &err);

	if (ret)
		TH_LOG("check: %d at %llu: %s", ret,
		       (unsigned long long)err.offset, err.msg);
	return ret;
}

static struct profile *load(struct __test_metadata *_metadata,
			    const struct mem *m)
{
	struct profile_error err = { 0 };
	struct profile *p = NULL;
	int ret = profile__load_buffer(m->buf, m->len, &p, &err);

	if (ret)
		TH_LOG("load: %d at %llu: %s", ret,
		       (unsigned long long)err.offset, err.msg);
	EXPECT_EQ(0, ret);
	return p;
}

TEST(same_samples_with_and_without_sharing)
{
	static struct mem plain, shared;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve, .commit = mem_commit,
	};
	struct profile_stats st;
	struct profile *a, *b;
	unsigned int refs, defs;

	wo.ctx = &plain;
	ASSERT_EQ(0, encode(&wo, false, 700, 0));
	wo.ctx = &shared;
	ASSERT_EQ(0, encode(&wo, true, 700, 0));
	ASSERT_EQ(0, check(_metadata, &plain));
	ASSERT_EQ(0, check(_metadata, &shared));

	/* Six stacks have frames: six definitions, 600 samples name them. */
	defs = count_type(&shared, FXT_REC_BLOB, &refs);
	EXPECT_EQ(6, defs);
	EXPECT_EQ(600, refs);
	EXPECT_EQ(0, count_type(&shared, FXT_REC_LARGE, &refs));
	EXPECT_EQ(600, count_type(&plain, FXT_REC_LARGE, &refs));
	EXPECT_EQ(0, refs);
	TH_LOG("700 samples: %zu bytes plain, %zu shared", plain.len,
	       shared.len);
	EXPECT_LT(shared.len * 8, plain.len);

	a = load(_metadata, &plain);
	b = load(_metadata, &shared);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	same_samples(_metadata, a, b);
	profile__stats(b, &st);
	EXPECT_EQ(0, st.unresolved_stacks);
	/* The deep stack is capped at the writer's limit, leaf end kept. */
	EXPECT_EQ(FXT_MAX_FRAMES - 4, profile__sample(b, 4)->nr_user);
	/* The two user stacks that differ in one frame stay apart. */
	EXPECT_EQ(0x400200, profile__sample(b, 1)->ips[2]);
	EXPECT_EQ(0x400201, profile__sample(b, 6)->ips[2]);
	profile__free(a);
	profile__free(b);
}

TEST(refused_definition_keeps_the_frames)
{
	static struct refusing_mem r;
	static struct mem plain;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = refusing_reserve,
		.commit = refusing_commit, .ctx = &r,
	};
	struct profile *a, *b;
	unsigned int refs;

	r.refuse = 2;		/* the first two stacks' first definitions */
	ASSERT_EQ(0, encode(&wo, true, 70, 0));
	EXPECT_EQ(2, r.blobs_refused);
	/* Their first samples carry their frames; 8 defined, 58 named. */
	EXPECT_EQ(2, count_type(&r.m, FXT_REC_LARGE, &refs));
	EXPECT_EQ(6, count_type(&r.m, FXT_REC_BLOB, &refs));
	EXPECT_EQ(58, refs);
	ASSERT_EQ(0, check(_metadata, &r.m));

	wo.reserve = mem_reserve;
	wo.commit = mem_commit;
	wo.ctx = &plain;
	ASSERT_EQ(0, encode(&wo, false, 70, 0));
	a = load(_metadata, &plain);
	b = load(_metadata, &r.m);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	same_samples(_metadata, a, b);
	profile__free(a);
	profile__free(b);
}

TEST(a_segment_defines_its_stacks_again)
{
	static struct mem plain, shared;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve, .commit = mem_commit,
	};
	struct profile *a, *b;
	unsigned int refs;

	wo.ctx = &plain;
	ASSERT_EQ(0, encode(&wo, false, 140, 70));
	wo.ctx = &shared;
	ASSERT_EQ(0, encode(&wo, true, 140, 70));
	/* Every sample with frames names its stack, defined in its segment. */
	EXPECT_EQ(12, count_type(&shared, FXT_REC_BLOB, &refs));
	EXPECT_EQ(120, refs);
	a = load(_metadata, &plain);
	b = load(_metadata, &shared);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	same_samples(_metadata, a, b);
	profile__free(a);
	profile__free(b);
}

/* The clip's output, into a memory sink. */
static int clip_emit(void *ctx, const void *rec, size_t len, unsigned int kind)
{
	void *p = mem_reserve(ctx, len, kind);

	if (!p)
		return -ENOBUFS;
	memcpy(p, rec, len);
	mem_commit(ctx);
	return 0;
}

/*
 * A range cut from a shared stream (as `fxtprof extract` cuts one from an
 * archive, and a received archive keeps the stream as it came) keeps the
 * definitions made before it: every sample in it has its frames.
 */
TEST(a_range_keeps_its_definitions)
{
	static struct mem plain, shared, cut_plain, cut_shared;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve, .commit = mem_commit,
	};
	struct archive_extract_stats st = { 0 };
	struct archive_clip c;
	struct profile_stats ps;
	struct profile *a, *b;

	wo.ctx = &plain;
	ASSERT_EQ(0, encode(&wo, false, 140, 0));
	wo.ctx = &shared;
	ASSERT_EQ(0, encode(&wo, true, 140, 0));
	/* Samples 100..139: every stack was defined before 1100. */
	archive_clip__init(&c, 1100, 2000, clip_emit, &cut_plain, &st);
	ASSERT_EQ(0, archive_clip__feed(&c, plain.buf, plain.len, NULL));
	archive_clip__init(&c, 1100, 2000, clip_emit, &cut_shared, &st);
	ASSERT_EQ(0, archive_clip__feed(&c, shared.buf, shared.len, NULL));
	ASSERT_EQ(0, check(_metadata, &cut_shared));
	a = load(_metadata, &cut_plain);
	b = load(_metadata, &cut_shared);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(40, profile__nr_samples(b));
	same_samples(_metadata, a, b);
	profile__stats(b, &ps);
	EXPECT_EQ(0, ps.unresolved_stacks);
	profile__free(a);
	profile__free(b);
}

/* ---- hand-made streams ------------------------------------------------ */

struct hand {
	struct mem m;
	struct fxt_writer *w;
	struct fxt_sref cpu, sample, mode_key, user, kframes, stack, def;
};

/* A segment's strings, as the encoder pins them. */
static void hand_pin(struct __test_metadata *_metadata, struct hand *h)
{
	ASSERT_EQ(0, fxt_writer__string_pin(h->w, "cpu", 3, &h->cpu));
	ASSERT_EQ(0, fxt_writer__string_pin(h->w, "sample", 6, &h->sample));
	ASSERT_EQ(0, fxt_writer__string_pin(h->w, "mode", 4, &h->mode_key));
	ASSERT_EQ(0, fxt_writer__string_pin(h->w, "user", 4, &h->user));
	ASSERT_EQ(0, fxt_writer__string_pin(h->w, "kframes", 7, &h->kframes));
	ASSERT_EQ(0, fxt_writer__string_pin(h->w, FXT_PROFILE_ARG_STACK,
					    strlen(FXT_PROFILE_ARG_STACK),
					    &h->stack));
	ASSERT_EQ(0, fxt_writer__string_pin(h->w, FXT_PROFILE_STACK_DEF,
					    strlen(FXT_PROFILE_STACK_DEF),
					    &h->def));
}

static void hand_begin(struct __test_metadata *_metadata, struct hand *h)
{
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve, .commit = mem_commit,
		.ctx = &h->m,
	};

	h->m.len = 0;
	ASSERT_EQ(0, fxt_writer__new(&wo, &h->w));
	ASSERT_EQ(0, fxt_writer__prologue(h->w, 1, "t", 1000000000ull));
	hand_pin(_metadata, h);
}

/* A definition: @len payload bytes of @words (the head, then frames). */
static void hand_def(struct __test_metadata *_metadata, struct hand *h,
		     const uint64_t *words, size_t len)
{
	size_t n = 1 + (len + 7) / 8;
	uint64_t *p;
	int ret;

	p = fxt_writer__begin(h->w, n, FXT_REC_BLOB, &ret);
	ASSERT_NE(NULL, p);
	p[0] = fxt_hdr(FXT_REC_BLOB, n) | (uint64_t)h->def.ref << 16 |
	       (uint64_t)len << 32 | (uint64_t)FXT_BLOB_DATA << 48;
	memset(p + 1, 0, 8 * (n - 1));
	memcpy(p + 1, words, len);
	ASSERT_EQ(0, fxt_writer__end(h->w, n));
}

/* A user sample at @ts naming stack @id. */
static void hand_ref(struct __test_metadata *_metadata, struct hand *h,
		     uint64_t ts, uint32_t id)
{
	uint64_t *p;
	int ret;

	p = fxt_writer__begin(h->w, FXT_SAMPLE_EVENT_WORDS + 1, FXT_REC_EVENT,
			      &ret);
	ASSERT_NE(NULL, p);
	p[FXT_SAMPLE_HDR] = fxt_event_hdr(FXT_SAMPLE_EVENT_WORDS + 1,
					  FXT_EVENT_INSTANT, 4, 0,
					  h->cpu.ref, h->sample.ref);
	p[FXT_SAMPLE_TS] = ts;
	p[FXT_SAMPLE_PID] = 9;
	p[FXT_SAMPLE_TID] = 9;
	p[FXT_SAMPLE_CPU] = fxt_arg_hdr32(FXT_ARG_UINT32, h->cpu.ref, 0);
	p[FXT_SAMPLE_MODE] = fxt_arg_hdr32(FXT_ARG_STRING, h->mode_key.ref,
					   h->user.ref);
	p[FXT_SAMPLE_KFRAMES] = fxt_arg_hdr32(FXT_ARG_UINT32, h->kframes.ref,
					      0);
	p[FXT_SAMPLE_EVENT_WORDS] = fxt_arg_hdr32(FXT_ARG_UINT32, h->stack.ref,
						  id);
	ASSERT_EQ(0, fxt_writer__end(h->w, FXT_SAMPLE_EVENT_WORDS + 1));
}

TEST(reader_redefined_and_undefined_ids)
{
	static struct hand h;
	const uint64_t a[] = { fxt_stack_def_head(5, 0, 2), 0x401000, 0x402000 };
	const uint64_t b[] = { fxt_stack_def_head(5, 0, 1), 0x403000 };
	const struct profile_sample *s;
	struct profile_stats st;
	struct profile *p;

	hand_begin(_metadata, &h);
	hand_def(_metadata, &h, a, sizeof(a));
	hand_ref(_metadata, &h, 10, 5);
	hand_def(_metadata, &h, b, sizeof(b));
	hand_ref(_metadata, &h, 20, 5);
	hand_ref(_metadata, &h, 30, 6);			/* never defined */
	hand_ref(_metadata, &h, 40, FXT_STACK_REFS_MAX);	/* out of range */
	fxt_writer__free(h.w);

	p = load(_metadata, &h.m);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(4, profile__nr_samples(p));
	s = profile__sample(p, 0);
	ASSERT_EQ(2, s->nr_user);
	EXPECT_EQ(0x402000, s->ips[1]);
	s = profile__sample(p, 1);
	ASSERT_EQ(1, s->nr_user);
	EXPECT_EQ(0x403000, s->ips[0]);
	EXPECT_EQ(0, profile__sample(p, 2)->nr_user);
	EXPECT_EQ(0, profile__sample(p, 3)->nr_user);
	profile__stats(p, &st);
	EXPECT_EQ(2, st.unresolved_stacks);
	profile__free(p);
}

TEST(reader_forgets_at_a_new_segment)
{
	static struct hand h;
	const uint64_t a[] = { fxt_stack_def_head(7, 0, 1), 0x401000 };
	struct profile_stats st;
	struct profile *p;

	hand_begin(_metadata, &h);
	hand_def(_metadata, &h, a, sizeof(a));
	hand_ref(_metadata, &h, 10, 7);
	fxt_writer__reset_state(h.w);
	ASSERT_EQ(0, fxt_writer__prologue(h.w, 1, "t", 1000000000ull));
	/* The new segment's strings, then a name of the old segment's id. */
	hand_pin(_metadata, &h);
	hand_ref(_metadata, &h, 20, 7);
	fxt_writer__free(h.w);

	p = load(_metadata, &h.m);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(2, profile__nr_samples(p));
	EXPECT_EQ(1, profile__sample(p, 0)->nr_user);
	EXPECT_EQ(0, profile__sample(p, 1)->nr_user);
	profile__stats(p, &st);
	EXPECT_EQ(1, st.unresolved_stacks);
	profile__free(p);
}

TEST(reader_refuses_malformed_definitions)
{
	static struct hand h;
	const struct {
		uint64_t w[3];
		size_t len;
	} bad[] = {
		{ { fxt_stack_def_head(FXT_STACK_REFS_MAX, 0, 2), 1, 2 }, 24 },
		{ { fxt_stack_def_head(1, 0, 3), 1, 2 }, 24 },	/* 3, has 2 */
		{ { fxt_stack_def_head(1, 0, 0), 1, 2 }, 24 },	/* no frames */
		{ { fxt_stack_def_head(1, 3, 2), 1, 2 }, 24 },	/* 3 kernel of 2 */
		{ { fxt_stack_def_head(1, 0, 2), 1, 2 }, 8 },	/* no frame words */
		{ { fxt_stack_def_head(1, 0, 2), 1, 2 }, 20 },	/* not whole words */
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct profile_error err = { 0 };
		struct profile *p = NULL;

		hand_begin(_metadata, &h);
		hand_def(_metadata, &h, bad[i].w, bad[i].len);
		fxt_writer__free(h.w);
		EXPECT_EQ(-EPROTO, profile__load_buffer(h.m.buf, h.m.len, &p,
							&err)) {
			TH_LOG("definition %u", i);
		}
		EXPECT_NE(NULL, strstr(err.msg, FXT_PROFILE_STACK_DEF));
		EXPECT_EQ(NULL, p);
	}
}

/*
 * An off-CPU wait (OFFCPU, ABI 8) of thread @tid: @nk kernel and @nu user
 * frames, from @start to @end, into @buf.
 */
static struct fxtprof_sample *mk_wait(uint64_t *buf, uint32_t tid,
				      uint16_t nk, uint16_t nu,
				      uint64_t start, uint64_t end,
				      uint8_t state, uint32_t waker)
{
	struct fxtprof_sample *s = (void *)buf;
	struct fxtprof_offcpu *w;
	unsigned int f;

	memset(s, 0, sizeof(*s));
	s->hdr.size = sizeof(*s) + 8 * (nk + nu) + sizeof(*w);
	s->hdr.type = FXTPROF_REC_OFFCPU;
	s->hdr.cpu = 1;
	s->hdr.time_ns = end;
	s->pid = 70;
	s->tid = tid;
	s->mode = FXTPROF_MODE_KERNEL;
	s->nr_kernel = nk;
	s->nr_user = nu;
	for (f = 0; f < nk; f++)
		s->ips[f] = 0xffffffff81000000ull + 0x10 * f;
	for (f = 0; f < nu; f++)
		s->ips[nk + f] = 0x400000 + 0x100 * f;
	w = (void *)&s->ips[nk + nu];
	memset(w, 0, sizeof(*w));
	w->start_ns = start;
	w->waker_tid = waker;
	w->state = state;
	return s;
}

/*
 * Off-CPU waits: validated as records, encoded as complete events whose
 * stacks are shared, and loaded back as waits (not samples) with their
 * length, state, waker and frames; an encoder that does not share stacks
 * refuses them, counted.
 */
TEST(waits_from_records_to_the_profile)
{
	static struct mem m;
	static uint64_t buf[64];
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve, .commit = mem_commit,
		.ctx = &m,
	};
	struct fxtprof_sample *s;
	struct fxtprof_offcpu *w;
	const struct profile_sample *x;
	struct fxt_encoder *enc;
	struct stream_state st;
	struct profile *p;

	/* The drain's checks. */
	s = mk_wait(buf, 71, 3, 4, 1000, 1500, FXTPROF_WAIT_SLEEPING, 72);
	ASSERT_EQ(0, fxtprof_rec__validate(&s->hdr, s->hdr.size));
	w = (void *)&s->ips[7];
	w->state = 0;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&s->hdr, s->hdr.size));
	w->state = FXTPROF_WAIT_MAX;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&s->hdr, s->hdr.size));
	w->state = FXTPROF_WAIT_BLOCKED;
	w->start_ns = 1501;		/* began after it ended */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&s->hdr, s->hdr.size));
	w->start_ns = 1000;
	s->flags = FXTPROF_SAMPLE_STACK_COPY;	/* a wait carries none */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&s->hdr, s->hdr.size));
	s->flags = 0;
	s->hdr.size += 8;		/* not exactly stacks and wait */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&s->hdr, sizeof(buf)));
	s->hdr.size -= 8;
	ASSERT_EQ(0, fxtprof_rec__validate(&s->hdr, s->hdr.size));

	/* Three waits, two of one stack, through a sharing encoder. */
	m.len = 0;
	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	ASSERT_EQ(0, fxt_encoder__share_stacks(enc, true));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	ASSERT_EQ(0, stream_state__sync(&st));
	stream_state__record(&st, &mk_wait(buf, 71, 3, 4, 1000, 1500,
					   FXTPROF_WAIT_SLEEPING, 72)->hdr);
	stream_state__record(&st, &mk_wait(buf, 71, 3, 4, 2000, 4000,
					   FXTPROF_WAIT_BLOCKED, 0)->hdr);
	stream_state__record(&st, &mk_wait(buf, 73, 2, 0, 2500, 2600,
					   FXTPROF_WAIT_PREEMPTED, 0)->hdr);
	EXPECT_EQ(3, st.st.records[FXTPROF_REC_OFFCPU]);
	EXPECT_EQ(0, st.st.encode_errors);
	stream_state__fini(&st);
	fxt_encoder__free(enc);
	ASSERT_EQ(0, check(_metadata, &m));

	p = load(_metadata, &m);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, profile__nr_samples(p));
	ASSERT_EQ(3, profile__nr_waits(p));
	x = profile__wait(p, 0);
	EXPECT_EQ(1000, x->ts);
	EXPECT_EQ(500, x->wait_ns);
	EXPECT_EQ(71, x->tid);
	EXPECT_EQ(1, x->cpu);
	EXPECT_EQ(FXTPROF_WAIT_SLEEPING, x->wait_state);
	EXPECT_EQ(72, x->waker_tid);
	EXPECT_EQ(3, x->nr_kernel);
	EXPECT_EQ(4, x->nr_user);
	EXPECT_EQ(0xffffffff81000020ull, x->ips[2]);
	EXPECT_EQ(0x400300ull, x->ips[6]);
	x = profile__wait(p, 1);
	EXPECT_EQ(2000, x->wait_ns);
	EXPECT_EQ(FXTPROF_WAIT_BLOCKED, x->wait_state);
	EXPECT_EQ(0, x->waker_tid);
	/* One stack, stored once. */
	EXPECT_EQ(profile__wait(p, 0)->ips, x->ips);
	x = profile__wait(p, 2);
	EXPECT_EQ(73, x->tid);
	EXPECT_EQ(FXTPROF_WAIT_PREEMPTED, x->wait_state);
	EXPECT_EQ(2, x->nr_kernel);
	EXPECT_EQ(0, x->nr_user);
	profile__free(p);

	/* Without shared stacks a wait has no way to carry its frames. */
	m.len = 0;
	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	ASSERT_EQ(0, stream_state__sync(&st));
	stream_state__record(&st, &mk_wait(buf, 71, 3, 4, 1000, 1500,
					   FXTPROF_WAIT_SLEEPING, 72)->hdr);
	EXPECT_EQ(1, st.st.encode_errors);
	stream_state__fini(&st);
	fxt_encoder__free(enc);
}

TEST_HARNESS_MAIN

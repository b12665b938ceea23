// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_fxt_encode.c - golden words of every record type we emit, worked
 * out by hand from the FXT specification and cross-checked with an
 * independent reader, plus encoder limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fxt_golden.h"
#include "fxt_test_util.h"

#define CAP 4096
static uint64_t buf[CAP];

#define ASSERT_WORDS(got_n, ...) do {					\
	static const uint64_t exp_[] = { __VA_ARGS__ };			\
	size_t n_ = sizeof(exp_) / sizeof(exp_[0]);			\
	ASSERT_EQ((int)n_, (got_n));					\
	for (size_t i_ = 0; i_ < n_; i_++) {				\
		if (buf[i_] != exp_[i_])				\
			TH_LOG("word %zu: got 0x%016llx want 0x%016llx", \
			       i_, (unsigned long long)buf[i_],		\
			       (unsigned long long)exp_[i_]);		\
		ASSERT_EQ(exp_[i_], buf[i_]);				\
	}								\
} while (0)

TEST(magic)
{
	static const uint8_t le[8] = { 0x10, 0, 0x04, 0x46, 0x78, 0x54, 0x16, 0 };

	ASSERT_WORDS(fxt_enc_magic(buf, CAP), 0x0016547846040010ULL);
	ASSERT_EQ(0, memcmp(buf, le, 8));
	ASSERT_EQ(-ENOSPC, fxt_enc_magic(buf, 0));
}

TEST(provider_info_section_event)
{
	ASSERT_WORDS(fxt_enc_provider_info(buf, CAP, 1, "kprof", 5),
		     0x0050000000110020ULL, 0x000000666f72706bULL);
	ASSERT_WORDS(fxt_enc_provider_section(buf, CAP, 1),
		     0x0000000000120010ULL);
	/* metadata type 3, id 1 at bit 20, event 0 */
	ASSERT_WORDS(fxt_enc_provider_event(buf, CAP, 1,
					    FXT_PROVIDER_EVENT_BUFFER_OVERFLOW),
		     0x0000000000130010ULL);
	ASSERT_WORDS(fxt_enc_provider_info(buf, CAP, 7, "", 0),
		     0x0000000000710010ULL);
	ASSERT_WORDS(fxt_enc_provider_info(buf, CAP, 2, "fxtprof!", 8),
		     0x0080000000210020ULL, 0x21666f7270747866ULL);
}

TEST(provider_info_limits)
{
	char name[300];

	memset(name, 'a', sizeof(name));
	ASSERT_EQ(-E2BIG, fxt_enc_provider_info(buf, CAP, 1, name, 256));
	ASSERT_EQ(33, fxt_enc_provider_info(buf, CAP, 1, name, 255));
	ASSERT_EQ(-EILSEQ, fxt_enc_provider_info(buf, CAP, 1, "\xff", 1));
	ASSERT_EQ(-ENOSPC, fxt_enc_provider_info(buf, 1, 1, "kprof", 5));
	ASSERT_EQ(-EINVAL, fxt_enc_provider_event(buf, CAP, 1, 16));
}

TEST(initialization)
{
	ASSERT_WORDS(fxt_enc_init(buf, CAP, FXT_NS_PER_SEC),
		     0x21ULL, 0x000000003b9aca00ULL);
	ASSERT_EQ(-EINVAL, fxt_enc_init(buf, CAP, 0));
}

TEST(string_record)
{
	ASSERT_WORDS(fxt_enc_string(buf, CAP, 1, "process", 7),
		     0x0000000700010022ULL, 0x00737365636f7270ULL);
	/* exactly 8 bytes: no padding word */
	ASSERT_WORDS(fxt_enc_string(buf, CAP, 0x7fff, "abcdefgh", 8),
		     0x000000087fff0022ULL, 0x6867666564636261ULL);
	/* empty string at an index (as Jane Street's writer does) */
	ASSERT_WORDS(fxt_enc_string(buf, CAP, 5, "", 0), 0x0000000000050012ULL);
	ASSERT_EQ(-EINVAL, fxt_enc_string(buf, CAP, 0, "x", 1));
	ASSERT_EQ(-EINVAL, fxt_enc_string(buf, CAP, 0x8000, "x", 1));
	ASSERT_EQ(-EILSEQ, fxt_enc_string(buf, CAP, 1, "a\xc0\xafz", 4));
}

TEST(string_record_max_len)
{
	static char s[FXT_MAX_STRING_LEN + 1];

	memset(s, 'x', sizeof(s));
	ASSERT_EQ(1 + 4000, fxt_enc_string(buf, CAP, 3, s, FXT_MAX_STRING_LEN));
	ASSERT_EQ(0x00007d0000030000ULL | 0x2 | (4001ULL << 4), buf[0]);
	ASSERT_EQ(-E2BIG, fxt_enc_string(buf, CAP, 3, s, FXT_MAX_STRING_LEN + 1));
}

TEST(thread_record)
{
	ASSERT_WORDS(fxt_enc_thread(buf, CAP, 1, 100, 101),
		     0x0000000000010033ULL, 0x64ULL, 0x65ULL);
	ASSERT_EQ(-EINVAL, fxt_enc_thread(buf, CAP, 0, 100, 101));
}

/* The reference's worked instant event: 11 args, 29 words. */
TEST(instant_event_eleven_args)
{
	static const char val[] = "0123456789abcdef0123456789abcdef"
				  "0123456789abcdef0123456789abcdef"
				  "01234567";	/* 72 bytes: 9 words */
	struct fxt_arg a[11] = {
		{ .name = fxt_sref_index(1), .type = FXT_ARG_INT32, .v.i32 = -1 },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_UINT32, .v.u32 = 7 },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_INT64, .v.i64 = -2 },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_UINT64, .v.u64 = 3 },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_DOUBLE, .v.dbl = 1.5 },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_STRING,
		  .v.str = fxt_sref_index(4) },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_POINTER,
		  .v.ptr = 0xffffffff81000000ULL },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_KOID, .v.koid = 100 },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_BOOL, .v.b = true },
		{ .name = fxt_sref_inline("u64", 3), .type = FXT_ARG_UINT64,
		  .v.u64 = 1ULL << 63 },
		{ .name = fxt_sref_index(1), .type = FXT_ARG_STRING,
		  .v.str = fxt_sref_inline(val, 72) },
	};
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT, .ts = 1000,
		.thread = { .index = 1 },
		.category = fxt_sref_index(2), .name = fxt_sref_index(3),
		.args = a, .nargs = 11,
	};
	int n = fxt_enc_event(buf, CAP, &ev);

	ASSERT_EQ(29, n);
	ASSERT_EQ(0x0003000201b001d4ULL, buf[0]);
	ASSERT_EQ(0x3e8ULL, buf[1]);
	ASSERT_EQ(0xffffffff00010011ULL, buf[2]);		/* int32 -1 */
	ASSERT_EQ(0x0000000700010012ULL, buf[3]);		/* uint32 7 */
	ASSERT_EQ(0x0000000000010023ULL, buf[4]);		/* int64 */
	ASSERT_EQ((uint64_t)-2, buf[5]);
	ASSERT_EQ(0x0000000000010024ULL, buf[6]);		/* uint64 */
	ASSERT_EQ(3ULL, buf[7]);
	ASSERT_EQ(0x0000000000010025ULL, buf[8]);		/* double */
	ASSERT_EQ(0x3ff8000000000000ULL, buf[9]);
	ASSERT_EQ(0x0000000400010016ULL, buf[10]);		/* string idx 4 */
	ASSERT_EQ(0x0000000000010027ULL, buf[11]);		/* pointer */
	ASSERT_EQ(0xffffffff81000000ULL, buf[12]);
	ASSERT_EQ(0x0000000000010028ULL, buf[13]);		/* koid */
	ASSERT_EQ(0x64ULL, buf[14]);
	ASSERT_EQ(0x0000000100010019ULL, buf[15]);		/* bool */
	ASSERT_EQ(0x0000000080030034ULL, buf[16]);		/* worked u64 */
	ASSERT_EQ(0x0000000000343675ULL, buf[17]);
	ASSERT_EQ(0x8000000000000000ULL, buf[18]);
	ASSERT_EQ(0x00008048000100a6ULL, buf[19]);		/* inline str */
	ASSERT_EQ(0x3736353433323130ULL, buf[20]);
	ASSERT_EQ(0x6665646362613938ULL, buf[27]);
	ASSERT_EQ(0x3736353433323130ULL, buf[28]);
}

TEST(instant_event_inline_everything)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT, .ts = 5,
		.thread = fxt_tref_inline(100, 101),
		.category = fxt_sref_inline("cpu", 3),
		.name = fxt_sref_inline("sample", 6),
	};

	ASSERT_WORDS(fxt_enc_event(buf, CAP, &ev),
		     (0x8006ULL << 48) | (0x8003ULL << 32) | (6 << 4) | 4,
		     5ULL, 100ULL, 101ULL, 0x757063ULL, 0x656c706d6173ULL);
}

TEST(arg_worked_koid)
{
	struct fxt_arg a = { .name = fxt_sref_index(1), .type = FXT_ARG_KOID,
			     .v.koid = 100 };
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT, .ts = 1, .thread = { .index = 1 },
		.category = fxt_sref_index(2), .name = fxt_sref_index(3),
		.args = &a, .nargs = 1,
	};

	ASSERT_EQ(4, fxt_enc_event(buf, CAP, &ev));
	ASSERT_EQ(0x0000000000010028ULL, buf[2]);
	ASSERT_EQ(0x64ULL, buf[3]);
}

TEST(counter_event)
{
	struct fxt_arg a = { .name = fxt_sref_index(9), .type = FXT_ARG_UINT64,
			     .v.u64 = 12 };
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER, .ts = 7, .thread = { .index = 2 },
		.category = fxt_sref_index(2), .name = fxt_sref_index(3),
		.args = &a, .nargs = 1, .payload = 42,
	};

	ASSERT_WORDS(fxt_enc_event(buf, CAP, &ev),
		     0x0003000202110054ULL, 7ULL, 0x0000000000090024ULL, 12ULL,
		     42ULL);
}

TEST(event_limits)
{
	struct fxt_arg a[16];
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .ts = 1,
				.thread = { .index = 1 }, .args = a };
	static char big[FXT_MAX_STRING_LEN];

	for (int i = 0; i < 16; i++)
		a[i] = (struct fxt_arg){ .name = fxt_sref_index(1),
					 .type = FXT_ARG_INT32 };
	ev.nargs = 16;
	ASSERT_EQ(-E2BIG, fxt_enc_event(buf, CAP, &ev));
	ev.nargs = 15;
	ASSERT_EQ(17, fxt_enc_event(buf, CAP, &ev));
	a[0].type = FXT_ARG_BLOB;
	ASSERT_EQ(-EINVAL, fxt_enc_event(buf, CAP, &ev));
	a[0].type = 11;
	ASSERT_EQ(-EINVAL, fxt_enc_event(buf, CAP, &ev));
	a[0].type = FXT_ARG_INT32;
	a[0].name = fxt_sref_empty();
	ASSERT_EQ(-EINVAL, fxt_enc_event(buf, CAP, &ev));
	a[0].name = fxt_sref_index(1);
	ev.type = 11;
	ASSERT_EQ(-EINVAL, fxt_enc_event(buf, CAP, &ev));
	ev.type = FXT_EVENT_INSTANT;
	ASSERT_EQ(-ENOSPC, fxt_enc_event(buf, 16, &ev));
	/* two 32000-byte inline strings: 8002+ words > 4095 */
	memset(big, 'q', sizeof(big));
	ev.nargs = 0;
	ev.category = fxt_sref_inline(big, sizeof(big));
	ev.name = fxt_sref_inline(big, sizeof(big));
	ASSERT_EQ(-E2BIG, fxt_enc_event(buf, CAP, &ev));
	ev.name = fxt_sref_inline(big, sizeof(big) + 1);
	ASSERT_EQ(-E2BIG, fxt_enc_event(buf, CAP, &ev));
	ev.name = fxt_sref_inline("\xed\xa0\x80", 3);	/* surrogate */
	ev.category = fxt_sref_empty();
	ASSERT_EQ(-EILSEQ, fxt_enc_event(buf, CAP, &ev));
}

TEST(kernel_objects_jane_street)
{
	struct fxt_arg p = { .name = fxt_sref_index(1), .type = FXT_ARG_KOID,
			     .v.koid = 1 };

	ASSERT_WORDS(fxt_enc_kobj(buf, CAP, FXT_KOBJ_PROCESS, 1,
				  fxt_sref_index(0x66), NULL, 0),
		     0x0000000066010027ULL, 0x1ULL);
	ASSERT_WORDS(fxt_enc_kobj(buf, CAP, FXT_KOBJ_THREAD, 2,
				  fxt_sref_index(0x67), &p, 1),
		     0x0000010067020047ULL, 0x2ULL, 0x0000000000010028ULL,
		     0x1ULL);
}

TEST(writer_thread_name)
{
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 0);

	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, fxt_writer__thread_name(w, 1, 2, "initial-thread", 14));
	/* String(1, "process") then KernelObject with inline name */
	ASSERT_EQ(8 * 8, (int)m.len);
	ASSERT_EQ(0x0000000700010022ULL, word_at(&m, 0));
	ASSERT_EQ(0x000001800e020067ULL, word_at(&m, 2));
	ASSERT_EQ(2ULL, word_at(&m, 3));
	ASSERT_EQ(0, memcmp(m.buf + 32, "initial-thread\0\0", 16));
	ASSERT_EQ(0x0000000000010028ULL, word_at(&m, 6));
	ASSERT_EQ(1ULL, word_at(&m, 7));
	/* second time: "process" is interned, only the kernel object */
	ASSERT_EQ(0, fxt_writer__thread_name(w, 1, 3, "t\xff", 2));
	ASSERT_EQ(8 * 8 + 5 * 8, (int)m.len);
	ASSERT_EQ(0x0000018004020057ULL, word_at(&m, 8));
	ASSERT_EQ(0, memcmp(m.buf + 80, "t\xef\xbf\xbd\0\0\0\0", 8));
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(large_blob_sample)
{
	static const uint64_t pcs[3] = { 0xffffffff81001234ULL, 0x401000,
					 0x402000 };
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 0);

	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, fxt_writer__stack_sample(w, 1000, 100, 101, pcs, 3));
	ASSERT_EQ(9 * 8, (int)m.len);
	/* type 15, 9 words, large type 0, format 0 */
	ASSERT_EQ(0x000000000000009fULL, word_at(&m, 0));
	/* format header: empty cat/name, argc 0, inline thread */
	ASSERT_EQ(0ULL, word_at(&m, 1));
	ASSERT_EQ(1000ULL, word_at(&m, 2));
	ASSERT_EQ(100ULL, word_at(&m, 3));
	ASSERT_EQ(101ULL, word_at(&m, 4));
	ASSERT_EQ(24ULL, word_at(&m, 5));
	ASSERT_EQ(pcs[0], word_at(&m, 6));
	ASSERT_EQ(pcs[2], word_at(&m, 8));
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(large_blob_limits)
{
	static uint64_t pcs[5000];
	struct fxt_tref t = fxt_tref_inline(1, 2);
	struct memsink m = { 0 };
	struct fxt_writer *w = memsink_writer(&m, 0);

	ASSERT_NE(NULL, w);
	/* truncated to FXT_MAX_FRAMES: 6 + 512 words */
	ASSERT_EQ(0, fxt_writer__stack_sample(w, 1, 1, 2, pcs, 5000));
	ASSERT_EQ((6 + FXT_MAX_FRAMES) * 8, m.len);
	/* the generic encoder refuses 4096+ words instead of truncating */
	ASSERT_EQ(-E2BIG, fxt_enc_large_blob(buf, CAP, 1, &t, fxt_sref_empty(),
					     fxt_sref_empty(), NULL, 0, pcs,
					     (4095 - 6 + 1) * 8));
	ASSERT_EQ(4095, fxt_enc_large_blob(buf, CAP, 1, &t, fxt_sref_empty(),
					   fxt_sref_empty(), NULL, 0, pcs,
					   (4095 - 6) * 8));
	/* with category, name and an arg */
	{
		struct fxt_arg a = { .name = fxt_sref_index(1),
				     .type = FXT_ARG_UINT32, .v.u32 = 5 };
		struct fxt_tref ti = { .index = 3 };

		ASSERT_WORDS(fxt_enc_large_blob(buf, CAP, 9, &ti,
						fxt_sref_index(2),
						fxt_sref_inline("stk", 3), &a,
						1, "abc", 3),
			     0x000000000000007fULL,
			     0x0000003180030002ULL,
			     0x6b7473ULL, 9ULL, 0x0000000500010012ULL, 3ULL,
			     0x636261ULL);
	}
	fxt_writer__free(w);
	memsink_free(&m);
}

TEST(utf8_sanitize)
{
	char out[64];
	size_t n;

	ASSERT_TRUE(fxt_utf8_valid("h\xc3\xa9llo \xf0\x9f\x98\x80", 11));
	ASSERT_FALSE(fxt_utf8_valid("\xc0\x80", 2));		/* overlong */
	ASSERT_FALSE(fxt_utf8_valid("\xed\xa0\x80", 3));	/* surrogate */
	ASSERT_FALSE(fxt_utf8_valid("\xf4\x90\x80\x80", 4));	/* > 10FFFF */
	ASSERT_FALSE(fxt_utf8_valid("abcdefgh\xe2\x82", 10));	/* truncated */
	n = fxt_utf8_sanitize(out, sizeof(out), "a\xffz", 3);
	ASSERT_EQ(5, (int)n);
	ASSERT_EQ(0, memcmp(out, "a\xef\xbf\xbdz", 5));
	/* maximal subpart: E2 82 is one bad sequence, then 'x' */
	n = fxt_utf8_sanitize(out, sizeof(out), "\xe2\x82x", 3);
	ASSERT_EQ(4, (int)n);
	ASSERT_EQ(0, memcmp(out, "\xef\xbf\xbdx", 4));
	/* truncates at a character boundary */
	n = fxt_utf8_sanitize(out, 3, "ab\xc3\xa9", 4);
	ASSERT_EQ(2, (int)n);
	n = fxt_utf8_sanitize(out, sizeof(out), "ab\xc3\xa9", 4);
	ASSERT_EQ(4, (int)n);
}

/*
 * In-place sinks: the room reserved is exactly the record, the type is
 * the record's, and the bytes equal the copying path's.  A refused
 * reservation fails the call with -ENOBUFS and leaves the string table
 * as if nothing happened (the string record comes again).
 */
struct place_sink {
	uint64_t room[4096];
	size_t len;		/* committed bytes */
	size_t reserved;	/* outstanding reservation, 0 = none */
	unsigned int types[16];
	int refuse_next;
};

static void *place_reserve(void *ctx, size_t len, unsigned int type)
{
	struct place_sink *p = ctx;

	if (p->reserved || len % 8 || p->len + len > sizeof(p->room))
		return NULL;
	if (p->refuse_next) {
		p->refuse_next = 0;
		return NULL;
	}
	p->types[type & 0xf]++;
	p->reserved = len;
	return (char *)p->room + p->len;
}

static void place_commit(void *ctx)
{
	struct place_sink *p = ctx;

	p->len += p->reserved;
	p->reserved = 0;
}

static void write_some(struct fxt_writer *w)
{
	static const uint64_t pcs[3] = { 0xffffffff81001234ULL, 0x401000,
					 0x402000 };
	struct fxt_tref t = fxt_tref_inline(7, 8);
	struct fxt_sref cat, name;
	struct fxt_arg a = { .type = FXT_ARG_UINT64, .v.u64 = 42 };

	fxt_writer__prologue(w, 1, "fxtprof", FXT_NS_PER_SEC);
	fxt_writer__string_ref(w, "cpu", 3, &cat);
	fxt_writer__string_ref(w, "sample", 6, &name);
	a.name = name;
	fxt_writer__instant(w, 100, &t, cat, name, &a, 1);
	fxt_writer__counter(w, 200, &t, cat, name, &a, 1, 3);
	fxt_writer__thread(w, 1, 7, 8);
	fxt_writer__process_name(w, 7, "proc", 4);
	fxt_writer__thread_name(w, 7, 8, "thr\xff", 4);
	fxt_writer__provider_event(w, 1, FXT_PROVIDER_EVENT_BUFFER_OVERFLOW);
	fxt_writer__stack_sample(w, 300, 7, 8, pcs, 3);
}

TEST(writer_in_place_same_bytes)
{
	static struct place_sink p;
	struct memsink m = { 0 };
	struct fxt_writer *wc = memsink_writer(&m, 0), *wp;
	struct fxt_writer_opts o = {
		.sz = sizeof(o), .reserve = place_reserve,
		.commit = place_commit, .ctx = &p,
	};
	struct fxt_sref ref;

	ASSERT_NE(NULL, wc);
	ASSERT_EQ(0, fxt_writer__new(&o, &wp));
	write_some(wc);
	write_some(wp);
	ASSERT_EQ(m.len, p.len);
	ASSERT_EQ(0, memcmp(m.buf, p.room, m.len));
	ASSERT_EQ(3, p.types[FXT_REC_STRING]);	/* cpu, sample, process */
	ASSERT_EQ(1, p.types[FXT_REC_LARGE]);
	ASSERT_EQ(2, p.types[FXT_REC_KERNEL_OBJ]);

	/* Refused: -ENOBUFS, and the string is not taken as registered. */
	p.refuse_next = 1;
	ASSERT_EQ(-ENOBUFS, fxt_writer__string_ref(wp, "new", 3, &ref));
	ASSERT_EQ(0, p.reserved);
	p.len = 0;
	ASSERT_EQ(0, fxt_writer__string_ref(wp, "new", 3, &ref));
	ASSERT_EQ(16, p.len);
	/* A copying and an in-place sink at once is refused. */
	o.write = memsink_write;
	ASSERT_EQ(-EINVAL, fxt_writer__new(&o, &wp));
	fxt_writer__free(wc);
	memsink_free(&m);
}

TEST_HARNESS_MAIN

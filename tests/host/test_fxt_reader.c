// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_fxt_reader.c - the decoder on malformed input (every case must
 * give a clean -errno with offset and rule, never a crash or a hang), the
 * check rules of fxt-format.md §3/§5 one by one, and the dump/check tools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fxt_test_util.h"

#define HDR(type, words)	((uint64_t)(type) | ((uint64_t)(words) << 4))
#define MAGIC			FXT_MAGIC
/* magic; ProviderInfo(1, "kprof"); ProviderSection(1); Init(1e9) */
#define PROLOGUE		MAGIC, 0x0050000000110020ULL, 0x000000666f72706bULL, \
				0x0000000000120010ULL, 0x21ULL, 1000000000ULL
#define PROLOGUE_BYTES		0x30
/* String(1, "process") */
#define STR_PROCESS		0x0000000700010022ULL, 0x00737365636f7270ULL
/* instant event header: inline thread, empty cat/name, argc, words */
#define EV(words, argc)		(HDR(4, words) | ((uint64_t)(argc) << 20))

struct outcome {
	int ret;
	int records;
	const char *rule;
	uint64_t offset;
	const char *warn_rule;
};

/* Decode everything; stop at the first error. */
static struct outcome decode(const uint64_t *w, size_t nbytes,
			     unsigned int flags)
{
	struct outcome o = { 0 };
	struct fxt_reader *r;
	struct fxt_record rec;
	int ret, guard = 0;

	if (fxt_reader__new(flags, &r))
		abort();
	fxt_reader__feed(r, w, nbytes);
	while ((ret = fxt_reader__next(r, &rec)) > 0) {
		o.records++;
		if (rec.warn_rule && !o.warn_rule)
			o.warn_rule = rec.warn_rule;
		if (++guard > 100000)
			abort();	/* would be a hang */
	}
	if (ret == 0)
		ret = fxt_reader__finish(r);
	o.ret = ret;
	if (ret) {
		o.rule = fxt_reader__error(r)->rule;
		o.offset = fxt_reader__error(r)->offset;
		/* stays failed, does not spin or crash */
		if (fxt_reader__next(r, &rec) != ret)
			abort();
	}
	fxt_reader__free(r);
	return o;
}

#define EXPECT_DECODE_ERR(words, rule_, off_) do {			\
	struct outcome o_ = decode(words, sizeof(words), 0);		\
	ASSERT_EQ(-EPROTO, o_.ret);					\
	if (strcmp(o_.rule, rule_))					\
		TH_LOG("rule %s, expected %s", o_.rule, rule_);		\
	ASSERT_STREQ(rule_, o_.rule);					\
	ASSERT_EQ((uint64_t)(off_), o_.offset);				\
} while (0)

static struct fxt_error check_err;
static char warned[1024];

static void collect_warn(void *ctx, const struct fxt_error *w)
{
	(void)ctx;
	strncat(warned, w->rule, sizeof(warned) - strlen(warned) - 2);
	strcat(warned, " ");
}

static int check(const void *buf, size_t len)
{
	struct fxt_checker *c;
	int ret;

	warned[0] = '\0';
	memset(&check_err, 0, sizeof(check_err));
	if (fxt_checker__new(collect_warn, NULL, &c))
		abort();
	ret = fxt_checker__feed(c, buf, len);
	if (!ret)
		ret = fxt_checker__finish(c);
	check_err = *fxt_checker__error(c);
	fxt_checker__free(c);
	return ret;
}

#define EXPECT_CHECK_ERR(words, rule_, off_) do {			\
	ASSERT_EQ(-EPROTO, check(words, sizeof(words)));		\
	if (strcmp(check_err.rule, rule_))				\
		TH_LOG("rule %s (%s), expected %s", check_err.rule,	\
		       check_err.msg, rule_);				\
	ASSERT_STREQ(rule_, check_err.rule);				\
	ASSERT_EQ((uint64_t)(off_), check_err.offset);			\
} while (0)

/* ---------------------------------------------------------------- */
/* Decoder: malformed input                                          */
/* ---------------------------------------------------------------- */

TEST(truncated_record)
{
	static const uint64_t w[] = { MAGIC, 0x21 };	/* init lacks a word */
	struct outcome o = decode(w, sizeof(w), 0);

	ASSERT_EQ(1, o.records);
	ASSERT_EQ(-EPROTO, o.ret);
	ASSERT_STREQ("record-truncated", o.rule);
	ASSERT_EQ(8u, o.offset);
	/* a stream whose length is not a multiple of 8 */
	o = decode(w, 11, 0);
	ASSERT_STREQ("record-truncated", o.rule);
}

TEST(zero_word)
{
	static const uint64_t w[] = { PROLOGUE, 0, 0x21, 1 };

	EXPECT_DECODE_ERR(w, "record-size-zero", PROLOGUE_BYTES);
}

TEST(size_smaller_than_fields)
{
	/* String record announcing 100 bytes in a 2-word record */
	static const uint64_t s[] = { MAGIC, HDR(2, 2) | (1 << 16) | (100ULL << 32), 0 };
	/* Thread record of 2 words */
	static const uint64_t t[] = { MAGIC, HDR(3, 2) | (1 << 16), 5 };
	/* Counter event without its counter id word */
	static const uint64_t c[] = { PROLOGUE, EV(4, 0) | (1 << 16), 1, 2, 3 };
	/* Provider info whose name does not fit */
	static const uint64_t p[] = { HDR(0, 1) | (1 << 16) | (1 << 20) | (9ULL << 52) };

	EXPECT_DECODE_ERR(s, "record-overrun", 8);
	EXPECT_DECODE_ERR(t, "record-overrun", 8);
	EXPECT_DECODE_ERR(c, "record-overrun", PROLOGUE_BYTES);
	EXPECT_DECODE_ERR(p, "record-overrun", 0);
}

TEST(unknown_types_skipped)
{
	static const uint64_t w[] = {
		PROLOGUE,
		HDR(11, 3), 0xdeadbeef, 0,		/* reserved record type */
		HDR(15, 3) | (5ULL << 36), 1, 2,	/* unknown large type */
		HDR(0, 2) | (9 << 16), 7,		/* unknown metadata */
		HDR(8, 2) | (7ULL << 60), 1,		/* unknown sched type */
		/* event type 12 + args: unknown arg type 13, then int32 */
		EV(8, 2) | (12 << 16), 9, 1, 2,
		HDR(13, 3) | (0x8000ULL << 16) | (0xffffULL << 32), 0, 0,
		HDR(1, 1) | (0x8000ULL << 16),		/* ref 0x8000: "" inline */
		0x21, 1000,
	};
	struct fxt_reader *r;
	struct fxt_record rec;
	int n = 0, ret;

	/* the int32 arg's name is an inline ref of length 0 */
	ASSERT_EQ(0, fxt_reader__new(0, &r));
	ASSERT_EQ(0, fxt_reader__feed(r, w, sizeof(w)));
	while ((ret = fxt_reader__next(r, &rec)) > 0) {
		n++;
		if (rec.type == FXT_REC_EVENT) {
			ASSERT_EQ(12, rec.subtype);
			ASSERT_EQ(2u, rec.nargs);
			ASSERT_EQ(13, rec.args[0].type);
			ASSERT_EQ(3, rec.args[0].size);
			ASSERT_EQ(FXT_ARG_INT32, rec.args[1].type);
		}
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, fxt_reader__finish(r));
	ASSERT_EQ(10, n);
	fxt_reader__free(r);
}

TEST(huge_lengths)
{
	/* inline category of 0x7fff bytes */
	static const uint64_t a[] = { PROLOGUE, EV(4, 0) | (0xffffULL << 32), 1, 2, 3 };
	/* string record of 32767 bytes (limit 32000) */
	static const uint64_t b[] = { MAGIC, HDR(2, 1) | (1 << 16) | (0x7fffULL << 32) };
	/* large record of 2^31 words */
	static const uint64_t c[] = { MAGIC, 15 | (1ULL << 35), 0 };
	/* large blob whose size word is 2^60 */
	static const uint64_t d[] = { PROLOGUE, HDR(15, 6), 0, 1, 2, 3, 1ULL << 60 };
	/* blob argument claiming 4 GiB */
	static const uint64_t e[] = { PROLOGUE, EV(6, 1), 1, 2, 3,
				      HDR(10, 2) | (0x8000ULL << 16) | (0xffffffffULL << 32), 0 };

	EXPECT_DECODE_ERR(a, "string-too-long", PROLOGUE_BYTES);
	EXPECT_DECODE_ERR(b, "string-too-long", 8);
	EXPECT_DECODE_ERR(c, "record-too-large", 8);
	EXPECT_DECODE_ERR(d, "record-overrun", PROLOGUE_BYTES);
	EXPECT_DECODE_ERR(e, "record-overrun", PROLOGUE_BYTES + 32);
}

TEST(bad_utf8)
{
	static const uint64_t w[] = { MAGIC, HDR(2, 2) | (1 << 16) | (2ULL << 32), 0x80c0 };
	static const uint64_t v[] = { PROLOGUE, EV(5, 0) | (0x8002ULL << 48), 1, 2, 3, 0xbfed };
	struct outcome o;

	EXPECT_DECODE_ERR(w, "string-utf8", 8);
	EXPECT_DECODE_ERR(v, "string-utf8", PROLOGUE_BYTES);
	/* lenient: the record comes back with a warning */
	o = decode(w, sizeof(w), FXT_READER_LENIENT);
	ASSERT_EQ(0, o.ret);
	ASSERT_EQ(2, o.records);
	ASSERT_STREQ("string-utf8", o.warn_rule);
}

TEST(unknown_refs)
{
	static const uint64_t s[] = { PROLOGUE, EV(4, 0) | (5ULL << 48), 1, 2, 3 };
	static const uint64_t t[] = { PROLOGUE, EV(2, 0) | (7 << 24), 1 };
	/* index registered in provider 1 is gone after switching to 2 */
	static const uint64_t p[] = {
		PROLOGUE, STR_PROCESS,
		HDR(0, 1) | (1 << 16) | (2 << 20),	/* provider info 2, "" */
		EV(4, 0) | (1ULL << 48), 1, 2, 3,
	};
	struct outcome o;

	EXPECT_DECODE_ERR(s, "string-ref-unknown", PROLOGUE_BYTES);
	EXPECT_DECODE_ERR(t, "thread-ref-unknown", PROLOGUE_BYTES);
	EXPECT_DECODE_ERR(p, "string-ref-unknown", PROLOGUE_BYTES + 24);
	o = decode(s, sizeof(s), FXT_READER_LENIENT);
	ASSERT_EQ(0, o.ret);
	ASSERT_STREQ("string-ref-unknown", o.warn_rule);
}

TEST(arg_sizes)
{
	/* arg size 5 in a record with 2 words left */
	static const uint64_t a[] = { PROLOGUE, EV(6, 1), 1, 2, 3,
				      HDR(1, 5) | (0x8000ULL << 16), 0 };
	/* arg size 0 */
	static const uint64_t b[] = { PROLOGUE, EV(5, 1), 1, 2, 3, HDR(1, 0) };
	/* 2 args announced, 1 present */
	static const uint64_t c[] = { PROLOGUE, EV(5, 2), 1, 2, 3,
				      HDR(1, 1) | (0x8000ULL << 16) };
	/* int64 arg of size 1: value word missing inside the arg */
	static const uint64_t d[] = { PROLOGUE, EV(6, 1), 1, 2, 3,
				      HDR(3, 1) | (0x8000ULL << 16), 0x99 };
	/* arg whose inline name overruns the arg's size */
	static const uint64_t e[] = { PROLOGUE, EV(7, 1), 1, 2, 3,
				      HDR(1, 1) | (0x8010ULL << 16), 0, 0 };

	EXPECT_DECODE_ERR(a, "arg-overrun", PROLOGUE_BYTES + 32);
	EXPECT_DECODE_ERR(b, "arg-size-zero", PROLOGUE_BYTES + 32);
	EXPECT_DECODE_ERR(c, "arg-overrun", PROLOGUE_BYTES + 40);
	EXPECT_DECODE_ERR(d, "record-overrun", PROLOGUE_BYTES + 32);
	EXPECT_DECODE_ERR(e, "record-overrun", PROLOGUE_BYTES + 32);
}

TEST(provider_rules_in_reader)
{
	static const uint64_t sec[] = { MAGIC, HDR(0, 1) | (2 << 16) | (5 << 20) };
	static const uint64_t mag[] = { MAGIC ^ (1ULL << 24) };
	static const uint64_t init0[] = { MAGIC, 0x21, 0 };

	EXPECT_DECODE_ERR(sec, "provider-section-unknown", 8);
	EXPECT_DECODE_ERR(mag, "magic-value", 0);
	EXPECT_DECODE_ERR(init0, "init-zero", 8);
}

TEST(state_tracking)
{
	static const uint64_t w[] = {
		PROLOGUE, STR_PROCESS,
		HDR(3, 3) | (4 << 16), 100, 101,		/* thread #4 */
		EV(2, 0) | (4 << 24) | (1ULL << 48), 55,	/* name "process" */
		HDR(1, 2), 1000,				/* ticks/s 1000 */
		/* re-register index 1 */
		HDR(2, 2) | (1 << 16) | (3ULL << 32), 0x757063,
		EV(2, 0) | (4 << 24) | (1ULL << 48), 56,
	};
	struct fxt_reader *r;
	struct fxt_record rec;
	int64_t ns;

	ASSERT_EQ(0, fxt_reader__new(0, &r));
	ASSERT_EQ(0, fxt_reader__feed(r, w, sizeof(w)));
	for (int i = 0; i < 7; i++)
		ASSERT_EQ(1, fxt_reader__next(r, &rec));
	ASSERT_EQ(FXT_REC_EVENT, rec.type);
	ASSERT_EQ(100u, rec.thread.pid);
	ASSERT_EQ(101u, rec.thread.tid);
	ASSERT_EQ(4, rec.thread.index);
	ASSERT_EQ(7u, rec.event.name.len);
	ASSERT_EQ(0, memcmp("process", rec.event.name.data, 7));
	ASSERT_EQ(1u, fxt_reader__provider_id(r));
	ASSERT_EQ(1000000000u, fxt_reader__ticks_per_sec(r));
	ASSERT_EQ(1, fxt_reader__next(r, &rec));
	ASSERT_EQ(1000u, fxt_reader__ticks_per_sec(r));
	ASSERT_EQ(0, fxt_reader__ticks_to_ns(r, 3, &ns));
	ASSERT_EQ(3000000, ns);
	ASSERT_EQ(-ERANGE, fxt_reader__ticks_to_ns(r, 1ULL << 62, &ns));
	ASSERT_EQ(1, fxt_reader__next(r, &rec));
	ASSERT_EQ(1, fxt_reader__next(r, &rec));
	ASSERT_EQ(0, memcmp("cpu", rec.event.name.data, 3));
	ASSERT_EQ(0, fxt_reader__next(r, &rec));
	fxt_reader__free(r);
}

/* ---------------------------------------------------------------- */
/* check rules                                                       */
/* ---------------------------------------------------------------- */

TEST(check_magic_first)
{
	static const uint64_t w[] = { 0x0000000000120010ULL };

	EXPECT_CHECK_ERR(w, "magic-first", 0);
	ASSERT_EQ(-EPROTO, check(w, 0));
	ASSERT_STREQ("magic-first", check_err.rule);
}

TEST(check_provider_order)
{
	static const uint64_t dup[] = { PROLOGUE, 0x0050000000110020ULL,
					0x000000666f72706bULL };
	static const uint64_t sec[] = { MAGIC, 0x0000000000220010ULL };

	EXPECT_CHECK_ERR(dup, "provider-info-duplicate", PROLOGUE_BYTES);
	EXPECT_CHECK_ERR(sec, "provider-section-unknown", 8);
}

TEST(check_init)
{
	static const uint64_t none[] = { MAGIC, EV(4, 0), 1, 2, 3 };
	static const uint64_t zero[] = { MAGIC, 0x21, 0 };
	/* provider info resets the provider: init needed again */
	static const uint64_t reset[] = { PROLOGUE,
					  HDR(0, 1) | (1 << 16) | (2 << 20),
					  EV(4, 0), 1, 2, 3 };
	static const uint64_t range[] = { MAGIC, 0x21, 1, EV(4, 0),
					  1ULL << 62, 2, 3 };

	EXPECT_CHECK_ERR(none, "init-missing", 8);
	EXPECT_CHECK_ERR(zero, "init-zero", 8);
	EXPECT_CHECK_ERR(reset, "init-missing", PROLOGUE_BYTES + 8);
	EXPECT_CHECK_ERR(range, "timestamp-range", 24);
}

TEST(check_sizes)
{
	static const uint64_t zero[] = { PROLOGUE, 0 };
	static uint64_t big[8 + 4096];
	static const uint64_t p[] = { PROLOGUE };

	EXPECT_CHECK_ERR(zero, "record-size-zero", PROLOGUE_BYTES);
	memcpy(big, p, sizeof(p));
	big[6] = 15 | (4096ULL << 4) | (3ULL << 36);	/* unknown large type */
	ASSERT_EQ(-EPROTO, check(big, (6 + 4096) * 8));
	ASSERT_STREQ("large-record-size", check_err.rule);
	ASSERT_EQ((uint64_t)PROLOGUE_BYTES, check_err.offset);
	big[6] = 15 | (4095ULL << 4) | (3ULL << 36);
	big[6 + 4095] = MAGIC;
	ASSERT_EQ(0, check(big, (6 + 4096) * 8));
	ASSERT_STREQ("large-type-unknown ", warned);
}

TEST(check_args)
{
	static const uint64_t blob[] = { PROLOGUE, STR_PROCESS, EV(6, 1), 1, 2, 3,
					 HDR(10, 2) | (1 << 16) | (3ULL << 32), 0x616263 };
	/* KernelObject(thread) with process: uint64(1) */
	static const uint64_t kobj[] = { PROLOGUE, STR_PROCESS,
					 0x0000010000020047ULL, 2,
					 0x0000000000010024ULL, 1 };
	static const uint64_t kobj_ok[] = { PROLOGUE, STR_PROCESS,
					    0x0000010000020047ULL, 2,
					    0x0000000000010028ULL, 1 };

	EXPECT_CHECK_ERR(blob, "arg-blob", PROLOGUE_BYTES + 16);
	EXPECT_CHECK_ERR(kobj, "kobj-process-koid", PROLOGUE_BYTES + 16);
	ASSERT_EQ(0, check(kobj_ok, sizeof(kobj_ok)));
	ASSERT_STREQ("", warned);
}

TEST(check_tables)
{
	static const uint64_t s[] = { PROLOGUE, EV(4, 0) | (9ULL << 32), 1, 2, 3 };
	static const uint64_t t[] = { PROLOGUE, EV(2, 0) | (9 << 24), 1 };
	static const uint64_t u[] = { PROLOGUE, HDR(2, 2) | (1 << 16) | (1ULL << 32), 0xff };

	EXPECT_CHECK_ERR(s, "string-ref-unknown", PROLOGUE_BYTES);
	EXPECT_CHECK_ERR(t, "thread-ref-unknown", PROLOGUE_BYTES);
	EXPECT_CHECK_ERR(u, "string-utf8", PROLOGUE_BYTES);
}

TEST(check_duration)
{
	static const uint64_t w[] = { PROLOGUE, EV(5, 0) | (4 << 16), 10, 2, 3, 9 };
	static const uint64_t ok[] = { PROLOGUE, EV(5, 0) | (4 << 16), 10, 2, 3, 10 };

	EXPECT_CHECK_ERR(w, "duration-end-before-begin", PROLOGUE_BYTES);
	ASSERT_EQ(0, check(ok, sizeof(ok)));
}

TEST(check_warnings)
{
	static const uint64_t w[] = {
		PROLOGUE,
		HDR(9, 5) | (3 << 16), 6, 1, 2, 0x636261,	/* log */
		HDR(6, 3), 0x1000, 7,				/* uobj: ptr, pid */
		HDR(2, 1),					/* string index 0 */
		HDR(3, 3), 1, 2,				/* thread index 0 */
		EV(6, 1) | (1 << 16), 1, 2, 3,			/* counter, bool arg */
		HDR(9, 1) | (0x8000ULL << 16) | (1ULL << 32), 4,
		HDR(11, 1),					/* reserved type */
	};

	ASSERT_EQ(0, check(w, sizeof(w)));
	ASSERT_STREQ("record-log record-userspace-object string-index-zero "
		     "thread-index-zero arg-name-empty counter-non-numeric "
		     "record-type-unknown ", warned);
}

TEST(check_thread_pid_mismatch)
{
	static const uint64_t w[] = {
		PROLOGUE, STR_PROCESS,
		/* KernelObject(thread 7, {process: koid(5)}) */
		0x0000010000020047ULL, 7, 0x0000000000010028ULL, 5,
		EV(4, 0), 1, 5, 7,		/* same pid: fine */
		EV(4, 0), 2, 6, 7,		/* pid 6: warning */
	};

	ASSERT_EQ(0, check(w, sizeof(w)));
	ASSERT_STREQ("thread-pid-mismatch ", warned);
}

/* ---------------------------------------------------------------- */
/* Tools                                                             */
/* ---------------------------------------------------------------- */

static char *capture(int (*fn)(int, char **), int argc, char **argv,
		     int *rc, int which_fd)
{
	char path[] = "/tmp/fxt-test-out-XXXXXX";
	int fd = mkstemp(path), saved;
	static char out[65536];
	ssize_t n;

	if (fd < 0)
		abort();
	fflush(stdout);
	fflush(stderr);
	saved = dup(which_fd);
	dup2(fd, which_fd);
	*rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, which_fd);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return out;
}

static char *write_tmp(const void *data, size_t len)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/fxt-test-in-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

TEST(tool_dump_text)
{
	struct memsink m = { 0 };
	struct fxt_writer *wr = memsink_writer(&m, 0);
	char *path, *out, *argv[3] = { "dump", NULL, NULL };
	int rc;

	ASSERT_NE(NULL, wr);
	ASSERT_EQ(0, fxt_writer__prologue(wr, 1, "kprof", FXT_NS_PER_SEC));
	ASSERT_EQ(0, fxt_writer__process_name(wr, 1, "init", 4));
	ASSERT_EQ(0, fxt_writer__thread_name(wr, 1, 2, "initial-thread", 14));
	path = write_tmp(m.buf, m.len);
	argv[1] = path;
	out = capture(fxt_dump_main, 2, argv, &rc, 1);
	ASSERT_EQ(0, rc);
	ASSERT_STREQ("Magic(0x0016547846040010)\n"
		     "ProviderInfo(id: 1, name: \"kprof\")\n"
		     "ProviderSection(id: 1)\n"
		     "Initialization(ticks_per_second: 1000000000)\n"
		     "KernelObject(koid: 1, type: process, name: \"init\")\n"
		     "String(index: 1, \"process\")\n"
		     "KernelObject(koid: 2, type: thread, name: \"initial-thread\", {process: koid(1)})\n",
		     out);
	argv[0] = "check";
	out = capture(fxt_check_main, 2, argv, &rc, 1);
	ASSERT_EQ(0, rc);
	ASSERT_EQ(0, strncmp(out, "ok: 7 records, 136 bytes, 0 warnings\n", 37));
	unlink(path);
	fxt_writer__free(wr);
	memsink_free(&m);
}

TEST(tool_check_failure)
{
	static const uint64_t w[] = { PROLOGUE, 0 };
	char *path = write_tmp(w, sizeof(w));
	char *argv[3] = { "check", path, NULL }, *out;
	int rc;

	out = capture(fxt_check_main, 2, argv, &rc, 2);
	ASSERT_EQ(1, rc);
	ASSERT_STREQ("offset 0x30: record-size-zero: record header "
		     "0x0000000000000000 has size 0 (a zero word)\n", out);
	argv[0] = "dump";
	out = capture(fxt_dump_main, 2, argv, &rc, 1);	/* keep TAP clean */
	ASSERT_EQ(1, rc);
	unlink(path);
	argv[1] = "/nonexistent/file.fxt";
	out = capture(fxt_check_main, 2, argv, &rc, 2);
	ASSERT_EQ(2, rc);
	argv[1] = "-x";
	out = capture(fxt_check_main, 2, argv, &rc, 2);
	ASSERT_EQ(2, rc);
}

TEST_HARNESS_MAIN

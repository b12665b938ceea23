// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_report.c - user/cmd/report.c on traces built in memory: names
 * are counted by their bytes and lengths (a category may hold NUL), a
 * trace with more distinct names than the table keeps is still counted
 * exactly, and an empty trace prints.  Built plain and under ASan+UBSan
 * (asan/), where reading past a name is a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "fxt.h"
#include "report.h"

/* report.c's error printer lives in user/cmd/main.c. */
int reader_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err < 0 ? -err : err));
	return err;
}

struct trace {
	uint64_t *w;
	size_t n, cap;
};

static void put(struct trace *t, uint64_t word)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->w = realloc(t->w, t->cap * sizeof(*t->w));
		if (!t->w)
			abort();
	}
	t->w[t->n++] = word;
}

/* Inline bytes, zero-padded to whole words. */
static void put_bytes(struct trace *t, const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = 0;

		memcpy(&w, p + i, len - i < 8 ? len - i : 8);
		put(t, w);
	}
}

/* An instant event with an inline thread, category and name. */
static void put_instant(struct trace *t, const char *cat, size_t clen,
			const char *name, size_t nlen)
{
	uint64_t size = 1 + 1 + 2 + (clen + 7) / 8 + (nlen + 7) / 8;

	put(t, FXT_REC_EVENT | size << 4 | (uint64_t)FXT_EVENT_INSTANT << 16 |
	       (uint64_t)(0x8000 | clen) << 32 |
	       (uint64_t)(0x8000 | nlen) << 48);
	put(t, 1000);		/* timestamp */
	put(t, 1);		/* pid */
	put(t, 2);		/* tid */
	put_bytes(t, cat, clen);
	put_bytes(t, name, nlen);
}

static struct report *report_of(struct __test_metadata *_metadata,
				const struct trace *t)
{
	struct report *rp;

	if (report__new(&rp))
		return NULL;
	/* Odd chunks: records cross every feed. */
	for (size_t off = 0; off < t->n * 8; off += 1000) {
		size_t len = t->n * 8 - off < 1000 ? t->n * 8 - off : 1000;

		EXPECT_EQ(0, report__feed(rp, (char *)t->w + off, len));
	}
	EXPECT_EQ(0, report__finish(rp));
	return rp;
}

TEST(nul_in_category)
{
	static const char cat[] = "cp\0u", name[] = "sam\0ple";
	struct trace t = { 0 };
	struct report *rp;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	put(&t, FXT_MAGIC);
	for (i = 0; i < 5; i++)
		put_instant(&t, cat, 4, name, 7);
	/* A prefix of the same bytes is another name. */
	put_instant(&t, cat, 2, name, 3);
	rp = report_of(_metadata, &t);
	ASSERT_NE(NULL, rp);
	EXPECT_EQ(5, report__event_count(rp, cat, 4, name, 7));
	EXPECT_EQ(1, report__event_count(rp, cat, 2, name, 3));
	EXPECT_EQ(0, report__event_count(rp, cat, 4, name, 3));
	EXPECT_EQ(7, report__records(rp));
	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	report__print(rp, f, "mem", 10);
	fclose(f);
	/* NUL bytes are shown, escaped, not cut. */
	EXPECT_NE(NULL, strstr(text, "cp\\x00u:sam\\x00ple"));
	free(text);
	report__free(rp);
	free(t.w);
}

/* More distinct names than are kept: the first MAX_EVNAMES exactly, the
 * others in "(other names)", and nothing lost. */
TEST(many_distinct_names)
{
	enum { NAMES = 10000, KEPT = 4096 };
	struct trace t = { 0 };
	struct report *rp;
	char name[32];
	int i, pass, len;

	put(&t, FXT_MAGIC);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < NAMES; i++) {
			len = snprintf(name, sizeof(name), "name-%d", i);
			put_instant(&t, "cat", 3, name, (size_t)len);
		}
	rp = report_of(_metadata, &t);
	ASSERT_NE(NULL, rp);
	for (i = 0; i < NAMES; i++) {
		len = snprintf(name, sizeof(name), "name-%d", i);
		ASSERT_EQ(i < KEPT ? 2 : 0,
			  report__event_count(rp, "cat", 3, name, (size_t)len));
	}
	EXPECT_EQ(2 * (NAMES - KEPT), report__events_other(rp));
	EXPECT_EQ(1 + 2 * NAMES, report__records(rp));
	report__free(rp);
	free(t.w);
}

/* No events, no processes: the sorts have nothing to sort (UBSan). */
TEST(empty_trace_prints)
{
	struct trace t = { 0 };
	struct report *rp;
	FILE *f = fopen("/dev/null", "w");

	ASSERT_NE(NULL, f);
	put(&t, FXT_MAGIC);
	rp = report_of(_metadata, &t);
	ASSERT_NE(NULL, rp);
	report__print(rp, f, "mem", 10);
	fclose(f);
	report__free(rp);
	free(t.w);
}

/* A trace cut inside a record: the error says where. */
TEST(truncated_trace_says_where)
{
	struct trace t = { 0 };
	struct report *rp;
	const struct fxt_error *e;

	put(&t, FXT_MAGIC);
	put_instant(&t, "c", 1, "n", 1);
	ASSERT_EQ(0, report__new(&rp));
	EXPECT_EQ(0, report__feed(rp, t.w, t.n * 8 - 4));
	EXPECT_EQ(-EPROTO, report__finish(rp));
	e = report__error(rp);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(8, e->offset);
	report__free(rp);
	free(t.w);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_symbols.c - what the stream carries for symbolization:
 *  - MMAP, KMOD and KSYM records through the state and the FXT encoder,
 *    read back as kernel objects 0x80..0x82 that `fxtprof check` accepts;
 *  - the checker's rules on malformed mapping objects;
 *  - the wall-clock anchor as kernel object 0x83, first in every segment,
 *    and the checker's rules on a malformed one;
 *  - KSYM records once per segment, before the sample that needs them,
 *    and only those a segment's samples need, with the source's lookup
 *    or from the source's own KSYM records;
 *  - replay of mappings and images at a new segment, idle names;
 *  - the sources on this host: the /proc sweep of our own process and its
 *    build id, kallsyms parsing from a made-up root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "encode/fxt_encoder.h"
#include "fxt_profile.h"
#include "fxt_reader.h"
#include "source/elf_build_id.h"
#include "source/kernel_info.h"
#include "source/mmap_rec.h"
#include "source/proc_maps.h"
#include "source/vdso_build_id.h"
#include "state/stream_state.h"
#include "mem_sink.h"

static const uint8_t bid[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	11, 12, 13, 14, 15, 0xff,
};

static void add_mapping(struct stream_state *st, uint32_t pid,
			uint64_t start, uint64_t len, const char *name,
			bool with_bid, uint16_t flags)
{
	union mmap_rec_buf b;
	struct mmap_rec_args a = {
		.pid = pid, .tid = pid, .start = start, .len = len,
		.pgoff = 0x1000, .time_ns = 500, .flags = flags,
		.build_id = with_bid ? bid : NULL, .build_id_size = 20,
		.name = name, .name_len = strlen(name),
	};

	stream_state__record(st, mmap_rec__fill(&b, &a));
}

static void add_kmod(struct stream_state *st, uint64_t start, uint64_t end,
		     const char *name, uint16_t flags)
{
	union {
		struct fxtprof_kmod k;
		uint64_t w[16];
	} b;
	size_t len = strlen(name);

	memset(&b, 0, sizeof(b));
	b.k.hdr.size = (uint32_t)(sizeof(b.k) + ((len + 7) & ~7ul));
	b.k.hdr.type = FXTPROF_REC_KMOD;
	b.k.start = start;
	b.k.end = end;
	b.k.flags = flags | FXTPROF_KMOD_BUILD_ID;
	b.k.build_id_size = 20;
	memcpy(b.k.build_id, bid, 20);
	b.k.name_len = (uint16_t)len;
	memcpy(b.k.name, name, len);
	stream_state__record(st, &b.k.hdr);
}

/* Kernel text: "f<n>" at 0xffff0000 + 0x100 n, 0x100 bytes each. */
static int fake_lookup(void *ctx, uint64_t ip, struct stream_ksym *out)
{
	static char name[16];

	(void)ctx;
	if (ip < 0xffff0000ull || ip >= 0xffff0000ull + 0x10000)
		return 0;
	out->addr = ip & ~0xffull;
	out->size = 0x100;
	snprintf(name, sizeof(name), "f%u",
		 (unsigned int)((ip - 0xffff0000ull) >> 8));
	out->name = name;
	return 1;
}

static void ksample(struct stream_state *st, uint64_t ts, const uint64_t *ips,
		    uint16_t nk)
{
	uint64_t buf[(sizeof(struct fxtprof_sample) + 8 * 8) / 8];
	struct fxtprof_sample *s = (void *)buf;

	memset(buf, 0, sizeof(buf));
	s->hdr.size = (uint32_t)(sizeof(*s) + 8 * nk);
	s->hdr.type = FXTPROF_REC_SAMPLE;
	s->hdr.time_ns = ts;
	s->pid = 7;
	s->tid = 7;
	s->mode = FXTPROF_MODE_KERNEL;
	s->nr_kernel = nk;
	memcpy(s->ips, ips, 8 * nk);
	stream_state__record(st, &s->hdr);
}

static const struct fxt_argv *arg(const struct fxt_record *r, const char *n)
{
	for (unsigned int i = 0; i < r->nargs; i++)
		if (r->args[i].name.len == strlen(n) &&
		    !memcmp(r->args[i].name.data, n, strlen(n)))
			return &r->args[i];
	return NULL;
}

static bool str_is(const struct fxt_str *s, const char *want)
{
	return s->len == strlen(want) && !memcmp(s->data, want, s->len);
}

TEST(encode_symbol_objects_and_check)
{
	static struct mem m;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	static const uint64_t ips[] = { 0xffff0123, 0xffff0456 };
	unsigned int maps = 0, kmods = 0, ksyms = 0, idle = 0;
	struct fxt_encoder *enc;
	struct stream_state st;
	struct fxt_reader *rd;
	struct fxt_record rec;
	struct fxt_error err;
	const struct fxt_argv *a;
	int ret;

	m.len = 0;
	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	stream_state__set_ksym_lookup(&st, fake_lookup, NULL);
	ASSERT_EQ(0, stream_state__sync(&st));
	add_mapping(&st, 42, 0x400000, 0x2000, "/usr/bin/zeta", true,
		    FXTPROF_MMAP_INITIAL);
	add_mapping(&st, 42, 0x7f0000000000, 0x1000, "//anon", false, 0);
	add_kmod(&st, 0xffff0000, 0xffff8000, FXT_PROFILE_KERNEL_NAME,
		 FXTPROF_KMOD_KERNEL);
	ksample(&st, 900, ips, 2);
	ASSERT_EQ(0, st.st.encode_errors);
	ASSERT_EQ(0, fxt_check_buffer(m.buf, m.len, &err)) {
		TH_LOG("%s at %llu: %s", err.rule,
		       (unsigned long long)err.offset, err.msg);
	}

	ASSERT_EQ(0, fxt_reader__new(0, &rd));
	ret = fxt_reader__feed(rd, m.buf, m.len);
	while (!ret && (ret = fxt_reader__next(rd, &rec)) > 0) {
		ret = 0;
		if (rec.type != FXT_REC_KERNEL_OBJ)
			continue;
		if (rec.subtype == FXT_KOBJ_PROCESS && rec.kobj.koid == 0 &&
		    str_is(&rec.kobj.name, "swapper"))
			idle++;
		if (rec.subtype == FXT_KOBJ_MAPPING) {
			maps++;
			ASSERT_EQ(maps, rec.kobj.koid);
			a = arg(&rec, "pid");
			ASSERT_NE(NULL, a);
			ASSERT_EQ(FXT_ARG_UINT32, a->type);
			ASSERT_EQ(42, a->v.u32);
			a = arg(&rec, "pgoff");
			ASSERT_NE(NULL, a);
			ASSERT_EQ(0x1000, a->v.u64);
			a = arg(&rec, "time");
			ASSERT_NE(NULL, a);
			ASSERT_EQ(500, a->v.u64);
			if (maps == 1) {
				ASSERT_TRUE(str_is(&rec.kobj.name,
						   "/usr/bin/zeta"));
				ASSERT_EQ(0x400000, arg(&rec, "start")->v.u64);
				ASSERT_EQ(0x402000, arg(&rec, "end")->v.u64);
				a = arg(&rec, "build_id");
				ASSERT_NE(NULL, a);
				ASSERT_EQ(FXT_ARG_STRING, a->type);
				ASSERT_TRUE(str_is(&a->v.str,
					"deadbeef0102030405060708090a0b0c0d0e0fff"));
				ASSERT_NE(NULL, arg(&rec, "initial"));
				ASSERT_EQ(FXT_ARG_BOOL, arg(&rec, "initial")->type);
			} else {
				ASSERT_TRUE(str_is(&rec.kobj.name, "//anon"));
				ASSERT_EQ(NULL, arg(&rec, "build_id"));
				ASSERT_EQ(NULL, arg(&rec, "initial"));
			}
		} else if (rec.subtype == FXT_KOBJ_KMOD) {
			kmods++;
			ASSERT_EQ(0xffff0000, rec.kobj.koid);
			ASSERT_TRUE(str_is(&rec.kobj.name, "[kernel.kallsyms]"));
			ASSERT_EQ(0xffff8000, arg(&rec, "end")->v.u64);
			ASSERT_NE(NULL, arg(&rec, "kernel"));
			ASSERT_NE(NULL, arg(&rec, "build_id"));
		} else if (rec.subtype == FXT_KOBJ_KSYM) {
			ksyms++;
			ASSERT_EQ(ksyms == 1 ? 0xffff0100 : 0xffff0400,
				  rec.kobj.koid);
			ASSERT_TRUE(str_is(&rec.kobj.name,
					   ksyms == 1 ? "f1" : "f4"));
			a = arg(&rec, "size");
			ASSERT_NE(NULL, a);
			ASSERT_EQ(FXT_ARG_UINT32, a->type);
			ASSERT_EQ(0x100, a->v.u32);
		}
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(2, maps);
	ASSERT_EQ(1, kmods);
	ASSERT_EQ(2, ksyms);
	ASSERT_EQ(1, idle);
	fxt_reader__free(rd);
	stream_state__fini(&st);
	fxt_encoder__free(enc);
}

/* A hand-made mapping object after a valid prologue; checked. */
static const char *check_mapping(bool with_start, uint64_t start,
				 uint64_t end, const char *build_id)
{
	static struct mem m;
	static struct fxt_error err;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	static const char *const names[] = { "pid", "tid", "end", "pgoff",
					     "time", "start", "build_id" };
	struct fxt_arg args[7];
	struct fxt_writer *w;
	unsigned int n = 0, i;

	m.len = 0;
	if (fxt_writer__new(&wo, &w) ||
	    fxt_writer__prologue(w, 1, "t", FXT_NS_PER_SEC))
		return "setup";
	memset(args, 0, sizeof(args));
	for (i = 0; i < 7; i++) {
		if ((i == 5 && !with_start) || (i == 6 && !build_id))
			continue;
		if (fxt_writer__string_ref(w, names[i], strlen(names[i]),
					   &args[n].name))
			return "setup";
		args[n].type = i < 2 ? FXT_ARG_UINT32 : FXT_ARG_UINT64;
		args[n].v.u64 = i == 2 ? end : i == 5 ? start : 1;
		if (i < 2)
			args[n].v.u32 = 1;
		if (i == 6) {
			args[n].type = FXT_ARG_STRING;
			args[n].v.str = fxt_sref_inline(build_id,
							strlen(build_id));
		}
		n++;
	}
	if (fxt_writer__kobj(w, FXT_KOBJ_MAPPING, 1,
			     fxt_sref_inline("/bin/x", 6), args, n))
		return "setup";
	fxt_writer__free(w);
	if (!fxt_check_buffer(m.buf, m.len, &err))
		return "ok";
	return err.rule;
}

TEST(check_rejects_malformed_mappings)
{
	ASSERT_STREQ("ok", check_mapping(true, 0x1000, 0x2000, "00ff"));
	ASSERT_STREQ("ok", check_mapping(true, 0x1000, 0x2000, NULL));
	ASSERT_STREQ("profile-arg-missing",
		     check_mapping(false, 0, 0x2000, NULL));
	ASSERT_STREQ("profile-range",
		     check_mapping(true, 0x3000, 0x2000, NULL));
	ASSERT_STREQ("profile-range",
		     check_mapping(true, 0x2000, 0x2000, NULL));
	ASSERT_STREQ("profile-build-id",
		     check_mapping(true, 0x1000, 0x2000, "abc"));
	ASSERT_STREQ("profile-build-id",
		     check_mapping(true, 0x1000, 0x2000, "00FF"));
	ASSERT_STREQ("profile-build-id",
		     check_mapping(true, 0x1000, 0x2000,
			"00112233445566778899aabbccddeeff0011223344"));
}

/* A hand-made clock object after a valid prologue; checked. */
static const char *check_clock(bool with_realtime, uint8_t realtime_type)
{
	static struct mem m;
	static struct fxt_error err;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	struct fxt_arg args[2];
	struct fxt_writer *w;

	m.len = 0;
	memset(args, 0, sizeof(args));
	if (fxt_writer__new(&wo, &w) ||
	    fxt_writer__prologue(w, 1, "t", FXT_NS_PER_SEC) ||
	    fxt_writer__string_ref(w, "boot_ns", 7, &args[0].name) ||
	    fxt_writer__string_ref(w, "realtime_ns", 11, &args[1].name))
		return "setup";
	args[0].type = FXT_ARG_UINT64;
	args[0].v.u64 = 5;
	args[1].type = realtime_type;
	args[1].v.u64 = 6;
	if (fxt_writer__kobj(w, FXT_KOBJ_CLOCK, 0,
			     fxt_sref_inline(FXT_PROFILE_CLOCK_NAME, 14), args,
			     with_realtime ? 2 : 1))
		return "setup";
	fxt_writer__free(w);
	if (!fxt_check_buffer(m.buf, m.len, &err))
		return "ok";
	return err.rule;
}

/*
 * With the wall clock anchored, the FXT encoder starts every segment with
 * one clock object, right after the prologue's fixed strings and before
 * any name: its first two arguments are the anchor, the next three the
 * machine (uname's nodename, release, machine), and the stream checks.
 */
TEST(wall_clock_object_begins_every_segment)
{
	static struct mem m;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	unsigned int clocks = 0, kobjs_before = 0;
	uint64_t boot = 0, real = 0;
	struct utsname u;
	struct fxt_str v;
	size_t first;
	struct fxt_encoder *enc;
	struct stream_state st;
	struct fxt_reader *rd;
	struct fxt_record rec;
	struct fxt_error err;
	int ret;

	m.len = 0;
	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	stream_state__anchor_wall_clock(&st);
	ASSERT_EQ(0, stream_state__sync(&st));
	first = m.len;
	/*
	 * A second segment, as a reconnection or a new chunk begins one: a
	 * stream of its own, so each is checked alone.
	 */
	st.st.segments = 0;
	ASSERT_EQ(0, stream_state__sync(&st));
	ASSERT_EQ(0, st.st.encode_errors);
	ASSERT_EQ(0, fxt_check_buffer(m.buf, first, &err)) {
		TH_LOG("%s at %llu: %s", err.rule,
		       (unsigned long long)err.offset, err.msg);
	}
	ASSERT_EQ(0, fxt_check_buffer(m.buf + first, m.len - first, &err)) {
		TH_LOG("%s at %llu: %s", err.rule,
		       (unsigned long long)err.offset, err.msg);
	}
	ASSERT_EQ(0, fxt_reader__new(0, &rd));
	ret = fxt_reader__feed(rd, m.buf, m.len);
	ASSERT_EQ(0, ret);
	while ((ret = fxt_reader__next(rd, &rec)) == 1) {
		if (rec.type != FXT_REC_KERNEL_OBJ)
			continue;
		if (rec.subtype != FXT_KOBJ_CLOCK) {
			kobjs_before += !clocks;
			continue;
		}
		clocks++;
		EXPECT_EQ(0, rec.kobj.koid);
		ASSERT_EQ(5, rec.nargs);
		EXPECT_EQ(FXT_ARG_UINT64, rec.args[0].type);
		EXPECT_EQ(FXT_ARG_UINT64, rec.args[1].type);
		ASSERT_EQ(0, uname(&u));
		ASSERT_TRUE(fxt_record__arg_str(&rec, FXT_PROFILE_ARG_HOST, &v));
		EXPECT_EQ(strlen(u.nodename), v.len);
		EXPECT_EQ(0, memcmp(u.nodename, v.data, v.len));
		ASSERT_TRUE(fxt_record__arg_str(&rec,
				FXT_PROFILE_ARG_KERNEL_RELEASE, &v));
		EXPECT_EQ(strlen(u.release), v.len);
		EXPECT_EQ(0, memcmp(u.release, v.data, v.len));
		ASSERT_TRUE(fxt_record__arg_str(&rec, FXT_PROFILE_ARG_ARCH, &v));
		EXPECT_EQ(strlen(u.machine), v.len);
		EXPECT_EQ(0, memcmp(u.machine, v.data, v.len));
		boot = rec.args[0].v.u64;
		real = rec.args[1].v.u64;
	}
	ASSERT_EQ(0, ret);
	EXPECT_EQ(2, clocks);
	EXPECT_EQ(0, kobjs_before);
	EXPECT_EQ(st.wall_clock.boot_ns, boot);
	EXPECT_EQ(st.wall_clock.realtime_ns, real);
	fxt_reader__free(rd);
	stream_state__fini(&st);
	fxt_encoder__free(enc);
}

TEST(check_rejects_malformed_clocks)
{
	ASSERT_STREQ("ok", check_clock(true, FXT_ARG_UINT64));
	ASSERT_STREQ("profile-arg-missing", check_clock(false, FXT_ARG_UINT64));
	ASSERT_STREQ("profile-arg-type", check_clock(true, FXT_ARG_INT64));
}

/* A stand-in encoder logging the record types and names it gets. */
struct log_enc {
	char log[4096];
	size_t len;
};

static void logf_(struct log_enc *l, const char *s)
{
	size_t n = strlen(s);

	if (l->len + n + 1 < sizeof(l->log)) {
		memcpy(l->log + l->len, s, n);
		l->len += n;
		l->log[l->len++] = ' ';
		l->log[l->len] = 0;
	}
}

static int log_begin(void *ctx)
{
	logf_(ctx, "|");
	return 0;
}

static int log_record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	char b[64];

	switch (rec->type) {
	case FXTPROF_REC_SAMPLE:
		snprintf(b, sizeof(b), "S%llu",
			 (unsigned long long)rec->time_ns);
		break;
	case FXTPROF_REC_KSYM:
		snprintf(b, sizeof(b), "K:%.*s",
			 ((const struct fxtprof_ksym *)rec)->name_len,
			 ((const struct fxtprof_ksym *)rec)->name);
		break;
	case FXTPROF_REC_MMAP:
		snprintf(b, sizeof(b), "M%u:%llx",
			 ((const struct fxtprof_mmap *)rec)->pid,
			 (unsigned long long)
			 ((const struct fxtprof_mmap *)rec)->start);
		break;
	case FXTPROF_REC_KMOD:
		snprintf(b, sizeof(b), "I:%.*s",
			 ((const struct fxtprof_kmod *)rec)->name_len,
			 ((const struct fxtprof_kmod *)rec)->name);
		break;
	default:
		snprintf(b, sizeof(b), "R%u", rec->type);
	}
	logf_(ctx, b);
	return 0;
}

static int log_pname(void *ctx, uint32_t pid, const char *comm)
{
	char b[64];

	snprintf(b, sizeof(b), "P%u:%s", pid, comm);
	logf_(ctx, b);
	return 0;
}

static int log_tname(void *ctx, uint32_t pid, uint32_t tid, const char *c)
{
	char b[64];

	snprintf(b, sizeof(b), "T%u/%u:%s", pid, tid, c);
	logf_(ctx, b);
	return 0;
}

static int log_lost(void *ctx, uint64_t ts, uint64_t r, uint64_t b)
{
	(void)ctx; (void)ts; (void)r; (void)b;
	return 0;
}

static int log_errors(void *ctx, uint64_t ts, uint64_t r, int e)
{
	(void)ctx; (void)ts; (void)r; (void)e;
	return 0;
}

static int log_final(void *ctx, uint64_t ts, const struct fxtprof_stats *t)
{
	(void)ctx; (void)ts; (void)t;
	return 0;
}

static int log_clock(void *ctx, uint64_t boot_ns, uint64_t realtime_ns)
{
	(void)ctx; (void)boot_ns; (void)realtime_ns;
	return 0;
}

static const struct encoder_ops log_ops = {
	.begin_segment = log_begin, .wall_clock = log_clock,
	.record = log_record, .process_name = log_pname,
	.thread_name = log_tname,
	.kernel_lost = log_lost, .output_gap = log_lost,
	.encode_errors = log_errors, .final_stats = log_final,
};

/* What a reconnection does: the sink asks for a segment. */
static void new_segment(struct stream_state *st)
{
	st->sink = NULL;
	st->st.segments = 0;
	stream_state__sync(st);
}

TEST(ksym_once_per_segment_before_its_sample)
{
	static struct log_enc l;
	struct encoder enc = { .ops = &log_ops, .ctx = &l };
	static const uint64_t a[] = { 0xffff0110, 0xffff0220, 0x1234 };
	static const uint64_t b[] = { 0xffff01f0, 0xffff0330 };
	struct stream_state st;

	stream_state__init(&st, enc, NULL);
	stream_state__set_ksym_lookup(&st, fake_lookup, NULL);
	stream_state__sync(&st);
	ksample(&st, 1, a, 3);		/* f1, f2; 0x1234 is no symbol */
	ksample(&st, 2, b, 2);		/* f1 again, f3 new */
	ksample(&st, 3, a, 2);		/* nothing new */
	ASSERT_STREQ("| P0:swapper T0/0:swapper K:f1 K:f2 S1 K:f3 S2 S3 ",
		     l.log);
	ASSERT_EQ(3, st.st.ksyms);
	ASSERT_EQ(1, st.st.ksym_misses);

	/*
	 * A new segment replays none of them: its samples bring the ones
	 * they need, from the table, and only once.
	 */
	l.len = 0;
	l.log[0] = 0;
	new_segment(&st);
	ksample(&st, 4, b, 2);
	ksample(&st, 5, b, 2);
	ASSERT_STREQ("| P0:swapper T0/0:swapper K:f1 K:f3 S4 S5 ", l.log);
	ASSERT_EQ(3, st.st.ksyms);
	ASSERT_EQ(5, st.st.records[FXTPROF_REC_KSYM]);
	stream_state__fini(&st);
}

static int no_lookup(void *ctx, uint64_t ip, struct stream_ksym *out)
{
	(void)ctx; (void)ip; (void)out;
	abort();	/* the table knows every function asked again */
}

static void add_ksym(struct stream_state *st, uint64_t addr, uint32_t size,
		     const char *name)
{
	union {
		struct fxtprof_ksym k;
		uint64_t w[8];
	} b;
	size_t len = strlen(name);

	memset(&b, 0, sizeof(b));
	b.k.hdr.size = (uint32_t)(sizeof(b.k) + ((len + 7) & ~7ul));
	b.k.hdr.type = FXTPROF_REC_KSYM;
	b.k.addr = addr;
	b.k.size = size;
	b.k.name_len = (uint16_t)len;
	memcpy(b.k.name, name, len);
	stream_state__record(st, &b.k.hdr);
}

TEST(ksyms_of_the_source_are_written_where_samples_need_them)
{
	static struct log_enc l;
	struct encoder enc = { .ops = &log_ops, .ctx = &l };
	static const uint64_t a[] = { 0xffff0310, 0xffff0120, 0xffff0500 };
	static const uint64_t b[] = { 0xffff02ff, 0xffff0300 };
	struct stream_state st;

	/* No lookup: the source brings its symbols, out of order. */
	stream_state__init(&st, enc, NULL);
	stream_state__sync(&st);
	add_ksym(&st, 0xffff0300, 0x100, "g3");
	add_ksym(&st, 0xffff0100, 0x100, "g1");
	add_ksym(&st, 0xffff0200, 0x100, "g2");
	add_ksym(&st, 0xffff0100, 0x100, "g1");	/* again: kept once */
	ksample(&st, 1, a, 3);	/* all written in this segment; 0x500 none */
	ASSERT_STREQ("| P0:swapper T0/0:swapper K:g3 K:g1 K:g2 K:g1 S1 ",
		     l.log);
	ASSERT_EQ(3, st.syms.nksyms);
	ASSERT_EQ(0, st.st.ksym_misses);

	l.len = 0;
	l.log[0] = 0;
	new_segment(&st);
	ksample(&st, 2, b, 2);	/* the last byte of g2, the first of g3 */
	ksample(&st, 3, a, 3);
	ASSERT_STREQ("| P0:swapper T0/0:swapper K:g2 K:g3 S2 K:g1 S3 ", l.log);

	/* With a lookup, known functions never reach it. */
	stream_state__set_ksym_lookup(&st, no_lookup, NULL);
	l.len = 0;
	l.log[0] = 0;
	new_segment(&st);
	ksample(&st, 4, b, 2);
	ASSERT_STREQ("| P0:swapper T0/0:swapper K:g2 K:g3 S4 ", l.log);
	stream_state__fini(&st);
}

TEST(segment_replays_mappings_and_images_not_symbols)
{
	static struct log_enc l;
	struct encoder enc = { .ops = &log_ops, .ctx = &l };
	static const uint64_t a[] = { 0xffff0110 };
	struct stream_state st;
	struct fxtprof_exit x = {
		.hdr = { .size = sizeof(x), .type = FXTPROF_REC_EXIT },
		.pid = 30, .tid = 30, .flags = FXTPROF_EXIT_GROUP_DEAD,
	};
	struct fxtprof_fork f = {
		.hdr = { .size = sizeof(f), .type = FXTPROF_REC_FORK },
		.parent_pid = 20, .parent_tid = 20,
		.child_pid = 40, .child_tid = 40, .comm = "kid",
	};

	stream_state__init(&st, enc, NULL);
	stream_state__set_ksym_lookup(&st, fake_lookup, NULL);
	stream_state__sync(&st);
	add_kmod(&st, 0xffff0000, 0xffff8000, "[kernel.kallsyms]",
		 FXTPROF_KMOD_KERNEL);
	add_mapping(&st, 20, 0x1000, 0x1000, "/a", true, 0);
	add_mapping(&st, 20, 0x3000, 0x1000, "/b", true, 0);
	/* Overlaps /a: replaces it. */
	add_mapping(&st, 20, 0x1800, 0x1000, "/c", true, 0);
	add_mapping(&st, 30, 0x5000, 0x1000, "/d", true, 0);
	stream_state__record(&st, &x.hdr);	/* 30 is gone */
	stream_state__record(&st, &f.hdr);	/* 40 has 20's mappings */
	ksample(&st, 9, a, 1);

	l.len = 0;
	l.log[0] = 0;
	new_segment(&st);
	/* Order within a process's mappings is not promised: check sets. */
	ASSERT_EQ(0, strncmp(l.log, "| P0:swapper T0/0:swapper P40:kid "
			     "T40/40:kid I:[kernel.kallsyms] ", 58));
	ASSERT_NE(NULL, strstr(l.log, "M20:3000 "));
	ASSERT_NE(NULL, strstr(l.log, "M20:1800 "));
	ASSERT_NE(NULL, strstr(l.log, "M40:3000 "));
	ASSERT_NE(NULL, strstr(l.log, "M40:1800 "));
	ASSERT_EQ(NULL, strstr(l.log, "M20:1000 "));
	ASSERT_EQ(NULL, strstr(l.log, "M30:"));
	ASSERT_EQ(4, st.syms.nmaps);
	/* No kernel symbol until a sample of this segment needs one. */
	ASSERT_EQ(NULL, strstr(l.log, "K:"));
	ksample(&st, 10, a, 1);
	ASSERT_NE(NULL, strstr(strrchr(l.log, 'M'), "K:f1 S10 "));
	stream_state__fini(&st);
}

/*
 * The rings are drained one CPU after another: a child's exit can be
 * handled before its fork, its mapping or its rename.  Those are still
 * written, but not remembered, so that no segment replays a process that
 * is gone and no table keeps it; a pid used again after the exit is.
 */
TEST(records_behind_an_exit_are_not_remembered)
{
	static struct log_enc l;
	struct encoder enc = { .ops = &log_ops, .ctx = &l };
	struct stream_state st;
	struct fxtprof_exit x = {
		.hdr = { .size = sizeof(x), .type = FXTPROF_REC_EXIT,
			 .time_ns = 1000 },
		.pid = 50, .tid = 50, .flags = FXTPROF_EXIT_GROUP_DEAD,
	};
	struct fxtprof_fork f = {
		.hdr = { .size = sizeof(f), .type = FXTPROF_REC_FORK,
			 .time_ns = 400 },
		.parent_pid = 20, .parent_tid = 20,
		.child_pid = 50, .child_tid = 50, .comm = "gone",
	};
	struct fxtprof_rename r = {
		.hdr = { .size = sizeof(r), .type = FXTPROF_REC_RENAME,
			 .time_ns = 600 },
		.pid = 50, .tid = 50, .comm = "gone2",
	};
	size_t names_before;

	stream_state__init(&st, enc, NULL);
	stream_state__sync(&st);
	add_mapping(&st, 20, 0x1000, 0x1000, "/a", true, 0);
	stream_state__record(&st, &x.hdr);
	names_before = st.names.threads.len + st.names.processes.len;
	/* All of 50's, older than its exit (the mapping's time is 500). */
	stream_state__record(&st, &f.hdr);
	add_mapping(&st, 50, 0x3000, 0x1000, "/b", true, 0);
	stream_state__record(&st, &r.hdr);
	EXPECT_EQ(1, st.syms.nmaps);
	EXPECT_EQ(names_before, st.names.threads.len + st.names.processes.len);
	/* Written all the same. */
	EXPECT_NE(NULL, strstr(l.log, "T50/50:gone2"));

	/* 50 again, forked after that exit: a new process. */
	f.hdr.time_ns = 2000;
	f.comm[0] = 'n';
	stream_state__record(&st, &f.hdr);
	EXPECT_EQ(2, st.syms.nmaps);

	l.len = 0;
	l.log[0] = 0;
	new_segment(&st);
	EXPECT_NE(NULL, strstr(l.log, "P50:none "));
	EXPECT_NE(NULL, strstr(l.log, "M50:1000 "));
	EXPECT_EQ(NULL, strstr(l.log, "gone"));
	EXPECT_EQ(NULL, strstr(l.log, "M50:3000 "));
	stream_state__fini(&st);
}

/* Our own executable is in the sweep, with its file's build id. */
TEST(sweep_finds_own_exe_with_build_id)
{
	struct self {
		char exe[4096];
		uint8_t id[20];
		int id_len, found, with_id;
		uint64_t mappings;
	} self = { 0 };
	struct proc_maps_stats ps = { 0 };
	ssize_t n = readlink("/proc/self/exe", self.exe, sizeof(self.exe) - 1);
	FILE *f;
	char line[8192];
	union mmap_rec_buf *b = malloc(sizeof(*b));

	ASSERT_GT(n, 0);
	self.id_len = elf_build_id__from_path(self.exe, self.id, 20);
	ASSERT_EQ(20, self.id_len);	/* gcc on Debian links with one */
	/* Through the line parser, on our own maps. */
	f = fopen("/proc/self/maps", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (!proc_maps__parse_line("/proc", (uint32_t)getpid(), line,
					   7, b))
			continue;
		self.mappings++;
		ASSERT_EQ(FXTPROF_REC_MMAP, b->m.hdr.type);
		ASSERT_EQ(0, b->m.hdr.size % 8);
		ASSERT_TRUE(b->m.flags & FXTPROF_MMAP_INITIAL);
		if (b->m.filename_len == (size_t)n &&
		    !memcmp(b->m.filename, self.exe, (size_t)n)) {
			self.found++;
			ASSERT_TRUE(b->m.flags & FXTPROF_MMAP_BUILD_ID);
			ASSERT_EQ(20, b->m.build_id_size);
			ASSERT_EQ(0, memcmp(b->m.build_id, self.id, 20));
		}
	}
	fclose(f);
	free(b);
	ASSERT_EQ(1, self.found);	/* one r-xp segment */
	ASSERT_GE(self.mappings, 2);	/* + libc, ld.so or vdso */
	ps.mappings = 0;
	ASSERT_EQ(-ENOENT, proc_maps__sweep("/nonexistent", 1, NULL, NULL,
					    &ps));
}

/*
 * A "[vdso]" mapping gets this process's vDSO's build id, the one its
 * image's notes hold (read here from a copy, as from any file); one of
 * another length (a 32-bit process's vDSO) gets none.
 */
TEST(sweep_gives_the_vdso_its_build_id)
{
	char line[512], copy[] = "/tmp/fxtprof-test-vdso.XXXXXX", other[160];
	unsigned long long start = 0, end = 0, s, e;
	union mmap_rec_buf *b = malloc(sizeof(*b));
	uint8_t id[FXTPROF_BUILD_ID_MAX], got[FXTPROF_BUILD_ID_MAX];
	int fd = mkstemp(copy), id_len, found = 0;
	FILE *f;

	ASSERT_NE(NULL, b);
	ASSERT_LE(0, fd);
	f = fopen("/proc/self/maps", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[vdso]") ||
		    sscanf(line, "%llx-%llx", &s, &e) != 2)
			continue;
		start = s;
		end = e;
		ASSERT_EQ(1, proc_maps__parse_line("/proc", (uint32_t)getpid(),
						   line, 7, b));
		found++;
	}
	fclose(f);
	ASSERT_EQ(1, found);
	ASSERT_EQ((ssize_t)(end - start),
		  write(fd, (void *)(uintptr_t)start, end - start));
	close(fd);
	id_len = elf_build_id__from_path(copy, id, sizeof(id));
	unlink(copy);
	ASSERT_LT(0, id_len);
	ASSERT_TRUE(b->m.flags & FXTPROF_MMAP_BUILD_ID);
	ASSERT_EQ(id_len, b->m.build_id_size);
	ASSERT_EQ(0, memcmp(b->m.build_id, id, id_len));

	ASSERT_EQ(-ERANGE, vdso_build_id__get(end - start + 4096, got,
					      sizeof(got)));
	snprintf(other, sizeof(other), "%llx-%llx r-xp 00000000 00:00 0 [vdso]\n",
		 start, end + 4096);
	ASSERT_EQ(1, proc_maps__parse_line("/proc", 1, other, 7, b));
	EXPECT_FALSE(b->m.flags & FXTPROF_MMAP_BUILD_ID);
	EXPECT_EQ(0, b->m.build_id_size);
	free(b);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(kallsyms_table_from_a_made_up_root)
{
	char root[] = "/tmp/fxtprof-ksyms-XXXXXX", p[256];
	struct kernel_info ki;
	const struct ksym_entry *e;

	ASSERT_NE(NULL, mkdtemp(root));
	snprintf(p, sizeof(p), "%s/proc", root);
	ASSERT_EQ(0, mkdir(p, 0700));
	snprintf(p, sizeof(p), "%s/proc/modules", root);
	write_file(p, "mymod 8192 0 - Live 0xffffffffc0000000 (O)\n");
	snprintf(p, sizeof(p), "%s/proc/kallsyms", root);
	write_file(p,
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t alpha\n"
		"ffffffff81000180 W weak_text\n"
		"ffffffff81000200 T beta\n"
		"ffffffff81002000 D some_data\n"
		"ffffffff81003000 T _etext\n"
		"ffffffff82000000 W weak_data\n"
		"ffffffffc0000010 t mod_fn\t[mymod]\n"
		"ffffffffc0000100 T mod_fn2\t[mymod]\n");
	ASSERT_EQ(0, kernel_info__load(&ki, root, true));
	ASSERT_FALSE(ki.restricted);
	ASSERT_EQ(0xffffffff81000000ull, ki.stext);
	ASSERT_EQ(0xffffffff81003000ull, ki.etext);
	ASSERT_EQ(1, ki.nmods);
	e = kernel_info__lookup(&ki, 0xffffffff81000150ull);
	ASSERT_NE(NULL, e);
	ASSERT_STREQ("alpha", kernel_info__name(&ki, e));
	ASSERT_EQ(0x80, e->size);
	e = kernel_info__lookup(&ki, 0xffffffff81000190ull);
	ASSERT_STREQ("weak_text", kernel_info__name(&ki, e));
	/* beta runs to _etext, not to the data beyond. */
	e = kernel_info__lookup(&ki, 0xffffffff81002fffull);
	ASSERT_NE(NULL, e);
	ASSERT_STREQ("beta", kernel_info__name(&ki, e));
	ASSERT_EQ(0x2e00, e->size);
	ASSERT_EQ(NULL, kernel_info__lookup(&ki, 0xffffffff82000000ull));
	e = kernel_info__lookup(&ki, 0xffffffffc0000020ull);
	ASSERT_STREQ("mod_fn [mymod]", kernel_info__name(&ki, e));
	/* The module's last symbol ends with the module. */
	e = kernel_info__lookup(&ki, 0xffffffffc0001fffull);
	ASSERT_STREQ("mod_fn2 [mymod]", kernel_info__name(&ki, e));
	ASSERT_EQ(0x2000 - 0x100, e->size);
	ASSERT_EQ(NULL, kernel_info__lookup(&ki, 0xffffffffc0002000ull));
	ASSERT_EQ(NULL, kernel_info__lookup(&ki, 0x1000));
	kernel_info__fini(&ki);

	/* Images only (the module names the symbols): no table is kept. */
	ASSERT_EQ(0, kernel_info__load(&ki, root, false));
	ASSERT_FALSE(ki.restricted);
	ASSERT_EQ(0xffffffff81000000ull, ki.stext);
	ASSERT_EQ(0xffffffff81003000ull, ki.etext);
	ASSERT_EQ(1, ki.nmods);
	ASSERT_EQ(0, ki.nsyms);
	ASSERT_EQ(NULL, kernel_info__lookup(&ki, 0xffffffff81000150ull));
	ASSERT_EQ(ki.nmods * sizeof(*ki.mods), kernel_info__bytes(&ki));
	kernel_info__fini(&ki);

	/* kptr_restrict: zeros everywhere, an empty table, said so. */
	write_file(p, "0000000000000000 T _stext\n0000000000000000 t alpha\n");
	ASSERT_EQ(0, kernel_info__load(&ki, root, true));
	ASSERT_TRUE(ki.restricted);
	ASSERT_EQ(0, ki.nsyms);
	kernel_info__fini(&ki);
	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	ASSERT_EQ(0, system(p));
}

TEST(build_id_from_notes)
{
	/* A "Linux" note, then the GNU build id, as /sys/kernel/notes has. */
	static const unsigned char notes[] = {
		6, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 'L', 'i', 'n', 'u', 'x',
		0, 0, 0, 9, 9, 9, 9,
		4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		0xab, 0xcd, 0xef, 0x01,
	};
	uint8_t id[20];

	ASSERT_EQ(4, elf_build_id__from_notes(notes, sizeof(notes), id, 20));
	ASSERT_EQ(0xab, id[0]);
	ASSERT_EQ(0x01, id[3]);
	ASSERT_EQ(-ENOENT, elf_build_id__from_notes(notes, 24, id, 20));
	ASSERT_EQ(-EINVAL, elf_build_id__from_notes(notes, sizeof(notes) - 2,
						    id, 20));
	ASSERT_EQ(-ENOEXEC, elf_build_id__from_path("/proc/self/maps", id,
						    20));
}

TEST_HARNESS_MAIN

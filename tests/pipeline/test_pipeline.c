// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pipeline.c - the pipeline's parts one at a time:
 *  - record_queue: boundaries, wrapping, partial sends, drops, and the
 *    pages a backlog touched given back;
 *  - the FXT encoder's sample path against the FXT reader and checker,
 *    and a partial user stack's fourth argument;
 *  - the stream state with a stand-in encoder: segments, and encoder
 *    errors counted apart from output drops, then announced;
 *  - the sink's first send straight from the caller's memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "encode/fxt_encoder.h"
#include "fxt_reader.h"
#include "fxt_profile.h"
#include "sink/record_queue.h"
#include "sink/sink.h"
#include "sink/sink_core.h"	/* to stand in for a reconnection */
#include "state/stream_state.h"
#include "transport/evloop.h"
#include "mem_sink.h"
#include "mem_readback.h"

/* ------------------------------------------------------------------ */
/* record_queue                                                        */
/* ------------------------------------------------------------------ */

static void put(struct __test_metadata *_metadata, struct record_queue *q,
		size_t len, unsigned int kind, unsigned char fill)
{
	unsigned char *p = record_queue__reserve(q, len, kind);

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, (uintptr_t)p % 8);
	memset(p, fill, len);
	record_queue__commit(q);
}

TEST(queue_boundaries_wrap_and_drop)
{
	struct record_queue q;
	const void *p;
	unsigned int kind;
	size_t len, unsent;

	ASSERT_EQ(0, record_queue__init(&q, 4096));
	ASSERT_EQ(NULL, record_queue__reserve(&q, 12, 1));	/* not 8n */
	ASSERT_EQ(NULL, record_queue__reserve(&q, 4104, 1));	/* > cap */
	put(_metadata, &q, 1000, 1, 'a');
	put(_metadata, &q, 2000, 2, 'b');
	ASSERT_EQ(3000, record_queue__unsent(&q));
	ASSERT_EQ(2, record_queue__records(&q));
	ASSERT_FALSE(record_queue__fits(&q, 1104));	/* 1096 left */

	/* 1500 bytes leave: the first record is done, the second cut. */
	ASSERT_EQ(3000, record_queue__peek(&q, &p));
	ASSERT_EQ(1, record_queue__consume(&q, 1500));
	ASSERT_EQ(1, record_queue__records(&q));
	/* 1500 free at the start, 1096 at the end: 1024 goes at the end. */
	put(_metadata, &q, 1024, 3, 'c');
	/* 72 left at the end: more goes to the start, below head. */
	ASSERT_TRUE(record_queue__fits(&q, 1496));
	ASSERT_FALSE(record_queue__fits(&q, 1504));
	put(_metadata, &q, 1000, 4, 'd');
	ASSERT_TRUE(q.wrapped);
	/* The top run first, then the start. */
	ASSERT_EQ(1500 + 1024, record_queue__peek(&q, &p));
	ASSERT_EQ('b', *(const unsigned char *)p);
	ASSERT_EQ(2, record_queue__consume(&q, 1500 + 1024));
	ASSERT_EQ(1000, record_queue__peek(&q, &p));
	ASSERT_EQ('d', *(const unsigned char *)p);
	ASSERT_EQ(0, record_queue__consume(&q, 8));

	/* Drop the rest: one record, its unsent bytes, its kind. */
	ASSERT_TRUE(record_queue__pop(&q, &len, &kind, &unsent));
	ASSERT_EQ(1000, len);
	ASSERT_EQ(4, kind);
	ASSERT_EQ(992, unsent);
	ASSERT_FALSE(record_queue__pop(&q, &len, &kind, &unsent));
	/* Empty: starts over at 0, the whole queue fits again. */
	ASSERT_EQ(0, record_queue__unsent(&q));
	ASSERT_TRUE(record_queue__fits(&q, 4096));
	put(_metadata, &q, 4096, 5, 'e');
	ASSERT_EQ(q.buf, record_queue__peek(&q, &p) ? p : NULL);
	record_queue__fini(&q);
}

/*
 * A backlog touches the queue's pages; once it has left, the queue keeps
 * RECORD_QUEUE_KEEP of them resident and gives the rest back, and its
 * record FIFO starts over at 0 too, so that a long recording stays on
 * the same first pages.
 */
TEST(queue_gives_back_a_backlogs_pages)
{
	struct record_queue q;
	uint64_t held, resident;
	const void *p;
	size_t n;
	int i;

	ASSERT_EQ(0, record_queue__init(&q, 8 << 20));
	record_queue__memory(&q, &held, &resident);
	EXPECT_GT(held, 8 << 20);
	EXPECT_EQ(0, resident);
	/* A backlog of 4 MiB in 64-byte records: 64 Ki bounds, 512 KiB. */
	for (i = 0; i < 65536; i++)
		put(_metadata, &q, 64, 1, 'x');
	record_queue__memory(&q, &held, &resident);
	EXPECT_GE(resident, (4u << 20) + (512u << 10));
	while ((n = record_queue__peek(&q, &p)))
		record_queue__consume(&q, n);
	ASSERT_EQ(0, record_queue__records(&q));
	ASSERT_EQ(0, q.b_head);
	record_queue__memory(&q, &held, &resident);
	TH_LOG("after the backlog left: %llu bytes resident",
	       (unsigned long long)resident);
	EXPECT_LE(resident, 2 * RECORD_QUEUE_KEEP);
	/* A steady stream after it stays on the kept pages. */
	for (i = 0; i < 100000; i++) {
		put(_metadata, &q, 64, 1, 'y');
		n = record_queue__peek(&q, &p);
		ASSERT_EQ(1, record_queue__consume(&q, n));
	}
	record_queue__memory(&q, &held, &resident);
	EXPECT_LE(resident, 2 * RECORD_QUEUE_KEEP);
	record_queue__fini(&q);
}

/* ------------------------------------------------------------------ */
/* The FXT encoder's sample path                                       */
/* ------------------------------------------------------------------ */

static void sample(struct stream_state *st, uint32_t pid, uint8_t mode,
		   uint16_t nk, uint16_t nu)
{
	static uint64_t buf[(sizeof(struct fxtprof_sample) + 8 * 700) / 8];
	struct fxtprof_sample *s = (void *)buf;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->hdr.size = sizeof(*s) + 8 * (nk + nu);
	s->hdr.type = FXTPROF_REC_SAMPLE;
	s->hdr.cpu = 3;
	s->hdr.time_ns = 1000 + pid;
	s->pid = pid;
	s->tid = pid + 1;
	s->mode = mode;
	s->nr_kernel = nk;
	s->nr_user = nu;
	for (i = 0; i < (unsigned int)nk + nu; i++)
		s->ips[i] = 0x1000 * pid + i;
	stream_state__record(st, &s->hdr);
}

TEST(encoder_sample_path)
{
	static struct mem m;
	static const char *const modes[] = { "kernel", "user", "user",
					     "idle", "unknown" };
	static const uint16_t nk[] = { 2, 0, 3, 1, 0 }, nu[] = { 1, 0, 4, 0, 600 };
	static const uint8_t mode[] = { 1, 2, 2, 3, 9 };
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	struct fxt_encoder *enc;
	struct stream_state st;
	struct fxt_reader *rd;
	struct fxt_record rec;
	unsigned int i, events = 0, blobs = 0;
	int ret;

	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	ASSERT_EQ(0, stream_state__sync(&st));
	for (i = 0; i < 5; i++)
		sample(&st, 100 + i, mode[i], nk[i], nu[i]);
	ASSERT_EQ(0, st.st.encode_errors);
	ASSERT_EQ(1, st.st.segments);
	ASSERT_EQ(0, fxt_check_buffer(m.buf, m.len, NULL));

	ASSERT_EQ(0, fxt_reader__new(0, &rd));
	ret = fxt_reader__feed(rd, m.buf, m.len);
	while (!ret && (ret = fxt_reader__next(rd, &rec)) > 0) {
		ret = 0;
		if (rec.type == FXT_REC_EVENT) {
			i = events++;
			ASSERT_EQ(1000 + 100 + i, rec.ts);
			ASSERT_EQ(100 + i, rec.thread.pid);
			ASSERT_EQ(101 + i, rec.thread.tid);
			ASSERT_EQ(3, rec.nargs);
			ASSERT_EQ(3, rec.args[0].v.u32);
			ASSERT_EQ(strlen(modes[i]), rec.args[1].v.str.len);
			ASSERT_EQ(0, memcmp(modes[i], rec.args[1].v.str.data,
					    rec.args[1].v.str.len));
			ASSERT_EQ(nk[i], rec.args[2].v.u32);
		} else if (rec.type == FXT_REC_LARGE) {
			size_t frames = nk[events - 1] + nu[events - 1];

			blobs++;
			if (frames > FXT_MAX_FRAMES)
				frames = FXT_MAX_FRAMES;
			ASSERT_EQ(frames * 8, rec.large.len);
			ASSERT_EQ(0x1000 * (99 + events),
				  ((const uint64_t *)rec.large.data)[0]);
		}
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, fxt_reader__finish(rd));
	ASSERT_EQ(5, events);
	ASSERT_EQ(4, blobs);		/* the frameless sample has none */
	fxt_reader__free(rd);
	stream_state__fini(&st);
	fxt_encoder__free(enc);
}

/*
 * A sample whose user stack stopped short names why in a fourth
 * argument; one that ended whole, or as a frame-pointer chain, or with a
 * value this reader does not know, keeps the three-argument shape.  The
 * strings are pinned at the first partial sample only.  The recording
 * ends with the unwinder's totals.
 */
TEST(encoder_partial_user_stack)
{
	static struct mem m;
	static const uint8_t ends[] = {
		FXTPROF_USTACK_END_COMPLETE, FXTPROF_USTACK_END_DEPTH,
		FXTPROF_USTACK_END_FP_CHAIN, FXTPROF_USTACK_END_FAULT,
		FXTPROF_USTACK_END_MAX, FXTPROF_USTACK_END_BAD_FRAME,
	};
	static const char *const why[] = {
		NULL, "depth", NULL, "fault", NULL, "bad_frame",
	};
	static uint64_t buf[(sizeof(struct fxtprof_sample) + 8 * 4) / 8];
	struct fxtprof_sample *s = (void *)buf;
	struct fxtprof_stats total = { .size = sizeof(total) };
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	const struct fxt_argv *a;
	struct fxt_encoder *enc;
	struct stream_state st;
	struct fxt_reader *rd;
	struct fxt_record rec;
	unsigned int i, events = 0, counters = 0;
	int ret;

	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	ASSERT_EQ(0, stream_state__sync(&st));
	ASSERT_EQ(0, mem_string_index(&m, FXT_PROFILE_ARG_USTACK_END));
	for (i = 0; i < sizeof(ends); i++) {
		memset(buf, 0, sizeof(buf));
		s->hdr.size = sizeof(buf);
		s->hdr.type = FXTPROF_REC_SAMPLE;
		s->hdr.time_ns = 10 + i;
		s->pid = s->tid = 7;
		s->mode = FXTPROF_MODE_USER;
		s->nr_user = 4;
		s->ustack_end = ends[i];
		stream_state__record(&st, &s->hdr);
	}
	/* The recording's end: the unwinder's totals, the ends it saw. */
	total.unwind_table_frames = 40;
	total.unwind_fp_frames = 2;
	total.ustack_ends[FXTPROF_USTACK_END_COMPLETE] = 9;
	total.ustack_ends[FXTPROF_USTACK_END_BUDGET] = 1;
	ASSERT_EQ(0, stream_state__final_stats(&st, 100, &total));
	ASSERT_EQ(0, st.st.encode_errors);
	ASSERT_EQ(0, fxt_check_buffer(m.buf, m.len, NULL));
	ASSERT_NE(0, mem_string_index(&m, FXT_PROFILE_ARG_USTACK_END));

	ASSERT_EQ(0, fxt_reader__new(0, &rd));
	ret = fxt_reader__feed(rd, m.buf, m.len);
	while (!ret && (ret = fxt_reader__next(rd, &rec)) > 0) {
		ret = 0;
		if (fxt_record__is_event(&rec, FXT_PROFILE_CAT_META,
					 FXT_PROFILE_EV_UNWIND)) {
			counters++;
			ASSERT_EQ(5, rec.nargs);
			ASSERT_EQ(40, fxt_record__arg_uint_or0(&rec, "table_frames"));
			ASSERT_EQ(2, fxt_record__arg_uint_or0(&rec, "fp_frames"));
			ASSERT_EQ(0, fxt_record__arg_uint_or0(&rec, "rule_frames"));
			ASSERT_EQ(9, fxt_record__arg_uint_or0(&rec,
							      "ustack_complete"));
			ASSERT_EQ(1, fxt_record__arg_uint_or0(&rec,
							      "ustack_budget"));
			continue;
		}
		if (!fxt_record__is_sample(&rec))
			continue;
		i = events++;
		a = fxt_record__arg(&rec, FXT_PROFILE_ARG_USTACK_END);
		if (!why[i]) {
			ASSERT_EQ(3, rec.nargs);
			ASSERT_EQ(FXT_SAMPLE_EVENT_WORDS, rec.size);
			ASSERT_EQ(NULL, a);
			continue;
		}
		ASSERT_EQ(4, rec.nargs);
		ASSERT_EQ(FXT_SAMPLE_PARTIAL_WORDS, rec.size);
		ASSERT_NE(NULL, a);
		ASSERT_EQ(FXT_ARG_STRING, a->type);
		ASSERT_TRUE(fxt_str__is(&a->v.str, why[i]));
		ASSERT_EQ(ends[i], fxt_profile__ustack_end(&a->v.str));
		ASSERT_EQ(0, fxt_record__arg_uint_or0(&rec,
						      FXT_PROFILE_ARG_KFRAMES));
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, fxt_reader__finish(rd));
	ASSERT_EQ(sizeof(ends), events);
	ASSERT_EQ(1, counters);
	fxt_reader__free(rd);
	stream_state__fini(&st);
	fxt_encoder__free(enc);
}

/* The FXT encoder's notice of encoder errors, as a reader sees it. */
TEST(encoder_error_notice)
{
	static struct mem m;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	static const char name[] = "fxtprof:encode_errors";
	struct fxt_encoder *enc;
	struct stream_state st;
	struct fxt_reader *rd;
	struct fxt_record rec;
	int ret, found = 0;

	m.len = 0;
	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	ASSERT_EQ(0, stream_state__sync(&st));
	st.st.encode_errors = 3;		/* as three failed records leave it */
	st.st.last_encode_error = -E2BIG;
	ASSERT_EQ(0, stream_state__announce_errors(&st, 77));
	ASSERT_EQ(3, st.st.encode_errors_announced);
	ASSERT_EQ(0, fxt_check_buffer(m.buf, m.len, NULL));
	ASSERT_EQ(0, fxt_reader__new(0, &rd));
	ret = fxt_reader__feed(rd, m.buf, m.len);
	while (!ret && (ret = fxt_reader__next(rd, &rec)) > 0) {
		ret = 0;
		if (rec.type != FXT_REC_EVENT ||
		    rec.subtype != FXT_EVENT_COUNTER ||
		    rec.event.name.len != sizeof(name) - 1 ||
		    memcmp(rec.event.name.data, name, sizeof(name) - 1))
			continue;
		found++;
		ASSERT_EQ(77, rec.ts);
		ASSERT_EQ(2, rec.nargs);
		ASSERT_EQ(3, rec.args[0].v.u64);
		ASSERT_EQ(E2BIG, rec.args[1].v.u32);
	}
	ASSERT_EQ(1, found);
	fxt_reader__free(rd);
	stream_state__fini(&st);
	fxt_encoder__free(enc);
}

/* ------------------------------------------------------------------ */
/* The state, with a stand-in encoder                                  */
/* ------------------------------------------------------------------ */

struct fake_enc {
	int segments, records, names, notices;
	int clocks_first;		/* wall_clock() calls right after a begin */
	bool begun;			/* nothing yet since the last begin */
	uint64_t boot_ns, realtime_ns;
	int fail_next;			/* returned by the next record() */
	uint64_t notice_records;
	int notice_err;
	char last_tname[FXTPROF_COMM_LEN];	/* the last thread name */
};

static int fake_begin(void *ctx)
{
	((struct fake_enc *)ctx)->segments++;
	((struct fake_enc *)ctx)->begun = true;
	return 0;
}

static int fake_clock(void *ctx, uint64_t boot_ns, uint64_t realtime_ns)
{
	struct fake_enc *f = ctx;

	f->clocks_first += f->begun;
	f->begun = false;
	f->boot_ns = boot_ns;
	f->realtime_ns = realtime_ns;
	return 0;
}

static int fake_record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct fake_enc *f = ctx;
	int ret = f->fail_next;

	(void)rec;
	f->begun = false;
	f->fail_next = 0;
	f->records++;
	return ret;
}

static int fake_name(void *ctx, uint32_t pid, const char *comm)
{
	(void)pid;
	(void)comm;
	((struct fake_enc *)ctx)->begun = false;
	((struct fake_enc *)ctx)->names++;
	return 0;
}

static int fake_tname(void *ctx, uint32_t pid, uint32_t tid, const char *c)
{
	struct fake_enc *f = ctx;

	(void)tid;
	snprintf(f->last_tname, sizeof(f->last_tname), "%s", c);
	return fake_name(ctx, pid, c);
}

static int fake_lost(void *ctx, uint64_t ts, uint64_t r, uint64_t b)
{
	(void)ctx; (void)ts; (void)r; (void)b;
	return 0;
}

static int fake_errors(void *ctx, uint64_t ts, uint64_t records, int err)
{
	struct fake_enc *f = ctx;

	(void)ts;
	f->notices++;
	f->notice_records = records;
	f->notice_err = err;
	return 0;
}

static int fake_final(void *ctx, uint64_t ts, const struct fxtprof_stats *t)
{
	(void)ctx; (void)ts; (void)t;
	return 0;
}

static const struct encoder_ops fake_ops = {
	.begin_segment = fake_begin, .wall_clock = fake_clock,
	.record = fake_record,
	.process_name = fake_name, .thread_name = fake_tname,
	.kernel_lost = fake_lost, .output_gap = fake_lost,
	.encode_errors = fake_errors, .final_stats = fake_final,
};

static void snapshot(struct stream_state *st, uint32_t pid, uint32_t tid)
{
	struct fxtprof_snapshot s;

	memset(&s, 0, sizeof(s));
	s.hdr.size = sizeof(s);
	s.hdr.type = FXTPROF_REC_SNAPSHOT;
	s.pid = pid;
	s.tid = tid;
	strcpy(s.comm, "t");
	strcpy(s.process_comm, "p");
	stream_state__record(st, &s.hdr);
}

TEST(state_counts_encoder_errors_apart)
{
	struct fake_enc f = { 0 };
	struct encoder enc = { .ops = &fake_ops, .ctx = &f };
	struct stream_state st;
	struct fxtprof_rec_hdr flush = {
		.size = sizeof(flush), .type = FXTPROF_REC_FLUSH,
	};
	struct fxtprof_exit x = {
		.hdr = { .size = sizeof(x), .type = FXTPROF_REC_EXIT },
	};

	stream_state__init(&st, enc, NULL);
	snapshot(&st, 10, 10);		/* process + thread name */
	snapshot(&st, 10, 11);		/* thread name */
	ASSERT_EQ(1, f.segments);	/* begun by the first record */
	ASSERT_EQ(2 + 3, f.names);	/* swapper's two, then these */
	ASSERT_EQ(0, f.records);	/* snapshots are names only */

	/* An output drop is the sink's to count, not an encoder error. */
	f.fail_next = -ENOBUFS;
	x.pid = 10;
	x.tid = 11;
	stream_state__record(&st, &x.hdr);
	ASSERT_EQ(0, st.st.encode_errors);
	/* Anything else is. */
	f.fail_next = -E2BIG;
	ASSERT_EQ(0, stream_state__record(&st, &x.hdr));	/* drains on */
	ASSERT_EQ(1, st.st.encode_errors);
	ASSERT_EQ(-E2BIG, st.st.last_encode_error);
	stream_state__record(&st, &flush);
	ASSERT_EQ(2, f.records);	/* flush reaches no encoder */

	/* Announced once, with the total. */
	ASSERT_EQ(0, stream_state__announce_errors(&st, 5));
	ASSERT_EQ(1, f.notices);
	ASSERT_EQ(1, f.notice_records);
	ASSERT_EQ(-E2BIG, f.notice_err);
	ASSERT_EQ(0, stream_state__announce_errors(&st, 6));
	ASSERT_EQ(1, f.notices);
	ASSERT_EQ(1, st.st.segments);
	stream_state__fini(&st);
}

/* A new segment replays the live names; exits remove them. */
TEST(state_segment_replays_live_names)
{
	struct fake_enc f = { 0 };
	struct encoder enc = { .ops = &fake_ops, .ctx = &f };
	struct sink_opts so = { .max_buffered = 1 << 20 };
	struct stream_state st;
	struct fxtprof_exit x = {
		.hdr = { .size = sizeof(x), .type = FXTPROF_REC_EXIT },
		.pid = 20, .tid = 21,
	};
	struct evloop loop;
	struct sink *s;
	int sv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, evloop__init(&loop, 8));
	ASSERT_EQ(0, sink__open_fd(&s, sv[0], &loop, &so));
	stream_state__init(&st, enc, s);
	ASSERT_TRUE(sink__segment_wanted(s));
	ASSERT_EQ(0, stream_state__sync(&st));
	ASSERT_FALSE(sink__segment_wanted(s));
	ASSERT_EQ(1, f.segments);
	snapshot(&st, 20, 20);
	snapshot(&st, 20, 21);
	snapshot(&st, 30, 30);
	stream_state__record(&st, &x.hdr);	/* 21 is gone */
	f.names = 0;
	/* What a reconnection does: the sink asks, the state answers. */
	s->segment_wanted = true;
	snapshot(&st, 30, 31);
	ASSERT_EQ(2, f.segments);
	/*
	 * Replay: the idle task (process and thread 0, "swapper"),
	 * processes 20, 30 and threads 20, 30; then thread 31.
	 */
	ASSERT_EQ(2 + 5, f.names);
	/* No anchor was asked for: no clock. */
	EXPECT_EQ(0, f.clocks_first);
	stream_state__fini(&st);
	sink__close(s);
	close(sv[1]);
	evloop__fini(&loop);
}

/* A container per process: 40 is in one, 41 exits before it is read. */
struct fake_procs {
	int lookups, infos, exits, jits;
	int64_t last_nspid, exit_nspid;
	uint32_t exit_pid;
	char last_cgroup[32];
};
static struct fake_procs fp;

static int fake_lookup(void *ctx, uint32_t pid, int64_t *nspid, char *cgroup,
		       size_t n)
{
	(void)ctx;
	fp.lookups++;
	if (pid != 40)
		return -ESRCH;
	*nspid = 1;
	snprintf(cgroup, n, "/c/app");
	return 0;
}

static int fake_pinfo(void *ctx, uint32_t pid, const char *comm,
		      int64_t nspid, const char *cgroup)
{
	fp.infos++;
	fp.last_nspid = nspid;
	snprintf(fp.last_cgroup, sizeof(fp.last_cgroup), "%s",
		 cgroup ? cgroup : "");
	return fake_name(ctx, pid, comm);
}

static int fake_jit(void *ctx, uint32_t pid, uint64_t start, uint64_t size,
		    const char *name, size_t len)
{
	(void)ctx; (void)pid; (void)start; (void)size; (void)name; (void)len;
	fp.jits++;
	return 0;
}

static void fake_exit_seen(void *ctx, uint32_t pid, int64_t nspid)
{
	(void)ctx;
	fp.exits++;
	fp.exit_pid = pid;
	fp.exit_nspid = nspid;
}

TEST(state_gives_processes_their_container)
{
	struct encoder_ops ops = fake_ops;
	struct fake_enc f = { 0 };
	struct encoder enc = { .ops = &ops, .ctx = &f };
	struct stream_state st;
	struct fxtprof_exec e = {
		.hdr = { .size = sizeof(e), .type = FXTPROF_REC_EXEC },
		.pid = 40, .tid = 40, .comm = "app",
	};
	struct fxtprof_exit x = {
		.hdr = { .size = sizeof(x), .type = FXTPROF_REC_EXIT },
		.pid = 40, .tid = 40, .flags = FXTPROF_EXIT_GROUP_DEAD,
	};

	memset(&fp, 0, sizeof(fp));
	ops.process_info = fake_pinfo;
	ops.jit_symbol = fake_jit;
	/* Without a JIT record in the encoder: refused, not counted. */
	enc.ops = &fake_ops;
	stream_state__init(&st, enc, NULL);
	ASSERT_EQ(-EOPNOTSUPP, stream_state__jit_symbol(&st, 1, 0x1000, 16,
							"f", 1));
	stream_state__fini(&st);
	enc.ops = &ops;
	stream_state__init(&st, enc, NULL);
	stream_state__set_proc_lookup(&st, fake_lookup, NULL);
	stream_state__set_exit_observer(&st, fake_exit_seen, NULL);
	snapshot(&st, 40, 40);
	ASSERT_EQ(1, fp.lookups);
	ASSERT_EQ(1, fp.infos);
	ASSERT_EQ(1, fp.last_nspid);
	ASSERT_STREQ("/c/app", fp.last_cgroup);
	snapshot(&st, 40, 41);		/* a thread: nothing to read */
	snapshot(&st, 40, 40);		/* known: not read again */
	ASSERT_EQ(1, fp.lookups);
	ASSERT_EQ(2, fp.infos);
	snapshot(&st, 41, 41);		/* gone first: counted, named plainly */
	ASSERT_EQ(2, fp.lookups);
	ASSERT_EQ(2, fp.infos);
	ASSERT_EQ(1, st.st.proc_gone);
	ASSERT_EQ(1, st.st.proc_infos);
	stream_state__record(&st, &e.hdr);	/* an exec reads it again */
	ASSERT_EQ(3, fp.lookups);
	ASSERT_EQ(3, fp.infos);
	ASSERT_EQ(0, stream_state__jit_symbol(&st, 40, 0x1000, 16, "f", 1));
	ASSERT_EQ(1, fp.jits);
	ASSERT_EQ(1, st.st.jit_symbols);
	stream_state__record(&st, &x.hdr);
	ASSERT_EQ(1, fp.exits);
	ASSERT_EQ(40, fp.exit_pid);
	ASSERT_EQ(1, fp.exit_nspid);
	x.flags = 0;			/* a thread's exit: not the process's */
	x.tid = 41;
	stream_state__record(&st, &x.hdr);
	ASSERT_EQ(1, fp.exits);
	ASSERT_EQ(0, st.st.encode_errors);
	stream_state__fini(&st);
}

/*
 * The reader drains CPU after CPU: a thread's rename on one CPU can come
 * before the fork that made it, on another.  The fork's older name is
 * then neither written nor remembered; a later rename is.
 */
TEST(state_keeps_a_rename_over_an_older_fork)
{
	struct fake_enc f = { 0 };
	struct encoder enc = { .ops = &fake_ops, .ctx = &f };
	struct stream_state st;
	struct fxtprof_rename r = {
		.hdr = { .size = sizeof(r), .type = FXTPROF_REC_RENAME,
			 .time_ns = 200 },
		.pid = 40, .tid = 41, .old_comm = "early", .comm = "late",
	};
	struct fxtprof_fork fk = {
		.hdr = { .size = sizeof(fk), .type = FXTPROF_REC_FORK,
			 .time_ns = 100 },
		.parent_pid = 40, .parent_tid = 40, .child_pid = 40,
		.child_tid = 41, .comm = "early",
	};
	int names;

	stream_state__init(&st, enc, NULL);
	stream_state__record(&st, &r.hdr);
	ASSERT_STREQ("late", f.last_tname);
	names = f.names;
	stream_state__record(&st, &fk.hdr);
	EXPECT_EQ(names, f.names);		/* "early" not written */
	EXPECT_STREQ("late", f.last_tname);
	EXPECT_EQ(1, st.st.records[FXTPROF_REC_FORK]);
	r.hdr.time_ns = 300;
	memcpy(r.comm, "later", 6);
	stream_state__record(&st, &r.hdr);
	EXPECT_EQ(names + 1, f.names);
	EXPECT_STREQ("later", f.last_tname);
	stream_state__fini(&st);
}

/*
 * With the wall clock anchored, every segment begins with it, before any
 * name, and it is the anchor read once: CLOCK_REALTIME and CLOCK_BOOTTIME
 * of this moment.
 */
TEST(state_segment_begins_with_the_wall_clock)
{
	struct fake_enc f = { 0 };
	struct encoder enc = { .ops = &fake_ops, .ctx = &f };
	struct sink_opts so = { .max_buffered = 1 << 20 };
	struct timespec rt, bt;
	struct stream_state st;
	struct evloop loop;
	struct sink *s;
	uint64_t real, boot;
	int64_t skew;
	int sv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, evloop__init(&loop, 8));
	ASSERT_EQ(0, sink__open_fd(&s, sv[0], &loop, &so));
	stream_state__init(&st, enc, s);
	stream_state__anchor_wall_clock(&st);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	real = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
	boot = (uint64_t)bt.tv_sec * 1000000000ull + (uint64_t)bt.tv_nsec;
	ASSERT_EQ(0, stream_state__sync(&st));
	snapshot(&st, 20, 20);
	s->segment_wanted = true;
	snapshot(&st, 20, 21);
	s->segment_wanted = true;
	snapshot(&st, 20, 22);
	ASSERT_EQ(3, f.segments);
	EXPECT_EQ(3, f.clocks_first);
	/*
	 * Read just before ours: both clocks a little behind, and by as
	 * much (the two run at one rate; 1 ms is far more than the reads).
	 */
	EXPECT_LE(f.realtime_ns, real);
	EXPECT_LT(real - f.realtime_ns, 1000000000ull);
	EXPECT_LE(f.boot_ns, boot);
	EXPECT_LT(boot - f.boot_ns, 1000000000ull);
	skew = (int64_t)(real - f.realtime_ns) - (int64_t)(boot - f.boot_ns);
	EXPECT_LT(skew < 0 ? -skew : skew, 1000000)
		TH_LOG("realtime moved %llu ns, boottime %llu ns",
		       (unsigned long long)(real - f.realtime_ns),
		       (unsigned long long)(boot - f.boot_ns));
	stream_state__fini(&st);
	sink__close(s);
	close(sv[1]);
	evloop__fini(&loop);
}

/* ------------------------------------------------------------------ */
/* The sink's first send                                               */
/* ------------------------------------------------------------------ */

TEST(sink_write_sends_first_queues_rest)
{
	static uint64_t rec[8192];	/* 64 KiB, more than the socket takes */
	struct sink_opts so = { .max_buffered = 1 << 20 };
	const struct sink_stats *st;
	struct evloop loop;
	struct sink *s;
	size_t got = 0;
	int sv[2], one = 4096;
	char tmp[65536];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &one, sizeof(one));
	ASSERT_EQ(0, evloop__init(&loop, 8));
	ASSERT_EQ(0, sink__open_fd(&s, sv[0], &loop, &so));
	st = sink__stats(s);

	/* Small, nothing queued: it leaves at once, nothing is buffered. */
	ASSERT_EQ(0, sink__write(s, rec, 64, FXT_REC_LARGE));
	ASSERT_EQ(1, st->sent_records);
	ASSERT_EQ(0, st->buffered_bytes);
	/* Large: the socket takes part, the rest is queued whole. */
	rec[0] = 42;
	ASSERT_EQ(0, sink__write(s, rec, sizeof(rec), FXT_REC_LARGE));
	ASSERT_GT(st->sent_bytes, 64);
	ASSERT_EQ(1, st->buffered_records);
	ASSERT_EQ(st->committed_bytes, st->sent_bytes + st->buffered_bytes);
	ASSERT_EQ(-EINVAL, sink__write(s, rec, 12, FXT_REC_LARGE));
	ASSERT_EQ(2, st->committed_records);
	/* Until both records have left whole and the peer has them all. */
	while (st->sent_records < 2 || got < 64 + sizeof(rec)) {
		ssize_t n = recv(sv[1], tmp, sizeof(tmp), MSG_DONTWAIT);

		if (n > 0)
			got += (size_t)n;
		sink__flush(s);
		evloop__run_once(&loop, 1);
	}
	ASSERT_EQ(64 + sizeof(rec), got);
	ASSERT_EQ(2, st->sent_records);
	ASSERT_EQ(0, st->dropped_records);
	sink__close(s);
	close(sv[1]);
	evloop__fini(&loop);
}

TEST_HARNESS_MAIN

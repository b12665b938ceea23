// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_writer.c - the socket sink (user/sink) over real sockets, fed as
 * `fxtprof record` feeds it (stream state, FXT encoder in place) or by
 * copying finished records:
 * socketpairs, loopback TCP and unix sockets with small buffers.  No
 * mocks: short sends, stalls and vanished peers come from the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "encode/fxt_encoder.h"
#include "fxt_reader.h"
#include "sink/sink.h"
#include "sock_util.h"
#include "state/stream_state.h"
#include "transport/evloop.h"

#define MiB (1u << 20)

/* Every counter adds up, for records and for bytes. */
#define ASSERT_INVARIANT(st) do {					\
	ASSERT_EQ((st)->committed_records, (st)->sent_records +		\
		  (st)->buffered_records + (st)->dropped_records);	\
	ASSERT_EQ((st)->committed_bytes, (st)->sent_bytes +		\
		  (st)->buffered_bytes + (st)->dropped_bytes);		\
} while (0)

/* Once the sink is closed, every sent record is settled one way or the other. */
#define ASSERT_DELIVERED(st) do {					\
	ASSERT_EQ((st)->sent_records, (st)->delivered_records +		\
		  (st)->unconfirmed_records);				\
	ASSERT_EQ((st)->sent_bytes, (st)->delivered_bytes +		\
		  (st)->unconfirmed_bytes);				\
} while (0)

static void pump(struct evloop *loop, struct sink *o)
{
	sink__flush(o);
	evloop__run_once(loop, 0);
}

/* ------------------------------------------------------------------ */

TEST(socketpair_roundtrip)
{
	struct sink_opts oo = { .max_buffered = 64 * MiB };
	struct buf rx = { 0 };
	struct evloop loop;
	struct sink *o;
	struct gen g;
	int sv[2], i;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, set_bufs(sv[0], 8192, 0));
	ASSERT_EQ(0, set_bufs(sv[1], 0, 8192));
	ASSERT_EQ(0, evloop__init(&loop, 64));
	ASSERT_EQ(0, sink__open_fd(&o, sv[0], &loop, &oo));
	ASSERT_EQ(0, gen__init(&g, o, 42, 64, true));
	for (i = 0; i < 20000; i++) {
		ASSERT_EQ(0, gen__sample(&g));
		if (i % 64 == 0) {
			pump(&loop, o);
			read_avail(sv[1], &rx, SIZE_MAX);
		}
	}
	sink__flush_close(o);
	/* The peer reads to EOF and ends its side: the stream settles. */
	while (!sink__done(o)) {
		evloop__run_once(&loop, 10);
		peer_serve(sv[1], &rx);
	}
	ASSERT_EQ(0, sink__stats(o)->dropped_records);
	ASSERT_INVARIANT(sink__stats(o));
	ASSERT_DELIVERED(sink__stats(o));
	/* Not an fxtprof receiver: settled from what SIOCOUTQ showed. */
	ASSERT_EQ(1, sink__stats(o)->outq_streams);
	ASSERT_EQ(sink__stats(o)->committed_records,
		  sink__stats(o)->delivered_records);
	ASSERT_TRUE(sink__complete(o));
	ASSERT_EQ(g.accepted.len, rx.len);
	ASSERT_EQ(0, memcmp(g.accepted.p, rx.p, rx.len));
	ASSERT_EQ(0, fxt_check_buffer(rx.p, rx.len, NULL));
	sink__close(o);
	gen__fini(&g);
	buf__free(&rx);
	close(sv[1]);
	evloop__fini(&loop);
}

/* A peer that never reads: memory stays at the cap, drops are exact. */
TEST(never_reads_memory_capped)
{
	const size_t cap = 8 * MiB;
	struct sink_opts oo = { .max_buffered = cap };
	const struct sink_stats *st;
	size_t rss0, rss_max = 0;
	struct evloop loop;
	struct sink *o;
	struct gen g;
	int sv[2], i;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, set_bufs(sv[0], 4096, 0));
	ASSERT_EQ(0, set_bufs(sv[1], 0, 4096));
	ASSERT_EQ(0, evloop__init(&loop, 64));
	ASSERT_EQ(0, sink__open_fd(&o, sv[0], &loop, &oo));
	ASSERT_EQ(0, gen__init(&g, o, 7, 256, false));
	rss0 = rss_bytes();
	/* About 80 MiB offered: ten times the cap. */
	for (i = 0; i < 80000; i++) {
		gen__sample(&g);
		if (i % 256 == 0) {
			size_t rss;

			pump(&loop, o);
			rss = rss_bytes();
			if (rss > rss_max)
				rss_max = rss;
		}
	}
	st = sink__stats(o);
	TH_LOG("committed %lu B, sent %lu B, buffered %lu B, dropped %lu "
	       "records / %lu B, RSS +%zu KiB",
	       (unsigned long)st->committed_bytes, (unsigned long)st->sent_bytes,
	       (unsigned long)st->buffered_bytes,
	       (unsigned long)st->dropped_records,
	       (unsigned long)st->dropped_bytes, (rss_max - rss0) >> 10);
	ASSERT_INVARIANT(st);
	ASSERT_LE(st->buffered_bytes, cap);
	ASSERT_GT(st->dropped_records, 0);
	/* Exact: exactly the records the sink refused, nothing else. */
	ASSERT_EQ(g.drop_records, st->dropped_records);
	ASSERT_EQ(g.drop_bytes, st->dropped_bytes);
	ASSERT_EQ(g.ok_records, st->sent_records + st->buffered_records);
	ASSERT_LE(rss_max - rss0, cap + 2 * MiB);
	sink__close(o);
	gen__fini(&g);
	close(sv[1]);
	evloop__fini(&loop);
}

/* ------------------------------------------------------------------ */
/* Through the state and the encoder, as `fxtprof record` writes       */
/* ------------------------------------------------------------------ */

struct producer {
	struct evloop loop;
	struct sink *out;
	struct fxt_encoder *enc;
	struct stream_state state;
	uint64_t ts;
	uint64_t rng;
	uint64_t notices;
};

static int producer_init(struct producer *p, struct sink *o)
{
	p->out = o;
	if (fxt_encoder__new(&p->enc, o))
		return -ENOMEM;
	stream_state__init(&p->state, fxt_encoder__encoder(p->enc), o);
	p->ts = 1000000;
	p->rng = 99;
	return stream_state__sync(&p->state);
}

static void producer_fini(struct producer *p)
{
	stream_state__fini(&p->state);
	fxt_encoder__free(p->enc);
}

static void producer_gap(struct producer *p)
{
	if (stream_state__announce_gap(&p->state, p->ts) > 0)
		p->notices++;
}

static void producer_snapshot(struct producer *p, uint32_t pid, uint32_t tid,
			      const char *comm)
{
	struct fxtprof_snapshot s;

	memset(&s, 0, sizeof(s));
	s.hdr.size = sizeof(s);
	s.hdr.type = FXTPROF_REC_SNAPSHOT;
	s.hdr.time_ns = p->ts;
	s.pid = pid;
	s.tid = tid;
	memcpy(s.comm, comm, strnlen(comm, sizeof(s.comm)));
	memcpy(s.process_comm, comm, strnlen(comm, sizeof(s.process_comm)));
	stream_state__record(&p->state, &s.hdr);
}

static void producer_sample(struct producer *p, unsigned int frames)
{
	uint64_t buf[(sizeof(struct fxtprof_sample) + 8 * 256) / 8];
	struct fxtprof_sample *s = (void *)buf;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->hdr.size = sizeof(*s) + 8 * frames;
	s->hdr.type = FXTPROF_REC_SAMPLE;
	s->hdr.time_ns = p->ts += 1000;
	s->pid = 1000 + frames % 3;
	s->tid = s->pid;
	s->mode = FXTPROF_MODE_USER;
	s->nr_user = frames;
	for (i = 0; i < frames; i++)
		s->ips[i] = 0x400000 + i * 16;
	producer_gap(p);
	stream_state__record(&p->state, &s->hdr);
}

/* Walk a received stream: the last output_dropped counter, overflows. */
static int last_notice(const struct buf *rx, uint64_t *records,
		       uint64_t *bytes, uint64_t *overflows)
{
	struct fxt_reader *rd;
	struct fxt_record rec;
	int ret;

	*records = *bytes = *overflows = 0;
	if (fxt_reader__new(0, &rd))
		return -ENOMEM;
	ret = fxt_reader__feed(rd, rx->p, rx->len);
	while (!ret && (ret = fxt_reader__next(rd, &rec)) > 0) {
		ret = 0;
		if (rec.type == FXT_REC_METADATA &&
		    rec.subtype == FXT_META_PROVIDER_EVENT)
			(*overflows)++;
		if (rec.type == FXT_REC_EVENT &&
		    rec.subtype == FXT_EVENT_COUNTER && rec.nargs == 2 &&
		    rec.event.name.len == strlen("fxtprof:output_dropped") &&
		    !memcmp(rec.event.name.data, "fxtprof:output_dropped",
			    rec.event.name.len)) {
			*records = rec.args[0].v.u64;
			*bytes = rec.args[1].v.u64;
		}
	}
	if (!ret)
		ret = fxt_reader__finish(rd);
	fxt_reader__free(rd);
	return ret;
}

struct slow_reader {
	int lfd;
	size_t rate;		/* bytes per second */
	struct buf rx;
};

static void *slow_reader_main(void *arg)
{
	struct slow_reader *sr = arg;
	int fd = accept(sr->lfd, NULL, NULL);
	size_t chunk = sr->rate / 100;
	char *tmp = malloc(chunk);

	set_bufs(fd, 0, 16384);
	for (;;) {
		size_t got = 0;

		while (got < chunk) {
			ssize_t n = recv(fd, tmp, chunk - got, 0);

			if (n <= 0)
				goto out;
			buf__append(&sr->rx, tmp, (size_t)n);
			got += (size_t)n;
		}
		usleep(10000);	/* the workload: one chunk per 10 ms */
	}
out:
	free(tmp);
	close(fd);
	return NULL;
}

/* ~1 MB/s peer, ~3 MB/s producer: whole records, notices add up. */
TEST(slow_peer_tcp)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sink_opts oo = { .max_buffered = MiB, .sndbuf = 16384 };
	struct slow_reader sr = { .rate = 1000000 };
	uint64_t n_rec, n_bytes, overflows, t_end;
	const struct sink_stats *st;
	socklen_t len = sizeof(sin);
	struct producer p = { 0 };
	char uri[64], err[256];
	pthread_t th;
	bool whole;
	int i;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sr.lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_EQ(0, set_bufs(sr.lfd, 0, 16384));
	ASSERT_EQ(0, bind(sr.lfd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_EQ(0, listen(sr.lfd, 4));
	ASSERT_EQ(0, getsockname(sr.lfd, (struct sockaddr *)&sin, &len));
	snprintf(uri, sizeof(uri), "tcp://127.0.0.1:%u", ntohs(sin.sin_port));
	ASSERT_EQ(0, pthread_create(&th, NULL, slow_reader_main, &sr));
	ASSERT_EQ(0, evloop__init(&p.loop, 64));
	ASSERT_EQ(0, sink__open(&p.out, uri, &p.loop, &oo, err, sizeof(err)));
	ASSERT_EQ(0, producer_init(&p, p.out));
	producer_snapshot(&p, 1000, 1000, "proc-a");
	producer_snapshot(&p, 1001, 1001, "proc-b");
	producer_snapshot(&p, 1002, 1002, "proc-c");
	/* 2 s at ~3 MB/s: 30 KB every 10 ms. */
	t_end = now_ns() + 2000000000ull;
	while (now_ns() < t_end) {
		for (i = 0; i < 30; i++)
			producer_sample(&p, 100 + i % 50);
		sink__flush(p.out);
		evloop__run_once(&p.loop, 10);
	}
	/* The last notice carries the final totals: wait for room. */
	t_end = now_ns() + 5000000000ull;
	while (sink__gap_records(p.out) && now_ns() < t_end) {
		producer_gap(&p);
		evloop__run_once(&p.loop, 10);
	}
	ASSERT_EQ(0, sink__linger(p.out, 20000));
	pthread_join(th, NULL);
	st = sink__stats(p.out);
	TH_LOG("sent %lu B, dropped %lu records (%lu B), %lu notices, "
	       "received %zu B", (unsigned long)st->sent_bytes,
	       (unsigned long)st->dropped_records,
	       (unsigned long)st->dropped_bytes, (unsigned long)p.notices,
	       sr.rx.len);
	ASSERT_INVARIANT(st);
	ASSERT_GT(st->dropped_records, 0);
	ASSERT_EQ(st->sent_bytes, sr.rx.len);
	ASSERT_EQ(st->sent_records, fxt_count_records(sr.rx.p, sr.rx.len,
						      &whole));
	ASSERT_TRUE(whole);
	ASSERT_EQ(0, fxt_check_buffer(sr.rx.p, sr.rx.len, NULL));
	ASSERT_EQ(0, last_notice(&sr.rx, &n_rec, &n_bytes, &overflows));
	ASSERT_EQ(st->dropped_records, n_rec);
	ASSERT_EQ(st->dropped_bytes, n_bytes);
	ASSERT_EQ(p.notices, overflows);
	sink__close(p.out);
	producer_fini(&p);
	evloop__fini(&p.loop);
	close(sr.lfd);
	buf__free(&sr.rx);
}

/* The peer reads part of a record and closes: no SIGPIPE, exact counts. */
TEST(peer_closes_mid_record)
{
	struct sink_opts oo = { .max_buffered = 4 * MiB };
	const struct sink_stats *st;
	struct buf rx = { 0 };
	struct evloop loop;
	struct sink *o;
	struct gen g;
	bool whole;
	int sv[2], i;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, set_bufs(sv[0], 4096, 0));
	ASSERT_EQ(0, evloop__init(&loop, 64));
	ASSERT_EQ(0, sink__open_fd(&o, sv[0], &loop, &oo));
	ASSERT_EQ(0, gen__init(&g, o, 3, 128, false));
	for (i = 0; i < 500; i++)
		gen__sample(&g);
	pump(&loop, o);
	while (rx.len < 1001)
		if (!read_avail(sv[1], &rx, 1001 - rx.len))
			evloop__run_once(&loop, 10);
	fxt_count_records(rx.p, rx.len, &whole);
	ASSERT_FALSE(whole);	/* it did stop inside a record */
	close(sv[1]);
	for (i = 0; i < 5000; i++) {
		gen__sample(&g);
		if (i % 16 == 0)
			pump(&loop, o);
	}
	st = sink__stats(o);
	ASSERT_NE(0, sink__error(o));
	TH_LOG("error %s; sent %lu B, dropped %lu records",
	       strerror(sink__error(o)), (unsigned long)st->sent_bytes,
	       (unsigned long)st->dropped_records);
	ASSERT_INVARIANT(st);
	ASSERT_EQ(0, st->buffered_bytes);
	ASSERT_EQ(g.ok_records + g.drop_records, st->committed_records);
	ASSERT_EQ(st->committed_records - st->sent_records,
		  st->dropped_records);
	ASSERT_GE(st->sent_bytes, 1001);
	ASSERT_FALSE(sink__gap_pending(o));	/* nobody to tell */
	ASSERT_EQ(0, sink__linger(o, 1000));	/* peer gone: closes at once */
	sink__close(o);
	gen__fini(&g);
	buf__free(&rx);
	evloop__fini(&loop);
}

static int accept_within(int lfd, int ms)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	return accept(lfd, NULL, NULL);
}

/* With --reconnect the next connection carries a complete stream. */
TEST(reconnect_complete_stream)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sink_opts oo = { .max_buffered = MiB, .reconnect = true };
	struct producer p = { 0 };
	struct buf rx1 = { 0 }, rx2 = { 0 };
	struct fxt_reader *rd;
	struct fxt_record rec;
	const struct sink_stats *st;
	uint64_t kobjs = 0, t_end;
	char uri[128], err[256];
	int lfd, c1, c2 = -1, i, ret;

	snprintf(sun.sun_path, sizeof(sun.sun_path),
		 "/tmp/fxtprof-test-%d.sock", getpid());
	unlink(sun.sun_path);
	snprintf(uri, sizeof(uri), "unix://%s", sun.sun_path);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sun, sizeof(sun)));
	ASSERT_EQ(0, listen(lfd, 4));
	ASSERT_EQ(0, evloop__init(&p.loop, 64));
	ASSERT_EQ(0, sink__open(&p.out, uri, &p.loop, &oo, err, sizeof(err)));
	ASSERT_EQ(0, producer_init(&p, p.out));
	c1 = accept_within(lfd, 1000);
	ASSERT_GE(c1, 0);
	producer_snapshot(&p, 2000, 2000, "alpha");
	producer_snapshot(&p, 2000, 2001, "alpha-worker");
	producer_snapshot(&p, 3000, 3000, "beta");
	for (i = 0; i < 300; i++)
		producer_sample(&p, 20);
	pump(&p.loop, p.out);
	while (rx1.len < 5003)
		if (!read_avail(c1, &rx1, 5003 - rx1.len))
			evloop__run_once(&p.loop, 10);
	close(c1);
	/* Keep producing (as the drain loop would) until it reconnects. */
	t_end = now_ns() + 5000000000ull;
	while (c2 < 0 && now_ns() < t_end) {
		producer_sample(&p, 20);
		sink__flush(p.out);
		evloop__run_once(&p.loop, 5);
		c2 = accept_within(lfd, 0);
	}
	ASSERT_GE(c2, 0);
	for (i = 0; i < 2000; i++) {
		producer_sample(&p, 20);
		if (i % 32 == 0) {
			pump(&p.loop, p.out);
			read_avail(c2, &rx2, SIZE_MAX);
		}
	}
	sink__flush_close(p.out);
	t_end = now_ns() + 5000000000ull;
	while (!sink__done(p.out) && now_ns() < t_end) {
		evloop__run_once(&p.loop, 10);
		peer_serve(c2, &rx2);
	}
	ASSERT_TRUE(sink__done(p.out));
	st = sink__stats(p.out);
	ASSERT_EQ(2, st->connects);
	ASSERT_EQ(1, st->disconnects);
	ASSERT_INVARIANT(st);
	ASSERT_DELIVERED(st);
	/* The first stream was cut off: nothing of it is confirmed. */
	ASSERT_LT(0, st->unconfirmed_records);
	ASSERT_FALSE(sink__complete(p.out));
	/* Complete in itself: the strict checker, from the magic on. */
	ASSERT_GT(rx2.len, 8);
	ASSERT_EQ(FXT_MAGIC, *(uint64_t *)rx2.p);
	ASSERT_EQ(0, fxt_check_buffer(rx2.p, rx2.len, NULL));
	/* The names came again: 2 processes + 3 threads at least. */
	ASSERT_EQ(0, fxt_reader__new(0, &rd));
	ret = fxt_reader__feed(rd, rx2.p, rx2.len);
	while (!ret && (ret = fxt_reader__next(rd, &rec)) > 0) {
		ret = 0;
		if (rec.type == FXT_REC_KERNEL_OBJ)
			kobjs++;
	}
	fxt_reader__free(rd);
	ASSERT_GE(kobjs, 5);
	sink__close(p.out);
	producer_fini(&p);
	evloop__fini(&p.loop);
	close(c2);
	close(lfd);
	unlink(sun.sun_path);
	buf__free(&rx1);
	buf__free(&rx2);
}

/* Random record sizes, reads and loop turns from a fixed seed. */
TEST(random_partial_sends)
{
	struct sink_opts oo = { .max_buffered = 256 << 10 };
	const struct sink_stats *st;
	struct buf rx = { 0 };
	struct evloop loop;
	struct sink *o;
	struct gen g, sched = { .rng = 0x5eed };
	int sv[2], i;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, set_bufs(sv[0], 4096, 0));
	ASSERT_EQ(0, set_bufs(sv[1], 0, 4096));
	ASSERT_EQ(0, evloop__init(&loop, 64));
	ASSERT_EQ(0, sink__open_fd(&o, sv[0], &loop, &oo));
	ASSERT_EQ(0, gen__init(&g, o, 1234, 300, true));
	st = sink__stats(o);
	for (i = 0; i < 30000; i++) {
		switch (gen__rand(&sched) % 3) {
		case 0: {
			int n = 1 + gen__rand(&sched) % 12;

			while (n--)
				gen__sample(&g);
			break;
		}
		case 1:
			pump(&loop, o);
			break;
		case 2:
			read_avail(sv[1], &rx, 1 + gen__rand(&sched) % 6000);
			break;
		}
		ASSERT_INVARIANT(st);
		ASSERT_LE(st->buffered_bytes, 256 << 10);
	}
	TH_LOG("committed %lu records, dropped %lu",
	       (unsigned long)st->committed_records,
	       (unsigned long)st->dropped_records);
	ASSERT_GT(st->dropped_records, 0);
	sink__flush_close(o);
	while (!sink__done(o)) {
		evloop__run_once(&loop, 1);
		peer_serve(sv[1], &rx);
	}
	ASSERT_INVARIANT(st);
	ASSERT_DELIVERED(st);
	/* Delivered, but records were dropped on the way: incomplete. */
	ASSERT_EQ(st->sent_records, st->delivered_records);
	ASSERT_FALSE(sink__complete(o));
	/* The peer got exactly the accepted records, in order. */
	ASSERT_EQ(g.accepted.len, rx.len);
	ASSERT_EQ(0, memcmp(g.accepted.p, rx.p, rx.len));
	sink__close(o);
	gen__fini(&g);
	buf__free(&rx);
	close(sv[1]);
	evloop__fini(&loop);
}

/* Flush-and-close with a stuck peer returns at the deadline. */
TEST(flush_close_stuck_peer_deadline)
{
	struct sink_opts oo = { .max_buffered = 4 * MiB };
	const struct sink_stats *st;
	struct evloop loop;
	struct sink *o;
	struct gen g;
	uint64_t t0, dt;
	int sv[2], i;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, set_bufs(sv[0], 4096, 0));
	ASSERT_EQ(0, evloop__init(&loop, 64));
	ASSERT_EQ(0, sink__open_fd(&o, sv[0], &loop, &oo));
	ASSERT_EQ(0, gen__init(&g, o, 5, 128, false));
	for (i = 0; i < 5000; i++)
		gen__sample(&g);
	pump(&loop, o);
	t0 = now_ns();
	ASSERT_EQ(-ETIMEDOUT, sink__linger(o, 300));
	dt = (now_ns() - t0) / 1000000;
	ASSERT_GE(dt, 290);
	ASSERT_LT(dt, 1000);
	ASSERT_EQ(-ENOBUFS, gen__sample(&g));	/* no longer accepting */
	st = sink__stats(o);
	/*
	 * At the deadline the sink gave up: what was queued is dropped, and
	 * what was sent but never read is unconfirmed.
	 */
	ASSERT_EQ(0, st->buffered_bytes);
	ASSERT_GT(st->dropped_bytes, 0);
	ASSERT_GT(st->unconfirmed_bytes, 0);
	ASSERT_INVARIANT(st);
	ASSERT_DELIVERED(st);
	ASSERT_FALSE(sink__complete(o));
	t0 = now_ns();
	sink__close(o);		/* cancels the parked send */
	ASSERT_LT((now_ns() - t0) / 1000000, 500);
	gen__fini(&g);
	close(sv[1]);
	evloop__fini(&loop);
}

TEST_HARNESS_MAIN

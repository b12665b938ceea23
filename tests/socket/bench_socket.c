// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_socket.c - `make bench-socket`: delivery throughput of the socket
 * writer (out.c) to a local receiver over loopback TCP and a unix socket,
 * next to a plain blocking write() of the same bytes through the same
 * socket type (the ceiling); and the worst time a drain-loop turn spends
 * in the writer while the peer is stalled.  Prints a Markdown table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sink/sink.h"
#include "sock_util.h"
#include "transport/evloop.h"

#define STREAM_BYTES	(32u << 20)
#define REPEAT		4

struct sink {
	int fd;
	uint64_t bytes;
};

static void *sink_main(void *arg)
{
	static __thread char tmp[256 << 10];
	struct sink *s = arg;
	ssize_t n;

	while ((n = recv(s->fd, tmp, sizeof(tmp), 0)) > 0)
		s->bytes += (uint64_t)n;
	return NULL;
}

/* A connected pair of the given family (loopback TCP or unix). */
static int make_pair(int family, int sv[2])
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int lfd;

	if (family == AF_UNIX)
		return socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len))
		return -1;
	sv[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(sv[0], (struct sockaddr *)&sin, sizeof(sin)))
		return -1;
	sv[1] = accept(lfd, NULL, NULL);
	close(lfd);
	return sv[1] < 0 ? -1 : 0;
}

static double run_blocking(int family, const struct buf *data)
{
	struct sink s = { 0 };
	pthread_t th;
	uint64_t t0;
	int sv[2], r;

	if (make_pair(family, sv))
		return -1;
	s.fd = sv[1];
	pthread_create(&th, NULL, sink_main, &s);
	t0 = now_ns();
	for (r = 0; r < REPEAT; r++) {
		size_t off = 0;

		while (off < data->len) {
			ssize_t n = write(sv[0], data->p + off, data->len - off);

			if (n <= 0)
				return -1;
			off += (size_t)n;
		}
	}
	shutdown(sv[0], SHUT_WR);
	pthread_join(th, NULL);
	close(sv[0]);
	close(sv[1]);
	return (double)s.bytes / ((double)(now_ns() - t0) / 1e9) / 1e6;
}

static uint64_t rec_len(const unsigned char *p)
{
	uint64_t h;

	memcpy(&h, p, 8);
	return 8 * ((h & 0xf) == 15 ? (h >> 4) & 0xffffffffu : (h >> 4) & 0xfff);
}

static double run_writer(int family, const struct buf *data)
{
	struct sink_opts oo = { .max_buffered = SINK_DEFAULT_MAX_BUFFERED };
	struct sink s = { 0 };
	struct evloop loop;
	struct sink *o;
	pthread_t th;
	uint64_t t0;
	int sv[2], r;

	if (make_pair(family, sv) || evloop__init(&loop, 64) ||
	    sink__open_fd(&o, sv[0], &loop, &oo))
		return -1;
	s.fd = sv[1];
	pthread_create(&th, NULL, sink_main, &s);
	t0 = now_ns();
	for (r = 0; r < REPEAT; r++) {
		size_t off = 0;

		while (off < data->len) {
			size_t len = rec_len(data->p + off);

			/* Wait like `fxtprof send`: measure delivery, not drops. */
			while (!sink__fits(o, len)) {
				sink__flush(o);
				evloop__run_once(&loop, -1);
			}
			sink__write(o, data->p + off, len, data->p[off] & 0xf);
			off += len;
			if (!(off & 0xffff))
				sink__flush(o);
		}
	}
	sink__linger(o, 60000);
	pthread_join(th, NULL);
	sink__close(o);
	evloop__fini(&loop);
	close(sv[1]);
	return (double)s.bytes / ((double)(now_ns() - t0) / 1e9) / 1e6;
}

/*
 * The peer never reads.  Each turn queues ~64 KiB of records (what one
 * drain pass over the rings might produce), flushes and reaps without
 * waiting: the writer's cost per turn, worst and average, for 2 s.
 */
static void run_stalled(int family, const struct buf *data, double *worst_us,
			double *avg_us, uint64_t *dropped)
{
	struct sink_opts oo = { .max_buffered = SINK_DEFAULT_MAX_BUFFERED };
	struct evloop loop;
	struct sink *o;
	uint64_t t_end, worst = 0, total = 0, turns = 0;
	size_t off = 0;
	int sv[2];

	if (make_pair(family, sv) || evloop__init(&loop, 64) ||
	    sink__open_fd(&o, sv[0], &loop, &oo))
		return;
	t_end = now_ns() + 2000000000ull;
	while (now_ns() < t_end) {
		uint64_t t0 = now_ns(), dt;
		size_t turn = 0;

		while (turn < 65536) {
			size_t len;

			if (off >= data->len)
				off = 0;
			len = rec_len(data->p + off);
			sink__write(o, data->p + off, len, data->p[off] & 0xf);
			off += len;
			turn += len;
		}
		sink__flush(o);
		evloop__run_once(&loop, 0);
		dt = now_ns() - t0;
		total += dt;
		turns++;
		if (dt > worst)
			worst = dt;
		usleep(1000);	/* the drain loop's wait for the next pass */
	}
	*worst_us = (double)worst / 1e3;
	*avg_us = (double)total / (double)turns / 1e3;
	*dropped = sink__stats(o)->dropped_records;
	sink__close(o);
	evloop__fini(&loop);
	close(sv[1]);
}

int main(void)
{
	static const struct {
		int family;
		const char *name;
	} kinds[] = { { AF_INET, "loopback TCP" }, { AF_UNIX, "unix socket" } };
	struct buf data = { 0 };
	size_t i;

	if (gen__stream(1, STREAM_BYTES, &data))
		return 1;
	printf("Stream: %zu MiB of FXT records (stack samples, 16 B..4 KiB),"
	       " sent %d times; --max-buffered %u MiB.\n\n",
	       data.len >> 20, REPEAT, SINK_DEFAULT_MAX_BUFFERED >> 20);
	printf("| socket | blocking write() (ceiling) | fxtprof writer |"
	       " ratio | stalled peer: worst turn | average turn |\n");
	printf("|---|---|---|---|---|---|\n");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		double ceil = run_blocking(kinds[i].family, &data);
		double w = run_writer(kinds[i].family, &data);
		double worst = 0, avg = 0;
		uint64_t dropped = 0;

		run_stalled(kinds[i].family, &data, &worst, &avg, &dropped);
		printf("| %s | %.0f MB/s | %.0f MB/s | %.2f | %.0f us | %.0f us |\n",
		       kinds[i].name, ceil, w, ceil > 0 ? w / ceil : 0, worst,
		       avg);
		fflush(stdout);
	}
	printf("\n(stalled: each turn queues 64 KiB and reaps without waiting;"
	       " once the %u MiB cap is full, records are dropped and counted)\n",
	       SINK_DEFAULT_MAX_BUFFERED >> 20);
	buf__free(&data);
	return 0;
}

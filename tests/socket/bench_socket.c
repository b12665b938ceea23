// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_socket.c - `make bench-socket`: delivery throughput of the socket
 * sink (user/sink) to a local receiver over loopback TCP and a unix
 * socket, next to a plain blocking write() of the same records through
 * the same socket type, for records of 4 KiB, 64 KiB and 1 MiB, with both
 * of the sink's send modes (non-blocking send(), io_uring send); and the
 * worst and average time a drain-loop turn spends in the sink while the
 * peer is stalled.  Prints Markdown tables; figures are ratios in one run,
 * never a test.
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
#define TRIES		3	/* best of, per cell: the host is shared */

struct sink_thread {
	int fd;
	uint64_t bytes;
};

static void *sink_main(void *arg)
{
	static __thread char tmp[256 << 10];
	struct sink_thread *s = arg;
	ssize_t n;

	while ((n = recv(s->fd, tmp, sizeof(tmp), 0)) > 0)
		s->bytes += (uint64_t)n;
	/* End our side too: the sender's sink waits for that to settle. */
	shutdown(s->fd, SHUT_WR);
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

/* @n records of @rec_len bytes each, as opaque 8-byte words. */
static int make_records(size_t rec_len, struct buf *data)
{
	size_t n = STREAM_BYTES / rec_len, i;

	data->len = n * rec_len;
	data->cap = data->len;
	data->p = malloc(data->len);
	if (!data->p)
		return -ENOMEM;
	for (i = 0; i < data->len; i++)
		data->p[i] = (unsigned char)(i * 131 + (i >> 12));
	return 0;
}

static double mb_per_s(uint64_t bytes, uint64_t t0)
{
	return (double)bytes / ((double)(now_ns() - t0) / 1e9) / 1e6;
}

/* The ceiling: a blocking write() per record, as a plain writer would. */
static double run_blocking(int family, const struct buf *data, size_t rec_len)
{
	struct sink_thread s = { 0 };
	pthread_t th;
	uint64_t t0;
	double r;
	int sv[2], i;

	if (make_pair(family, sv))
		return -1;
	s.fd = sv[1];
	pthread_create(&th, NULL, sink_main, &s);
	t0 = now_ns();
	for (i = 0; i < REPEAT; i++) {
		size_t off = 0;

		while (off < data->len) {
			size_t end = off + rec_len;

			while (off < end) {
				ssize_t n = write(sv[0], data->p + off,
						  end - off);

				if (n <= 0)
					return -1;
				off += (size_t)n;
			}
		}
	}
	shutdown(sv[0], SHUT_WR);
	pthread_join(th, NULL);
	r = mb_per_s(s.bytes, t0);
	close(sv[0]);
	close(sv[1]);
	return r;
}

/*
 * The sink, fed as a drain loop feeds it: records written in (copied into
 * the queue, the cost an encoder writing in place has too), a flush every
 * 64 KiB; waiting for room like `fxtprof send`, so this measures delivery
 * and not drops.
 */
static double run_sink(int family, const struct buf *data, size_t rec_len,
		       enum sink_send_mode mode)
{
	struct sink_opts so = {
		.max_buffered = SINK_DEFAULT_MAX_BUFFERED, .send_mode = mode,
	};
	struct sink_thread s = { 0 };
	struct evloop loop;
	struct sink *o;
	pthread_t th;
	uint64_t t0;
	double r;
	int sv[2], i;

	if (make_pair(family, sv) || evloop__init(&loop, 64) ||
	    sink__open_fd(&o, sv[0], &loop, &so))
		return -1;
	s.fd = sv[1];
	pthread_create(&th, NULL, sink_main, &s);
	t0 = now_ns();
	for (i = 0; i < REPEAT; i++) {
		size_t off = 0, since = 0;

		while (off < data->len) {
			while (!sink__fits(o, rec_len)) {
				sink__flush(o);
				evloop__run_once(&loop, -1);
			}
			sink__write(o, data->p + off, rec_len, FXT_REC_LARGE);
			off += rec_len;
			since += rec_len;
			if (since >= 65536) {
				sink__flush(o);
				evloop__run_once(&loop, 0);
				since = 0;
			}
		}
	}
	sink__linger(o, 60000);
	pthread_join(th, NULL);
	r = mb_per_s(s.bytes, t0);
	if (sink__stats(o)->dropped_records)
		r = -1;
	sink__close(o);
	evloop__fini(&loop);
	close(sv[1]);
	return r;
}

static double best(double a, double b)
{
	return a > b ? a : b;
}

/*
 * The peer never reads.  Each turn queues ~64 KiB of records (what one
 * drain pass over the rings might produce), flushes and reaps without
 * waiting: the sink's cost per turn, worst and average, for 2 s.
 */
static void run_stalled(int family, const struct buf *data,
			enum sink_send_mode mode, double *worst_us,
			double *avg_us, uint64_t *dropped)
{
	struct sink_opts so = {
		.max_buffered = SINK_DEFAULT_MAX_BUFFERED, .send_mode = mode,
	};
	struct evloop loop;
	struct sink *o;
	uint64_t t_end, worst = 0, total = 0, turns = 0;
	size_t off = 0;
	int sv[2];

	if (make_pair(family, sv) || evloop__init(&loop, 64) ||
	    sink__open_fd(&o, sv[0], &loop, &so))
		return;
	t_end = now_ns() + 2000000000ull;
	while (now_ns() < t_end) {
		uint64_t t0 = now_ns(), dt;
		size_t turn = 0;

		while (turn < 65536) {
			size_t len;

			if (off >= data->len)
				off = 0;
			len = fxt_record_len(data->p + off);
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

static const char *const mode_name[] = {
	[SINK_SEND_URING] = "io_uring (default)",
	[SINK_SEND_DIRECT] = "send(), rest io_uring",
	[SINK_SEND_POLL] = "send(), POLLOUT",
};
#define NR_MODES	3

int main(void)
{
	static const struct {
		int family;
		const char *name;
	} kinds[] = { { AF_INET, "loopback TCP" }, { AF_UNIX, "unix socket" } };
	static const size_t sizes[] = { 4u << 10, 64u << 10, 1u << 20 };
	struct buf fxt = { 0 };
	size_t i, k;
	int t;

	printf("Delivery: %u MiB of records sent %d times, best of %d;"
	       " --max-buffered %u MiB.  Ceiling: a blocking write() per"
	       " record.\n\n", STREAM_BYTES >> 20, REPEAT, TRIES,
	       SINK_DEFAULT_MAX_BUFFERED >> 20);
	printf("| socket | record | blocking write() | %s | ratio | %s |"
	       " ratio | %s | ratio |\n", mode_name[0], mode_name[1],
	       mode_name[2]);
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			struct buf data = { 0 };
			double ceil = 0, r[NR_MODES] = { 0 };
			int m;

			if (make_records(sizes[k], &data))
				return 1;
			/* Interleaved, so drift hits every column alike. */
			for (t = 0; t < TRIES; t++) {
				ceil = best(ceil, run_blocking(kinds[i].family,
							       &data, sizes[k]));
				for (m = 0; m < NR_MODES; m++)
					r[m] = best(r[m], run_sink(kinds[i].family,
								   &data, sizes[k],
								   m));
			}
			printf("| %s | %zu KiB | %.0f MB/s", kinds[i].name,
			       sizes[k] >> 10, ceil);
			for (m = 0; m < NR_MODES; m++)
				printf(" | %.0f MB/s | %.2f", r[m],
				       ceil > 0 ? r[m] / ceil : 0);
			printf(" |\n");
			fflush(stdout);
			buf__free(&data);
		}
	}

	if (gen__stream(1, STREAM_BYTES, &fxt))
		return 1;
	printf("\nStalled peer: FXT stack samples (16 B..4 KiB), 64 KiB per"
	       " turn, a turn every 1 ms for 2 s.\n\n");
	printf("| socket | send mode | worst turn | average turn |"
	       " dropped records |\n");
	printf("|---|---|---|---|---|\n");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		for (k = 0; k < NR_MODES; k++) {
			double worst = 0, avg = 0;
			uint64_t dropped = 0;

			run_stalled(kinds[i].family, &fxt, k, &worst, &avg,
				    &dropped);
			printf("| %s | %s | %.0f us | %.1f us | %llu |\n",
			       kinds[i].name, mode_name[k], worst, avg,
			       (unsigned long long)dropped);
			fflush(stdout);
		}
	}
	printf("\n(stalled: once the %u MiB cap is full, records are dropped"
	       " whole and counted)\n", SINK_DEFAULT_MAX_BUFFERED >> 20);
	buf__free(&fxt);
	return 0;
}

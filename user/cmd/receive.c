// SPDX-License-Identifier: GPL-2.0-only
/*
 * receive.c - `fxtprof receive LISTEN_URI -o DIR`: the host side.
 *
 * One io_uring loop accepts connections on a tcp:// or unix:// listener
 * and receives every stream concurrently.  Each stream goes to its own
 * file, named by peer and start time, and is written as it arrives:
 * whatever was read from a socket reaches the file, framing errors
 * included.  Alongside, the FXT reader's incremental framing counts whole
 * records and the gaps the sender announced in-band (provider
 * buffer-overflow events), and tells at the end whether the stream
 * stopped on a record boundary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "fxt/fxt_reader.h"
#include "transport/evloop.h"
#include "transport/netaddr.h"

#define RECV_BUF	(256u << 10)

struct stream {
	struct ev_handler recv_h;
	struct receiver *rc;
	struct stream *next;
	int fd;
	int file_fd;
	char peer[80];
	char path[512];
	struct fxt_reader *rd;
	bool framing_failed;
	char framing_msg[256];
	uint64_t bytes, records, gaps;
	unsigned char *buf;
};

struct receiver {
	struct evloop loop;
	const char *dir;
	int lfd;
	int sigfd;
	bool quiet;
	bool stop;
	unsigned long count;		/* exit after this many streams, 0 = never */
	unsigned long seq;
	unsigned long ended;
	struct stream *streams;
	struct ev_handler accept_h;
	struct ev_handler sig_h;
	struct sockaddr_storage peer_ss;
	socklen_t peer_len;
	struct signalfd_siginfo si;
	uint64_t total_bytes;
};

static void receive_usage(FILE *f)
{
	fprintf(f,
"usage: fxtprof receive [options] LISTEN_URI -o DIR\n"
"  Accept FXT streams on LISTEN_URI (tcp://[HOST]:PORT or unix:///PATH),\n"
"  write each to DIR/PEER-START-N.fxt and print a summary per stream.\n"
"  Stops at SIGINT/SIGTERM.  The listening address goes to stdout first.\n"
"  -o, --output DIR       directory for the streams (created if missing)\n"
"  -n, --count N          exit after N streams have ended\n"
"  -q, --quiet            no per-stream summary\n");
}

/* ------------------------------------------------------------------ */
/* Streams                                                             */
/* ------------------------------------------------------------------ */

static void stream_arm_recv(struct stream *s)
{
	struct io_uring_sqe *sqe = evloop__sqe(&s->rc->loop, &s->recv_h);

	if (sqe)
		io_uring_prep_recv(sqe, s->fd, s->buf, RECV_BUF, 0);
}

/* Cut what arrived into records: count them and the announced gaps. */
static void stream_frame(struct stream *s, const void *data, size_t len)
{
	struct fxt_record rec;
	int ret;

	if (s->framing_failed)
		return;
	ret = fxt_reader__feed(s->rd, data, len);
	while (!ret && (ret = fxt_reader__next(s->rd, &rec)) > 0) {
		s->records++;
		if (rec.type == FXT_REC_METADATA &&
		    rec.subtype == FXT_META_PROVIDER_EVENT &&
		    rec.meta.event_id == FXT_PROVIDER_EVENT_BUFFER_OVERFLOW)
			s->gaps++;
		ret = 0;
	}
	if (ret < 0) {
		const struct fxt_error *e = fxt_reader__error(s->rd);

		s->framing_failed = true;
		if (e && e->rule)
			snprintf(s->framing_msg, sizeof(s->framing_msg),
				 "framing error at byte %" PRIu64 " (%s)",
				 e->offset, e->rule);
		else
			snprintf(s->framing_msg, sizeof(s->framing_msg),
				 "framing failed: %s", strerror(-ret));
	}
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void stream_summary(struct stream *s, const char *how)
{
	const char *end;

	if (s->framing_failed)
		end = s->framing_msg;
	else if (fxt_reader__finish(s->rd))
		end = "ended inside a record";
	else
		end = "ended on a record boundary";
	if (!s->rc->quiet) {
		printf("stream %s: %s: %" PRIu64 " bytes, %" PRIu64
		       " records, %" PRIu64 " gaps announced, %s%s%s\n",
		       s->peer, s->path, s->bytes, s->records, s->gaps, end,
		       how ? ", " : "", how ? how : "");
		fflush(stdout);
	}
}

static void stream_free(struct stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->file_fd >= 0)
		close(s->file_fd);
	fxt_reader__free(s->rd);
	free(s->buf);
	free(s);
}

static void stream_end(struct stream *s, const char *how)
{
	struct receiver *rc = s->rc;
	struct stream **pp;

	stream_summary(s, how);
	for (pp = &rc->streams; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	rc->total_bytes += s->bytes;
	stream_free(s);
	if (rc->count && ++rc->ended >= rc->count)
		rc->stop = true;
}

static void stream_on_recv(struct ev_handler *h,
			   const struct io_uring_cqe *cqe)
{
	struct stream *s = (void *)((char *)h - offsetof(struct stream,
							  recv_h));
	char how[640];
	int ret;

	if (cqe->res == -EINTR || cqe->res == -EAGAIN) {
		stream_arm_recv(s);
		return;
	}
	if (cqe->res < 0) {
		snprintf(how, sizeof(how), "connection error: %s",
			 strerror(-cqe->res));
		stream_end(s, how);
		return;
	}
	if (cqe->res == 0) {
		stream_end(s, NULL);
		return;
	}
	/* The file first: data read from the socket is never lost. */
	ret = write_all(s->file_fd, s->buf, (size_t)cqe->res);
	if (ret) {
		snprintf(how, sizeof(how), "cannot write %s: %s", s->path,
			 strerror(-ret));
		stream_end(s, how);
		return;
	}
	s->bytes += (uint64_t)cqe->res;
	stream_frame(s, s->buf, (size_t)cqe->res);
	stream_arm_recv(s);
}

static int stream_open_file(struct stream *s, const char *dir,
			    unsigned long seq)
{
	struct timespec ts;
	struct tm tm;
	char when[32], peer[80];
	size_t i;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	/* A file name: no ':' or brackets from addresses. */
	for (i = 0; s->peer[i] && i < sizeof(peer) - 1; i++)
		peer[i] = strchr(":[]/", s->peer[i]) ? '_' : s->peer[i];
	peer[i] = '\0';
	snprintf(s->path, sizeof(s->path), "%s/%s-%s.%03ld-%lu.fxt", dir,
		 peer, when, ts.tv_nsec / 1000000, seq);
	s->file_fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0644);
	return s->file_fd < 0 ? -errno : 0;
}

static void receiver_arm_accept(struct receiver *rc);

static void receiver_on_accept(struct ev_handler *h,
			       const struct io_uring_cqe *cqe)
{
	struct receiver *rc = (void *)((char *)h - offsetof(struct receiver,
							     accept_h));
	struct stream *s;
	int ret;

	if (cqe->res < 0) {
		if (cqe->res != -EINTR && cqe->res != -ECONNABORTED)
			reader_err(cqe->res, "accept failed");
		receiver_arm_accept(rc);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->buf = malloc(RECV_BUF)) ||
	    fxt_reader__new(FXT_READER_LENIENT, &s->rd)) {
		reader_err(-ENOMEM, "cannot take a new stream");
		close(cqe->res);
		if (s)
			free(s->buf);
		free(s);
		receiver_arm_accept(rc);
		return;
	}
	s->recv_h.complete = stream_on_recv;
	s->rc = rc;
	s->fd = cqe->res;
	netaddr__format((struct sockaddr *)&rc->peer_ss, rc->peer_len,
			s->peer, sizeof(s->peer));
	ret = stream_open_file(s, rc->dir, ++rc->seq);
	if (ret) {
		reader_err(ret, "cannot create %s", s->path);
		s->file_fd = -1;
		stream_free(s);
		receiver_arm_accept(rc);
		return;
	}
	s->next = rc->streams;
	rc->streams = s;
	stream_arm_recv(s);
	receiver_arm_accept(rc);
}

static void receiver_arm_accept(struct receiver *rc)
{
	struct io_uring_sqe *sqe = evloop__sqe(&rc->loop, &rc->accept_h);

	rc->peer_len = sizeof(rc->peer_ss);
	if (sqe)
		io_uring_prep_accept(sqe, rc->lfd,
				     (struct sockaddr *)&rc->peer_ss,
				     &rc->peer_len, SOCK_CLOEXEC);
}

static void receiver_on_signal(struct ev_handler *h,
			       const struct io_uring_cqe *cqe)
{
	struct receiver *rc = (void *)((char *)h - offsetof(struct receiver,
							     sig_h));

	(void)cqe;
	rc->stop = true;
}

/* ------------------------------------------------------------------ */
/* Listening                                                           */
/* ------------------------------------------------------------------ */

static int receiver_listen(struct receiver *rc, const char *uri)
{
	struct netaddr a;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char err[256], name[128];
	int one = 1, fd, ret;

	ret = netaddr__resolve(uri, true, &a, 1, err, sizeof(err));
	if (ret < 0)
		return reader_err(ret, "%s", err);
	fd = socket(a.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return reader_err(-errno, "cannot create a socket");
	if (a.family == AF_UNIX) {
		struct stat st;
		const char *path = ((struct sockaddr_un *)&a.ss)->sun_path;

		/* A stale socket from an earlier run, never a plain file. */
		if (!stat(path, &st) && S_ISSOCK(st.st_mode))
			unlink(path);
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	}
	if (bind(fd, (struct sockaddr *)&a.ss, a.len) || listen(fd, 128)) {
		ret = reader_err(-errno, "cannot listen on %s", uri);
		close(fd);
		return ret;
	}
	rc->lfd = fd;
	if (a.family == AF_UNIX) {
		printf("listening on %s\n", uri);
	} else {
		getsockname(fd, (struct sockaddr *)&ss, &len);
		netaddr__format((struct sockaddr *)&ss, len, name, sizeof(name));
		printf("listening on tcp://%s\n", name);
	}
	fflush(stdout);
	return 0;
}

static int receiver_signals(struct receiver *rc, sigset_t *old)
{
	struct io_uring_sqe *sqe;

	rc->sigfd = reader_signalfd(old);
	if (rc->sigfd < 0)
		return rc->sigfd;
	sqe = evloop__sqe(&rc->loop, &rc->sig_h);
	if (sqe)
		io_uring_prep_read(sqe, rc->sigfd, &rc->si, sizeof(rc->si), 0);
	return 0;
}

int cmd_receive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct receiver rc;
	struct stream *s;
	sigset_t oldmask;
	char *end;
	int c, ret;

	memset(&rc, 0, sizeof(rc));
	sigprocmask(SIG_SETMASK, NULL, &oldmask);
	rc.lfd = rc.sigfd = -1;
	rc.accept_h.complete = receiver_on_accept;
	rc.sig_h.complete = receiver_on_signal;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:n:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			rc.dir = optarg;
			break;
		case 'n':
			rc.count = strtoul(optarg, &end, 10);
			if (*end || !rc.count) {
				reader_err(-EINVAL, "bad --count '%s'", optarg);
				return 2;
			}
			break;
		case 'q':
			rc.quiet = true;
			break;
		case 'h':
			receive_usage(stdout);
			return 0;
		default:
			receive_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !rc.dir) {
		receive_usage(stderr);
		return 2;
	}
	if (mkdir(rc.dir, 0755) && errno != EEXIST) {
		reader_err(-errno, "cannot create %s", rc.dir);
		return 1;
	}
	ret = evloop__init(&rc.loop, 256);
	if (ret) {
		reader_err(ret, "cannot set up io_uring");
		return 1;
	}
	ret = receiver_signals(&rc, &oldmask);
	if (ret) {
		reader_err(ret, "cannot set up signals");
		goto out_fini_loop;
	}
	ret = receiver_listen(&rc, argv[optind]);
	if (ret)
		goto out_restore_signals;
	receiver_arm_accept(&rc);
	while (!rc.stop) {
		ret = evloop__run_once(&rc.loop, -1);
		if (ret < 0) {
			reader_err(ret, "event loop failed");
			break;
		}
	}
	ret = ret < 0 ? ret : 0;
	/* Everything read so far is in the files; say what is cut short. */
	for (s = rc.streams; s; s = s->next) {
		stream_summary(s, "interrupted");
		rc.total_bytes += s->bytes;
	}
	if (!rc.quiet)
		printf("received %lu streams, %" PRIu64 " bytes\n", rc.seq,
		       rc.total_bytes);

out_restore_signals:
	if (rc.sigfd >= 0)
		close(rc.sigfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out_fini_loop:
	/* Tears down the requests still pointing into stream buffers. */
	evloop__fini(&rc.loop);
	while ((s = rc.streams)) {
		rc.streams = s->next;
		stream_free(s);
	}
	if (rc.lfd >= 0)
		close(rc.lfd);
	return ret ? 1 : 0;
}

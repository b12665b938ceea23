// SPDX-License-Identifier: GPL-2.0-only
/*
 * out.c - see out.h.
 *
 * The queue is a byte ring of max_buffered bytes (reserved with
 * MAP_NORESERVE, so only what is used becomes resident), plus a FIFO of
 * record end offsets that tells how many records a send completed.
 * Offsets are absolute stream positions: queue_head..queue_tail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "out.h"

/* Files: write once this much is queued; the cap bounds the ring. */
#define OUT_FILE_CHUNK		(1u << 20)
#define OUT_FILE_CAP		(8u << 20)
/* One send moves at most this much, so completions come back steadily. */
#define OUT_SEND_MAX		(1u << 20)

struct out {
	struct ev_handler send_h;
	struct evloop *loop;
	int fd;
	bool socket;
	bool sending;		/* one send in flight */
	int error;

	unsigned char *ring;	/* cap bytes */
	size_t cap;
	uint64_t head;		/* first byte not yet sent */
	uint64_t tail;		/* end of the last queued record */

	uint64_t *ends;		/* FIFO of record end offsets */
	uint8_t *types;		/* FXT type of each queued record */
	size_t ends_cap, ends_first, ends_count;

	uint64_t gap_records;	/* dropped since the last notice */
	struct out_stats st;
};

static int out_connect_tcp(const char *hostport, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char host[256];
	const char *colon = strrchr(hostport, ':');
	size_t hlen;
	int fd = -1, ret;

	if (!colon || colon == hostport || !colon[1]) {
		snprintf(err, errlen, "tcp:// needs host:port, got '%s'",
			 hostport);
		return -EINVAL;
	}
	hlen = (size_t)(colon - hostport);
	if (hostport[0] == '[' && colon[-1] == ']') {	/* [v6]:port */
		hostport++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host)) {
		snprintf(err, errlen, "host name too long");
		return -EINVAL;
	}
	memcpy(host, hostport, hlen);
	host[hlen] = '\0';

	ret = getaddrinfo(host, colon + 1, &hints, &res);
	if (ret) {
		snprintf(err, errlen, "cannot resolve %s: %s", host,
			 gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	ret = -ECONNREFUSED;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		ret = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(err, errlen, "cannot connect to %s: %s", hostport,
			 strerror(-ret));
	return fd < 0 ? ret : fd;
}

static int out_connect_unix(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "unix socket path too long");
		return -ENAMETOOLONG;
	}
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		ret = -errno;
		snprintf(err, errlen, "cannot connect to %s: %s", path,
			 strerror(errno));
		close(fd);
		return ret;
	}
	return fd;
}

static int out_open_fd(const char *uri, bool *socket, char *err,
		       size_t errlen)
{
	const char *path = uri;
	int fd;

	*socket = false;
	if (!strcmp(uri, "-")) {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? -errno : fd;
	}
	if (!strncmp(uri, "tcp://", 6)) {
		*socket = true;
		return out_connect_tcp(uri + 6, err, errlen);
	}
	if (!strncmp(uri, "unix://", 7)) {
		*socket = true;
		return out_connect_unix(uri + 7, err, errlen);
	}
	if (!strncmp(uri, "file://", 7))
		path = uri + 7;
	else if (strstr(uri, "://")) {
		snprintf(err, errlen, "unknown URI scheme in '%s'", uri);
		return -EINVAL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fd = -errno;
		snprintf(err, errlen, "cannot create %s: %s", path,
			 strerror(errno));
	}
	return fd;
}

static void out_send_complete(struct ev_handler *h,
			      const struct io_uring_cqe *cqe);

int out__open(struct out **op, const char *uri, struct evloop *loop,
	      size_t max_buffered, char *err, size_t errlen)
{
	struct out *o;
	int ret;

	err[0] = '\0';
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->send_h.complete = out_send_complete;
	o->loop = loop;
	ret = out_open_fd(uri, &o->socket, err, errlen);
	if (ret < 0)
		goto out_free;
	o->fd = ret;

	o->cap = o->socket ? (max_buffered ? max_buffered :
			      OUT_DEFAULT_MAX_BUFFERED) : OUT_FILE_CAP;
	o->ring = mmap(NULL, o->cap, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (o->ring == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "cannot reserve %zu bytes: %s", o->cap,
			 strerror(errno));
		goto out_close;
	}
	*op = o;
	return 0;

out_close:
	close(o->fd);
out_free:
	free(o);
	if (!err[0])
		snprintf(err, errlen, "%s: %s", uri, strerror(-ret));
	return ret;
}

static int out_ends_push(struct out *o, uint64_t end, uint8_t type)
{
	if (o->ends_count == o->ends_cap) {
		size_t ncap = o->ends_cap ? 2 * o->ends_cap : 4096, i;
		uint64_t *ends = malloc(ncap * sizeof(*ends));
		uint8_t *types = malloc(ncap);

		if (!ends || !types) {
			free(ends);
			free(types);
			return -ENOMEM;
		}
		for (i = 0; i < o->ends_count; i++) {
			size_t j = (o->ends_first + i) % o->ends_cap;

			ends[i] = o->ends[j];
			types[i] = o->types[j];
		}
		free(o->ends);
		free(o->types);
		o->ends = ends;
		o->types = types;
		o->ends_cap = ncap;
		o->ends_first = 0;
	}
	o->ends[(o->ends_first + o->ends_count) % o->ends_cap] = end;
	o->types[(o->ends_first + o->ends_count) % o->ends_cap] = type;
	o->ends_count++;
	return 0;
}

/* Retire the records that the bytes below head completed. */
static void out_retire(struct out *o)
{
	while (o->ends_count && o->ends[o->ends_first] <= o->head) {
		o->ends_first = (o->ends_first + 1) % o->ends_cap;
		o->ends_count--;
		o->st.sent_records++;
		o->st.buffered_records--;
	}
	o->st.buffered_bytes = o->tail - o->head;
}

static void out_drop(struct out *o, const void *rec, size_t len)
{
	uint8_t type = len >= 8 ? *(const uint8_t *)rec & 0xf : 0;

	o->st.dropped_records++;
	o->st.dropped_bytes += len;
	o->st.dropped_by_type[type]++;
	o->gap_records++;
}

/* Drop everything queued: the peer is gone and will never read it. */
static void out_drop_queue(struct out *o)
{
	while (o->ends_count) {
		uint8_t type = o->types[o->ends_first];

		o->ends_first = (o->ends_first + 1) % o->ends_cap;
		o->ends_count--;
		o->st.dropped_records++;
		o->st.dropped_by_type[type]++;
		o->st.buffered_records--;
		o->gap_records++;
	}
	o->st.dropped_bytes += o->tail - o->head;
	o->head = o->tail;
	o->st.buffered_bytes = 0;
}

int out__write(void *ctx, const void *rec, size_t len)
{
	struct out *o = ctx;
	size_t off, first;

	o->st.committed_records++;
	o->st.committed_bytes += len;
	if (o->error || o->tail - o->head + len > o->cap) {
		if (!o->socket && !o->error && out__flush(o) == 0 &&
		    o->tail - o->head + len <= o->cap)
			goto queue;
		out_drop(o, rec, len);
		return -ENOBUFS;
	}
queue:
	if (out_ends_push(o, o->tail + len, *(const uint8_t *)rec & 0xf)) {
		out_drop(o, rec, len);
		return -ENOBUFS;
	}
	off = o->tail % o->cap;
	first = len < o->cap - off ? len : o->cap - off;
	memcpy(o->ring + off, rec, first);
	memcpy(o->ring, (const unsigned char *)rec + first, len - first);
	o->tail += len;
	o->st.buffered_records++;
	o->st.buffered_bytes = o->tail - o->head;

	if (!o->socket && o->tail - o->head >= OUT_FILE_CHUNK)
		out__flush(o);	/* a failure is sticky in o->error */
	return 0;
}

static void out_submit_send(struct out *o)
{
	size_t off = o->head % o->cap, len = o->tail - o->head;
	struct io_uring_sqe *sqe;

	if (o->sending || !len || o->error)
		return;
	if (len > o->cap - off)
		len = o->cap - off;
	if (len > OUT_SEND_MAX)
		len = OUT_SEND_MAX;
	sqe = evloop__sqe(o->loop, &o->send_h);
	if (!sqe) {
		o->error = EBUSY;
		return;
	}
	/* MSG_NOSIGNAL: a vanished peer is an error code, not SIGPIPE. */
	io_uring_prep_send(sqe, o->fd, o->ring + off, len, MSG_NOSIGNAL);
	o->sending = true;
}

static void out_send_complete(struct ev_handler *h,
			      const struct io_uring_cqe *cqe)
{
	struct out *o = (struct out *)h;

	o->sending = false;
	if (cqe->res > 0) {
		/* A short send resumes at the exact next byte. */
		o->head += (uint64_t)cqe->res;
		o->st.sent_bytes += (uint64_t)cqe->res;
		out_retire(o);
	} else if (cqe->res != -EAGAIN && cqe->res != -EINTR) {
		o->error = cqe->res ? -cqe->res : EPIPE;
		out_drop_queue(o);
		return;
	}
	out_submit_send(o);
}

int out__flush(struct out *o)
{
	if (o->error)
		return -o->error;
	if (o->socket) {
		out_submit_send(o);
		return 0;
	}
	while (o->head < o->tail) {
		size_t off = o->head % o->cap, len = o->tail - o->head;
		ssize_t n;

		if (len > o->cap - off)
			len = o->cap - off;
		n = write(o->fd, o->ring + off, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->error = errno;
			out_drop_queue(o);
			return -o->error;
		}
		o->head += (uint64_t)n;
		o->st.sent_bytes += (uint64_t)n;
		out_retire(o);
	}
	return 0;
}

bool out__gap_pending(const struct out *o)
{
	return o->gap_records && !o->error;
}

void out__gap_announced(struct out *o)
{
	o->gap_records = 0;
}

bool out__drained(const struct out *o)
{
	return o->head == o->tail && !o->sending;
}

int out__error(const struct out *o)
{
	return o->error;
}

bool out__is_socket(const struct out *o)
{
	return o->socket;
}

const struct out_stats *out__stats(const struct out *o)
{
	return &o->st;
}

void out__close(struct out *o)
{
	if (!o)
		return;
	/* A send still in flight points into the ring: wait for it. */
	while (o->sending && evloop__run_once(o->loop, 1000) >= 0)
		;
	out_drop_queue(o);
	close(o->fd);
	munmap(o->ring, o->cap);
	free(o->ends);
	free(o->types);
	free(o);
}

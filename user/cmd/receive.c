// SPDX-License-Identifier: GPL-2.0-only
/*
 * receive.c - `fxtprof receive LISTEN_URI -o DIR`: the host side.
 *
 * One io_uring loop accepts connections on a tcp:// or unix:// listener
 * and receives every stream concurrently.  Each stream goes to its own
 * file, named by peer and start time, created (0600 unless --mode says
 * otherwise) when its first valid byte arrives: a connection that sends
 * nothing, or nothing valid, leaves no file.
 *
 * Peers are not trusted.  The framer (framer.h) checks record headers
 * only and keeps O(1) state, so a stream costs its receive buffer and
 * nothing that grows with what the peer sends.  Every limit ends one
 * stream or refuses one connection, never the receiver:
 *   - a framing error ends the stream at once, the file keeps what came
 *     before the bad record;
 *   - --max-record, --max-stream, --idle-timeout end a stream;
 *   - --max-streams, --max-memory, --max-disk refuse new connections,
 *     with the reason logged (at most once a second);
 *   - accept() errors (EMFILE, ENFILE, ENOBUFS, ...) back off, 10 ms
 *     doubling to 1 s, and never spin.
 * Whatever way a stream ends, its file holds whole records only (a cut
 * record is truncated away) and its one summary line gives the bytes and
 * records on disk.
 *
 * Acknowledged end (Documentation/receive.md): when the peer half-closes
 * and nothing went wrong, the file is fdatasync'd and the peer gets a
 * 24-byte acknowledgement with the bytes and records written, then the
 * connection is closed.  A stream that ended on an error or a limit gets
 * no acknowledgement.
 *
 * --push (user/push/push.h): each stream's file is also cut into
 * intervals, named and posted to Grafana Pyroscope by the pusher's
 * threads.  The loop only tells the pusher the file and, after each
 * write, its length in whole records: an atomic store, never a wait.
 *
 * --collect DIR (user/collect/file_reasm.h): the files a board sends in
 * its stream (record --collect stream) are put back together into
 * DIR/.build-id, each stream by a reassembler of its own that the loop
 * feeds the bytes the framer passed: bounded work, a pwrite() of a chunk
 * and, at a file's end, its ELF notes read and a rename.
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
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "framer.h"
#include "opt_value.h"
#include "push_cli.h"
#include "archive/archive.h"
#include "collect/file_reasm.h"
#include "fxt/fxt.h"
#include "sink/sink.h"
#include "receive.h"
#include "transport/stream_ack.h"
#include "transport/evloop.h"
#include "transport/fd_io.h"
#include "transport/netaddr.h"

#define RECV_BUF	(256u << 10)
/* Reads straight after a completion, before going back to the ring. */
#define RECV_BURST	8
/* What one stream costs: its buffer and its state. */
#define STREAM_MEM	(RECV_BUF + sizeof(struct stream))
/* fds kept free of streams: stdio, listener, io_uring, signalfd, slack. */
#define RESERVED_FDS	16
#define BACKOFF_MIN_MS	10
#define BACKOFF_MAX_MS	1000

struct stream {
	struct ev_handler recv_h;	/* a recv (and its idle timeout) */
	struct ev_handler sync_h;	/* after EOF: the fdatasync */
	struct receiver *rc;
	struct stream *next;
	int fd;
	int file_fd;		/* -1 until the first valid byte */
	char peer[80];
	char path[512];
	struct framer fr;
	uint64_t written;	/* bytes written to the file, partial record too */
	unsigned char *buf;
	/* --archive: the archive sink, and a record cut by the buffer. */
	struct sink *arch;
	unsigned char *part;
	size_t part_len, part_need;
	uint64_t arch_records;	/* passed to the sink */
	bool arch_closed;
	struct push_stream *push;	/* --push, or NULL */
	struct file_reasm *collect;	/* --collect, or NULL */
};

struct receiver {
	struct evloop loop;
	struct receive_opts o;
	int lfd;
	int sigfd;
	bool stop;
	unsigned long seq;		/* streams accepted */
	unsigned long ended;
	unsigned long nstreams;		/* open now */
	uint64_t disk_used;		/* bytes in this run's files */
	uint64_t total_bytes;		/* whole records in ended streams */
	unsigned long refused, refused_logged;
	unsigned long accept_errors;
	struct timespec last_refuse_log, last_accept_log;
	unsigned int backoff_ms;
	struct stream *streams;
	struct pusher *pusher;		/* --push, or NULL */
	struct ev_handler accept_h;
	struct ev_handler backoff_h;
	struct ev_handler sig_h;
	struct __kernel_timespec backoff_ts;
	struct __kernel_timespec idle_ts;
	struct sockaddr_storage peer_ss;
	socklen_t peer_len;
	struct signalfd_siginfo si;
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
"  -q, --quiet            no per-stream summary\n"
"      --archive          write each stream as an archive, DIR/...fxtz\n"
"                         (Documentation/archive-format.md), through the\n"
"                         archive sink: whole records only\n"
"      --mode MODE        file mode of the streams, octal (default 0600)\n"
"      --max-record SIZE  largest record (default 256K)\n"
"      --max-stream SIZE  largest stream (default 16G)\n"
"      --idle-timeout S   end a stream silent for S seconds (default 60,\n"
"                         0 = never)\n"
"      --max-streams N    streams at once (default 256, and at most half\n"
"                         the fds RLIMIT_NOFILE leaves)\n"
"      --max-memory SIZE  buffers of all streams (default 64M; 256K each)\n"
"      --max-disk SIZE    bytes all streams may write (default: half the\n"
"                         free space of DIR's file system at start)\n"
"      --collect DIR      the files a board sends in its stream (record\n"
"                         --collect stream) into DIR/.build-id/xx/rest,\n"
"                         for report --debug-dir DIR; each checked whole\n"
"                         against its build id, else dropped and counted\n"
"      --collect-max SIZE largest file taken (default 256M)\n");
	push_cli__usage(f);
	fprintf(f,
"      --symfs DIR        --push: the boards' root file system, here\n"
"      --debug-dir DIR    --push: debug files by build id\n"
"      --vmlinux FILE     --push: kernel symbols from this ELF\n"
"      --system-map FILE  --push: or from this System.map\n"
"  SIZE takes K, M or G.  Documentation/receive.md has the protocol.\n"
"  Exit status: 0, or 1 when it failed, or --push lost (dropped, refused)\n"
"  an interval; 2 for bad arguments.\n");
}

static uint64_t ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)(now.tv_sec - t->tv_sec) * 1000 +
	       (uint64_t)((now.tv_nsec - t->tv_nsec) / 1000000);
}

/* Log lines a peer can cause are kept to one a second. */
static bool log_due(struct timespec *last)
{
	if (last->tv_sec && ms_since(last) < 1000)
		return false;
	clock_gettime(CLOCK_MONOTONIC, last);
	return true;
}

/* ------------------------------------------------------------------ */
/* Streams                                                             */
/* ------------------------------------------------------------------ */

static void stream_arm_recv(struct stream *s)
{
	struct receiver *rc = s->rc;
	struct io_uring_sqe *sqe;

	/* The recv and its linked timeout must go in one submission. */
	if (io_uring_sq_space_left(&rc->loop.ring) < 2)
		io_uring_submit(&rc->loop.ring);
	sqe = evloop__sqe(&rc->loop, &s->recv_h);
	if (!sqe)
		return;
	io_uring_prep_recv(sqe, s->fd, s->buf, RECV_BUF, 0);
	if (!rc->o.idle_timeout_s)
		return;
	sqe->flags |= IOSQE_IO_LINK;
	/* No handler: it completes after the recv, maybe after the stream
	 * is gone, and the recv's -ECANCELED says all it has to say. */
	sqe = evloop__sqe(&rc->loop, NULL);
	if (sqe)
		io_uring_prep_link_timeout(sqe, &rc->idle_ts, 0);
}

static int stream_open_file(struct stream *s)
{
	struct sink_opts so = { .archive = true };
	int fd, ret;

	fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		  s->rc->o.mode);
	if (fd < 0)
		return -errno;
	if (!s->rc->o.archive) {
		s->file_fd = fd;
		if (s->rc->pusher)
			s->push = pusher__add(s->rc->pusher, s->path);
		return 0;
	}
	/* The peer's records carry no segments to cut at: the writer cuts
	 * by its limits, and chunks after the first continue it. */
	so.archive_opts.stream = ARCHIVE_STREAM_ALL;
	ret = sink__open_archive_fd(&s->arch, fd, &s->rc->loop, &so);
	if (ret)
		close(fd);
	return ret;
}

/* Whether the stream has its output yet. */
static bool stream_has_file(const struct stream *s)
{
	return s->file_fd >= 0 || s->arch;
}

/* One whole record to the archive: 0, or -errno. */
static int stream_archive_record(struct stream *s, const unsigned char *rec,
				 size_t len)
{
	uint64_t h;
	int ret;

	memcpy(&h, rec, 8);
	/* A magic record after the first: the peer began a new segment
	 * (its replay follows), where a chunk can start. */
	if (h == FXT_MAGIC && s->arch_records)
		sink__segment_begun(s->arch);
	s->arch_records++;
	ret = sink__write(s->arch, rec, len, (unsigned int)(h & 0xf));
	if (!ret && sink__error(s->arch))
		ret = -sink__error(s->arch);
	return ret;
}

/*
 * --archive: the @len bytes the framer took, as whole records; a record
 * the buffer cuts waits in s->part (at most --max-record).
 */
static int stream_archive_feed(struct stream *s, const unsigned char *p,
			       size_t len)
{
	int ret;

	while (len) {
		size_t n, rec;

		if (s->part_len < 8 || s->part_len < s->part_need) {
			uint64_t h;

			if (!s->part_len && len >= 8) {
				memcpy(&h, p, 8);
				rec = (size_t)((h & 0xf) == 15 ?
					(h >> 4) & 0xffffffffu : (h >> 4) & 0xfff) * 8;
				if (len >= rec) {
					ret = stream_archive_record(s, p, rec);
					if (ret)
						return ret;
					p += rec;
					len -= rec;
					continue;
				}
			}
			if (!s->part) {
				s->part = malloc(s->rc->o.max_record);
				if (!s->part)
					return -ENOMEM;
			}
			/* The header first, then the rest of the record. */
			n = s->part_len < 8 ? 8 - s->part_len :
					      s->part_need - s->part_len;
			if (n > len)
				n = len;
			memcpy(s->part + s->part_len, p, n);
			s->part_len += n;
			p += n;
			len -= n;
			if (s->part_len == 8) {
				memcpy(&h, s->part, 8);
				s->part_need = (size_t)((h & 0xf) == 15 ?
					(h >> 4) & 0xffffffffu : (h >> 4) & 0xfff) * 8;
			}
		}
		if (s->part_len >= 8 && s->part_len == s->part_need) {
			ret = stream_archive_record(s, s->part, s->part_len);
			s->part_len = s->part_need = 0;
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Write the archive's trailer and sync it: 0 or -errno.  Once. */
static int stream_archive_close(struct stream *s)
{
	if (!s->arch || s->arch_closed)
		return 0;
	s->arch_closed = true;
	sink__flush_close(s->arch);
	return sink__complete(s->arch) ? 0 :
	       -(sink__error(s->arch) ? sink__error(s->arch) : EIO);
}

/*
 * Cut the file back to its last whole record, so that it never ends
 * inside one, and keep the disk account true.  Returns 0 or -errno.
 */
static int stream_trim(struct stream *s)
{
	uint64_t keep = s->fr.boundary;

	if (s->file_fd < 0 || s->written == keep)
		return 0;
	if (ftruncate(s->file_fd, (off_t)keep))
		return -errno;
	s->rc->disk_used -= s->written - keep;
	s->written = keep;
	return 0;
}

/* --collect: one line, after the stream's. */
static void stream_collect_summary(const struct stream *s)
{
	const struct file_reasm_stats *st = &s->collect->st;
	const char *sep = " (";

	printf("stream %s: files: %" PRIu64 " collected (%" PRIu64
	       " bytes), %" PRIu64 " there already, %" PRIu64 " dropped",
	       s->peer, st->collected, st->bytes, st->present, st->dropped);
	for (unsigned int i = 0; i < FILE_REASM_NR_WHY; i++) {
		if (!st->why[i])
			continue;
		printf("%s%s: %" PRIu64, sep, file_reasm__why_name(i),
		       st->why[i]);
		if (i == FILE_REASM_IO)
			printf(", the first: %s", strerror(-st->io_err));
		sep = ", ";
	}
	printf("%s\n", *sep == ',' ? ")" : "");
}

static void stream_summary(struct stream *s, const char *how)
{
	if (s->rc->o.quiet)
		return;
	printf("stream %s: %s: %" PRIu64 " bytes, %" PRIu64 " records, %"
	       PRIu64 " gaps announced, %s\n", s->peer,
	       stream_has_file(s) ? s->path : "no file", s->written,
	       s->fr.records, s->fr.gaps, how);
	if (s->collect)
		stream_collect_summary(s);
	fflush(stdout);
}

static void stream_free(struct stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->file_fd >= 0)
		close(s->file_fd);
	if (s->arch) {
		stream_archive_close(s);
		sink__close(s->arch);
	}
	if (s->collect) {
		file_reasm__end(s->collect);
		free(s->collect);
	}
	free(s->part);
	free(s->buf);
	free(s);
}

/* Trim, say how it ended (@how), unlink from the receiver and free. */
static void stream_end(struct stream *s, const char *how)
{
	struct receiver *rc = s->rc;
	struct stream **pp;
	char line[1536];
	int ret;

	ret = stream_trim(s);
	if (ret) {
		snprintf(line, sizeof(line), "%s; cannot cut %s back to %"
			 PRIu64 " bytes: %s", how, s->path, s->fr.boundary,
			 strerror(-ret));
		how = line;
	}
	/* The file holds its whole records, and no more will come. */
	push_stream__commit(s->push, s->fr.boundary);
	push_stream__end(s->push);
	if (s->collect)
		file_reasm__end(s->collect);
	stream_summary(s, how);
	for (pp = &rc->streams; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	rc->total_bytes += s->written;
	rc->nstreams--;
	stream_free(s);
	if (rc->o.count && ++rc->ended >= rc->o.count)
		rc->stop = true;
}

/* Where the peer's half-close found the stream: at a boundary or not. */
static void stream_describe_end(struct stream *s, char *buf, size_t cap)
{
	if (framer__at_boundary(&s->fr))
		snprintf(buf, cap, "ended on a record boundary");
	else
		snprintf(buf, cap, "ended inside a record: the %" PRIu64
			 " bytes from byte %" PRIu64 " are not kept",
			 s->fr.offset - s->fr.boundary, s->fr.boundary);
}

static void stream_on_sync(struct ev_handler *h,
			   const struct io_uring_cqe *cqe);

/* The peer is done: make the file durable, then acknowledge. */
static void stream_on_eof(struct stream *s)
{
	struct io_uring_cqe nothing_to_sync = { .res = 0 };
	struct io_uring_sqe *sqe;
	char how[256];
	int ret;

	ret = stream_trim(s);
	if (ret) {
		/* The file may end inside a record: no ack. */
		stream_describe_end(s, how, sizeof(how));
		stream_end(s, how);
		return;
	}
	if (s->arch) {
		/* The trailer, then fdatasync: done when this returns. */
		nothing_to_sync.res = stream_archive_close(s);
		stream_on_sync(&s->sync_h, &nothing_to_sync);
		return;
	}
	if (s->file_fd < 0) {
		stream_on_sync(&s->sync_h, &nothing_to_sync);
		return;
	}
	sqe = evloop__sqe(&s->rc->loop, &s->sync_h);
	if (!sqe) {
		stream_describe_end(s, how, sizeof(how));
		strncat(how, ", acknowledgement not sent: no submission slot",
			sizeof(how) - strlen(how) - 1);
		stream_end(s, how);
		return;
	}
	io_uring_prep_fsync(sqe, s->file_fd, IORING_FSYNC_DATASYNC);
}

static void stream_on_sync(struct ev_handler *h,
			   const struct io_uring_cqe *cqe)
{
	struct stream *s = (void *)((char *)h - offsetof(struct stream,
							  sync_h));
	struct stream_ack ack;
	char how[1024];
	size_t n;
	ssize_t sent;

	stream_describe_end(s, how, sizeof(how));
	n = strlen(how);
	if (cqe->res < 0) {
		snprintf(how + n, sizeof(how) - n,
			 ", acknowledgement not sent: cannot sync %s: %s", s->path,
			 strerror(-cqe->res));
		stream_end(s, how);
		return;
	}
	stream_ack__encode(&ack, s->written, s->fr.records);
	/* 24 bytes into a socket we never wrote to: room is certain, so a
	 * non-blocking send either takes it all or the peer is gone. */
	sent = send(s->fd, &ack, sizeof(ack), MSG_DONTWAIT | MSG_NOSIGNAL);
	if (sent == (ssize_t)sizeof(ack))
		snprintf(how + n, sizeof(how) - n, ", acknowledgement sent");
	else
		snprintf(how + n, sizeof(how) - n,
			 ", acknowledgement not sent: %s",
			 sent < 0 ? strerror(errno) : "short send");
	stream_end(s, how);
}

/* Bytes this stream may still write, by --max-stream and --max-disk. */
static uint64_t stream_room(const struct stream *s, bool *by_disk)
{
	const struct receiver *rc = s->rc;
	uint64_t room = rc->o.max_stream > s->fr.offset ?
			rc->o.max_stream - s->fr.offset : 0;
	uint64_t disk = rc->o.max_disk > rc->disk_used ?
			rc->o.max_disk - rc->disk_used : 0;

	*by_disk = disk < room;
	return *by_disk ? disk : room;
}

/*
 * What one recv gave (@res bytes in s->buf, 0 for EOF, or -errno): frame
 * it, write it, or end the stream.  True while the stream wants more.
 */
static bool stream_take(struct stream *s, int res)
{
	struct receiver *rc = s->rc;
	char how[768];
	size_t len, take;
	uint64_t room;
	bool by_disk, capped = false;
	int ret;

	if (res == -EINTR || res == -EAGAIN)
		return true;
	if (res == -ECANCELED) {
		/* Only the linked timeout cancels a recv. */
		snprintf(how, sizeof(how), "idle for %u s, closed",
			 rc->o.idle_timeout_s);
		stream_end(s, how);
		return false;
	}
	if (res < 0) {
		snprintf(how, sizeof(how), "connection error: %s",
			 strerror(-res));
		stream_end(s, how);
		return false;
	}
	if (res == 0) {
		stream_on_eof(s);
		return false;
	}
	len = (size_t)res;
	room = stream_room(s, &by_disk);
	if (len > room) {
		len = (size_t)room;
		capped = true;
	}
	take = framer__feed(&s->fr, s->buf, len);
	/* Whole records only, as the file keeps them (bounded work). */
	if (take && s->collect)
		file_reasm__feed(s->collect, s->buf, take);
	if (take && !stream_has_file(s) && (ret = stream_open_file(s))) {
		/* In the summary only: a log line per peer is the peer's to
		 * multiply. */
		snprintf(how, sizeof(how), "cannot create %s: %s", s->path,
			 strerror(-ret));
		stream_end(s, how);
		return false;
	}
	if (take && s->arch) {
		ret = stream_archive_feed(s, s->buf, take);
		s->written += take;
		rc->disk_used += take;
		if (ret) {
			snprintf(how, sizeof(how), "cannot write %s: %s; whole "
				 "records before it kept", s->path,
				 strerror(-ret));
			stream_end(s, how);
			return false;
		}
	} else if (take) {
		ret = fd__write_all(s->file_fd, s->buf, take);
		if (ret) {
			/* Part may be on disk: count it, trim cuts it. */
			struct stat st;

			if (!fstat(s->file_fd, &st) &&
			    (uint64_t)st.st_size > s->written) {
				rc->disk_used += (uint64_t)st.st_size - s->written;
				s->written = (uint64_t)st.st_size;
			}
			snprintf(how, sizeof(how), "cannot write %s: %s; "
				 "whole records up to byte %" PRIu64 " kept",
				 s->path, strerror(-ret), s->fr.boundary);
			stream_end(s, how);
			return false;
		}
		s->written += take;
		rc->disk_used += take;
		/* On disk now: whole records up to the framer's boundary. */
		push_stream__commit(s->push, s->fr.boundary);
	}
	if (framer__failed(&s->fr)) {
		snprintf(how, sizeof(how), "framing error at byte %" PRIu64
			 " (%s: %s): nothing from there on is kept",
			 s->fr.err_offset, s->fr.rule, s->fr.msg);
		stream_end(s, how);
		return false;
	}
	if (capped) {
		snprintf(how, sizeof(how), "limit: %s reached at byte %"
			 PRIu64 ", whole records up to byte %" PRIu64 " kept",
			 by_disk ? "--max-disk" : "--max-stream",
			 s->fr.offset, s->fr.boundary);
		stream_end(s, how);
		return false;
	}
	return true;
}

static void stream_on_recv(struct ev_handler *h,
			   const struct io_uring_cqe *cqe)
{
	struct stream *s = (void *)((char *)h - offsetof(struct stream,
							  recv_h));
	unsigned int i;
	ssize_t n;

	if (!stream_take(s, cqe->res))
		return;
	/*
	 * While data keeps coming, read it at once: a ring round trip per
	 * buffer halves one stream's throughput.  A few reads, then back to
	 * the ring, so that no stream starves the others.
	 */
	for (i = 0; cqe->res > 0 && i < RECV_BURST; i++) {
		n = recv(s->fd, s->buf, RECV_BUF, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (!stream_take(s, n < 0 ? -errno : (int)n))
			return;
	}
	stream_arm_recv(s);
}

static void stream_name(struct stream *s, const char *dir, unsigned long seq)
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
	snprintf(s->path, sizeof(s->path), "%s/%s-%s.%03ld-%lu.%s", dir,
		 peer, when, ts.tv_nsec / 1000000, seq,
		 s->rc->o.archive ? "fxtz" : "fxt");
}

/* ------------------------------------------------------------------ */
/* Accepting                                                           */
/* ------------------------------------------------------------------ */

static void receiver_arm_accept(struct receiver *rc);

static void receiver_on_backoff(struct ev_handler *h,
				const struct io_uring_cqe *cqe)
{
	struct receiver *rc = (void *)((char *)h - offsetof(struct receiver,
							     backoff_h));

	(void)cqe;
	receiver_arm_accept(rc);
}

/* accept() failed: wait, longer each time, instead of retrying at once. */
static void receiver_back_off(struct receiver *rc, int err)
{
	struct io_uring_sqe *sqe;

	rc->accept_errors++;
	rc->backoff_ms = rc->backoff_ms ? rc->backoff_ms * 2 : BACKOFF_MIN_MS;
	if (rc->backoff_ms > BACKOFF_MAX_MS)
		rc->backoff_ms = BACKOFF_MAX_MS;
	if (log_due(&rc->last_accept_log))
		reader_err(err, "accept failed (%lu times so far); retrying in "
			   "%u ms", rc->accept_errors, rc->backoff_ms);
	rc->backoff_ts.tv_sec = rc->backoff_ms / 1000;
	rc->backoff_ts.tv_nsec = (long long)(rc->backoff_ms % 1000) * 1000000;
	sqe = evloop__sqe(&rc->loop, &rc->backoff_h);
	if (sqe)
		io_uring_prep_timeout(sqe, &rc->backoff_ts, 0, 0);
}

/* Why a new connection cannot be taken now, or NULL. */
static const char *receiver_full(struct receiver *rc, char *buf, size_t cap)
{
	if (rc->nstreams >= rc->o.max_streams)
		snprintf(buf, cap, "--max-streams %lu reached",
			 rc->o.max_streams);
	else if ((rc->nstreams + 1) * STREAM_MEM > rc->o.max_memory)
		snprintf(buf, cap, "--max-memory %" PRIu64 " reached (%lu "
			 "streams of %zu bytes)", rc->o.max_memory,
			 rc->nstreams, (size_t)STREAM_MEM);
	/* Spent when what is left may not hold one record. */
	else if (rc->disk_used + rc->o.max_record > rc->o.max_disk)
		snprintf(buf, cap, "--max-disk %" PRIu64 " reached (%" PRIu64
			 " bytes left, less than --max-record)", rc->o.max_disk,
			 rc->o.max_disk - rc->disk_used);
	else
		return NULL;
	return buf;
}

static void receiver_refuse(struct receiver *rc, int fd, const char *peer,
			    const char *why)
{
	close(fd);
	rc->refused++;
	if (log_due(&rc->last_refuse_log)) {
		fprintf(stderr, "fxtprof: refused %lu connection%s (last from "
			"%s): %s\n", rc->refused - rc->refused_logged,
			rc->refused - rc->refused_logged == 1 ? "" : "s", peer,
			why);
		rc->refused_logged = rc->refused;
	}
}

/* --collect: the stream's reassembler; false without memory. */
static bool stream_collect_new(struct stream *s, struct receiver *rc)
{
	s->collect = malloc(sizeof(*s->collect));
	if (!s->collect)
		return false;
	/* The directory exists (cmd_receive made it): this cannot fail. */
	if (file_reasm__init(s->collect, rc->o.collect_dir,
			     rc->o.collect_max)) {
		free(s->collect);
		s->collect = NULL;
		return false;
	}
	return true;
}

static void receiver_on_accept(struct ev_handler *h,
			       const struct io_uring_cqe *cqe)
{
	struct receiver *rc = (void *)((char *)h - offsetof(struct receiver,
							     accept_h));
	char peer[80], why[160];
	struct stream *s;

	if (cqe->res == -EINTR || cqe->res == -ECONNABORTED) {
		receiver_arm_accept(rc);
		return;
	}
	if (cqe->res < 0) {
		receiver_back_off(rc, cqe->res);
		return;
	}
	rc->backoff_ms = 0;
	netaddr__format((struct sockaddr *)&rc->peer_ss, rc->peer_len, peer,
			sizeof(peer));
	if (receiver_full(rc, why, sizeof(why))) {
		receiver_refuse(rc, cqe->res, peer, why);
		receiver_arm_accept(rc);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->buf = malloc(RECV_BUF)) ||
	    (rc->o.collect_dir && !stream_collect_new(s, rc))) {
		if (s)
			free(s->buf);
		free(s);
		receiver_refuse(rc, cqe->res, peer, "out of memory");
		receiver_arm_accept(rc);
		return;
	}
	s->recv_h.complete = stream_on_recv;
	s->sync_h.complete = stream_on_sync;
	s->rc = rc;
	s->fd = cqe->res;
	s->file_fd = -1;
	memcpy(s->peer, peer, sizeof(s->peer));
	framer__init(&s->fr, rc->o.max_record);
	stream_name(s, rc->o.dir, ++rc->seq);
	s->next = rc->streams;
	rc->streams = s;
	rc->nstreams++;
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

/*
 * Defaults that depend on the machine: --max-disk from DIR's free space,
 * and --max-streams within what RLIMIT_NOFILE allows (2 fds a stream), so
 * that accept() does not run out of fds in the first place.
 */
static int receiver_limits(struct receiver *rc)
{
	struct statvfs vfs;
	struct rlimit rl;
	unsigned long fd_streams;

	if (!rc->o.max_disk) {
		if (statvfs(rc->o.dir, &vfs))
			return reader_err(-errno, "cannot stat the file system "
					  "of %s", rc->o.dir);
		rc->o.max_disk = (uint64_t)vfs.f_bavail * vfs.f_frsize / 2;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		fd_streams = rl.rlim_cur > RESERVED_FDS ?
			     (unsigned long)(rl.rlim_cur - RESERVED_FDS) / 2 : 1;
		if (!fd_streams)
			fd_streams = 1;
		if (rc->o.max_streams > fd_streams)
			rc->o.max_streams = fd_streams;
	}
	return 0;
}

enum {
	OPT_MODE = 0x100,
	OPT_MAX_RECORD,
	OPT_MAX_STREAM,
	OPT_IDLE,
	OPT_MAX_STREAMS,
	OPT_MAX_MEMORY,
	OPT_MAX_DISK,
	OPT_ARCHIVE,
	OPT_SYMFS,
	OPT_DEBUG_DIR,
	OPT_VMLINUX,
	OPT_SYSTEM_MAP,
	OPT_COLLECT,
	OPT_COLLECT_MAX,
};

static int receive_parse(int argc, char **argv, struct receive_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "max-record", required_argument, NULL, OPT_MAX_RECORD },
		{ "max-stream", required_argument, NULL, OPT_MAX_STREAM },
		{ "idle-timeout", required_argument, NULL, OPT_IDLE },
		{ "max-streams", required_argument, NULL, OPT_MAX_STREAMS },
		{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
		{ "max-disk", required_argument, NULL, OPT_MAX_DISK },
		{ "archive", no_argument, NULL, OPT_ARCHIVE },
		PUSH_CLI_LONGOPTS,
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
		{ "system-map", required_argument, NULL, OPT_SYSTEM_MAP },
		{ "collect", required_argument, NULL, OPT_COLLECT },
		{ "collect-max", required_argument, NULL, OPT_COLLECT_MAX },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	char *end;
	int c, ret;

	o->mode = RECEIVE_DEFAULT_MODE;
	o->max_record = FRAMER_DEFAULT_MAX_RECORD;
	o->max_stream = RECEIVE_DEFAULT_MAX_STREAM;
	o->idle_timeout_s = RECEIVE_DEFAULT_IDLE_S;
	o->max_streams = RECEIVE_DEFAULT_MAX_STREAMS;
	o->max_memory = RECEIVE_DEFAULT_MAX_MEMORY;
	o->collect_max = FILE_REASM_DEFAULT_MAX;
	push_opts__init(&o->push);
	o->push.sym.lines = true;
	o->push.sym.inlines = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:n:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->dir = optarg;
			break;
		case 'n':
			errno = 0;
			o->count = strtoul(optarg, &end, 10);
			if (errno || *end || !o->count) {
				reader_err(-EINVAL, "bad --count '%s'", optarg);
				return 2;
			}
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_ARCHIVE:
			o->archive = true;
			break;
		case OPT_SYMFS:
			o->push.sym.symfs = optarg;
			break;
		case OPT_DEBUG_DIR:
			o->push.sym.debug_dir = optarg;
			break;
		case OPT_VMLINUX:
			o->push.sym.vmlinux = optarg;
			break;
		case OPT_SYSTEM_MAP:
			o->push.sym.system_map = optarg;
			break;
		case OPT_COLLECT:
			o->collect_dir = optarg;
			break;
		case OPT_COLLECT_MAX:
			if (opt_value__size("collect-max", optarg, 1,
					    &o->collect_max))
				return 2;
			break;
		case OPT_MODE:
			errno = 0;
			v = strtoul(optarg, &end, 8);
			if (errno || *end || end == optarg || v > 0777) {
				reader_err(-EINVAL, "bad --mode '%s' (octal, "
					   "at most 0777)", optarg);
				return 2;
			}
			o->mode = (unsigned int)v;
			break;
		case OPT_MAX_RECORD:
			/* At least the magic record; at most what a large
			 * record's 32-bit word count can say. */
			if (opt_value__size("max-record", optarg, 8,
					    &o->max_record))
				return 2;
			break;
		case OPT_MAX_STREAM:
			if (opt_value__size("max-stream", optarg, 8,
					    &o->max_stream))
				return 2;
			break;
		case OPT_MAX_MEMORY:
			if (opt_value__size("max-memory", optarg, STREAM_MEM,
					    &o->max_memory))
				return 2;
			break;
		case OPT_MAX_DISK:
			if (opt_value__size("max-disk", optarg, 1, &o->max_disk))
				return 2;
			break;
		case OPT_IDLE:
		case OPT_MAX_STREAMS:
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg ||
			    (c == OPT_MAX_STREAMS && !v) ||
			    (c == OPT_IDLE && v > 86400 * 365)) {
				reader_err(-EINVAL, "bad --%s '%s'",
					   c == OPT_IDLE ? "idle-timeout"
							 : "max-streams", optarg);
				return 2;
			}
			if (c == OPT_IDLE)
				o->idle_timeout_s = (unsigned int)v;
			else
				o->max_streams = v;
			break;
		case 'h':
			receive_usage(stdout);
			return 1;
		default:
			ret = push_cli__option(c, optarg, &o->push);
			if (!ret)
				break;
			if (ret == -ENOENT)
				receive_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !o->dir) {
		receive_usage(stderr);
		return 2;
	}
	o->uri = argv[optind];
	if (o->push.url && o->archive) {
		reader_err(-EINVAL, "--push reads the plain streams: it does "
			   "not take --archive");
		return 2;
	}
	return 0;
}

int cmd_receive(int argc, char **argv)
{
	struct receiver rc;
	sigset_t oldmask;
	mode_t dmode;
	int ret;

	memset(&rc, 0, sizeof(rc));
	ret = receive_parse(argc, argv, &rc.o);
	if (ret)
		return ret == 1 ? 0 : 2;
	sigprocmask(SIG_SETMASK, NULL, &oldmask);
	rc.lfd = rc.sigfd = -1;
	rc.accept_h.complete = receiver_on_accept;
	rc.backoff_h.complete = receiver_on_backoff;
	rc.sig_h.complete = receiver_on_signal;
	rc.idle_ts.tv_sec = rc.o.idle_timeout_s;
	/* The directory is as private as the files: who may read a file
	 * may enter the directory. */
	dmode = 0700 | (rc.o.mode & 044) | ((rc.o.mode & 044) >> 2);
	if (mkdir(rc.o.dir, dmode) && errno != EEXIST) {
		reader_err(-errno, "cannot create %s", rc.o.dir);
		return 1;
	}
	if (rc.o.collect_dir && mkdir(rc.o.collect_dir, 0700) &&
	    errno != EEXIST) {
		reader_err(-errno, "cannot create %s", rc.o.collect_dir);
		return 1;
	}
	if (receiver_limits(&rc))
		return 1;
	if (rc.o.push.url) {
		char why[256];

		ret = pusher__new(&rc.o.push, &rc.pusher, why, sizeof(why));
		if (ret) {
			reader_err(ret, "--push: %s", why);
			return ret == -EINVAL ? 2 : 1;
		}
	}
	ret = evloop__init(&rc.loop, 256);
	if (ret) {
		reader_err(ret, "cannot set up io_uring");
		goto out_finish_push;
	}
	ret = receiver_signals(&rc, &oldmask);
	if (ret) {
		reader_err(ret, "cannot set up signals");
		goto out_fini_loop;
	}
	ret = receiver_listen(&rc, rc.o.uri);
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

out_restore_signals:
	if (rc.sigfd >= 0)
		close(rc.sigfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out_fini_loop:
	/* Tears down the requests still pointing into stream buffers. */
	evloop__fini(&rc.loop);
	/* Cut short: whole records are kept, the summary says so. */
	while (rc.streams)
		stream_end(rc.streams, "interrupted");
	if (!rc.o.quiet && rc.lfd >= 0) {
		printf("received %lu streams, %" PRIu64 " bytes", rc.seq,
		       rc.total_bytes);
		if (rc.refused)
			printf(", refused %lu connections", rc.refused);
		printf("\n");
	}
	if (rc.lfd >= 0)
		close(rc.lfd);
out_finish_push:
	if (rc.pusher) {
		struct push_stats st;

		pusher__finish(rc.pusher, &st);
		if (!push_stats__print(&st, stdout) && !ret)
			ret = -EIO;
	}
	return ret ? 1 : 0;
}

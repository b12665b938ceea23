// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_file.c - the file (and stdout) sink: plain write() of the queue.
 *
 * A file waits for the disk instead of dropping: when a record does not
 * fit, the queue is written out first.  The queue is written once a chunk
 * has gathered, so it starts over at offset 0 and stays in the cache.
 *
 * A file that cannot be written any more (ENOSPC, EIO, ...) ends on its
 * last whole record: a record cut by the failure is truncated away and
 * counted as dropped, as are all that follow.  Trace files hold kernel
 * addresses, so they are created private (SINK_DEFAULT_FILE_MODE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sink_internal.h"

int sink_file_open(const char *uri, unsigned int mode, char *err,
		   size_t errlen)
{
	const char *path = uri;
	struct stat st;
	int fd;

	if (!strcmp(uri, "-")) {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? -errno : fd;
	}
	if (!strncmp(uri, "file://", 7))
		path = uri + 7;
	else if (strstr(uri, "://")) {
		snprintf(err, errlen, "unknown URI scheme in '%s'", uri);
		return -EINVAL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		fd = -errno;
		snprintf(err, errlen, "cannot create %s: %s", path,
			 strerror(errno));
		return fd;
	}
	/*
	 * O_CREAT's mode applies only to a new file: an existing one, kept
	 * by O_TRUNC, keeps its old mode unless we set it.
	 */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777) != mode && fchmod(fd, mode)) {
		snprintf(err, errlen, "cannot make %s mode %04o: %s", path,
			 mode, strerror(errno));
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * The file failed with @err: cut it back to its last whole record, and
 * drop (and count) everything after it.
 */
static void sink_file_failed(struct sink *s, int err)
{
	size_t cut = s->q.front_sent;

	s->error = err;
	s->state = SINK_GONE;
	if (cut && !ftruncate(s->fd, (off_t)(s->st.sent_bytes - cut))) {
		/*
		 * The cut record's written bytes left the file again: they
		 * count as dropped, with its unsent rest (sink_drop_queue).
		 */
		s->st.sent_bytes -= cut;
		s->st.dropped_bytes += cut;
	}
	sink_drop_queue(s);
}

int sink_file_write_out(struct sink *s)
{
	for (;;) {
		const void *p;
		size_t len = record_queue__peek(&s->q, &p);
		ssize_t n;

		if (!len)
			return 0;
		n = write(s->fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sink_file_failed(s, errno);
			return -s->error;
		}
		sink_sent(s, (size_t)n);
	}
}

void sink_file_finish(struct sink *s)
{
	struct stat st;
	int err = 0;

	/* Delivered means on the disk: a late EIO shows here or at close. */
	if (!fstat(s->fd, &st) && S_ISREG(st.st_mode) && fdatasync(s->fd))
		err = errno;
	if (close(s->fd) && !err)
		err = errno;
	s->fd = -1;
	if (err) {
		s->error = err;
		sink_settle(s, 0, 0);
	} else {
		sink_settle(s, UINT64_MAX, UINT64_MAX);
	}
	s->state = SINK_CLOSED;
}

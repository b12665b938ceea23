// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_file.c - the file (and stdout) sink: plain write() of the queue.
 *
 * A file waits for the disk instead of dropping: when a record does not
 * fit, the queue is written out first.  The queue is written once a chunk
 * has gathered, so it starts over at offset 0 and stays in the cache.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sink_internal.h"

int sink_file_open(const char *uri, char *err, size_t errlen)
{
	const char *path = uri;
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
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fd = -errno;
		snprintf(err, errlen, "cannot create %s: %s", path,
			 strerror(errno));
	}
	return fd;
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
			s->error = errno;
			s->state = SINK_GONE;
			sink_drop_queue(s);
			return -s->error;
		}
		sink_sent(s, (size_t)n);
	}
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fd_io.h - whole writes to a file descriptor, for the commands and the
 * sinks that write a buffer out with plain write(2).
 *
 * Inline, like transport/clock.h: the programs that use it link no
 * transport library for it.
 */
#ifndef FXTPROF_FD_IO_H
#define FXTPROF_FD_IO_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/*
 * Write all @len bytes of @buf to @fd, across short writes and signals.
 * Returns 0 or -errno; -EIO if write() makes no progress.
 */
static inline int fd__write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

#endif /* FXTPROF_FD_IO_H */

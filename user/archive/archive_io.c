// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_io.c - whole positioned reads and writes of an archive file, and
 * the error sentence of a failed archive call (archive_io.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "archive/archive_io.h"

/*
 * One loop for both directions: a short transfer goes on where it
 * stopped, a signal retries, and no progress at all is a short file.
 * @buf is only written to when @write is false.
 */
static int pio_full(int fd, void *buf, size_t len, uint64_t off, bool write)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = write ? pwrite(fd, p, len, (off_t)off) :
				    pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int arch_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	return pio_full(fd, buf, len, off, false);
}

int arch_pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	return pio_full(fd, (void *)buf, len, off, true);
}

int arch_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

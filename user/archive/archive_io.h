/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_io.h - the file access the archive's writer, reader and repair
 * share: whole positioned reads and writes, and the sentence a failed
 * call leaves in its caller's error buffer.
 */
#ifndef FXTPROF_ARCHIVE_IO_H
#define FXTPROF_ARCHIVE_IO_H

#include <stddef.h>
#include <stdint.h>

/* pread/pwrite until done: 0, -EIO on a short file, or -errno. */
int arch_pread_full(int fd, void *buf, size_t len, uint64_t off);
int arch_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/*
 * Print @fmt into @err (@errlen bytes; none if NULL or 0) and return
 * @ret, so that a failing path is one statement.
 */
int arch_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* FXTPROF_ARCHIVE_IO_H */

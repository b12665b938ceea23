// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_repair.c - archive__repair(): a file that was never finished
 * (kill -9, power loss, or a live archive) becomes a finished one.  The
 * chunks that scanning finds are kept as they are, bytes untouched, and
 * so is the file header; the torn tail after the chunks is truncated
 * away; then a writer that takes over
 * at that point accounts every chunk (decoding it for the summaries) and
 * writes the manifest, the sections and the footer, as at a normal close.
 * A chunk whose payload fails its checksum stays in the manifest (it is
 * still in the file, and a reader names it when it fails), counted in
 * the metrics' bad_chunks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_writer_internal.h"
#include "archive/archive_io.h"

static int repair_fd(int fd, const char *path, struct archive_repair_stats *st,
		     char *err, size_t errlen)
{
	struct archive_reader *a = NULL;
	struct archive_writer *w = NULL;
	struct arch_file_header h;
	unsigned char *buf = NULL;
	uint64_t end, size;
	char msg[256];
	int ret;

	ret = archive_reader__open_fd(&a, fd, 0, msg, sizeof(msg));
	if (ret)
		return arch_fail(err, errlen, ret, "%s: %s", path, msg);
	if (archive_reader__index(a) == ARCHIVE_INDEX_FOOTER) {
		st->was_finished = true;
		st->chunks = archive_reader__nchunks(a);
		goto out_close;
	}
	end = 0;
	ret = arch_pread_full(fd, &h, sizeof(h), 0);
	if (ret)
		goto out_io;
	size = archive_reader__tail_bytes(a);
	for (size_t i = 0; i < archive_reader__nchunks(a); i++) {
		const struct archive_chunk_info *c = archive_reader__chunk(a, i);

		end = c->offset + sizeof(struct arch_chunk_header) + c->compressed;
	}
	if (!end)
		end = sizeof(h);
	st->cut_bytes = size;
	/* The torn tail goes first: the trailer is appended after the chunks. */
	if (ftruncate(fd, (off_t)end)) {
		ret = -errno;
		goto out_io;
	}
	/*
	 * The header stays as it was (a live archive keeps its flag): the
	 * file is only ever appended to, so a crash during repair leaves it
	 * as readable as before.
	 */
	ret = arch_writer__resume(&w, fd, &h, end);
	if (ret)
		goto out_io;
	buf = malloc(archive_reader__max_chunk(a) ? archive_reader__max_chunk(a) : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out_io;
	}
	for (size_t i = 0; i < archive_reader__nchunks(a) && !ret; i++) {
		const struct archive_chunk_info *c = archive_reader__chunk(a, i);
		ssize_t n = archive_reader__read_chunk(a, i, buf,
						       archive_reader__max_chunk(a),
						       NULL, 0);

		if (n < 0 && n != -EBADMSG) {
			ret = (int)n;
			break;
		}
		if (n < 0)
			st->bad_chunks++;
		st->chunks++;
		ret = arch_writer__adopt(w, c, n < 0 ? NULL : buf,
					 n < 0 ? 0 : (size_t)n);
	}
	if (!ret)
		ret = archive_writer__finish(w);
	if (!ret && fdatasync(fd))
		ret = -errno;
out_io:
	if (ret)
		arch_fail(err, errlen, ret, "%s: cannot repair: %s", path,
			  strerror(-ret));
out_close:
	free(buf);
	archive_writer__free(w);
	archive_reader__close(a);
	return ret;
}

int archive__repair(const char *path, struct archive_repair_stats *st,
		    char *err, size_t errlen)
{
	struct archive_repair_stats dummy;
	int fd, ret;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return arch_fail(err, errlen, -errno,
				 "cannot open %s: %s", path,
				 strerror(errno));
	ret = repair_fd(fd, path, st, err, errlen);
	if (close(fd) && !ret)
		ret = arch_fail(err, errlen, -errno, "%s: close: %s", path,
				strerror(errno));
	return ret;
}

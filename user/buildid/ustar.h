/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustar.h - a POSIX ustar archive (IEEE 1003.1-1988 "ustar" format, as
 * GNU and BSD tar read it), written sequentially to a file descriptor:
 * directories and regular files, nothing else.
 *
 * Written here rather than taken from libarchive: `fxtprof
 * buildid-archive` runs on the board, in the static arm64 fxtprof, and
 * libarchive (with its compression libraries) is not staged for that
 * build (scripts/setup.sh stages only what the recorder needs).  The
 * subset a build-id tree needs is 512-byte headers and padded data.
 *
 * Functions return 0 or -errno.  Names are at most 255 bytes and split
 * at a '/' into the header's prefix (155) and name (100) fields; sizes
 * are below 8 GiB (11 octal digits): -ENAMETOOLONG and -EFBIG otherwise.
 */
#ifndef FXTPROF_BUILDID_USTAR_H
#define FXTPROF_BUILDID_USTAR_H

#include <stdint.h>
#include <sys/types.h>

#define USTAR_BLOCK	512

struct ustar {
	int fd;
	uint64_t bytes;		/* written so far */
};

/* A directory entry; name ends with '/' or gets one. */
int ustar__add_dir(struct ustar *t, const char *name, mode_t mode,
		   int64_t mtime);

/*
 * A regular file of size bytes read from src_fd at offset 0.  The return
 * is the archive's fate (-errno of a write: the archive is cut).  A
 * source that gives fewer bytes than size (it shrank, or a read failed)
 * is padded with zeros so the archive stays well formed, and *read_err
 * says so (-errno, -EIO for a short file): that entry is wrong, and the
 * caller reports it.
 */
int ustar__add_file(struct ustar *t, const char *name, int src_fd,
		    uint64_t size, mode_t mode, int64_t mtime, int *read_err);

/* The end of archive: two zero blocks. */
int ustar__finish(struct ustar *t);

#endif /* FXTPROF_BUILDID_USTAR_H */

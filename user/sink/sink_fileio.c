// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_fileio.c - see sink_fileio.h.  Trace files hold kernel addresses,
 * so they are created private (SINK_DEFAULT_FILE_MODE); a file is
 * delivered when every write(), fdatasync() and close() succeeded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sink_fileio.h"

int sink_fileio_create(const char *uri, const struct sink_opts *opts,
		       char *err, size_t errlen)
{
	unsigned int mode = opts->file_mode ? opts->file_mode :
					      SINK_DEFAULT_FILE_MODE;
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

void sink_fileio_finish(struct sink *s, int *fdp)
{
	struct stat st;
	int err = 0;

	/* Delivered means on the disk: a late EIO shows here or at close. */
	if (!fstat(*fdp, &st) && S_ISREG(st.st_mode) && fdatasync(*fdp))
		err = errno;
	if (close(*fdp) && !err)
		err = errno;
	*fdp = -1;
	if (err) {
		s->error = err;
		sink_settle(s, 0, 0);
	} else {
		sink_settle(s, UINT64_MAX, UINT64_MAX);
	}
	s->state = SINK_CLOSED;
}

void sink_fileio_abandon(struct sink *s, int *fdp)
{
	if (*fdp < 0)
		return;
	sink_settle(s, 0, 0);
	close(*fdp);
	*fdp = -1;
}

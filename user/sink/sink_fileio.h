/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sink_fileio.h - what the file and archive sinks share about the file
 * itself: creating it private, and its orderly end, which settles the
 * stream.  Not a back end: both back ends call it.
 */
#ifndef FXTPROF_SINK_FILEIO_H
#define FXTPROF_SINK_FILEIO_H

#include "sink_core.h"

/*
 * Create @uri (a path, file:///path, or "-" for a copy of stdout) for
 * writing, truncated, with opts->file_mode (SINK_DEFAULT_FILE_MODE if 0):
 * the fd, or -errno with a message in @err when there is one to give.
 */
int sink_fileio_create(const char *uri, const struct sink_opts *opts,
		       char *err, size_t errlen);

/*
 * fdatasync (regular files) and close *@fdp (then -1), and settle the
 * stream: what was sent is delivered when both succeeded.  The sink is
 * CLOSED.
 */
void sink_fileio_finish(struct sink *s, int *fdp);
/* Close *@fdp (then -1) unfinished, if open: nothing of it is confirmed. */
void sink_fileio_abandon(struct sink *s, int *fdp);

#endif /* FXTPROF_SINK_FILEIO_H */

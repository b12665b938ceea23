/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sink_backends.h - the sink back ends' ops tables, for the table that
 * chooses one by URI (sink_open.c) and for the back ends that define
 * them.  A new back end is one new file, its table declared here and one
 * line in sink_open.c.
 */
#ifndef FXTPROF_SINK_BACKENDS_H
#define FXTPROF_SINK_BACKENDS_H

#include "sink_core.h"

extern const struct sink_ops sink_file_ops;	/* sink_file.c */
extern const struct sink_ops sink_socket_ops;	/* sink_socket.c */
extern const struct sink_ops sink_archive_ops;	/* sink_archive.c */
extern const struct sink_ops sink_window_ops;	/* sink_window.c */

#endif /* FXTPROF_SINK_BACKENDS_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * receive.h - `fxtprof receive`: its limits and options.  The
 * acknowledgement it sends a peer whose stream it has safely written is
 * user/transport/stream_ack.h (Documentation/receive.md, "Receive
 * protocol").
 */
#ifndef FXTPROF_RECEIVE_H
#define FXTPROF_RECEIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "push/push.h"

#define RECEIVE_DEFAULT_MODE		0600
#define RECEIVE_DEFAULT_MAX_STREAM	(16ull << 30)
#define RECEIVE_DEFAULT_IDLE_S		60
#define RECEIVE_DEFAULT_MAX_STREAMS	256
#define RECEIVE_DEFAULT_MAX_MEMORY	(64ull << 20)

struct receive_opts {
	const char *uri;
	const char *dir;
	bool quiet;
	unsigned long count;		/* exit after this many streams, 0 = never */
	unsigned int mode;		/* of the files (umask applies) */
	uint64_t max_record;		/* bytes */
	uint64_t max_stream;		/* bytes */
	unsigned int idle_timeout_s;	/* 0 = never */
	unsigned long max_streams;
	uint64_t max_memory;		/* bytes of stream buffers */
	uint64_t max_disk;		/* bytes; 0 = half the free space */
	bool archive;			/* each stream as an archive (.fxtz) */
	struct push_opts push;		/* --push: url set, else not pushed */
	const char *collect_dir;	/* --collect: the boards' files */
	uint64_t collect_max;		/* --collect-max: largest file */
};

#endif /* FXTPROF_RECEIVE_H */

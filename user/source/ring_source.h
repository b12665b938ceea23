/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring_source.h - the module's per-CPU rings as a record source.
 *
 * A source produces the record stream: validated uapi records
 * (include/uapi/fxtprof.h) handed one at a time to an fxtprof_rec_cb.
 * This one drains /dev/fxtprof's rings through libfxtprof (user/lib); an
 * eBPF source or an annotation writer would offer the same drain.
 */
#ifndef FXTPROF_RING_SOURCE_H
#define FXTPROF_RING_SOURCE_H

#include <stdio.h>

#include <libfxtprof.h>

struct ring_source {
	struct fxtprof_dev *dev;
};

/* Open @device (NULL: FXTPROF_DEVICE) and configure a session: 0/-errno. */
int ring_source__open(struct ring_source *src, const char *device);
int ring_source__configure(struct ring_source *src,
			   const struct fxtprof_config *cfg);
void ring_source__close(struct ring_source *src);

/* Readable when records are pending: poll it. */
int ring_source__fd(const struct ring_source *src);
int ring_source__start(struct ring_source *src);
int ring_source__stop(struct ring_source *src);
/*
 * Have every CPU write out what it holds (a pending LOST record) and a
 * FLUSH marker; *seq (may be NULL) gets the flush's sequence number.
 */
int ring_source__flush(struct ring_source *src, __u64 *seq);
/* 1 once the drains passed flush @seq's marker on every ring, else 0. */
int ring_source__flush_done(const struct ring_source *src, __u64 seq);

/*
 * Hand every pending record of every ring to @cb, in ring order.  0, or
 * -errno with the CPU whose ring is corrupt in *bad_cpu.
 */
int ring_source__drain(struct ring_source *src, fxtprof_rec_cb cb, void *ctx,
		       unsigned int *bad_cpu);

/*
 * The session's statistics summed over the CPUs; with @report, a line per
 * CPU that lost records.
 */
void ring_source__stats(struct ring_source *src, struct fxtprof_stats *total,
			FILE *report);

#endif /* FXTPROF_RING_SOURCE_H */

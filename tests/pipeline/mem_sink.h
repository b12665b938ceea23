/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mem_sink.h - a stand-in for the framed byte sink, for the pipeline's
 * host tests: the encoder reserves and commits whole records into one
 * flat buffer, which the test then reads back word by word or feeds to
 * the FXT reader and checker.  A record that does not fit is refused, as
 * the real sink refuses one, so a test sees the encoder's -ENOBUFS path.
 * Give it static storage: the buffer is 1 MiB.
 */
#ifndef FXTPROF_TESTS_MEM_SINK_H
#define FXTPROF_TESTS_MEM_SINK_H

#include <stddef.h>

struct mem {
	unsigned char buf[1 << 20];
	size_t len, reserved;
};

static inline void *mem_reserve(void *ctx, size_t len, unsigned int type)
{
	struct mem *m = ctx;

	(void)type;
	if (m->len + len > sizeof(m->buf))
		return NULL;
	m->reserved = len;
	return m->buf + m->len;
}

static inline void mem_commit(void *ctx)
{
	struct mem *m = ctx;

	m->len += m->reserved;
}

#endif /* FXTPROF_TESTS_MEM_SINK_H */

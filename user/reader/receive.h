/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * receive.h - `fxtprof receive`: its limits, and the acknowledgement it
 * sends a peer whose stream it has safely written (Documentation/receive.md,
 * "Receive protocol").  A sender (user/reader/out.c) decodes the
 * acknowledgement with receive_ack__decode().
 */
#ifndef FXTPROF_RECEIVE_H
#define FXTPROF_RECEIVE_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The bytes "FXTACK\0\1" read as a little-endian u64. */
#define RECEIVE_ACK_MAGIC		0x01004b4341545846ull
#define RECEIVE_ACK_SIZE		24

/* All fields little-endian. */
struct receive_ack {
	uint64_t magic;			/* RECEIVE_ACK_MAGIC */
	uint64_t bytes;			/* written to the file, whole records */
	uint64_t records;		/* records written */
};

_Static_assert(sizeof(struct receive_ack) == RECEIVE_ACK_SIZE,
	       "the acknowledgement is 24 bytes on the wire");

static inline void receive_ack__encode(struct receive_ack *a, uint64_t bytes,
				       uint64_t records)
{
	a->magic = htole64(RECEIVE_ACK_MAGIC);
	a->bytes = htole64(bytes);
	a->records = htole64(records);
}

/* 24 bytes as read from the socket: 0, or -EPROTO if not an ack. */
static inline int receive_ack__decode(const void *wire, uint64_t *bytes,
				      uint64_t *records)
{
	struct receive_ack a;

	memcpy(&a, wire, sizeof(a));
	if (le64toh(a.magic) != RECEIVE_ACK_MAGIC)
		return -EPROTO;
	*bytes = le64toh(a.bytes);
	*records = le64toh(a.records);
	return 0;
}

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
};

#endif /* FXTPROF_RECEIVE_H */

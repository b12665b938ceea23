/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stream_ack.h - the acknowledgement that ends a stream sent to `fxtprof
 * receive` (Documentation/receive.md, "Receive protocol").  Once the
 * sender has half-closed and the receiver has written and synced every
 * whole record, the receiver answers with how much it wrote; the sender's
 * socket sink (user/sink/) settles the stream from it, so "delivered"
 * means written at the other end, not handed to the kernel.
 */
#ifndef FXTPROF_STREAM_ACK_H
#define FXTPROF_STREAM_ACK_H

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

/* The bytes "FXTACK\0\1" read as a little-endian u64. */
#define STREAM_ACK_MAGIC		0x01004b4341545846ull
#define STREAM_ACK_SIZE		24

/* All fields little-endian. */
struct stream_ack {
	uint64_t magic;			/* STREAM_ACK_MAGIC */
	uint64_t bytes;			/* written to the file, whole records */
	uint64_t records;		/* records written */
};

_Static_assert(sizeof(struct stream_ack) == STREAM_ACK_SIZE,
	       "the acknowledgement is 24 bytes on the wire");

static inline void stream_ack__encode(struct stream_ack *a, uint64_t bytes,
				       uint64_t records)
{
	a->magic = htole64(STREAM_ACK_MAGIC);
	a->bytes = htole64(bytes);
	a->records = htole64(records);
}

/* 24 bytes as read from the socket: 0, or -EPROTO if not an ack. */
static inline int stream_ack__decode(const void *wire, uint64_t *bytes,
				      uint64_t *records)
{
	struct stream_ack a;

	memcpy(&a, wire, sizeof(a));
	if (le64toh(a.magic) != STREAM_ACK_MAGIC)
		return -EPROTO;
	*bytes = le64toh(a.bytes);
	*records = le64toh(a.records);
	return 0;
}

#endif /* FXTPROF_STREAM_ACK_H */

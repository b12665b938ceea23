/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pb_writer.h - the little of protobuf's wire format the exporters need:
 * varints, tags, length-delimited fields and nested messages, into one
 * growable buffer.
 *
 * Errors are sticky: the first failed allocation sets err (-ENOMEM) and
 * every later call does nothing, so an encoder writes a whole message and
 * checks once at the end.  A nested message is opened with pb_open() and
 * closed with pb_close(), which moves its body to make room for the
 * length varint in front of it: no size pass, no fixed-width lengths.
 */
#ifndef FXTPROF_PB_WRITER_H
#define FXTPROF_PB_WRITER_H

#include <stddef.h>
#include <stdint.h>

enum pb_wire_type {
	PB_WT_VARINT = 0,
	PB_WT_LEN = 2,
};

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	int err;		/* 0, or the first -errno */
};

#define PB_BUF_INIT	{ NULL, 0, 0, 0 }

/* Forget the contents (and an error), keep the memory. */
void pb_buf__reset(struct pb_buf *b);
void pb_buf__release(struct pb_buf *b);
/* Room for n more bytes; 0 or -ENOMEM (also recorded in err). */
int pb_buf__reserve(struct pb_buf *b, size_t n);

/* The encoded size of a varint, 1..10. */
size_t pb_varint_size(uint64_t v);
/* Write v as a varint at p (room for 10 bytes); returns bytes written. */
size_t pb_varint_put(uint8_t *p, uint64_t v);

void pb_put_raw(struct pb_buf *b, const void *data, size_t len);
void pb_put_varint(struct pb_buf *b, uint64_t v);
void pb_put_tag(struct pb_buf *b, uint32_t field, enum pb_wire_type wt);
/* field = v, varint (uint32/64, int64 >= 0, bool, enum). */
void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v);
/* field = bytes (also strings and pre-encoded messages). */
void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data,
		  size_t len);

/*
 * A nested message of field: returns the mark to give pb_close() once
 * its body is written.  Marks nest.
 */
size_t pb_open(struct pb_buf *b, uint32_t field);
void pb_close(struct pb_buf *b, size_t mark);

#endif /* FXTPROF_PB_WRITER_H */

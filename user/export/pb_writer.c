// SPDX-License-Identifier: GPL-2.0-only
/*
 * pb_writer.c - protobuf wire format into a growable buffer (pb_writer.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pb_writer.h"

void pb_buf__reset(struct pb_buf *b)
{
	b->len = 0;
	b->err = 0;
}

void pb_buf__release(struct pb_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

int pb_buf__reserve(struct pb_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return b->err;
	if (n <= b->cap - b->len)
		return 0;
	if (n > SIZE_MAX / 2 - b->len) {
		b->err = -ENOMEM;
		return b->err;
	}
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < n)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t pb_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

void pb_put_raw(struct pb_buf *b, const void *data, size_t len)
{
	if (!len || pb_buf__reserve(b, len))
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

void pb_put_varint(struct pb_buf *b, uint64_t v)
{
	if (pb_buf__reserve(b, 10))
		return;
	b->len += pb_varint_put(b->data + b->len, v);
}

void pb_put_tag(struct pb_buf *b, uint32_t field, enum pb_wire_type wt)
{
	pb_put_varint(b, (uint64_t)field << 3 | wt);
}

void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_put_tag(b, field, PB_WT_VARINT);
	pb_put_varint(b, v);
}

void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data,
		  size_t len)
{
	pb_put_tag(b, field, PB_WT_LEN);
	pb_put_varint(b, len);
	pb_put_raw(b, data, len);
}

size_t pb_open(struct pb_buf *b, uint32_t field)
{
	pb_put_tag(b, field, PB_WT_LEN);
	return b->len;
}

void pb_close(struct pb_buf *b, size_t mark)
{
	size_t body, n;
	uint8_t tmp[10];

	if (b->err || mark > b->len)
		return;
	body = b->len - mark;
	n = pb_varint_size(body);
	if (pb_buf__reserve(b, n))
		return;
	memmove(b->data + mark + n, b->data + mark, body);
	pb_varint_put(tmp, body);
	memcpy(b->data + mark, tmp, n);
	b->len += n;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_queue.c - see record_queue.h.
 *
 * Both allocations are reserved with MAP_NORESERVE, so only what is used
 * becomes resident: the side FIFO costs 8 bytes per queued record.  An
 * empty queue starts over at 0, data and FIFO alike, so a steady stream
 * keeps touching the same first pages; and once emptied after a backlog
 * (a stalled peer, the start's snapshot), it gives the pages the backlog
 * touched past RECORD_QUEUE_KEEP back with MADV_DONTNEED, so that its
 * resident size follows the backlog down again.  No
 * transparent huge pages: a turn that first touches a 2 MiB page waits
 * for it to be zeroed (bench-socket's stalled peer saw 9-33 ms turns with
 * them, against well under 1 ms with 4 KiB pages).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record_queue.h"

static void *map_lazily(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/*
	 * Where THP is "always" (the test VMs' kernels), the first record
	 * would otherwise make 2 MiB resident, and a trim keep it.  Advice
	 * only: a kernel without THP refuses it, and nothing changes.
	 */
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

int record_queue__init(struct record_queue *q, size_t cap)
{
	memset(q, 0, sizeof(*q));
	cap &= ~(size_t)7;
	if (cap < 4096)
		return -EINVAL;
	q->cap = cap;
	/*
	 * Every record after the front is wholly unsent and >= 8 bytes; a
	 * power of two, so a slot is a mask and not a division per record.
	 */
	q->nbounds = 1;
	while (q->nbounds < cap / 8 + 2)
		q->nbounds <<= 1;
	q->buf = map_lazily(cap);
	if (!q->buf)
		return -ENOMEM;
	q->bounds = map_lazily(q->nbounds * sizeof(*q->bounds));
	if (!q->bounds) {
		munmap(q->buf, cap);
		q->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

void record_queue__fini(struct record_queue *q)
{
	if (q->buf)
		munmap(q->buf, q->cap);
	if (q->bounds)
		munmap(q->bounds, q->nbounds * sizeof(*q->bounds));
	q->buf = NULL;
	q->bounds = NULL;
}

/* Give back the pages of [@p + @keep, @p + @touched). */
static void trim(void *p, size_t keep, size_t touched)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	keep = (keep + page - 1) & ~(page - 1);
	if (touched > keep)
		madvise((unsigned char *)p + keep, touched - keep,
			MADV_DONTNEED);
}

/* Keep head on data, and start over at 0 once everything has left. */
static void normalize(struct record_queue *q)
{
	if (q->wrapped && q->head == q->wrap) {
		q->head = 0;
		q->wrapped = false;
	}
	if (q->wrapped || q->head != q->tail || q->res_len)
		return;
	q->head = q->tail = 0;
	if (q->b_head != q->b_tail)
		return;
	q->b_head = q->b_tail = 0;
	if (q->touched > RECORD_QUEUE_KEEP ||
	    q->b_touched > RECORD_QUEUE_KEEP) {
		trim(q->buf, RECORD_QUEUE_KEEP, q->touched);
		trim(q->bounds, RECORD_QUEUE_KEEP, q->b_touched);
		q->touched = q->b_touched = 0;
	}
}

/* Where a record of @len would go: 0 and *off, or -1. */
static int place(const struct record_queue *q, size_t len, size_t *off,
		 bool *wraps)
{
	*wraps = false;
	if (q->wrapped) {
		if (q->head - q->tail < len)
			return -1;
		*off = q->tail;
		return 0;
	}
	if (q->cap - q->tail >= len) {
		*off = q->tail;
		return 0;
	}
	/* Skip the end; the start is free below head. */
	if (q->head < len)
		return -1;
	*off = 0;
	*wraps = true;
	return 0;
}

bool record_queue__fits(const struct record_queue *q, size_t len)
{
	size_t off;
	bool wraps;

	if (!len || len % 8 || len > q->cap)
		return false;
	/* An empty queue starts over at 0 on the next reserve. */
	if (!q->wrapped && q->head == q->tail)
		return true;
	return !place(q, len, &off, &wraps);
}

void *record_queue__reserve(struct record_queue *q, size_t len,
			    unsigned int kind)
{
	if (q->res_len || !len || len % 8 || len > q->cap)
		return NULL;
	normalize(q);
	if (place(q, len, &q->res_off, &q->res_wraps))
		return NULL;
	q->res_len = len;
	q->res_kind = kind & 0xff;
	return q->buf + q->res_off;
}

void record_queue__commit(struct record_queue *q)
{
	if (!q->res_len)
		return;
	if (q->res_wraps) {
		q->wrap = q->tail;
		q->wrapped = true;
	}
	q->tail = q->res_off + q->res_len;
	if (q->tail > q->touched)
		q->touched = q->tail;
	q->bounds[q->b_tail & (q->nbounds - 1)] = (uint64_t)q->res_len << 8 |
					    q->res_kind;
	q->b_tail++;
	/* Until the FIFO wraps (it can only when the data did). */
	if (q->b_tail >= q->nbounds)
		q->b_touched = q->nbounds * sizeof(*q->bounds);
	else if (q->b_tail * sizeof(*q->bounds) > q->b_touched)
		q->b_touched = q->b_tail * sizeof(*q->bounds);
	q->unsent += q->res_len;
	q->res_len = 0;
}

size_t record_queue__peek(struct record_queue *q, const void **p)
{
	normalize(q);
	*p = q->buf + q->head;
	return (q->wrapped ? q->wrap : q->tail) - q->head;
}

uint64_t record_queue__consume(struct record_queue *q, size_t n)
{
	uint64_t done = 0;

	q->head += n;
	q->unsent -= n;
	q->front_sent += n;
	while (q->b_head < q->b_tail) {
		size_t len = q->bounds[q->b_head & (q->nbounds - 1)] >> 8;

		if (q->front_sent < len)
			break;
		q->front_sent -= len;
		q->b_head++;
		done++;
	}
	normalize(q);
	return done;
}

bool record_queue__pop(struct record_queue *q, size_t *len,
		       unsigned int *kind, size_t *unsent)
{
	uint64_t e;

	if (q->b_head == q->b_tail)
		return false;
	e = q->bounds[q->b_head & (q->nbounds - 1)];
	*len = e >> 8;
	*kind = e & 0xff;
	*unsent = *len - q->front_sent;
	/* The rest of a record is contiguous: records are never split. */
	if (*unsent) {
		normalize(q);
		q->head += *unsent;
		q->unsent -= *unsent;
	}
	q->front_sent = 0;
	q->b_head++;
	normalize(q);
	return true;
}

/* The bytes of the pages of mapping [@p, @p + @len) that are in memory. */
static uint64_t resident_bytes(const void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages, i, k, n;
	unsigned char vec[256];
	uint64_t in = 0;

	if (!p || !len)
		return 0;
	pages = (len + page - 1) / page;
	for (i = 0; i < pages; i += n) {
		n = pages - i < sizeof(vec) ? pages - i : sizeof(vec);
		if (mincore((unsigned char *)p + i * page, n * page, vec))
			return 0;
		for (k = 0; k < n; k++)
			in += vec[k] & 1;
	}
	return in * page;
}

void record_queue__memory(const struct record_queue *q, uint64_t *held,
			  uint64_t *resident)
{
	size_t bounds = q->nbounds * sizeof(*q->bounds);

	*held = q->cap + bounds;
	*resident = resident_bytes(q->buf, q->cap) +
		    resident_bytes(q->bounds, bounds);
}

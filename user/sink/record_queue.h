/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_queue.h - a capped byte queue of whole records that knows where
 * each record ends without reading it.
 *
 * An encoder reserves room for one record, fills it in place and commits
 * it; the sender peeks at the unsent bytes (one contiguous run at a time),
 * sends what it can and reports it consumed.  The queue keeps the length
 * and kind of every record in a side FIFO, so it tells how many records
 * the consumed bytes completed, and, when everything must go, which
 * records are dropped and how many of their bytes never left.  It never
 * parses the bytes: any format whose records are multiples of 8 bytes
 * fits (every reservation is then 8-byte aligned).
 *
 * The data is one contiguous allocation used as a bip buffer: a record is
 * never split at the end of the memory; when it does not fit there it
 * goes to the start and the end is skipped.  When the queue empties, it
 * starts over at offset 0, so a queue that keeps up stays in the cache
 * and touches no new pages.
 */
#ifndef FXTPROF_RECORD_QUEUE_H
#define FXTPROF_RECORD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct record_queue {
	unsigned char *buf;
	size_t cap;		/* bytes, a multiple of 8 */
	size_t head;		/* first unsent byte */
	size_t tail;		/* where the next record goes */
	size_t wrap;		/* wrapped: the data at the top ends here */
	bool wrapped;		/* data is [head, wrap) then [0, tail) */

	uint64_t *bounds;	/* FIFO of (len << 8 | kind), one per record */
	size_t nbounds;		/* its slots, a power of two */
	uint64_t b_head, b_tail;	/* FIFO positions, 0 again when empty */
	/* The most of buf and of bounds touched since the last trim. */
	size_t touched, b_touched;
	size_t front_sent;	/* bytes of the front record already sent */

	size_t unsent;		/* bytes committed and not consumed */
	size_t res_off, res_len;	/* the open reservation, len 0 = none */
	unsigned int res_kind;
	bool res_wraps;
};

/*
 * What an emptied queue keeps resident: the pages past this, of the data
 * and of the bounds, go back to the kernel (a backlog touched them, and
 * the next one touches them again).
 */
#define RECORD_QUEUE_KEEP	(256u << 10)

/* @cap bytes (rounded down to 8, at least 4096), reserved lazily: 0/-errno. */
int record_queue__init(struct record_queue *q, size_t cap);
void record_queue__fini(struct record_queue *q);

/* Whether a record of @len bytes would fit now. */
bool record_queue__fits(const struct record_queue *q, size_t len);

/*
 * Room for one record of @len bytes (a multiple of 8) and of @kind (0..255,
 * the caller's classification, given back when the record is dropped), or
 * NULL if it does not fit.  At most one reservation is open.
 */
void *record_queue__reserve(struct record_queue *q, size_t len,
			    unsigned int kind);
/* The open reservation is a complete record. */
void record_queue__commit(struct record_queue *q);

/* The next contiguous run of unsent bytes; returns its length, 0 = none. */
size_t record_queue__peek(struct record_queue *q, const void **p);
/* @n bytes of the run left; returns how many records they completed. */
uint64_t record_queue__consume(struct record_queue *q, size_t n);

/*
 * Remove the front record, sent or not.  Returns false when empty; else
 * its length, kind and how many of its bytes were never sent.
 */
bool record_queue__pop(struct record_queue *q, size_t *len,
		       unsigned int *kind, size_t *unsent);

static inline size_t record_queue__unsent(const struct record_queue *q)
{
	return q->unsent;
}

/* Records in the queue, including a partly sent front record. */
static inline uint64_t record_queue__records(const struct record_queue *q)
{
	return q->b_tail - q->b_head;
}

/*
 * The bytes @q holds (its buffer and its record bounds) in *@held, and
 * of them those in memory in *@resident (mincore() of both mappings:
 * a queue never filled has touched only its first pages).
 */
void record_queue__memory(const struct record_queue *q, uint64_t *held,
			  uint64_t *resident);

#endif /* FXTPROF_RECORD_QUEUE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * framer.h - where the records of an FXT byte stream begin and end, with
 * no copy and O(1) state, for `fxtprof receive`.
 *
 * A receiver must not trust its peer, so it keeps no string or thread
 * table (a peer could fill them) and decodes nothing but record headers:
 * the stream must open with the FXT magic record, every record must have
 * a non-zero size of at most max_record bytes, and the stream is valid up
 * to the end of its last whole record.  Whether the records inside are
 * well formed is `fxtprof check`'s business, on the saved file.
 *
 * The first framing error is final: the framer says at which byte and by
 * which rule, and takes no more bytes.
 */
#ifndef FXTPROF_FRAMER_H
#define FXTPROF_FRAMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --max-record default: trace-engine's limit on an inline large record. */
#define FRAMER_DEFAULT_MAX_RECORD	(256u << 10)

struct framer {
	uint64_t max_record;		/* bytes */
	uint64_t offset;		/* bytes taken so far */
	uint64_t boundary;		/* end of the last whole record */
	uint64_t records;		/* whole records */
	uint64_t gaps;			/* provider buffer-overflow events */
	uint64_t left;			/* bytes still due for the current record */
	uint64_t hdr;			/* the current record's header word */
	unsigned int hdr_len;		/* header bytes gathered, 0..8 */
	/* Set at the first error: */
	const char *rule;		/* "magic-missing", "record-size-zero", ... */
	uint64_t err_offset;		/* the bad header's first byte */
	char msg[160];
};

void framer__init(struct framer *f, uint64_t max_record);

/*
 * Take @len bytes.  Returns how many of them belong to the stream: all of
 * them, or, at a framing error, those before the bad record's header.
 */
size_t framer__feed(struct framer *f, const void *data, size_t len);

static inline bool framer__failed(const struct framer *f)
{
	return f->rule != NULL;
}

/* True when every byte taken belongs to a whole record. */
static inline bool framer__at_boundary(const struct framer *f)
{
	return f->offset == f->boundary;
}

#endif /* FXTPROF_FRAMER_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_extract.c - see archive_extract.h.
 *
 * The clip looks only at record headers and timestamp words: it never
 * decodes strings or arguments, so it costs a pass over the bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "archive_extract.h"

#define FXT_MAGIC_WORD	0x0016547846040010ull

bool archive_kind_is_def(unsigned int kind)
{
	switch (kind) {
	case 0: case 1: case 2: case 3: case 5: case 6: case 7:
		return true;
	}
	return false;
}

/*
 * The records a stream starts with: the magic (metadata type 4, trace
 * info), provider info and section (metadata types 1 and 2) and the
 * initialization record.  Provider events (type 3, overflow notices) are
 * not: they stay.
 */
static bool is_stream_header(uint64_t word)
{
	unsigned int mtype = (word >> 16) & 0xf;

	if ((word & 0xf) == 1)
		return true;
	return (word & 0xf) == 0 && (mtype == 1 || mtype == 2 || mtype == 4);
}

void archive_clip__init(struct archive_clip *c, uint64_t from_ns,
			uint64_t to_ns, archive_emit_fn emit, void *ctx,
			struct archive_extract_stats *st)
{
	memset(c, 0, sizeof(*c));
	c->from_ns = from_ns;
	c->to_ns = to_ns;
	c->emit = emit;
	c->ctx = ctx;
	c->st = st;
}

void archive_clip__segment(struct archive_clip *c)
{
	c->skip_header = c->header_done;
	/* Untimed records at a segment's head follow no event. */
	c->in_range = false;
}

static int clip_emit(struct archive_clip *c, const uint64_t *rec, size_t len,
		     unsigned int kind, bool timed)
{
	struct archive_extract_stats *st = c->st;
	int ret = c->emit(c->ctx, rec, len, kind);

	if (ret)
		return ret;
	st->records++;
	st->bytes += len;
	if (timed) {
		st->events++;
		if (!st->first_ns || c->last_ts < st->first_ns)
			st->first_ns = c->last_ts;
		if (c->last_ts > st->last_ns)
			st->last_ns = c->last_ts;
	}
	return 0;
}

int archive_clip__feed(struct archive_clip *c, const void *buf, size_t len,
		       size_t *bad)
{
	const unsigned char *p = buf;
	size_t off = 0;
	int ret;

	while (off < len) {
		uint64_t h, words;
		const uint64_t *rec;
		unsigned int kind;

		if (len - off < 8)
			goto cut;
		memcpy(&h, p + off, 8);
		kind = h & 0xf;
		/* Large records (type 15) have a 32-bit size field. */
		words = kind == 15 ? (h >> 4) & 0xffffffffu : (h >> 4) & 0xfff;
		if (!words || words > (len - off) / 8)
			goto cut;
		rec = (const uint64_t *)(p + off);
		off += (size_t)words * 8;
		if (archive_kind_is_def(kind)) {
			if (is_stream_header(h)) {
				if (c->skip_header)
					continue;
				c->header_done = true;
			}
			ret = clip_emit(c, rec, (size_t)words * 8, kind, false);
			if (ret)
				return ret;
			continue;
		}
		if ((kind == 4 || kind == 8) && words >= 2) {
			memcpy(&c->last_ts, &rec[1], 8);
			c->in_range = c->last_ts >= c->from_ns &&
				      c->last_ts <= c->to_ns;
			if (c->in_range) {
				ret = clip_emit(c, rec, (size_t)words * 8, kind,
						true);
				if (ret)
					return ret;
			}
			continue;
		}
		if (c->in_range) {
			ret = clip_emit(c, rec, (size_t)words * 8, kind, false);
			if (ret)
				return ret;
		}
	}
	return 0;
cut:
	if (bad)
		*bad = off;
	return -EPROTO;
}

uint64_t archive_extract__start(const struct archive_reader *a)
{
	struct archive_metrics m;
	size_t i, n = archive_reader__nchunks(a);
	uint64_t t = 0;

	if (!archive_reader__metrics(a, &m) && m.t_first)
		return m.t_first;
	/* Chunk times overlap: the earliest of them. */
	for (i = 0; i < n; i++) {
		const struct archive_chunk_info *ci = archive_reader__chunk(a, i);

		if (ci->t_last && (!t || ci->t_first < t))
			t = ci->t_first;
	}
	return t;
}

/* Does chunk @ci hold no timed record (its times are then 0)? */
static bool chunk_untimed(const struct archive_chunk_info *ci)
{
	return !ci->t_first && !ci->t_last;
}

static bool chunk_cont(const struct archive_reader *a, size_t i)
{
	return archive_reader__chunk(a, i)->flags & ARCHIVE_CHUNK_CONTINUATION;
}

/*
 * Which chunks to read, into @need.  Chunk times overlap (CPUs drain in
 * turn), so every chunk whose [t_first, t_last] meets the range is
 * needed, wherever it is; a continuation chunk needs the chunks before
 * it back to its segment's start (their definitions), and the
 * continuation chunk after a needed one may open with the blobs of its
 * last event.  With none needed, the segment of the first chunk that
 * ends at or after @from (or of the last chunk) gives the prologue.
 */
static void plan_chunks(const struct archive_reader *a, uint64_t from,
			uint64_t to, bool *need)
{
	size_t n = archive_reader__nchunks(a), i;
	bool any = false;

	for (i = 0; i < n; i++) {
		const struct archive_chunk_info *ci = archive_reader__chunk(a, i);

		need[i] = !chunk_untimed(ci) && ci->t_first <= to &&
			  ci->t_last >= from;
		any |= need[i];
	}
	if (!any) {
		i = archive_reader__find_time(a, from);
		need[i < n ? i : n - 1] = true;
	}
	for (i = n - 1; i > 0; i--)
		if (need[i - 1] && chunk_cont(a, i) && !need[i])
			need[i] = true;
	for (i = n - 1; i > 0; i--)
		if (need[i] && chunk_cont(a, i))
			need[i - 1] = true;
}

int archive_extract(const struct archive_reader *a, uint64_t from_ns,
		    uint64_t to_ns, archive_emit_fn emit, void *ctx,
		    struct archive_extract_stats *st, char *err,
		    size_t errlen)
{
	size_t n = archive_reader__nchunks(a), i, cap;
	bool broken = false;	/* the segment in progress lost a chunk */
	struct archive_clip c;
	unsigned char *buf;
	char msg[256];
	bool *need;
	int ret = 0, bad_ret = 0;

	memset(st, 0, sizeof(*st));
	if (err && errlen)
		err[0] = 0;
	archive_clip__init(&c, from_ns, to_ns, emit, ctx, st);
	if (!n) {
		uint64_t magic = FXT_MAGIC_WORD;

		return clip_emit(&c, &magic, 8, 0, false);
	}
	cap = archive_reader__max_chunk(a);
	need = calloc(n, sizeof(*need));
	buf = malloc(cap ? cap : 1);
	if (!need || !buf) {
		ret = -ENOMEM;
		goto out_free;
	}
	plan_chunks(a, from_ns, to_ns, need);
	for (i = 0; i < n; i++) {
		const struct archive_chunk_info *ci = archive_reader__chunk(a, i);
		size_t badoff = 0;
		ssize_t got;

		if (!need[i])
			continue;
		if (!(ci->flags & ARCHIVE_CHUNK_CONTINUATION)) {
			archive_clip__segment(&c);
			broken = false;
		} else if (broken) {
			continue;	/* it needs the chunk that failed */
		}
		got = archive_reader__read_chunk(a, i, buf, cap, msg,
						 sizeof(msg));
		if (got < 0 && err && (!bad_ret || got != -EBADMSG))
			snprintf(err, errlen, "%s", msg);
		if (got == -EBADMSG) {
			/* The first is in @err; the next segment still
			 * extracts. */
			st->chunks_bad++;
			bad_ret = -EBADMSG;
			broken = true;
			continue;
		}
		if (got < 0) {
			ret = (int)got;
			break;
		}
		st->chunks_read++;
		st->bytes_read += ci->compressed;
		ret = archive_clip__feed(&c, buf, (size_t)got, &badoff);
		if (ret == -EPROTO && err)
			snprintf(err, errlen, "chunk %zu (at byte %llu): a "
				 "record at byte %zu of its FXT is cut or has "
				 "no size", i, (unsigned long long)ci->offset,
				 badoff);
		if (ret)
			break;
	}
	/* Every chunk failed: still a valid (empty) stream. */
	if (!ret && !c.header_done) {
		uint64_t magic = FXT_MAGIC_WORD;

		ret = clip_emit(&c, &magic, 8, 0, false);
	}
out_free:
	free(buf);
	free(need);
	return ret ? ret : bad_ret;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_writer.c - see archive.h: records gather in the current chunk's
 * buffer, in place (the encoder fills the reservation), and a cut codes
 * the buffer (chunk_codec2.h), compresses it into one LZ4 block behind
 * its chunk header and appends both with one pwrite().  The file only
 * ever grows, and every prefix that ends on a chunk is a readable
 * archive: a write that fails is truncated away again, so a full disk
 * costs the chunk, not the file.
 *
 * Limits count from the chunk's first event: what comes before it is the
 * segment's prologue and replay of names, mappings and symbols, which on
 * a large machine may alone exceed the byte limit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archive/archive_io.h"
#include "archive_set.h"
#include "archive_summary.h"
#include "archive_writer_internal.h"
#include "chunk_codec2.h"

struct archive_writer {
	int fd;
	uint64_t end;			/* bytes in the file */
	struct archive_writer_opts o;

	unsigned char *buf;		/* the current chunk's records */
	size_t len, cap;
	unsigned char *zbuf;		/* chunk header + LZ4 block */
	size_t zcap;
	struct chunk_codec2 *codec2;	/* NULL if opts.uncoded */
	unsigned char *cbuf;		/* the codec's output, cap bytes */
	uint16_t version;		/* of the file: what the footer says */
	size_t pend_off, pend_len;	/* the reservation in progress */

	/* The current chunk. */
	uint32_t records;
	bool timed;			/* it has an event */
	uint64_t t_first, t_last;
	size_t ev_off;			/* its first event's offset */
	uint32_t ev_records;		/* records before it */
	uint16_t flags;			/* ARCHIVE_CHUNK_CONTINUATION */
	/* The segment the chunk belongs to, over its continuations. */
	uint64_t seg_replay;		/* bytes before its first event */
	uint64_t seg_events;		/* bytes from it on, chunks before */

	uint64_t last_ts;		/* of the latest event, any chunk */
	uint64_t seq;
	struct arch_buf manifest;
	struct arch_summary *sum;
	struct archive_writer_stats st;
	bool finished;
};

size_t arch_fxt_record(const void *data, size_t len, unsigned int *kind)
{
	uint64_t w, words;

	if (len < 8)
		return 0;
	memcpy(&w, data, 8);
	*kind = w & 0xf;
	/* Large records (type 15) have a 32-bit size, the others 12 bits. */
	words = *kind == 15 ? (w >> 4) & 0xffffffffu : (w >> 4) & 0xfff;
	if (!words || words > len / 8)
		return 0;
	return (size_t)words * 8;
}

/* Events and scheduling records carry their time in word 1. */
static bool record_time(const void *rec, size_t len, unsigned int kind,
			uint64_t *ts)
{
	if ((kind != 4 && kind != 8) || len < 16)
		return false;
	memcpy(ts, (const unsigned char *)rec + 8, 8);
	return true;
}

/* Metrics and summaries: the same for records written and adopted. */
static void account_record(struct archive_writer *w, const void *rec,
			   size_t len, unsigned int kind)
{
	struct archive_metrics *m = arch_summary__metrics(w->sum);
	uint64_t ts;

	if (record_time(rec, len, kind, &ts))
		w->last_ts = ts;
	m->records++;
	m->bytes += len;
	m->records_by_kind[kind & 0xf]++;
	m->bytes_by_kind[kind & 0xf] += len;
	arch_summary__record(w->sum, rec, len, kind, w->last_ts);
}

static void account_chunk(struct archive_writer *w,
			  const struct archive_chunk_info *c)
{
	struct archive_metrics *m = arch_summary__metrics(w->sum);
	struct arch_manifest_entry e = {
		.offset = c->offset, .compressed = c->compressed,
		.uncompressed = c->uncompressed, .t_first = c->t_first,
		.t_last = c->t_last, .records = c->records,
		.stream = c->stream, .flags = c->flags & ARCH_CHUNK_DISK_FLAGS,
		.crc = c->crc,
	};

	m->chunks++;
	m->compressed += c->compressed;
	/* A chunk without events has t_first = t_last = 0. */
	if (c->t_last) {
		if (!m->t_last || c->t_first < m->t_first)
			m->t_first = c->t_first;
		if (c->t_last > m->t_last)
			m->t_last = c->t_last;
	}
	if (arch_buf__put(&w->manifest, &e, sizeof(e)) && !w->st.error)
		w->st.error = -ENOMEM;
	w->seq++;
	w->st.chunks++;
}

static int writer_alloc(struct archive_writer **wp, int fd,
			const struct archive_writer_opts *o)
{
	struct archive_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	if (o)
		w->o = *o;
	else
		w->o.stream = ARCHIVE_STREAM_ALL;
	if (!w->o.window_ns)
		w->o.window_ns = ARCHIVE_DEFAULT_WINDOW_NS;
	if (!w->o.max_bytes)
		w->o.max_bytes = ARCHIVE_DEFAULT_CHUNK_BYTES;
	if (!w->o.max_records)
		w->o.max_records = ARCHIVE_DEFAULT_CHUNK_RECORDS;
	if (w->o.max_bytes > ARCHIVE_MAX_CHUNK_BYTES / 2)
		w->o.max_bytes = ARCHIVE_MAX_CHUNK_BYTES / 2;
	w->version = ARCH_VERSION;
	if ((!w->o.uncoded && chunk_codec2__new(&w->codec2)) ||
	    arch_summary__new(&w->sum) ||
	    arch_summary__chunk_begin(w->sum, false)) {
		archive_writer__free(w);
		return -ENOMEM;
	}
	*wp = w;
	return 0;
}

int archive_writer__open(struct archive_writer **wp, int fd,
			 const struct archive_writer_opts *o)
{
	struct arch_file_header h;
	struct archive_writer *w;
	struct timespec now;
	int ret = writer_alloc(&w, fd, o);

	if (ret)
		return ret;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, ARCH_FILE_MAGIC, sizeof(h.magic));
	h.version = ARCH_VERSION;
	h.header_size = sizeof(h);
	h.flags = w->o.live ? ARCH_FILE_LIVE : 0;
	h.window_ns = w->o.window_ns;
	h.max_bytes = w->o.max_bytes;
	h.max_records = w->o.max_records;
	h.stream = w->o.stream;
	clock_gettime(CLOCK_REALTIME, &now);
	h.created_ns = (uint64_t)now.tv_sec * 1000000000ull +
		       (uint64_t)now.tv_nsec;
	h.crc = arch_crc32c(0, &h, offsetof(struct arch_file_header, crc));
	ret = arch_pwrite_full(fd, &h, sizeof(h), 0);
	if (ret) {
		archive_writer__free(w);
		return ret;
	}
	w->end = sizeof(h);
	w->st.bytes_out = w->end;
	*wp = w;
	return 0;
}

int arch_writer__resume(struct archive_writer **wp, int fd,
			const struct arch_file_header *h, uint64_t end)
{
	struct archive_writer_opts o = {
		.window_ns = h->window_ns, .max_bytes = h->max_bytes,
		.max_records = h->max_records, .stream = h->stream,
	};
	int ret = writer_alloc(wp, fd, &o);

	if (ret)
		return ret;
	(*wp)->end = end;
	(*wp)->st.bytes_out = end;
	(*wp)->version = h->version;
	return 0;
}

int arch_writer__adopt(struct archive_writer *w,
		       const struct archive_chunk_info *info,
		       const void *data, size_t len)
{
	unsigned int kind;
	size_t n;

	account_chunk(w, info);
	if (!data) {
		arch_summary__metrics(w->sum)->bad_chunks++;
		return w->st.error;
	}
	arch_summary__chunk_begin(w->sum,
				  info->flags & ARCHIVE_CHUNK_CONTINUATION);
	while ((n = arch_fxt_record(data, len, &kind))) {
		account_record(w, data, n, kind);
		data = (const unsigned char *)data + n;
		len -= n;
	}
	w->st.records += info->records;
	w->st.bytes_in += info->uncompressed;
	return w->st.error;
}

void archive_writer__free(struct archive_writer *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w->zbuf);
	free(w->cbuf);
	chunk_codec2__free(w->codec2);
	arch_buf__fini(&w->manifest);
	arch_summary__free(w->sum);
	free(w);
}

static int cut_chunk(struct archive_writer *w, unsigned int flags,
		     bool next_continues);

/* Room for @need more bytes in the chunk buffer, and for its block. */
static int grow(struct archive_writer *w, size_t need)
{
	size_t cap = w->cap ? w->cap : 2 * (size_t)w->o.max_bytes;
	unsigned char *p;

	if (w->len + need <= w->cap)
		return 0;
	while (cap < w->len + need)
		cap *= 2;
	if (cap > ARCHIVE_MAX_CHUNK_BYTES)
		cap = ARCHIVE_MAX_CHUNK_BYTES;
	/* The block's room first: the buffer never outgrows it. */
	p = realloc(w->zbuf, sizeof(struct arch_chunk_header) +
			     (size_t)LZ4_compressBound((int)cap));
	if (!p)
		return -ENOMEM;
	w->zbuf = p;
	w->zcap = sizeof(struct arch_chunk_header) +
		  (size_t)LZ4_compressBound((int)cap);
	if (w->codec2) {
		p = realloc(w->cbuf, cap);
		if (!p)
			return -ENOMEM;
		w->cbuf = p;
	}
	p = realloc(w->buf, cap);
	if (!p)
		return -ENOMEM;
	w->buf = p;
	w->cap = cap;
	return 0;
}

void *archive_writer__reserve(struct archive_writer *w, size_t len)
{
	if (w->st.error || w->finished || !len || len % 8 ||
	    len > ARCHIVE_MAX_CHUNK_BYTES)
		goto refuse;
	/* The largest chunk: what follows continues in the next. */
	if (w->len + len > ARCHIVE_MAX_CHUNK_BYTES) {
		cut_chunk(w, 0, true);
		if (w->st.error)
			goto refuse;
	}
	if (grow(w, len))
		goto refuse;
	w->pend_off = w->len;
	w->pend_len = len;
	return w->buf + w->len;

refuse:
	w->st.refused++;
	return NULL;
}

static bool over(const struct archive_writer *w, unsigned int times)
{
	if (!w->timed)
		return false;
	/*
	 * A chunk repeats its segment's replay: cut by a limit only once
	 * what follows the replay outweighs it ARCH_REPLAY_RATIO times, so
	 * the replays stay a small part of the file however large the
	 * machine's tables (the hard limits below bound the chunk anyway).
	 */
	if (times == 1 &&
	    (w->len - w->ev_off < ARCH_REPLAY_RATIO * (uint64_t)w->ev_off ||
	     w->records - w->ev_records < ARCH_REPLAY_RATIO * (uint64_t)w->ev_records))
		return false;
	if (w->len - w->ev_off >= (uint64_t)times * w->o.max_bytes ||
	    w->records - w->ev_records >= (uint64_t)times * w->o.max_records)
		return true;
	/*
	 * Not a reason to cut alone: CPUs are drained in turn, so a chunk
	 * spans a drain turn's times however small its window.
	 */
	return times == 1 && w->t_last - w->t_first >= w->o.window_ns;
}

void archive_writer__commit(struct archive_writer *w, unsigned int kind)
{
	const unsigned char *rec = w->buf + w->pend_off;
	size_t len = w->pend_len;
	uint64_t ts;

	w->len += len;
	if (record_time(rec, len, kind, &ts)) {
		if (!w->timed) {
			w->timed = true;
			w->ev_off = w->pend_off;
			w->ev_records = w->records;
			w->t_first = w->t_last = ts;
			if (!(w->flags & ARCHIVE_CHUNK_CONTINUATION))
				w->seg_replay = w->ev_off;
		} else if (ts < w->t_first) {
			w->t_first = ts;
		} else if (ts > w->t_last) {
			w->t_last = ts;
		}
	}
	w->records++;
	w->st.records++;
	w->st.bytes_in += len;
	account_record(w, rec, len, kind);
	/* No segment came at the limit: the rest continues this one. */
	if (over(w, 2)) {
		cut_chunk(w, 0, true);
	}
}

bool archive_writer__cut_wanted(const struct archive_writer *w)
{
	return over(w, 1);
}

/* The chunk out, with @flags; the next continues it, or starts a segment. */
static int cut_chunk(struct archive_writer *w, unsigned int flags,
		     bool next_continues)
{
	struct arch_chunk_header *h = (void *)w->zbuf;
	struct archive_chunk_info info;
	const unsigned char *src = w->buf;
	long coded = 0;
	int n, ret;

	if (!w->len || w->st.error)
		return w->st.error;
	/* Not shorter coded, or no memory to code it: stored as it is. */
	if (w->codec2)
		coded = chunk_codec2__encode(w->codec2, w->buf, w->len,
					     w->records, w->cbuf, w->len);
	if (coded > 0)
		src = w->cbuf;
	else
		coded = 0;
	n = LZ4_compress_default((const char *)src,
				 (char *)w->zbuf + sizeof(*h),
				 (int)(coded ? (size_t)coded : w->len),
				 (int)(w->zcap - sizeof(*h)));
	if (n <= 0) {
		ret = -EIO;		/* cannot be: the room is the bound */
		goto out_lost;
	}
	memset(h, 0, sizeof(*h));
	h->magic = ARCH_CHUNK_MAGIC;
	h->header_size = sizeof(*h);
	h->flags = (uint16_t)((w->flags | flags) & ARCH_CHUNK_DISK_FLAGS);
	h->compressed = (uint32_t)n;
	h->uncompressed = (uint32_t)w->len;
	h->t_first = w->timed ? w->t_first : 0;
	h->t_last = w->timed ? w->t_last : 0;
	h->records = w->records;
	h->stream = w->o.stream;
	h->seq = w->seq;
	h->codec = coded ? ARCH_CODEC_MODELLED : ARCH_CODEC_NONE;
	h->coded = (uint32_t)coded;
	h->header_crc = arch_crc32c(0, h, offsetof(struct arch_chunk_header,
						   header_crc));
	h->crc = arch_crc32c(arch_crc32c(0, h, offsetof(struct arch_chunk_header,
							crc)),
			     w->zbuf + sizeof(*h), (size_t)n);
	ret = arch_pwrite_full(w->fd, w->zbuf, sizeof(*h) + (size_t)n, w->end);
	if (ret) {
		/* Keep the file a whole number of chunks. */
		if (ftruncate(w->fd, (off_t)w->end))
			ret = ret ? ret : -errno;
		goto out_lost;
	}
	info = (struct archive_chunk_info){
		.offset = w->end, .compressed = h->compressed,
		.uncompressed = h->uncompressed, .t_first = h->t_first,
		.t_last = h->t_last, .records = h->records,
		.stream = h->stream, .flags = h->flags, .crc = h->crc,
	};
	account_chunk(w, &info);
	w->st.records_written += w->records;
	w->st.bytes_written += w->len;
	w->end += sizeof(*h) + (size_t)n;
	w->st.bytes_out = w->end;
	ret = 0;
	goto out_reset;

out_lost:
	w->st.error = ret;
	w->st.records_lost += w->records;
	w->st.bytes_lost += w->len;
out_reset:
	if (next_continues)
		w->seg_events += w->timed ? w->len - w->ev_off : w->len;
	else
		w->seg_events = w->seg_replay = 0;
	w->len = 0;
	w->records = 0;
	w->timed = false;
	w->flags = next_continues ? ARCHIVE_CHUNK_CONTINUATION : 0;
	arch_summary__chunk_begin(w->sum, next_continues);
	return ret;
}

int archive_writer__cut(struct archive_writer *w, unsigned int flags)
{
	return cut_chunk(w, flags, false);
}

int archive_writer__flush(struct archive_writer *w)
{
	uint64_t events = w->seg_events + (w->timed ? w->len - w->ev_off : 0);
	bool segment;
	int ret;

	if (!w->len)
		return 0;
	/*
	 * A segment costs a replay: worth it once the segment's events,
	 * over its continuations, outweigh the replay it began with.
	 */
	segment = events && events >= ARCH_REPLAY_RATIO * w->seg_replay;
	ret = cut_chunk(w, ARCHIVE_CHUNK_FLUSHED, !segment);
	return ret ? ret : segment;
}

void archive_writer__count_dropped(struct archive_writer *w,
				   uint64_t records, uint64_t bytes)
{
	struct archive_metrics *m = arch_summary__metrics(w->sum);

	m->sink_dropped_records += records;
	m->sink_dropped_bytes += bytes;
}

/* The trailer as it is written: each section, then its table entry. */
struct trailer {
	struct archive_writer *w;
	struct arch_section_entry tab[ARCH_MAX_SECTIONS];
	uint32_t n;
};

static int emit_section(void *ctx, uint32_t id, const void *data, size_t len)
{
	static const unsigned char zeros[8];
	struct trailer *t = ctx;
	struct archive_writer *w = t->w;
	struct arch_section_lz4 *z = NULL;
	uint16_t flags = 0;
	size_t pad;
	int ret, n;

	if (t->n == ARCH_MAX_SECTIONS || id > UINT16_MAX ||
	    len > ARCH_MAX_SECTION_BYTES)
		return -E2BIG;
	/*
	 * Large sections repeat themselves: paths, build ids, names.  They
	 * are written once, at close, so the slower HC search is worth its
	 * bytes; the block reads as any LZ4 block.
	 */
	if (len >= ARCH_SECTION_LZ4_MIN &&
	    (z = malloc(sizeof(*z) + (size_t)LZ4_compressBound((int)len)))) {
		n = LZ4_compress_HC(data, (char *)(z + 1), (int)len,
				    LZ4_compressBound((int)len),
				    LZ4HC_CLEVEL_DEFAULT);
		if (n > 0 && sizeof(*z) + (size_t)n < len) {
			z->size = (uint32_t)len;
			z->reserved = 0;
			data = z;
			len = sizeof(*z) + (size_t)n;
			flags = ARCH_SECTION_LZ4;
		}
	}
	pad = (8 - len % 8) % 8;
	ret = arch_pwrite_full(w->fd, data, len, w->end);
	if (!ret && pad)
		ret = arch_pwrite_full(w->fd, zeros, pad, w->end + len);
	if (!ret) {
		t->tab[t->n++] = (struct arch_section_entry){
			.id = (uint16_t)id, .flags = flags,
			.crc = arch_crc32c(0, data, len),
			.offset = w->end, .length = len,
		};
		w->end += len + pad;
	}
	free(z);
	return ret;
}

int archive_writer__finish(struct archive_writer *w)
{
	struct trailer *t;
	struct arch_footer f;
	uint64_t chunks_end;
	int ret;

	if (w->finished)
		return w->st.error;
	ret = archive_writer__cut(w, 0);
	w->finished = true;
	if (ret || w->o.live)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t)
		return w->st.error = -ENOMEM;
	t->w = w;
	chunks_end = w->end;
	ret = emit_section(t, ARCHIVE_SEC_MANIFEST, w->manifest.p,
			   w->manifest.len);
	if (!ret)
		ret = arch_summary__emit(w->sum, emit_section, t);
	memset(&f, 0, sizeof(f));
	memcpy(f.magic, ARCH_FOOTER_MAGIC, sizeof(f.magic));
	f.version = w->version;
	f.footer_size = sizeof(f);
	f.nsections = t->n;
	f.table_offset = w->end;
	f.chunks_end = chunks_end;
	f.nchunks = w->seq;
	f.table_crc = arch_crc32c(0, t->tab, t->n * sizeof(t->tab[0]));
	f.crc = arch_crc32c(0, &f, offsetof(struct arch_footer, crc));
	if (!ret)
		ret = arch_pwrite_full(w->fd, t->tab, t->n * sizeof(t->tab[0]),
				       w->end);
	if (!ret)
		ret = arch_pwrite_full(w->fd, &f, sizeof(f),
				       w->end + t->n * sizeof(t->tab[0]));
	if (!ret) {
		w->end += t->n * sizeof(t->tab[0]) + sizeof(f);
	} else if (ftruncate(w->fd, (off_t)chunks_end)) {
		/* A half trailer would read as a torn tail anyway. */
	} else {
		w->end = chunks_end;
	}
	w->st.bytes_out = w->end;
	free(t);
	if (ret)
		w->st.error = ret;
	return ret;
}

void archive_writer__stats(const struct archive_writer *w,
			   struct archive_writer_stats *st)
{
	*st = w->st;
}

size_t archive_writer__bytes(const struct archive_writer *w)
{
	return w->cap + w->zcap + (w->cbuf ? w->cap : 0) + w->manifest.cap;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * flight_window.c - see flight_window.h.
 *
 * Two stores, one order.  Events go into a FIFO of mmap'd chunks, evicted
 * from the front; definitions go into their segment's own buffer, freed
 * with the segment.  Every record carries a sequence number (32 bits,
 * compared modulo 2^32: a window holds far fewer than 2^31 records), so a
 * snapshot merges the two back into the order the encoder wrote them.
 * Memory is counted as it is held (whole chunks, buffer capacities), and
 * the byte bound applies to that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flight_window.h"
#include "transport/fd_io.h"

/* In front of every record held. */
struct fw_ent {
	uint64_t ts;
	uint32_t len;		/* the record's bytes, after this header */
	uint32_t seq;
};

struct fw_chunk {
	struct fw_chunk *next;
	size_t head;		/* first live entry, from data */
	size_t used;		/* end of the last entry */
	unsigned char data[];
};

#define FW_PAYLOAD	(FLIGHT_CHUNK_SIZE - offsetof(struct fw_chunk, data))
#define FW_DEFS_MIN	(64u << 10)
#define FW_OUT_BUF	(1u << 20)

struct fw_seg {
	uint32_t first_seq;
	uint64_t begun_ns;	/* the newest time when it began */
	unsigned char *defs;
	size_t defs_len, defs_cap;
};

struct flight_window {
	uint64_t window_ns, keep_ns, seg_ns, max_bytes;
	struct fw_chunk *head, *tail, *spare;
	uint64_t nchunks;
	struct fw_seg *segs;
	size_t nsegs, segs_cap;
	uint64_t defs_bytes;	/* capacity of every segment's buffer */
	uint32_t next_seq;
	uint64_t last_ts;	/* of the last timed record */
	uint64_t events;
	bool want_segment, closed;

	/* The reservation in progress. */
	struct fw_ent *pend;
	unsigned int pend_kind;
	bool pend_def;

	struct flight_window_stats st;
};

static bool seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* FXT kinds that later records refer to; see flight_window.h. */
static bool kind_is_def(unsigned int kind)
{
	switch (kind) {
	case 0: case 1: case 2: case 3: case 6: case 7:
		return true;
	}
	return false;
}

static uint64_t held(const struct flight_window *w)
{
	return (w->nchunks + (w->spare ? 1 : 0)) * (uint64_t)FLIGHT_CHUNK_SIZE +
	       w->defs_bytes + w->segs_cap * sizeof(struct fw_seg);
}

static struct fw_chunk *chunk_get(struct flight_window *w)
{
	struct fw_chunk *c = w->spare;

	if (c) {
		w->spare = NULL;
	} else {
		c = mmap(NULL, FLIGHT_CHUNK_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			return NULL;
	}
	c->next = NULL;
	c->head = c->used = 0;
	w->nchunks++;
	return c;
}

/* One chunk is kept for reuse: the FIFO turns over one all the time. */
static void chunk_put(struct flight_window *w, struct fw_chunk *c)
{
	w->nchunks--;
	if (!w->spare)
		w->spare = c;
	else
		munmap(c, FLIGHT_CHUNK_SIZE);
}

static struct fw_ent *front(const struct flight_window *w)
{
	if (!w->head || w->head->head == w->head->used)
		return NULL;
	return (struct fw_ent *)(w->head->data + w->head->head);
}

static void pop_front(struct flight_window *w, bool for_bound)
{
	struct fw_chunk *c = w->head;
	struct fw_ent *e = front(w);

	if (for_bound) {
		w->st.evicted_bytes++;
		if (e->ts > w->st.bound_cut_ns)
			w->st.bound_cut_ns = e->ts;
	} else {
		w->st.evicted_time++;
	}
	c->head += sizeof(*e) + e->len;
	w->events--;
	w->st.records--;
	if (c->head < c->used)
		return;
	if (c == w->tail) {
		c->head = c->used = 0;	/* empty: start over in place */
		return;
	}
	w->head = c->next;
	chunk_put(w, c);
}

static void seg_free(struct flight_window *w, struct fw_seg *s)
{
	/* Its definitions leave the count of records held. */
	size_t off = 0;

	while (off < s->defs_len) {
		const struct fw_ent *e = (const void *)(s->defs + off);

		off += sizeof(*e) + e->len;
		w->st.records--;
	}
	w->defs_bytes -= s->defs_cap;
	free(s->defs);
}

static void drop_oldest_seg(struct flight_window *w)
{
	seg_free(w, &w->segs[0]);
	memmove(w->segs, w->segs + 1, (w->nsegs - 1) * sizeof(*w->segs));
	w->nsegs--;
}

static int seg_push(struct flight_window *w)
{
	struct fw_seg *s;

	if (w->nsegs == w->segs_cap) {
		size_t cap = w->segs_cap ? 2 * w->segs_cap : 8;

		s = realloc(w->segs, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		w->segs = s;
		w->segs_cap = cap;
	}
	s = &w->segs[w->nsegs++];
	memset(s, 0, sizeof(*s));
	s->first_seq = w->next_seq;
	s->begun_ns = w->st.newest_ns;
	w->st.segments_begun++;
	return 0;
}

int flight_window__new(struct flight_window **wp,
		       const struct flight_window_opts *o)
{
	struct flight_window *w;

	if (!o->window_ns || o->max_bytes < FLIGHT_MIN_BYTES)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->window_ns = o->window_ns;
	w->keep_ns = o->window_ns + FLIGHT_MARGIN_NS;
	w->seg_ns = o->window_ns / 4 ? o->window_ns / 4 : 1;
	w->max_bytes = o->max_bytes;
	/* Records before the first segment request still land somewhere. */
	if (seg_push(w)) {
		free(w);
		return -ENOMEM;
	}
	w->want_segment = true;
	*wp = w;
	return 0;
}

void flight_window__free(struct flight_window *w)
{
	struct fw_chunk *c, *next;

	if (!w)
		return;
	for (c = w->head; c; c = next) {
		next = c->next;
		munmap(c, FLIGHT_CHUNK_SIZE);
	}
	if (w->spare)
		munmap(w->spare, FLIGHT_CHUNK_SIZE);
	for (size_t i = 0; i < w->nsegs; i++)
		free(w->segs[i].defs);
	free(w->segs);
	free(w);
}

void *flight_window__reserve(struct flight_window *w, size_t len,
			     unsigned int kind)
{
	size_t need = sizeof(struct fw_ent) + len;
	bool def = kind_is_def(kind);
	unsigned char *p;

	if (w->closed || !len || len % 8 || len > UINT32_MAX)
		goto refuse;
	if (def) {
		struct fw_seg *s = &w->segs[w->nsegs - 1];

		if (s->defs_len + need > s->defs_cap) {
			size_t cap = s->defs_cap ? s->defs_cap : FW_DEFS_MIN;

			while (cap < s->defs_len + need)
				cap *= 2;
			p = realloc(s->defs, cap);
			if (!p)
				goto refuse;
			w->defs_bytes += cap - s->defs_cap;
			s->defs = p;
			s->defs_cap = cap;
		}
		p = s->defs + s->defs_len;
	} else {
		if (need > FW_PAYLOAD)
			goto refuse;
		if (!w->tail || w->tail->used + need > FW_PAYLOAD) {
			struct fw_chunk *c = chunk_get(w);

			if (!c)
				goto refuse;
			if (w->tail)
				w->tail->next = c;
			else
				w->head = c;
			w->tail = c;
		}
		p = w->tail->data + w->tail->used;
	}
	w->pend = (struct fw_ent *)p;
	w->pend->len = (uint32_t)len;
	w->pend_kind = kind;
	w->pend_def = def;
	return p + sizeof(struct fw_ent);

refuse:
	w->st.refused++;
	return NULL;
}

/* Room for the bound: whole chunks of events first, then old segments. */
static void enforce_bound(struct flight_window *w)
{
	while (held(w) > w->max_bytes) {
		if (w->spare) {
			munmap(w->spare, FLIGHT_CHUNK_SIZE);
			w->spare = NULL;
		} else if (w->head && w->head != w->tail) {
			struct fw_chunk *c = w->head;

			while (w->head == c)
				pop_front(w, true);
		} else if (w->nsegs >= 2) {
			struct fw_ent *e;

			while ((e = front(w)) &&
			       seq_before(e->seq, w->segs[1].first_seq))
				pop_front(w, true);
			drop_oldest_seg(w);
		} else {
			/* The current segment alone: a new one starts over. */
			w->st.over_bound++;
			w->want_segment = true;
			return;
		}
	}
}

static void maintain(struct flight_window *w)
{
	uint64_t newest = w->st.newest_ns;
	struct fw_ent *e;

	if (newest > w->keep_ns)
		while ((e = front(w)) && e->ts < newest - w->keep_ns)
			pop_front(w, false);
	enforce_bound(w);
	/* A segment whose events are all gone is of no use. */
	while (w->nsegs >= 2 &&
	       (!(e = front(w)) || !seq_before(e->seq, w->segs[1].first_seq)))
		drop_oldest_seg(w);
	if (newest - w->segs[w->nsegs - 1].begun_ns >= w->seg_ns)
		w->want_segment = true;
	if (held(w) > w->st.held_max)
		w->st.held_max = held(w);
}

void flight_window__commit(struct flight_window *w)
{
	struct fw_ent *e = w->pend;
	const uint64_t *rec = (const uint64_t *)(e + 1);

	w->pend = NULL;
	/* Events and scheduling records: the timestamp is word 1. */
	if ((w->pend_kind == 4 || w->pend_kind == 8) && e->len >= 16)
		w->last_ts = rec[1];
	e->ts = w->last_ts;
	e->seq = w->next_seq++;
	if (e->ts > w->st.newest_ns)
		w->st.newest_ns = e->ts;
	if (w->pend_def) {
		w->segs[w->nsegs - 1].defs_len += sizeof(*e) + e->len;
	} else {
		w->tail->used += sizeof(*e) + e->len;
		w->events++;
	}
	w->st.records++;
	w->st.committed++;
	maintain(w);
}

bool flight_window__segment_wanted(const struct flight_window *w)
{
	return w->want_segment && !w->closed;
}

void flight_window__segment_begun(struct flight_window *w)
{
	w->want_segment = false;
	/* The first request: the segment made at creation is still empty. */
	if (w->nsegs == 1 && w->segs[0].first_seq == w->next_seq) {
		w->segs[0].begun_ns = w->st.newest_ns;
		return;
	}
	if (seg_push(w))
		w->want_segment = true;	/* asked again at the next record */
	/* Too many segments (a tiny window): the oldest goes. */
	if (w->nsegs > 64)
		drop_oldest_seg(w);
}

void flight_window__close(struct flight_window *w)
{
	w->closed = true;
}

void flight_window__stats(const struct flight_window *w,
			  struct flight_window_stats *st)
{
	const struct fw_ent *e = front(w);

	*st = w->st;
	st->held_bytes = held(w);
	st->segments = w->nsegs;
	st->oldest_ns = e ? e->ts : 0;
	if (!w->events)
		st->newest_ns = 0;
}

/* ------------------------------------------------------------------ */
/* Snapshots                                                           */
/* ------------------------------------------------------------------ */

struct fw_out {
	int fd;
	unsigned char *buf;
	size_t len;
	int error;
	struct flight_snapshot_stats *st;
};

static int out_flush(struct fw_out *o)
{
	if (!o->error)
		o->error = fd__write_all(o->fd, o->buf, o->len);
	o->len = 0;
	return o->error;
}

static void out_rec(struct fw_out *o, const struct fw_ent *e)
{
	if (o->len + e->len > FW_OUT_BUF && out_flush(o))
		return;
	memcpy(o->buf + o->len, e + 1, e->len);
	o->len += e->len;
	o->st->bytes += e->len;
	o->st->records++;
}

/* A position in the event FIFO. */
struct fw_cursor {
	const struct fw_chunk *c;
	size_t off;
};

static const struct fw_ent *cur_ent(struct fw_cursor *k)
{
	while (k->c && k->off >= k->c->used) {
		k->c = k->c->next;
		k->off = k->c ? k->c->head : 0;
	}
	return k->c ? (const void *)(k->c->data + k->off) : NULL;
}

static void cur_next(struct fw_cursor *k, const struct fw_ent *e)
{
	k->off += sizeof(*e) + e->len;
}

/*
 * The stream header a segment starts with: the magic (trace info), the
 * provider info and section metadata, the initialization record.  A
 * snapshot carries one, the first segment's: its later segments continue
 * the same stream, their string records redefining the table as the
 * writer's reset left it.  Provider events (overflow notices) stay.
 */
static bool is_stream_header(const struct fw_ent *e)
{
	uint64_t word = *(const uint64_t *)(e + 1);
	unsigned int mtype = (word >> 16) & 0xf;

	if ((word & 0xf) == 1)
		return true;
	return (word & 0xf) == 0 && (mtype == 1 || mtype == 2 || mtype == 4);
}

static void snapshot_seg(const struct flight_window *w, size_t i,
			 bool continued, struct fw_cursor *k, uint64_t from,
			 struct fw_out *o)
{
	const struct fw_seg *s = &w->segs[i];
	uint32_t end = i + 1 < w->nsegs ? w->segs[i + 1].first_seq : w->next_seq;
	const struct fw_ent *d, *e;
	size_t doff = 0;

	o->st->segments++;
	for (;;) {
		d = doff < s->defs_len ? (const void *)(s->defs + doff) : NULL;
		e = cur_ent(k);
		if (e && !seq_before(e->seq, end))
			e = NULL;
		if (!d && !e)
			break;
		if (d && (!e || seq_before(d->seq, e->seq))) {
			if (!continued || !is_stream_header(d))
				out_rec(o, d);
			doff += sizeof(*d) + d->len;
			continue;
		}
		cur_next(k, e);
		if (e->ts < from)
			continue;
		out_rec(o, e);
		o->st->events++;
		if (!o->st->first_ns || e->ts < o->st->first_ns)
			o->st->first_ns = e->ts;
		if (e->ts > o->st->last_ns)
			o->st->last_ns = e->ts;
	}
}

int flight_window__snapshot(const struct flight_window *w, int fd,
			    uint64_t from_ns, struct flight_snapshot_stats *st)
{
	struct fw_out o = { .fd = fd, .st = st };
	struct fw_cursor k = { w->head, w->head ? w->head->head : 0 };
	const struct fw_ent *e;
	size_t first = w->nsegs - 1;

	memset(st, 0, sizeof(*st));
	st->cut_by_bound = w->st.bound_cut_ns >= from_ns;
	/* The segment of the first event in range; the last if none is. */
	while ((e = cur_ent(&k)) && e->ts < from_ns)
		cur_next(&k, e);
	if (e)
		while (first > 0 &&
		       seq_before(e->seq, w->segs[first].first_seq))
			first--;
	o.buf = malloc(FW_OUT_BUF);
	if (!o.buf)
		return -ENOMEM;
	/* Back to the first event of that segment: its events before
	 * @from_ns are skipped by the merge, its definitions are not. */
	k.c = w->head;
	k.off = w->head ? w->head->head : 0;
	while ((e = cur_ent(&k)) && seq_before(e->seq, w->segs[first].first_seq))
		cur_next(&k, e);
	for (size_t i = first; i < w->nsegs && !o.error; i++)
		snapshot_seg(w, i, i > first, &k, from_ns, &o);
	out_flush(&o);
	free(o.buf);
	return o.error;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * chunk_codec.c - see chunk_codec.h: the decoder of codec 1, which
 * fxtprof wrote before codec 2 (chunk_codec2.c) replaced it; archives
 * coded with it still read.  A chunk of fxtprof's FXT is mostly
 * pairs of a 7-word sample event and a stack blob whose frames repeat
 * across thousands of samples; LZ4 alone finds the repeats only within
 * its 64 KiB window and pays for every timestamp's 8 bytes.  The codec
 * splits the records into eight streams (the layout and the meaning of
 * every byte: Documentation/archive-format.md, "Chunk codec 1"):
 *
 *   KIND      one byte per record: verbatim, sample, stack blob
 *   VERBATIM  the records the codec does not take apart, whole
 *   TEMPLATE  per sample the index of its constant words (header, arg
 *             headers, mode), each distinct set stored once
 *   TIME      per sample its time, zigzag varint of the difference
 *             from its CPU's predicted time
 *   THREAD    per sample the index of its pid/tid, each pair stored once
 *   ARGS      per sample its cpu and kernel frame count, varints
 *   STACK     per blob the index of its words other than time, pid and
 *             tid, each distinct blob stored once
 *   BLOBTIME  a blob's time, pid and tid unless they are its sample's
 *
 * Any 7-word event and any large record of 6 words or more fit these
 * shapes whatever their words hold, so the transform needs no knowledge
 * of the encoder's string references and is lossless by construction.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "chunk_codec.h"
#include "codec_array.h"
#include "codec_record.h"

enum {
	S_KIND, S_VERBATIM, S_TEMPLATE, S_TIME, S_THREAD, S_ARGS, S_STACK,
	S_BLOBTIME, NSTREAMS
};
#define CODED_HEADER	(NSTREAMS * 4u)

enum { K_VERBATIM, K_SAMPLE, K_BLOB_OF_SAMPLE, K_BLOB };

/* Sample templates: one per mode and argument layout; more go verbatim. */
#define MAX_TEMPLATES	64u
#define TEMPLATE_BYTES	24u

/*
 * A sample's time is predicted from its CPU's previous two: the timer
 * fires every period, so the difference from the last interval is the
 * jitter alone.  CPUs are told apart in a few slots (by number modulo
 * CLOCK_SLOTS); a CPU not in its slot is predicted by the chunk's
 * previous sample.
 */
#define CLOCK_SLOTS	64u

struct clock_slot {
	uint64_t cpu, ts, interval;
	bool used;
};

struct sample_clock {
	uint64_t last;			/* the previous sample's time */
	struct clock_slot slot[CLOCK_SLOTS];
};

static uint64_t clock_predict(const struct sample_clock *k, uint64_t cpu)
{
	const struct clock_slot *s = &k->slot[cpu % CLOCK_SLOTS];

	return s->used && s->cpu == cpu ? s->ts + s->interval : k->last;
}

static void clock_update(struct sample_clock *k, uint64_t cpu, uint64_t ts)
{
	struct clock_slot *s = &k->slot[cpu % CLOCK_SLOTS];

	s->interval = s->used && s->cpu == cpu ? ts - s->ts : 0;
	s->cpu = cpu;
	s->ts = ts;
	s->used = true;
	k->last = ts;
}

/* ------------------------------------------------------------------ */
/* Every read bounded, every index checked                             */
/* ------------------------------------------------------------------ */

struct rd {
	const unsigned char *p;
	size_t len, pos;
};

static bool get_raw(struct rd *r, void *v, size_t n)
{
	if (r->len - r->pos < n)
		return false;
	memcpy(v, r->p + r->pos, n);
	r->pos += n;
	return true;
}

/* A varint of at most 10 bytes that fits 64 bits. */
static bool get_varint(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		unsigned char b;

		if (r->pos == r->len)
			return false;
		b = r->p[r->pos++];
		if (shift == 63 && b > 1)
			return false;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static bool get_u32(struct rd *r, uint64_t *v)
{
	return get_varint(r, v) && *v <= UINT32_MAX;
}

/* Index @idx of a table of @n entries, or the next entry if @idx == @n. */
static bool index_ok(uint64_t idx, uint32_t n)
{
	return idx <= n;
}

struct dec_tables {
	uint64_t (*thr)[2];
	const unsigned char **stk;	/* each entry's first byte in STACK */
	uint32_t nthr, nstk, cap_thr, cap_stk;
	struct template tmpl[MAX_TEMPLATES];
	uint32_t ntmpl;
	unsigned char *arena;		/* the distinct blob entries */
	size_t arena_len, arena_cap;
	const unsigned char *ref;	/* the previous blob's entry */
	struct sample_clock clock;
};

/* The first capacity of a chunk's arrays, in entries. */
#define TABLE_FIRST	64u

static int decode_sample(struct rd *s, struct dec_tables *t,
			 unsigned char *o, struct sample_clock *clock)
{
	uint64_t idx, delta, cpu, kframes, pid, tid, ts;
	const struct template *tp;

	if (!get_varint(&s[S_TEMPLATE], &idx) || !index_ok(idx, t->ntmpl))
		return -EBADMSG;
	if (idx == t->ntmpl) {
		struct template n;

		if (t->ntmpl == MAX_TEMPLATES ||
		    !get_raw(&s[S_TEMPLATE], &n.w0, 8) ||
		    !get_raw(&s[S_TEMPLATE], &n.w4lo, 4) ||
		    !get_raw(&s[S_TEMPLATE], &n.w5, 8) ||
		    !get_raw(&s[S_TEMPLATE], &n.w6lo, 4) ||
		    (n.w0 & 0xf) != FXT_REC_EVENT ||
		    record_words(n.w0) != FXT_SAMPLE_EVENT_WORDS)
			return -EBADMSG;
		t->tmpl[t->ntmpl++] = n;
	}
	tp = &t->tmpl[idx];
	/* The CPU first: it predicts the time. */
	if (!get_u32(&s[S_ARGS], &cpu) || !get_u32(&s[S_ARGS], &kframes) ||
	    !get_varint(&s[S_TIME], &delta))
		return -EBADMSG;
	/* Undo the zigzag; the sum wraps as the encoder's difference did. */
	ts = clock_predict(clock, cpu) + ((delta >> 1) ^ (0 - (delta & 1)));
	clock_update(clock, cpu, ts);
	if (!get_varint(&s[S_THREAD], &idx) || !index_ok(idx, t->nthr))
		return -EBADMSG;
	if (idx == t->nthr) {
		void *q = t->thr;

		if (!codec_array__room(&q, &t->cap_thr, t->nthr, sizeof(*t->thr),
				       TABLE_FIRST))
			return -ENOMEM;
		t->thr = q;
		if (!get_varint(&s[S_THREAD], &pid) ||
		    !get_varint(&s[S_THREAD], &tid))
			return -EBADMSG;
		t->thr[t->nthr][0] = pid;
		t->thr[t->nthr++][1] = tid;
	}
	store64(o, tp->w0);
	store64(o + 8, ts);
	store64(o + 16, t->thr[idx][0]);
	store64(o + 24, t->thr[idx][1]);
	store64(o + 32, tp->w4lo | cpu << 32);
	store64(o + 40, tp->w5);
	store64(o + 48, tp->w6lo | kframes << 32);
	return 0;
}

/* put_frames() undone into @p, @n words. */
static bool get_frames(struct rd *b, unsigned char *p, uint64_t n,
		       const unsigned char *ref, uint64_t nref)
{
	uint64_t same;

	if (!get_varint(b, &same) || same > n || same > nref)
		return false;
	if (!get_raw(b, p, 8 * (n - same)))
		return false;
	if (same)
		memcpy(p + 8 * (n - same), ref + 8 * (nref - same), 8 * same);
	return true;
}

/*
 * A blob's entry (its words other than time, pid and tid): by index, or
 * a new one decoded into the arena, which the output's size bounds.
 */
static int decode_stack(struct rd *s, struct dec_tables *t,
			const unsigned char **entry, uint64_t *words)
{
	struct rd *b = &s[S_STACK];
	const unsigned char *ref = t->ref;
	unsigned char *e;
	uint64_t idx, w0;
	void *q;

	if (!get_varint(b, &idx) || !index_ok(idx, t->nstk))
		return -EBADMSG;
	if (idx == t->nstk) {
		if (b->len - b->pos < 8)
			return -EBADMSG;
		w0 = load64(b->p + b->pos);
		*words = record_words(w0);
		if ((w0 & 0xf) != FXT_REC_LARGE || *words < FXT_STACK_FRAMES ||
		    (*words - 3) * 8 > t->arena_cap - t->arena_len)
			return -EBADMSG;
		q = t->stk;
		if (!codec_array__room(&q, &t->cap_stk, t->nstk, sizeof(*t->stk),
				       TABLE_FIRST))
			return -ENOMEM;
		t->stk = q;
		e = t->arena + t->arena_len;
		if (!get_raw(b, e, 24) ||
		    !get_frames(b, e + 24, *words - 6, ref ? ref + 24 : NULL,
				ref ? record_words(load64(ref)) - 6 : 0))
			return -EBADMSG;
		t->arena_len += (*words - 3) * 8;
		t->stk[t->nstk++] = e;
	}
	*entry = t->ref = t->stk[idx];
	*words = record_words(load64(*entry));
	return 0;
}

static int decode_records(struct rd *s, struct dec_tables *t,
			  unsigned char *out, size_t out_len,
			  uint32_t records)
{
	const unsigned char *entry, *sample = NULL;
	struct sample_clock *clock = &t->clock;
	uint64_t words, w0;
	size_t o = 0;
	int ret;

	for (uint32_t n = 0; n < records; n++) {
		unsigned char kind;

		if (!get_raw(&s[S_KIND], &kind, 1))
			return -EBADMSG;
		switch (kind) {
		case K_VERBATIM:
			if (s[S_VERBATIM].len - s[S_VERBATIM].pos < 8)
				return -EBADMSG;
			w0 = load64(s[S_VERBATIM].p + s[S_VERBATIM].pos);
			words = record_words(w0);
			if (!words || words > (out_len - o) / 8 ||
			    !get_raw(&s[S_VERBATIM], out + o, words * 8))
				return -EBADMSG;
			break;
		case K_SAMPLE:
			words = FXT_SAMPLE_EVENT_WORDS;
			if (words > (out_len - o) / 8)
				return -EBADMSG;
			ret = decode_sample(s, t, out + o, clock);
			if (ret)
				return ret;
			sample = out + o;
			break;
		case K_BLOB_OF_SAMPLE:
		case K_BLOB:
			ret = decode_stack(s, t, &entry, &words);
			if (ret)
				return ret;
			if (words > (out_len - o) / 8 ||
			    (kind == K_BLOB_OF_SAMPLE && !sample))
				return -EBADMSG;
			memcpy(out + o, entry, 16);
			if (kind == K_BLOB_OF_SAMPLE)
				memcpy(out + o + 16, sample + 8, 24);
			else if (!get_raw(&s[S_BLOBTIME], out + o + 16, 24))
				return -EBADMSG;
			memcpy(out + o + 40, entry + 16, (words - 5) * 8);
			break;
		default:
			return -EBADMSG;
		}
		o += words * 8;
	}
	for (int i = 0; i < NSTREAMS; i++)
		if (s[i].pos != s[i].len)
			return -EBADMSG;	/* bytes no record used */
	return o == out_len ? 0 : -EBADMSG;
}

int chunk_codec__decode(const void *in, size_t len, void *out,
			size_t out_len, uint32_t records)
{
	const unsigned char *p = in;
	struct rd s[NSTREAMS];
	struct dec_tables *t;
	uint64_t off = CODED_HEADER;
	int ret;

	if (len < CODED_HEADER)
		return -EBADMSG;
	for (int i = 0; i < NSTREAMS; i++) {
		uint32_t l;

		memcpy(&l, p + 4 * i, 4);
		if (l > len - off)
			return -EBADMSG;
		s[i] = (struct rd){ p + off, l, 0 };
		off += l;
	}
	if (off != len)
		return -EBADMSG;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	/* Each entry is a record's less 24 bytes: the output bounds them. */
	t->arena_cap = out_len;
	t->arena = malloc(out_len ? out_len : 1);
	ret = t->arena ? decode_records(s, t, out, out_len, records) : -ENOMEM;
	free(t->arena);
	free(t->thr);
	free(t->stk);
	free(t);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * range_coder.h - an adaptive binary range coder for chunk codec 2
 * (Documentation/archive-format.md, "Chunk codec 2", where the arithmetic
 * is specified bit for bit).  Every symbol is a sequence of binary
 * decisions, each coded with an adaptive probability (rc_prob, 11 bits,
 * moved 1/32 of the way towards every bit it codes), or at even odds
 * ("direct" bits, up to 16 at once) for bits with no pattern to learn.
 * The scheme is the one LZMA made well known: 32-bit range, 64-bit low
 * with a carry propagated through a pending run of 0xff bytes,
 * renormalised a byte at a time once the range drops below 2^24.
 *
 * The hot functions are inline: a sample costs some 30 of them.  The
 * decoder never reads outside its input: past the end it reads zeros and
 * remembers that it did (rc_dec_failed()), and a sound stream is
 * consumed exactly to its last byte (rc_dec_exact()).
 */
#ifndef FXTPROF_ARCHIVE_RANGE_CODER_H
#define FXTPROF_ARCHIVE_RANGE_CODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_PROB_BITS	11
#define RC_PROB_ONE	(1u << RC_PROB_BITS)
#define RC_PROB_INIT	(RC_PROB_ONE / 2)
#define RC_MOVE_BITS	5
#define RC_TOP		(1u << 24)

/* The probability, out of RC_PROB_ONE, that the next bit is 0. */
typedef uint16_t rc_prob;

/*
 * Measuring only (tests/archive_tools/codec_bytes.c builds the codec with
 * RC_COST): the bits each field costs, from the probabilities it is
 * coded with.  Compiled out otherwise.
 */
#ifdef RC_COST
#include <math.h>
#define RC_FIELDS	16
#define RC_FIELD(e, f)	((e)->field = (f))
#define RC_CHARGE(e, bits) ((e)->cost[(e)->field] += (bits))
#else
#define RC_FIELD(e, f)	((void)0)
#define RC_CHARGE(e, bits) ((void)0)
#endif

struct rc_enc {
#ifdef RC_COST
	double cost[RC_FIELDS];
	unsigned int field;
#endif
	uint64_t low;
	uint32_t range;
	uint8_t cache;
	uint64_t pending;		/* bytes held back: cache, then 0xffs */
	unsigned char *p;
	size_t len, cap;
	int error;			/* -ENOMEM once the buffer cannot grow */
};

struct rc_dec {
	uint32_t range, code;
	const unsigned char *p;
	size_t len, pos;
	size_t over;			/* bytes read past the end */
	bool bad;			/* a value no encoder writes */
};

void rc_probs_init(rc_prob *p, size_t n);

/* @e's buffer is kept from one use to the next; reset empties it. */
void rc_enc_reset(struct rc_enc *e);
void rc_enc_free(struct rc_enc *e);
/* Out of line: once per output byte. */
void rc_enc_shift_low(struct rc_enc *e);
/* The last bytes out: then e->p[0..e->len) is the stream (or e->error). */
void rc_enc_flush(struct rc_enc *e);

/* The first 5 bytes of @p read; the first must be 0 (the encoder's). */
bool rc_dec_init(struct rc_dec *d, const void *p, size_t len);

static inline void rc_enc_norm(struct rc_enc *e)
{
	while (e->range < RC_TOP) {
		e->range <<= 8;
		rc_enc_shift_low(e);
	}
}

static inline void rc_enc_bit(struct rc_enc *e, rc_prob *p, unsigned int bit)
{
	uint32_t bound = (e->range >> RC_PROB_BITS) * *p;

	RC_CHARGE(e, -log2((bit ? RC_PROB_ONE - *p : *p) / (double)RC_PROB_ONE));
	if (!bit) {
		e->range = bound;
		*p += (RC_PROB_ONE - *p) >> RC_MOVE_BITS;
	} else {
		e->low += bound;
		e->range -= bound;
		*p -= *p >> RC_MOVE_BITS;
	}
	rc_enc_norm(e);
}

/*
 * The low @n bits of @v at even odds, 1 <= n <= 16: the range is split
 * into 2^n equal parts at once (not bit by bit: one multiplication
 * instead of n renormalisation checks).  The range stays at least 2^8.
 */
static inline void rc_enc_direct16(struct rc_enc *e, uint32_t v, unsigned int n)
{
	e->range >>= n;
	e->low += (uint64_t)(v & ((1u << n) - 1)) * e->range;
	rc_enc_norm(e);
}

/* The low @n bits of @v (n <= 32), in parts of at most 16, highest first. */
static inline void rc_enc_direct(struct rc_enc *e, uint32_t v, unsigned int n)
{
	RC_CHARGE(e, n);
	if (n > 16) {
		rc_enc_direct16(e, v >> 16, n - 16);
		n = 16;
	}
	if (n)
		rc_enc_direct16(e, v, n);
}

static inline uint32_t rc_dec_byte(struct rc_dec *d)
{
	if (d->pos < d->len)
		return d->p[d->pos++];
	d->over++;
	return 0;
}

static inline void rc_dec_norm(struct rc_dec *d)
{
	while (d->range < RC_TOP) {
		d->range <<= 8;
		d->code = (d->code << 8) | rc_dec_byte(d);
	}
}

static inline unsigned int rc_dec_bit(struct rc_dec *d, rc_prob *p)
{
	uint32_t bound = (d->range >> RC_PROB_BITS) * *p;
	unsigned int bit;

	if (d->code < bound) {
		d->range = bound;
		*p += (RC_PROB_ONE - *p) >> RC_MOVE_BITS;
		bit = 0;
	} else {
		d->code -= bound;
		d->range -= bound;
		*p -= *p >> RC_MOVE_BITS;
		bit = 1;
	}
	rc_dec_norm(d);
	return bit;
}

/* A value >= 2^n is no encoder's: clamped, and the stream marked bad. */
static inline uint32_t rc_dec_direct16(struct rc_dec *d, unsigned int n)
{
	uint32_t v;

	d->range >>= n;
	v = d->code / d->range;
	if (v >> n) {
		v = (1u << n) - 1;
		d->bad = true;
	}
	d->code -= v * d->range;
	rc_dec_norm(d);
	return v;
}

static inline uint32_t rc_dec_direct(struct rc_dec *d, unsigned int n)
{
	uint32_t v = 0;

	if (n > 16) {
		v = rc_dec_direct16(d, n - 16) << 16;
		n = 16;
	}
	return n ? v | rc_dec_direct16(d, n) : v;
}

/* True if the decoder read past its input (cut short) or met nonsense. */
static inline bool rc_dec_failed(const struct rc_dec *d)
{
	return d->over || d->bad;
}

/* True if it consumed its input exactly, as a sound stream's decoder does. */
static inline bool rc_dec_exact(const struct rc_dec *d)
{
	return !rc_dec_failed(d) && d->pos == d->len;
}

/*
 * Bit trees: an @n-bit value, highest bit first, each bit's probability
 * chosen by the bits above it (p[1] for the top bit; p has 1 << n
 * entries, p[0] unused).
 */
static inline void rc_enc_tree(struct rc_enc *e, rc_prob *p, unsigned int n,
			       uint32_t v)
{
	uint32_t m = 1;

	while (n--) {
		unsigned int bit = (v >> n) & 1;

		rc_enc_bit(e, &p[m], bit);
		m = (m << 1) | bit;
	}
}

static inline uint32_t rc_dec_tree(struct rc_dec *d, rc_prob *p, unsigned int n)
{
	uint32_t m = 1;

	for (unsigned int i = 0; i < n; i++)
		m = (m << 1) | rc_dec_bit(d, &p[m]);
	return m - (1u << n);
}

#endif /* FXTPROF_ARCHIVE_RANGE_CODER_H */

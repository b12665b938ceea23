// SPDX-License-Identifier: GPL-2.0-only
/*
 * range_coder.c - see range_coder.h: the parts of the coder that run once
 * per byte or once per stream.
 */
#include <errno.h>
#include <stdlib.h>

#include "range_coder.h"

void rc_probs_init(rc_prob *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = RC_PROB_INIT;
}

void rc_enc_reset(struct rc_enc *e)
{
	e->low = 0;
	e->range = 0xffffffffu;
	/* A first byte of 0 held back: it takes the carry out of low's top. */
	e->cache = 0;
	e->pending = 1;
	e->len = 0;
	e->error = 0;
}

void rc_enc_free(struct rc_enc *e)
{
	free(e->p);
	e->p = NULL;
	e->cap = e->len = 0;
}

static void put_byte(struct rc_enc *e, uint8_t b)
{
	if (e->len == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 65536;
		unsigned char *p = e->error ? NULL : realloc(e->p, cap);

		if (!p) {
			/* Keep counting: the caller sees the error at flush. */
			e->error = -ENOMEM;
			e->len++;
			return;
		}
		e->p = p;
		e->cap = cap;
	}
	e->p[e->len++] = b;
}

/*
 * Bits 32..39 of low are the carry into the bytes held back; bits 24..31
 * the next byte out.  A byte of 0xff may still take a carry, so a run of
 * them waits (pending) until a byte that cannot overflow settles it.
 */
void rc_enc_shift_low(struct rc_enc *e)
{
	if ((uint32_t)e->low < 0xff000000u || (e->low >> 32)) {
		uint8_t carry = (uint8_t)(e->low >> 32), b = e->cache;

		do {
			put_byte(e, (uint8_t)(b + carry));
			b = 0xff;
		} while (--e->pending);
		e->cache = (uint8_t)(e->low >> 24);
	}
	e->pending++;
	e->low = (e->low & 0x00ffffffu) << 8;
}

void rc_enc_flush(struct rc_enc *e)
{
	for (int i = 0; i < 5; i++)
		rc_enc_shift_low(e);
}

bool rc_dec_init(struct rc_dec *d, const void *p, size_t len)
{
	d->p = p;
	d->len = len;
	d->pos = 0;
	d->over = 0;
	d->bad = false;
	d->range = 0xffffffffu;
	d->code = 0;
	if (len < 5 || d->p[0] != 0)
		return false;
	for (int i = 0; i < 5; i++)
		d->code = (d->code << 8) | rc_dec_byte(d);
	return true;
}

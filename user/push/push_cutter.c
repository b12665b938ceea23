// SPDX-License-Identifier: GPL-2.0-only
/*
 * push_cutter.c - a stream cut into intervals of its own time
 * (push_cutter.h has the rules).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "push_cutter.h"
#include "fxt/fxt_profile.h"
#include "fxt/fxt_reader.h"

#define NS_PER_S	1000000000ull

static int buf_put(struct push_buf *b, const void *p, size_t len)
{
	if (b->cap - b->len < len) {
		size_t cap = b->cap ? b->cap : 64 << 10;
		unsigned char *d;

		while (cap - b->len < len)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d)
			return -ENOMEM;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, len);
	b->len += len;
	return 0;
}

int push_cutter__init(struct push_cutter *c, unsigned int interval_s,
		      push_interval_fn emit, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->interval_ns = (uint64_t)interval_s * NS_PER_S;
	/* Ring blocks overlap by far less: a quarter, at most a second. */
	c->grace_ns = c->interval_ns / 4 < NS_PER_S ? c->interval_ns / 4 :
						      NS_PER_S;
	c->emit = emit;
	c->ctx = ctx;
	return fxt_reader__new(0, &c->rd);
}

void push_cutter__release(struct push_cutter *c)
{
	fxt_reader__free(c->rd);
	free(c->defs.data);
	free(c->iv[0].b.data);
	free(c->iv[1].b.data);
	memset(c, 0, sizeof(*c));
}

/*
 * The clock object, read with the strings its argument names need.  A
 * reader error only means no clock: the host's is used then.
 */
static void cutter_read_clock(struct push_cutter *c, const void *rec,
			      size_t len)
{
	struct fxt_record r;
	uint64_t boot, real;
	int ret;

	if (fxt_reader__feed(c->rd, rec, len))
		goto out_done;
	while ((ret = fxt_reader__next(c->rd, &r)) > 0) {
		if (r.type != FXT_REC_KERNEL_OBJ || r.subtype != FXT_KOBJ_CLOCK)
			continue;
		if (!fxt_record__arg_uint(&r, FXT_PROFILE_ARG_BOOT_NS, &boot) ||
		    !fxt_record__arg_uint(&r, FXT_PROFILE_ARG_REALTIME_NS,
					  &real))
			continue;
		c->clock_boot_ns = boot;
		c->clock_real_ns = real;
		c->have_clock = true;
		goto out_done;
	}
	if (!ret)
		return;
out_done:
	fxt_reader__free(c->rd);
	c->rd = NULL;
}

/* No clock object before the first event: this host's clock, now. */
static void cutter_anchor_here(struct push_cutter *c, uint64_t ts)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	c->clock_boot_ns = ts;
	c->clock_real_ns = (uint64_t)now.tv_sec * NS_PER_S +
			   (uint64_t)now.tv_nsec;
	c->have_clock = true;
	fxt_reader__free(c->rd);
	c->rd = NULL;
}

static uint64_t cutter_wall(const struct push_cutter *c, uint64_t ts)
{
	if (ts >= c->clock_boot_ns)
		return c->clock_real_ns + (ts - c->clock_boot_ns);
	return c->clock_boot_ns - ts < c->clock_real_ns ?
	       c->clock_real_ns - (c->clock_boot_ns - ts) : 0;
}

/* Hand interval @iv on if it has events, and make it empty. */
static int cutter_close(struct push_cutter *c, struct push_open_interval *iv)
{
	uint64_t from = iv->k * (c->interval_ns / NS_PER_S);
	int ret = 0;

	if (iv->has_events) {
		ret = c->emit(c->ctx, iv->b.data, iv->b.len, from,
			      from + c->interval_ns / NS_PER_S);
		iv->b.data = NULL;
		iv->b.len = iv->b.cap = 0;
	}
	free(iv->b.data);
	memset(&iv->b, 0, sizeof(iv->b));
	if (c->last == &iv->b)
		c->last = NULL;
	iv->has_events = false;
	return ret;
}

/* Close the older interval: the younger one takes its place. */
static int cutter_shift(struct push_cutter *c, uint64_t k)
{
	int ret = cutter_close(c, &c->iv[0]);

	if (ret)
		return ret;
	if (k > c->iv[1].k + 1) {
		/* A gap of whole intervals: nothing to say about them. */
		ret = cutter_close(c, &c->iv[1]);
		if (ret)
			return ret;
		c->iv[0].k = k - 1;
		c->iv[1].k = k;
		return 0;
	}
	c->iv[0] = c->iv[1];
	if (c->last == &c->iv[1].b)
		c->last = &c->iv[0].b;
	memset(&c->iv[1], 0, sizeof(c->iv[1]));
	c->iv[1].k = c->iv[0].k + 1;
	return 0;
}

/* The interval an event at @ts goes to, the older ones closed first. */
static int cutter_route(struct push_cutter *c, uint64_t ts,
			struct push_open_interval **out)
{
	uint64_t wall, k;
	int ret;

	if (!c->have_clock)
		cutter_anchor_here(c, ts);
	wall = cutter_wall(c, ts);
	k = wall / c->interval_ns;
	if (!c->open) {
		c->iv[0].k = k;
		c->iv[1].k = k + 1;
		c->open = true;
		c->first_ts = ts;
	}
	while (k > c->iv[1].k || (k == c->iv[1].k &&
	       wall >= k * c->interval_ns + c->grace_ns)) {
		ret = cutter_shift(c, k);
		if (ret)
			return ret;
	}
	if (k < c->iv[0].k)
		c->late++;
	*out = k <= c->iv[0].k ? &c->iv[0] : &c->iv[1];
	if (ts > c->last_ts)
		c->last_ts = ts;
	return 0;
}

/* An interval's first event: the definitions so far come first. */
static int cutter_begin(struct push_cutter *c, struct push_open_interval *iv)
{
	int ret;

	if (iv->has_events)
		return 0;
	ret = buf_put(&iv->b, c->defs.data, c->defs.len);
	if (!ret)
		iv->has_events = true;
	return ret;
}

static bool kind_is_def(unsigned int kind)
{
	return kind <= 3 || (kind >= 5 && kind <= 7);
}

static int cutter_record(struct push_cutter *c, const unsigned char *rec,
			 size_t len, unsigned int kind)
{
	struct push_open_interval *iv;
	uint64_t ts;
	int ret, i;

	if (kind_is_def(kind)) {
		/* What the clock needs: the magic, strings, the object. */
		if (c->rd && (kind <= 2 || (kind == 7 &&
		    ((rec[2] & 0xff) == FXT_KOBJ_CLOCK))))
			cutter_read_clock(c, rec, len);
		ret = buf_put(&c->defs, rec, len);
		for (i = 0; !ret && i < 2; i++)
			if (c->iv[i].has_events)
				ret = buf_put(&c->iv[i].b, rec, len);
		return ret;
	}
	if ((kind == 4 || kind == 8) && len >= 16) {
		memcpy(&ts, rec + 8, 8);
		ret = cutter_route(c, ts, &iv);
		if (!ret)
			ret = cutter_begin(c, iv);
		if (!ret)
			ret = buf_put(&iv->b, rec, len);
		c->last = ret ? NULL : &iv->b;
		return ret;
	}
	/* Untimed: with its event, if that one was kept. */
	return c->last ? buf_put(c->last, rec, len) : 0;
}

ssize_t push_cutter__feed(struct push_cutter *c, const unsigned char *p,
			  size_t len)
{
	size_t off = 0;
	int ret;

	while (off + 8 <= len) {
		uint64_t h, words;
		unsigned int kind;

		memcpy(&h, p + off, 8);
		kind = h & 0xf;
		words = kind == 15 ? (h >> 4) & 0xffffffffu : (h >> 4) & 0xfff;
		if (!words)
			return -EPROTO;
		if (words > (len - off) / 8)
			break;
		ret = cutter_record(c, p + off, (size_t)words * 8, kind);
		if (ret)
			return ret;
		off += (size_t)words * 8;
	}
	return (ssize_t)off;
}

int push_cutter__end(struct push_cutter *c)
{
	int ret = cutter_close(c, &c->iv[0]);
	int ret2 = cutter_close(c, &c->iv[1]);

	return ret ? ret : ret2;
}

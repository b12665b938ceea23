// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ring.c - the ring protocol in userspace: libfxtprof's consumer
 * (user/lib/ring.c) against the module's own producer (kmod/kring.c, built
 * for the host with the kernel primitives mapped onto C11 atomics), on the
 * module's memory layout (tests/host/ring_sim.c).
 *
 * Test records are SAMPLE records whose content is a pure function of a
 * sequence number (pid:tid = seq, nr_kernel and ips from a hash of seq),
 * so a consumer can check every byte of every record it receives, and the
 * size of every record it did not receive, without talking to the
 * producer.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "ring_sim.h"

static __u64 splitmix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Frames in test record @seq: 0..@max_frames. */
static unsigned int rec_frames(__u64 seed, __u64 seq, unsigned int max_frames)
{
	return splitmix64(seed ^ seq) % (max_frames + 1);
}

static __u32 rec_size(__u64 seed, __u64 seq, unsigned int max_frames)
{
	return sizeof(struct fxtprof_sample) +
	       8 * rec_frames(seed, seq, max_frames);
}

/* Produce record @seq; 0, or -ENOSPC if it was dropped. */
static int produce(struct fxtprof_ring_sim *sim, __u64 seed, __u64 seq,
		   unsigned int max_frames)
{
	unsigned int n = rec_frames(seed, seq, max_frames);
	struct fxtprof_sample *s;

	s = fxtprof_ring_sim__reserve(sim, FXTPROF_REC_SAMPLE,
				      sizeof(*s) + 8 * n, seq);
	if (!s)
		return -ENOSPC;
	s->pid = seq >> 32;
	s->tid = (__u32)seq;
	s->mode = FXTPROF_MODE_USER;
	s->flags = 0;
	s->nr_kernel = 0;
	s->nr_user = n;
	s->reserved = 0;
	for (unsigned int i = 0; i < n; i++)
		s->ips[i] = splitmix64(seq * 131 + i);
	fxtprof_ring_sim__commit(sim);
	return 0;
}

/* A sample of exactly @size bytes at time @t; 0 or -ENOSPC. */
static int produce_fixed(struct fxtprof_ring_sim *sim, __u32 size, __u64 t)
{
	struct fxtprof_sample *s;

	s = fxtprof_ring_sim__reserve(sim, FXTPROF_REC_SAMPLE, size, t);
	if (!s)
		return -ENOSPC;
	s->nr_user = (size - sizeof(*s)) / 8;
	fxtprof_ring_sim__commit(sim);
	return 0;
}

/* Does @rec hold exactly what produce() wrote for its seq?  -> seq or -1 */
static long long check_rec(const struct fxtprof_rec_hdr *rec, __u64 seed,
			   unsigned int max_frames)
{
	const struct fxtprof_sample *s = (const void *)rec;
	__u64 seq = ((__u64)s->pid << 32) | s->tid;
	unsigned int n = rec_frames(seed, seq, max_frames);

	if (rec->type != FXTPROF_REC_SAMPLE || rec->time_ns != seq ||
	    rec->size != sizeof(*s) + 8 * n || s->nr_user != n ||
	    s->nr_kernel || s->mode != FXTPROF_MODE_USER)
		return -1;
	for (unsigned int i = 0; i < n; i++)
		if (s->ips[i] != splitmix64(seq * 131 + i))
			return -1;
	return (long long)seq;
}

/* Consumer-side bookkeeping shared by the tests. */
struct sink {
	__u64 seed;
	unsigned int max_frames;
	__u64 next_seq;		/* the seq expected next */
	__u64 samples;
	__u64 lost_records;	/* summed over LOST records */
	__u64 lost_bytes;
	__u64 gap_records;	/* seqs skipped between received records */
	__u64 gap_bytes;	/* ... and their sizes, recomputed */
	__u64 flushes;
	__u64 last_flush_seq;
	__u64 wrapped;		/* records that straddle the data end */
	__u64 flush_time;	/* time_ns of flush markers, if any */
	__u64 ring_size;
	const unsigned char *data;
	int bad;		/* a record did not match */
};

static int sink_cb(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct sink *k = ctx;
	long long seq;

	if (k->data && k->ring_size) {
		size_t off = (const unsigned char *)rec - k->data;

		if (off < k->ring_size && off + rec->size > k->ring_size)
			k->wrapped++;
	}
	switch (rec->type) {
	case FXTPROF_REC_LOST: {
		const struct fxtprof_lost *l = (const void *)rec;

		k->lost_records += l->records;
		k->lost_bytes += l->bytes;
		/* Dropped records' times are their seqs; a dropped flush
		 * marker has the time flush_time. */
		if ((l->first_ns != k->next_seq &&
		     l->first_ns != k->flush_time) ||
		    l->last_ns < l->first_ns)
			k->bad = 1;
		return 0;
	}
	case FXTPROF_REC_FLUSH:
		k->flushes++;
		k->last_flush_seq = ((const struct fxtprof_flush_rec *)rec)->seq;
		return 0;
	case FXTPROF_REC_SAMPLE:
		seq = check_rec(rec, k->seed, k->max_frames);
		if (seq < 0 || (__u64)seq < k->next_seq) {
			k->bad = 1;
			return -EBADMSG;
		}
		for (__u64 s = k->next_seq; s < (__u64)seq; s++) {
			k->gap_records++;
			k->gap_bytes += rec_size(k->seed, s, k->max_frames);
		}
		k->next_seq = seq + 1;
		k->samples++;
		return 0;
	}
	k->bad = 1;
	return -EBADMSG;
}

static void sink_init(struct sink *k, __u64 seed, unsigned int max_frames,
		      struct fxtprof_ring *ring)
{
	memset(k, 0, sizeof(*k));
	k->seed = seed;
	k->max_frames = max_frames;
	k->data = ring->data;
	k->ring_size = ring->size;
}

/* ------------------------------------------------------------------ */

FIXTURE(sim) {
	struct fxtprof_ring_sim *sim;
	struct fxtprof_ring ring;
	size_t page;
};

FIXTURE_SETUP(sim)
{
	self->page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, fxtprof_ring_sim__new(3, self->page, &self->sim));
	ASSERT_EQ(0, fxtprof_ring_sim__attach(self->sim, &self->ring));
}

FIXTURE_TEARDOWN(sim)
{
	fxtprof_ring_sim__free(self->sim);
}

TEST_F(sim, attach_validates_geometry)
{
	struct fxtprof_ring_ctrl *ctrl = fxtprof_ring_sim__ctrl(self->sim);
	struct fxtprof_ring_ctrl saved = *ctrl;
	struct fxtprof_ring r;
	const void *ro;
	void *cons;
	size_t len, page = self->page;

	fxtprof_ring_sim__consumer_view(self->sim, &cons, &ro, &len);
	ASSERT_EQ(len, page + 2 * page);
	ASSERT_EQ(0, fxtprof_ring__attach(&r, cons, ro, len));
	EXPECT_EQ(3, fxtprof_ring__cpu(&r));
	EXPECT_EQ(page, fxtprof_ring__size(&r));

	EXPECT_EQ(-EINVAL, fxtprof_ring__attach(&r, NULL, ro, len));
	EXPECT_EQ(-EINVAL, fxtprof_ring__attach(&r, cons, NULL, len));
	/* short mappings, down to not even the control structure */
	EXPECT_EQ(-EINVAL, fxtprof_ring__attach(&r, cons, ro, len - 1));
	EXPECT_EQ(-EINVAL, fxtprof_ring__attach(&r, cons, ro, page + page));
	EXPECT_EQ(-EINVAL, fxtprof_ring__attach(&r, cons, ro, 127));
	EXPECT_EQ(-EINVAL, fxtprof_ring__attach(&r, cons, ro, 0));

#define BAD(field, val, err) do {					\
		*ctrl = saved;						\
		ctrl->field = (val);					\
		EXPECT_EQ(err, fxtprof_ring__attach(&r, cons, ro, len))	\
			TH_LOG(#field " = %llu", (unsigned long long)(val)); \
	} while (0)
	BAD(magic, 0, -EPROTO);
	BAD(magic, FXTPROF_RING_MAGIC + 1, -EPROTO);
	BAD(version, 0, -EPROTONOSUPPORT);
	BAD(version, FXTPROF_ABI_VERSION + 1, -EPROTONOSUPPORT);
	BAD(page_size, 0, -EINVAL);
	BAD(page_size, page + 8, -EINVAL);
	BAD(page_size, 64, -EINVAL);		/* smaller than the ctrl */
	BAD(page_size, 2 * page, -EINVAL);	/* then data_offset is wrong */
	BAD(data_size, 0, -EINVAL);
	BAD(data_size, page + page / 2, -EINVAL);	/* not a power of 2 */
	BAD(data_size, page / 2, -EINVAL);	/* smaller than a page */
	BAD(data_size, 2 * page, -EINVAL);	/* larger than the mapping */
	BAD(data_size, 1ull << 62, -EINVAL);	/* 2 * size wraps 64 bits */
	BAD(data_size, 1ull << 63, -EINVAL);
	BAD(data_offset, 0, -EINVAL);
	BAD(data_offset, page, -EINVAL);	/* on the control page */
	BAD(data_offset, 2 * page + 8, -EINVAL);	/* not page aligned */
	BAD(data_offset, 3 * page, -EINVAL);	/* past the mapping */
	BAD(data_offset, -page, -EINVAL);	/* wraps */
	BAD(producer_pos, page + 8, -EPROTO);	/* more than a ring */
	BAD(producer_pos, 4, -EPROTO);		/* unaligned */
	BAD(producer_pos, -8ull, -EPROTO);	/* behind the consumer */
#undef BAD
	*ctrl = saved;
	EXPECT_EQ(0, fxtprof_ring__attach(&r, cons, ro, len));
}

TEST_F(sim, empty_ring)
{
	const void *p;
	size_t len = 1;

	ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &p, &len));
	EXPECT_EQ(0, len);
	EXPECT_EQ(0, fxtprof_ring__pending(&self->ring));
	EXPECT_EQ(0, fxtprof_ring__drain(&self->ring, sink_cb, NULL));
}

/* Round trips through a one-page ring: every record at every offset. */
TEST_F(sim, produce_consume_wraps)
{
	const __u64 seed = 1, n = 200000;
	unsigned int max_frames = 40;
	struct fxtprof_stats st;
	struct sink k;
	__u64 seq = 0;

	sink_init(&k, seed, max_frames, &self->ring);
	while (seq < n) {
		/* Fill until full, then drain by peek/consume or by drain. */
		while (seq < n && !produce(self->sim, seed, seq, max_frames))
			seq++;
		if (seq < n) {
			/* The drop is counted and reported after the drain;
			 * the seq goes on so the sink sees the gap. */
			seq++;
		}
		if (seq & 1) {
			ASSERT_LT(0, fxtprof_ring__drain(&self->ring, sink_cb, &k));
		} else {
			const unsigned char *p;
			const void *v;
			size_t len, off = 0;

			ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &v, &len));
			p = v;
			while (off < len) {
				const struct fxtprof_rec_hdr *h = (const void *)(p + off);

				ASSERT_EQ(0, fxtprof_rec__validate(h, len - off));
				ASSERT_EQ(0, sink_cb(&k, h));
				off += h->size;
			}
			ASSERT_EQ(off, len);
			fxtprof_ring__consume(&self->ring, len);
		}
		ASSERT_EQ(0, k.bad);
	}
	ASSERT_EQ(0, fxtprof_ring_sim__flush(self->sim, 99, n));
	ASSERT_LT(0, fxtprof_ring__drain(&self->ring, sink_cb, &k));
	fxtprof_ring_sim__stats(self->sim, &st);

	EXPECT_EQ(0, k.bad);
	EXPECT_EQ(1, k.flushes);
	EXPECT_EQ(99, k.last_flush_seq);
	EXPECT_EQ(n, k.samples + k.gap_records);
	EXPECT_EQ(st.samples, k.samples);
	EXPECT_EQ(0, st.lost_unreported);
	EXPECT_EQ(st.lost_records, k.lost_records);
	EXPECT_EQ(st.lost_bytes, k.lost_bytes);
	EXPECT_EQ(k.gap_records, k.lost_records);
	EXPECT_EQ(k.gap_bytes, k.lost_bytes);
	/* The double mapping was exercised, many times. */
	EXPECT_LT(1000, k.wrapped);
	TH_LOG("%llu samples, %llu lost, %llu records across the wrap",
	       (unsigned long long)k.samples,
	       (unsigned long long)k.lost_records,
	       (unsigned long long)k.wrapped);
}

/* A full ring drops whole records and reports them exactly. */
TEST_F(sim, full_ring_drops_whole_records)
{
	const size_t page = self->page;
	const __u32 rec = 64;	/* sample with 4 frames */
	struct fxtprof_stats st;
	__u64 seq, fit = page / rec, dropped = 1000;
	const struct fxtprof_lost *l;
	const void *p;
	size_t len;

	/* Fixed-size records, written by hand. */
	for (seq = 0; seq < fit + dropped; seq++) {
		struct fxtprof_sample *s;

		s = fxtprof_ring_sim__reserve(self->sim, FXTPROF_REC_SAMPLE,
					      rec, 1000 + seq);
		if (seq < fit) {
			ASSERT_NE(NULL, s);
			s->nr_user = 4;
			fxtprof_ring_sim__commit(self->sim);
		} else {
			ASSERT_EQ(NULL, s);
		}
	}
	fxtprof_ring_sim__stats(self->sim, &st);
	EXPECT_EQ(fit, st.samples);
	EXPECT_EQ(dropped, st.lost_records);
	EXPECT_EQ(dropped * rec, st.lost_bytes);
	EXPECT_EQ(dropped, st.lost_unreported);
	EXPECT_EQ(dropped * rec, st.lost_unreported_bytes);
	EXPECT_EQ(dropped, fxtprof_ring_sim__ctrl(self->sim)->lost_records);
	EXPECT_EQ(dropped * rec, fxtprof_ring_sim__ctrl(self->sim)->lost_bytes);

	/* Exactly the records that fitted, none partial. */
	ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &p, &len));
	ASSERT_EQ(fit * rec, len);
	fxtprof_ring__consume(&self->ring, len);

	/* Room for the record but not for LOST + record: still dropped. */
	{
		struct fxtprof_sample *s;

		/* fill all but 64 bytes */
		for (seq = 0; seq < fit - 1; seq++) {
			s = fxtprof_ring_sim__reserve(self->sim, FXTPROF_REC_SAMPLE,
						      rec, 0);
			/* the first one carries the LOST record */
			ASSERT_NE(NULL, s);
			s->nr_user = 4;
			fxtprof_ring_sim__commit(self->sim);
		}
		/* LOST (48) went in with the first: 64 - 48 = 16 left */
		EXPECT_EQ(NULL, fxtprof_ring_sim__reserve(self->sim,
				FXTPROF_REC_SAMPLE, 32, 5000));
		fxtprof_ring_sim__stats(self->sim, &st);
		EXPECT_EQ(1, st.lost_unreported);
		EXPECT_EQ(32, st.lost_unreported_bytes);
		EXPECT_EQ(dropped + 1, st.lost_records);
	}

	/* Drain: the LOST record comes first with exact counts and times. */
	ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &p, &len));
	l = p;
	ASSERT_EQ(FXTPROF_REC_LOST, l->hdr.type);
	ASSERT_EQ(sizeof(*l), l->hdr.size);
	EXPECT_EQ(3, l->hdr.cpu);
	EXPECT_EQ(dropped, l->records);
	EXPECT_EQ(dropped * rec, l->bytes);
	EXPECT_EQ(1000 + fit, l->first_ns);
	EXPECT_EQ(1000 + fit + dropped - 1, l->last_ns);
	ASSERT_EQ(sizeof(*l) + (fit - 1) * rec, len);
	EXPECT_EQ(FXTPROF_REC_SAMPLE, ((const struct fxtprof_rec_hdr *)(l + 1))->type);
	fxtprof_ring__consume(&self->ring, len);

	/* Flush reports the remaining unreported drop, then the marker. */
	ASSERT_EQ(0, fxtprof_ring_sim__flush(self->sim, 7, 6000));
	ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &p, &len));
	ASSERT_EQ(sizeof(struct fxtprof_lost) + sizeof(struct fxtprof_flush_rec), len);
	l = p;
	EXPECT_EQ(FXTPROF_REC_LOST, l->hdr.type);
	EXPECT_EQ(1, l->records);
	EXPECT_EQ(32, l->bytes);
	EXPECT_EQ(5000, l->first_ns);
	EXPECT_EQ(FXTPROF_REC_FLUSH, ((const struct fxtprof_rec_hdr *)(l + 1))->type);
	fxtprof_ring__consume(&self->ring, len);
	fxtprof_ring_sim__stats(self->sim, &st);
	EXPECT_EQ(0, st.lost_unreported);
	EXPECT_EQ(0, st.lost_unreported_bytes);
	EXPECT_EQ(dropped + 1, st.lost_records);
	EXPECT_EQ(dropped * rec + 32, st.lost_bytes);
}

/*
 * The producer wakes the reader when a commit takes the ring across the
 * watermark (a quarter of it), not on every record above it, and again
 * after the reader has brought it back below.
 */
TEST_F(sim, watermark_crossing_wakes_once)
{
	const __u32 rec = 64;
	const __u64 below = self->page / 4 / rec - 1;
	const void *p;
	size_t len;
	__u64 i;

	for (i = 0; i < below; i++)
		ASSERT_EQ(0, produce_fixed(self->sim, rec, i));
	EXPECT_EQ(0, fxtprof_ring_sim__wakeups(self->sim));
	ASSERT_EQ(0, produce_fixed(self->sim, rec, i++));	/* crosses */
	EXPECT_EQ(1, fxtprof_ring_sim__wakeups(self->sim));
	ASSERT_EQ(0, produce_fixed(self->sim, rec, i++));	/* above */
	EXPECT_EQ(1, fxtprof_ring_sim__wakeups(self->sim));

	ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &p, &len));
	fxtprof_ring__consume(&self->ring, len);
	for (__u64 n = 0; n <= below; n++)
		ASSERT_EQ(0, produce_fixed(self->sim, rec, i++));
	EXPECT_EQ(2, fxtprof_ring_sim__wakeups(self->sim));
}

/*
 * poll()'s answer is a pure function of the positions: asking changes
 * nothing, so it never depends on who asked before.  Below the watermark
 * a ring is readable only until the reader has consumed what the last
 * flush or stop committed.
 */
TEST_F(sim, readable_is_a_pure_comparison)
{
	const __u32 rec = 64;
	const __u64 below = self->page / 4 / rec - 1;
	const void *p;
	size_t len;
	__u64 t = 0;

	EXPECT_FALSE(fxtprof_ring_sim__readable(self->sim));
	ASSERT_EQ(0, produce_fixed(self->sim, rec, t++));
	EXPECT_FALSE(fxtprof_ring_sim__readable(self->sim));

	/* a flush asks for everything, however little */
	ASSERT_EQ(0, fxtprof_ring_sim__flush(self->sim, 1, t++));
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(fxtprof_ring_sim__readable(self->sim));
	/* consuming part of it is not enough */
	ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &p, &len));
	fxtprof_ring__consume(&self->ring, rec);
	EXPECT_TRUE(fxtprof_ring_sim__readable(self->sim));
	fxtprof_ring__consume(&self->ring, len - rec);
	EXPECT_FALSE(fxtprof_ring_sim__readable(self->sim));

	/* records after the flush wait for the watermark, asked or not */
	ASSERT_EQ(0, produce_fixed(self->sim, rec, t++));
	EXPECT_FALSE(fxtprof_ring_sim__readable(self->sim));
	for (__u64 i = 1; i < below; i++)
		ASSERT_EQ(0, produce_fixed(self->sim, rec, t++));
	EXPECT_FALSE(fxtprof_ring_sim__readable(self->sim));
	ASSERT_EQ(0, produce_fixed(self->sim, rec, t++));
	EXPECT_TRUE(fxtprof_ring_sim__readable(self->sim));
	ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &p, &len));
	fxtprof_ring__consume(&self->ring, len);
	EXPECT_FALSE(fxtprof_ring_sim__readable(self->sim));

	/* a stop asks for everything too */
	ASSERT_EQ(0, produce_fixed(self->sim, rec, t++));
	EXPECT_FALSE(fxtprof_ring_sim__readable(self->sim));
	fxtprof_ring_sim__stop(self->sim);
	EXPECT_TRUE(fxtprof_ring_sim__readable(self->sim));
	ASSERT_EQ(0, fxtprof_ring__peek(&self->ring, &p, &len));
	EXPECT_EQ(rec, len);
	fxtprof_ring__consume(&self->ring, len);
	EXPECT_FALSE(fxtprof_ring_sim__readable(self->sim));
	/* a flush of an empty ring: its marker is readable */
	ASSERT_EQ(0, fxtprof_ring_sim__flush(self->sim, 2, t++));
	EXPECT_TRUE(fxtprof_ring_sim__readable(self->sim));

	/* a garbage consumer position reads as readable, never as empty */
	{
		void *cons;
		const void *ro;
		size_t vlen;

		fxtprof_ring_sim__consumer_view(self->sim, &cons, &ro, &vlen);
		((struct fxtprof_ring_consumer *)cons)->consumer_pos += 1ull << 40;
		EXPECT_TRUE(fxtprof_ring_sim__readable(self->sim));
		((struct fxtprof_ring_consumer *)cons)->consumer_pos -= 1ull << 41;
		EXPECT_TRUE(fxtprof_ring_sim__readable(self->sim));
	}
}

/* A record larger than the ring can never fit; it is lost, not stuck. */
TEST_F(sim, oversized_record_is_lost)
{
	struct fxtprof_stats st;

	EXPECT_EQ(NULL, fxtprof_ring_sim__reserve(self->sim, FXTPROF_REC_SAMPLE,
						  2 * self->page, 1));
	EXPECT_EQ(NULL, fxtprof_ring_sim__reserve(self->sim, FXTPROF_REC_SAMPLE,
						  self->page + 8, 2));
	fxtprof_ring_sim__stats(self->sim, &st);
	EXPECT_EQ(2, st.lost_records);
	EXPECT_NE(NULL, fxtprof_ring_sim__reserve(self->sim, FXTPROF_REC_FLUSH,
						  24, 3));
	fxtprof_ring_sim__commit(self->sim);
	EXPECT_EQ(2, fxtprof_ring__drain(&self->ring, sink_cb,
					 &(struct sink){ .next_seq = 1 }));
}

TEST_F(sim, drain_stops_at_corruption)
{
	unsigned char *data = fxtprof_ring_sim__data(self->sim);
	struct fxtprof_ring_ctrl *ctrl = fxtprof_ring_sim__ctrl(self->sim);
	struct fxtprof_rec_hdr *h;
	struct sink k;
	const void *p;
	size_t len;

	sink_init(&k, 5, 2, &self->ring);
	for (__u64 seq = 0; seq < 10; seq++)
		ASSERT_EQ(0, produce(self->sim, 5, seq, 2));
	/* corrupt the 4th record's size */
	h = (void *)data;
	for (int i = 0; i < 3; i++)
		h = (void *)((unsigned char *)h + h->size);
	h->size = 12;
	EXPECT_EQ(-EPROTO, fxtprof_ring__drain(&self->ring, sink_cb, &k));
	EXPECT_EQ(3, k.samples);	/* the good ones before it */
	EXPECT_EQ(-EPROTO, fxtprof_ring__drain(&self->ring, sink_cb, &k));
	EXPECT_EQ(3, k.samples);	/* sticky, nothing more */

	h->size = 32 + 8 * 1000;	/* past what is pending */
	EXPECT_EQ(-EPROTO, fxtprof_ring__drain(&self->ring, sink_cb, &k));
	h->type = 0;
	h->size = 32;
	EXPECT_EQ(-EPROTO, fxtprof_ring__drain(&self->ring, sink_cb, &k));
	h->type = FXTPROF_REC_SAMPLE;
	h->cpu = 4;			/* not this ring's CPU */
	EXPECT_EQ(-EPROTO, fxtprof_ring__drain(&self->ring, sink_cb, &k));
	EXPECT_EQ(3, k.samples);

	/* an impossible producer position: peek refuses to read */
	ctrl->producer_pos += self->page;
	EXPECT_EQ(-EPROTO, fxtprof_ring__peek(&self->ring, &p, &len));
	EXPECT_EQ(0, len);
	ctrl->producer_pos -= self->page + 4;
	EXPECT_EQ(-EPROTO, fxtprof_ring__peek(&self->ring, &p, &len));
	ctrl->producer_pos = 0;		/* behind the consumer */
	EXPECT_EQ(-EPROTO, fxtprof_ring__drain(&self->ring, sink_cb, &k));
}

/* The callback can stop the drain; the rest stays for the next one. */
struct stop { int n, stop_at, ret; };

static int stop_cb(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct stop *x = ctx;

	(void)rec;
	return ++x->n == x->stop_at ? x->ret : 0;
}

TEST_F(sim, drain_callback_stops)
{
	struct stop s = { 0, 3, 1 };

	for (__u64 seq = 0; seq < 10; seq++)
		ASSERT_EQ(0, produce(self->sim, 5, seq, 2));
	EXPECT_EQ(3, fxtprof_ring__drain(&self->ring, stop_cb, &s));
	s = (struct stop){ 0, 2, -EINTR };
	EXPECT_EQ(-EINTR, fxtprof_ring__drain(&self->ring, stop_cb, &s));
	s = (struct stop){ 0, 100, 0 };
	EXPECT_EQ(5, fxtprof_ring__drain(&self->ring, stop_cb, &s));
	EXPECT_EQ(0, fxtprof_ring__pending(&self->ring));
}

/* ------------------------------------------------------------------ */

TEST(validate_rejects_malformed)
{
	union {
		struct fxtprof_rec_hdr h;
		struct fxtprof_sample s;
		struct fxtprof_exec e;
		unsigned char b[4096];
	} u;
	static const struct { __u16 type; __u32 min; } types[] = {
		{ FXTPROF_REC_SAMPLE, 32 }, { FXTPROF_REC_FORK, 56 },
		{ FXTPROF_REC_EXEC, 48 }, { FXTPROF_REC_EXIT, 48 },
		{ FXTPROF_REC_RENAME, 56 }, { FXTPROF_REC_SNAPSHOT, 64 },
		{ FXTPROF_REC_LOST, 48 }, { FXTPROF_REC_FLUSH, 24 },
	};

	for (unsigned int i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		memset(&u, 0, sizeof(u));
		u.h.type = types[i].type;
		u.h.size = types[i].min;
		EXPECT_EQ(0, fxtprof_rec__validate(&u.h, types[i].min))
			TH_LOG("type %u", types[i].type);
		EXPECT_EQ(0, fxtprof_rec__validate(&u.h, sizeof(u)));
		/* larger than the struct is fine (future fields) */
		u.h.size = types[i].min + 8;
		EXPECT_EQ(0, fxtprof_rec__validate(&u.h, sizeof(u)));
		/* one word short of the type's struct */
		u.h.size = types[i].min - 8;
		EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)))
			TH_LOG("type %u", types[i].type);
		/* not all of it available */
		u.h.size = types[i].min;
		EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, types[i].min - 8));
	}

	memset(&u, 0, sizeof(u));
	u.h.type = FXTPROF_REC_FLUSH;
	u.h.size = 24;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, 15));	/* no header */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, 0));
	u.h.size = 0;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 8;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 28;						/* not x8 */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 0xfffffff8;					/* > avail */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 24;
	u.h.type = 0;						/* zeroed memory */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	/* newer types are skipped by size */
	u.h.type = FXTPROF_REC_MAX;
	EXPECT_EQ(0, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.type = 0xffff;
	EXPECT_EQ(0, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 28;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 24;

	/* samples: the stacks must fit */
	memset(&u, 0, sizeof(u));
	u.h.type = FXTPROF_REC_SAMPLE;
	u.h.size = 32 + 8 * 5;
	u.s.nr_kernel = 2;
	u.s.nr_user = 3;
	EXPECT_EQ(0, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.s.nr_user = 4;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.s.nr_kernel = 0;
	u.s.nr_user = 6;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.s.nr_user = 0xffff;					/* no wrap */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 32 + 8 * 254;
	u.s.nr_kernel = 127;
	u.s.nr_user = 127;
	EXPECT_EQ(0, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 32 + 8 * 255;
	u.s.nr_kernel = 128;					/* > max depth */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));

	/* exec: the filename must fit */
	memset(&u, 0, sizeof(u));
	u.h.type = FXTPROF_REC_EXEC;
	u.h.size = 48 + 16;
	u.e.filename_len = 16;
	EXPECT_EQ(0, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.e.filename_len = 17;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 48;
	u.e.filename_len = 1;
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.h.size = 48 + 1032;
	u.e.filename_len = FXTPROF_MAX_FILENAME;
	EXPECT_EQ(0, fxtprof_rec__validate(&u.h, sizeof(u)));
	u.e.filename_len = FXTPROF_MAX_FILENAME + 1;		/* > limit */
	EXPECT_EQ(-EPROTO, fxtprof_rec__validate(&u.h, sizeof(u)));
}

TEST(sim_rejects_bad_geometry)
{
	struct fxtprof_ring_sim *sim = (void *)1;
	size_t page = sysconf(_SC_PAGESIZE);

	EXPECT_EQ(-EINVAL, fxtprof_ring_sim__new(0, 0, &sim));
	EXPECT_EQ(NULL, sim);
	EXPECT_EQ(-EINVAL, fxtprof_ring_sim__new(0, page / 2, &sim));
	EXPECT_EQ(-EINVAL, fxtprof_ring_sim__new(0, 3 * page, &sim));
	ASSERT_EQ(0, fxtprof_ring_sim__new(0, 4 * page, &sim));
	/* misaligned or too small records are refused, not written */
	EXPECT_EQ(NULL, fxtprof_ring_sim__reserve(sim, 1, 8, 0));
	EXPECT_EQ(NULL, fxtprof_ring_sim__reserve(sim, 1, 36, 0));
	fxtprof_ring_sim__free(sim);
}

/* ------------------------------------------------------------------ */
/* Two threads                                                         */
/* ------------------------------------------------------------------ */

struct stress {
	struct fxtprof_ring_sim *sim;
	struct fxtprof_ring ring;
	__u64 seed;
	unsigned int max_frames;
	__u64 n;
	int slow_consumer;	/* yield now and then: provokes loss */
	volatile int done;
	__u64 flush_drops;	/* flush markers that did not fit */
	double produce_s;
};

static void *stress_producer(void *arg)
{
	struct stress *st = arg;
	__u64 t0 = now_ns();

	for (__u64 seq = 0; seq < st->n; seq++)
		produce(st->sim, st->seed, seq, st->max_frames);
	st->produce_s = (now_ns() - t0) / 1e9;
	/* Reports the tail of any loss; if even that does not fit, the
	 * loss stays in lost_unreported and the stats account for it. */
	while (fxtprof_ring_sim__flush(st->sim, 1, st->n)) {
		st->flush_drops++;
		sched_yield();
	}
	__atomic_store_n(&st->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void run_stress(struct __test_metadata *_metadata, struct stress *st,
		       struct sink *k)
{
	struct fxtprof_stats stats;
	pthread_t thr;
	__u64 iter = 0, t0 = now_ns();
	double secs;

	sink_init(k, st->seed, st->max_frames, &st->ring);
	k->flush_time = st->n;
	ASSERT_EQ(0, pthread_create(&thr, NULL, stress_producer, st));
	for (;;) {
		int done = __atomic_load_n(&st->done, __ATOMIC_ACQUIRE);
		int n = fxtprof_ring__drain(&st->ring, sink_cb, k);

		ASSERT_LE(0, n) TH_LOG("drain: %d after %llu samples", n,
				       (unsigned long long)k->samples);
		if (done && !n && k->flushes)
			break;
		if (st->slow_consumer && ++iter % 64 == 0) {
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
	}
	secs = (now_ns() - t0) / 1e9;
	pthread_join(thr, NULL);
	fxtprof_ring_sim__stats(st->sim, &stats);
	/* Seqs dropped after the last one received. */
	for (__u64 s = k->next_seq; s < st->n; s++) {
		k->gap_records++;
		k->gap_bytes += rec_size(k->seed, s, k->max_frames);
	}

	ASSERT_EQ(0, k->bad);
	/* Every seq arrived intact or is in a LOST record, exactly. */
	EXPECT_EQ(st->n, k->samples + k->gap_records);
	EXPECT_EQ(stats.samples, k->samples);
	EXPECT_EQ(0, stats.lost_unreported);
	EXPECT_EQ(k->gap_records + st->flush_drops, k->lost_records);
	EXPECT_EQ(k->gap_bytes + st->flush_drops * sizeof(struct fxtprof_flush_rec),
		  k->lost_bytes);
	EXPECT_EQ(stats.lost_records, k->lost_records);
	EXPECT_EQ(stats.lost_bytes, k->lost_bytes);
	TH_LOG("%llu records produced at %.1f M/s; %llu delivered intact "
	       "(%.1f M/s), %llu lost and accounted",
	       (unsigned long long)st->n, st->n / st->produce_s / 1e6,
	       (unsigned long long)k->samples, k->samples / secs / 1e6,
	       (unsigned long long)k->lost_records);
}

/* Small ring, slow consumer: lots of loss, all of it accounted. */
TEST(stress_two_threads_lossy)
{
	struct stress st = { .seed = 0x5eed, .max_frames = 16, .n = 2000000,
			     .slow_consumer = 1 };
	struct sink k;

	ASSERT_EQ(0, fxtprof_ring_sim__new(0, 16384, &st.sim));
	ASSERT_EQ(0, fxtprof_ring_sim__attach(st.sim, &st.ring));
	run_stress(_metadata, &st, &k);
	EXPECT_LT(0, k.lost_records);
	EXPECT_LT(0, k.samples);
	fxtprof_ring_sim__free(st.sim);
}

/* Big ring, consumer flat out: the throughput the reader can be fed. */
TEST(stress_two_threads_throughput)
{
	struct stress st = { .seed = 42, .max_frames = 0, .n = 10000000 };
	struct sink k;

	ASSERT_EQ(0, fxtprof_ring_sim__new(0, 4 << 20, &st.sim));
	ASSERT_EQ(0, fxtprof_ring_sim__attach(st.sim, &st.ring));
	run_stress(_metadata, &st, &k);
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
	/* A loose floor; the log line has the real figure. */
	EXPECT_LT(1000000, st.n / st.produce_s);
#endif
	fxtprof_ring_sim__free(st.sim);
}

static int count_cb(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	/* (each round's failed reserve comes back as a LOST record) */
	*(__u64 *)ctx += rec->type == FXTPROF_REC_SAMPLE;
	return 0;
}

/*
 * The library's own cost: fill a ring with 32-byte records, drain it with
 * a callback that only counts, and time each side separately.
 */
TEST(drain_throughput)
{
	struct fxtprof_ring_sim *sim;
	struct fxtprof_ring ring;
	__u64 seen = 0, made = 0, t_prod = 0, t_drain = 0;

	ASSERT_EQ(0, fxtprof_ring_sim__new(0, 4 << 20, &sim));
	ASSERT_EQ(0, fxtprof_ring_sim__attach(sim, &ring));
	for (int round = 0; round < 40; round++) {
		__u64 t0 = now_ns(), t1;
		struct fxtprof_sample *s;

		while ((s = fxtprof_ring_sim__reserve(sim, FXTPROF_REC_SAMPLE,
						      sizeof(*s), made))) {
			s->pid = s->tid = 1;
			s->mode = FXTPROF_MODE_USER;
			s->flags = 0;
			s->nr_kernel = s->nr_user = s->reserved = 0;
			fxtprof_ring_sim__commit(sim);
			made++;
		}
		t1 = now_ns();
		ASSERT_LT(0, fxtprof_ring__drain(&ring, count_cb, &seen));
		t_drain += now_ns() - t1;
		t_prod += t1 - t0;
	}
	EXPECT_EQ(made, seen);
	TH_LOG("%llu records: produce %.1f M/s, drain+validate %.1f M/s",
	       (unsigned long long)made, made * 1e3 / t_prod, seen * 1e3 / t_drain);
	fxtprof_ring_sim__free(sim);
}

TEST_HARNESS_MAIN

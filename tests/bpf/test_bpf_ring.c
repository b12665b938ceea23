// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_bpf_ring.c - the bpf source's ring buffer consumer (bpf_ring.c)
 * over a simulated BPF ring buffer laid out as kernel/bpf/ringbuf.c does:
 * the data mapped twice back to back, 8-byte record headers with BUSY and
 * DISCARD bits.  Order across wraps, discarded and busy records, every
 * kind of corruption, and callbacks that stop the drain.  No privileges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "bpf_ring.h"

#define SIZE	4096u
#define NR_CPUS	4

struct sim {
	unsigned long consumer_pos, producer_pos;
	unsigned char *data;	/* SIZE bytes, mapped twice */
	struct bpf_ring ring;
};

static void sim_init(struct __test_metadata *_metadata, struct sim *s)
{
	int fd = memfd_create("bpf_ring", 0);
	void *base;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, SIZE));
	base = mmap(NULL, 2 * SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, base);
	ASSERT_EQ(base, mmap(base, SIZE, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_FIXED, fd, 0));
	ASSERT_EQ((char *)base + SIZE, mmap((char *)base + SIZE, SIZE,
					     PROT_READ | PROT_WRITE,
					     MAP_SHARED | MAP_FIXED, fd, 0));
	close(fd);
	s->data = base;
	s->consumer_pos = s->producer_pos = 0;
	ASSERT_EQ(0, bpf_ring__init(&s->ring, &s->consumer_pos,
				    &s->producer_pos, s->data, SIZE, NR_CPUS));
}

static void sim_fini(struct sim *s)
{
	munmap(s->data, 2 * SIZE);
}

/* Room left for the producer, as the kernel computes it. */
static unsigned long sim_room(const struct sim *s)
{
	return SIZE - (s->producer_pos - s->consumer_pos);
}

/* Write @rec (@len bytes) with header bits @bits; its header pointer. */
static uint32_t *sim_put(struct sim *s, const void *rec, uint32_t len,
			 uint32_t bits)
{
	uint32_t *hdr = (void *)(s->data + (s->producer_pos & (SIZE - 1)));

	hdr[0] = len | bits;
	hdr[1] = 0;
	memcpy(hdr + 2, rec, len);
	s->producer_pos += (len + BPF_RING_HDR_SZ + 7) & ~7u;
	return hdr;
}

/* A sample whose pid is @seq and with @nr user frames. */
static uint32_t make_sample(void *buf, uint32_t seq, unsigned int nr,
			    uint16_t cpu)
{
	struct fxtprof_sample *smp = buf;
	unsigned int i;

	memset(smp, 0, sizeof(*smp));
	smp->hdr.size = sizeof(*smp) + 8 * nr;
	smp->hdr.type = FXTPROF_REC_SAMPLE;
	smp->hdr.cpu = cpu;
	smp->hdr.time_ns = seq;
	smp->pid = smp->tid = seq;
	smp->mode = FXTPROF_MODE_USER;
	smp->nr_user = nr;
	for (i = 0; i < nr; i++)
		smp->ips[i] = 0x400000 + i;
	return smp->hdr.size;
}

struct got {
	uint32_t seq[4096];
	unsigned int n;
	int stop_at, ret;	/* return @ret on the stop_at'th record */
};

static int got_cb(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct got *g = ctx;
	const struct fxtprof_sample *smp = (const void *)rec;

	if (g->n < 4096)
		g->seq[g->n] = smp->pid;
	g->n++;
	return g->stop_at && (int)g->n == g->stop_at ? g->ret : 0;
}

TEST(order_across_wraps)
{
	unsigned char buf[2048];
	struct got g = { 0 };
	unsigned int cpu, seq = 0, i;
	struct sim s;

	sim_init(_metadata, &s);
	/* Varying sizes, so records straddle the end of the data. */
	while (seq < 3000) {
		uint32_t len = make_sample(buf, seq, (seq * 7) % 60, seq % NR_CPUS);

		if (sim_room(&s) < len + 8) {
			ASSERT_EQ(0, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
			EXPECT_EQ(s.producer_pos, s.consumer_pos);
			continue;
		}
		sim_put(&s, buf, len, 0);
		seq++;
	}
	ASSERT_EQ(0, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	EXPECT_EQ(s.producer_pos, s.consumer_pos);
	EXPECT_LT(10 * SIZE, s.producer_pos);	/* it wrapped, many times */
	ASSERT_EQ(3000, g.n);
	for (i = 0; i < g.n; i++)
		ASSERT_EQ(i, g.seq[i]);
	sim_fini(&s);
}

TEST(discarded_skipped_busy_waited)
{
	unsigned char buf[256];
	struct got g = { 0 };
	unsigned int cpu;
	uint32_t *busy;
	struct sim s;

	sim_init(_metadata, &s);
	sim_put(&s, buf, make_sample(buf, 1, 2, 0), 0);
	sim_put(&s, buf, make_sample(buf, 2, 2, 0), BPF_RING_DISCARD_BIT);
	sim_put(&s, buf, make_sample(buf, 3, 2, 0), 0);
	busy = sim_put(&s, buf, make_sample(buf, 4, 2, 1), BPF_RING_BUSY_BIT);
	sim_put(&s, buf, make_sample(buf, 5, 2, 1), 0);

	/* Running: up to the busy record, which holds back what follows. */
	ASSERT_EQ(0, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	ASSERT_EQ(2, g.n);
	EXPECT_EQ(1, g.seq[0]);
	EXPECT_EQ(3, g.seq[1]);
	EXPECT_EQ((unsigned long)((uint8_t *)busy - s.data), s.consumer_pos);
	/* After stop: waited for, then given up on. */
	EXPECT_EQ(-ETIMEDOUT, bpf_ring__drain(&s.ring, got_cb, &g, 2000000, &cpu));
	EXPECT_EQ(2, g.n);
	/* Committed: everything comes. */
	busy[0] &= ~BPF_RING_BUSY_BIT;
	ASSERT_EQ(0, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	ASSERT_EQ(4, g.n);
	EXPECT_EQ(4, g.seq[2]);
	EXPECT_EQ(5, g.seq[3]);
	EXPECT_EQ(s.producer_pos, s.consumer_pos);
	sim_fini(&s);
}

/* One bad record after a good one: the good one comes, then -EPROTO,
 * and the consumer stays in front of the bad one. */
static void expect_corrupt(struct __test_metadata *_metadata,
			   void (*spoil)(struct sim *s, unsigned char *rec,
					 uint32_t *len),
			   unsigned int want_cpu)
{
	unsigned char buf[512];
	struct got g = { 0 };
	unsigned int cpu = 99;
	unsigned long bad_at;
	uint32_t len;
	struct sim s;

	sim_init(_metadata, &s);
	sim_put(&s, buf, make_sample(buf, 1, 1, 0), 0);
	bad_at = s.producer_pos;
	len = make_sample(buf, 2, 3, 1);
	spoil(&s, buf, &len);
	if (len)
		sim_put(&s, buf, len, 0);
	EXPECT_EQ(-EPROTO, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	EXPECT_NE(NULL, s.ring.why);
	TH_LOG("%s", s.ring.why ? s.ring.why : "(none)");
	EXPECT_EQ(1, g.n);
	EXPECT_EQ(bad_at, s.consumer_pos);
	EXPECT_EQ(want_cpu, cpu);
	/* and again: a corrupt ring stays corrupt, nothing is skipped */
	EXPECT_EQ(-EPROTO, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	EXPECT_EQ(1, g.n);
	sim_fini(&s);
}

static void size_mismatch(struct sim *s, unsigned char *rec, uint32_t *len)
{
	(void)s;
	(void)len;	/* the ring's length stays */
	((struct fxtprof_rec_hdr *)rec)->size += 8;
}

static void type_zero(struct sim *s, unsigned char *rec, uint32_t *len)
{
	(void)s;
	(void)len;
	((struct fxtprof_rec_hdr *)rec)->type = 0;
}

static void cpu_out_of_range(struct sim *s, unsigned char *rec, uint32_t *len)
{
	(void)s;
	(void)len;
	((struct fxtprof_rec_hdr *)rec)->cpu = NR_CPUS;
}

static void too_many_frames(struct sim *s, unsigned char *rec, uint32_t *len)
{
	(void)s;
	(void)len;
	((struct fxtprof_sample *)rec)->nr_user = 200;
}

static void runs_past_producer(struct sim *s, unsigned char *rec, uint32_t *len)
{
	uint32_t *hdr = (void *)(s->data + (s->producer_pos & (SIZE - 1)));

	/* header says 256 bytes, the producer published 48 */
	sim_put(s, rec, *len, 0);
	hdr[0] = 256;
	*len = 0;
}

static void short_record(struct sim *s, unsigned char *rec, uint32_t *len)
{
	(void)s;
	(void)rec;
	*len = 8;	/* less than a header */
}

TEST(corrupt_records_rejected)
{
	expect_corrupt(_metadata, size_mismatch, 1);
	expect_corrupt(_metadata, type_zero, 1);
	expect_corrupt(_metadata, cpu_out_of_range, NR_CPUS);
	expect_corrupt(_metadata, too_many_frames, 1);
	expect_corrupt(_metadata, runs_past_producer, 0);
	expect_corrupt(_metadata, short_record, 0);
}

TEST(corrupt_positions_rejected)
{
	struct got g = { 0 };
	unsigned int cpu;
	struct sim s;

	sim_init(_metadata, &s);
	s.producer_pos = SIZE + 8;	/* more than a ring's worth */
	EXPECT_EQ(-EPROTO, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	s.producer_pos = 12;		/* unaligned */
	EXPECT_EQ(-EPROTO, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	EXPECT_EQ(0, g.n);
	EXPECT_EQ(0, s.consumer_pos);
	/* and at attach */
	EXPECT_EQ(-EPROTO, bpf_ring__init(&s.ring, &s.consumer_pos,
					  &s.producer_pos, s.data, SIZE, 1));
	EXPECT_EQ(-EINVAL, bpf_ring__init(&s.ring, &s.consumer_pos,
					  &s.producer_pos, s.data, 3000, 1));
	sim_fini(&s);
}

TEST(callback_stops_the_drain)
{
	unsigned char buf[256];
	struct got g = { .stop_at = 3, .ret = -EIO };
	unsigned int cpu, i;
	struct sim s;

	sim_init(_metadata, &s);
	for (i = 1; i <= 5; i++)
		sim_put(&s, buf, make_sample(buf, i, 0, 0), 0);
	/* an error: returned, and the record it refused counts as taken */
	EXPECT_EQ(-EIO, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	EXPECT_EQ(3, g.n);
	EXPECT_EQ(3 * (32 + 8), s.consumer_pos);
	/* a positive return: stop quietly */
	g.stop_at = 4;
	g.ret = 1;
	EXPECT_EQ(0, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	EXPECT_EQ(4, g.n);
	EXPECT_EQ(0, bpf_ring__drain(&s.ring, got_cb, &g, 0, &cpu));
	EXPECT_EQ(5, g.n);
	EXPECT_EQ(s.producer_pos, s.consumer_pos);
	sim_fini(&s);
}

TEST_HARNESS_MAIN

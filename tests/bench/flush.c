// SPDX-License-Identifier: GPL-2.0-only
/*
 * flush.c - fxt-bench-flush, the in-VM measurement of `make bench-flush`:
 * the latency of one flush, from the FXTPROF_IOC_FLUSH call until the
 * reader has drained past its marker on every ring
 * (fxtprof_dev__flush_done()), while every CPU is busy and sampled.
 *
 *   fxt-bench-flush FREQ COUNT
 *
 * FREQ 0 is the baseline: the same session with sampling off and the CPUs
 * idle, so only the flush itself is left.  Otherwise one spinning thread
 * per online CPU, sampled at FREQ Hz with kernel and user stacks, task
 * records on, and the reader drains between flushes as `fxtprof record`
 * does.  Prints one line:
 *   BENCH freq=F n=N median_ns=M p90_ns=P max_ns=X lost=L samples=S
 * Measurements only: nothing passes or fails on a number.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libfxtprof.h>

#define MAX_CPUS	64

static atomic_int stop;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void *spin(void *arg)
{
	cpu_set_t set;
	volatile unsigned long x = 0;

	CPU_ZERO(&set);
	CPU_SET((int)(long)arg, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		x++;
	return NULL;
}

static int ignore(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

static int drain(struct fxtprof_dev *dev)
{
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		struct fxtprof_ring *ring = fxtprof_dev__ring(dev, cpu);
		int n;

		if (!ring)
			continue;
		n = fxtprof_ring__drain(ring, ignore, NULL);
		if (n < 0)
			return n;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct fxtprof_config cfg = { .size = sizeof(cfg) };
	unsigned long long *lat, lost = 0, samples = 0;
	pthread_t thr[MAX_CPUS];
	struct fxtprof_dev *dev;
	struct fxtprof_stats st;
	int freq, count, ncpu = 0, err;

	if (argc != 3 || (freq = atoi(argv[1])) < 0 ||
	    (count = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: fxt-bench-flush FREQ COUNT\n");
		return 2;
	}
	lat = calloc(count, sizeof(*lat));
	err = lat ? fxtprof_dev__open(NULL, &dev) : -ENOMEM;
	if (err) {
		fprintf(stderr, "fxt-bench-flush: cannot open the device: %s\n",
			strerror(-err));
		return 1;
	}
	cfg.flags = FXTPROF_CFG_TASKS;
	if (freq)
		cfg.flags |= FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK |
			     FXTPROF_CFG_USTACK;
	cfg.freq_hz = freq ? freq : 1000;
	cfg.ring_size = 4 << 20;
	err = fxtprof_dev__configure(dev, &cfg);
	if (!err)
		err = fxtprof_dev__start(dev);
	if (err) {
		fprintf(stderr, "fxt-bench-flush: cannot configure or start: %s\n",
			strerror(-err));
		return 1;
	}
	if (freq) {
		ncpu = (int)fxtprof_dev__info(dev)->nr_online;
		if (ncpu > MAX_CPUS)
			ncpu = MAX_CPUS;
		for (int i = 0; i < ncpu; i++)
			pthread_create(&thr[i], NULL, spin, (void *)(long)i);
	}
	usleep(200000);
	for (int i = 0; i < count && !err; i++) {
		unsigned long long t0 = now_ns();
		__u64 seq;

		err = fxtprof_dev__flush(dev, &seq);
		while (!err && !fxtprof_dev__flush_done(dev, seq))
			err = drain(dev);
		lat[i] = now_ns() - t0;
		/* Between flushes the reader drains as record does. */
		usleep(10000);
		if (!err)
			err = drain(dev);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < ncpu; i++)
		pthread_join(thr[i], NULL);
	fxtprof_dev__stop(dev);
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		if (!fxtprof_dev__ring(dev, cpu) ||
		    fxtprof_dev__stats(dev, cpu, &st))
			continue;
		lost += st.lost_records;
		samples += st.samples;
	}
	fxtprof_dev__close(dev);
	if (err) {
		fprintf(stderr, "fxt-bench-flush: %s\n", strerror(-err));
		return 1;
	}
	qsort(lat, count, sizeof(*lat), cmp_u64);
	printf("BENCH freq=%d n=%d median_ns=%llu p90_ns=%llu max_ns=%llu lost=%llu samples=%llu\n",
	       freq, count, lat[count / 2], lat[count * 9 / 10], lat[count - 1],
	       lost, samples);
	free(lat);
	return 0;
}

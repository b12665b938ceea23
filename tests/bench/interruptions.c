// SPDX-License-Identifier: GPL-2.0-only
/*
 * interruptions.c - what a sampling profiler takes from the program it
 * samples, seen from inside that program (`make bench-bpf`).
 *
 * One thread per CPU, each pinned, spins on CLOCK_MONOTONIC (the vDSO,
 * some 20-40 ns a read) for the given time.  A read that comes more than
 * THRESH_NS (-t) after the previous one means the thread was interrupted, and
 * the difference is how long: the osnoise method.  Under a profiler at
 * F Hz each CPU sees F more interruptions a second, and their added time
 * is what the samples cost the program.  The CPU-time slowdown of
 * scripts/bench-bpf.sh's workload measures the same cost, but as a small
 * difference of two large, noisy numbers; here every interruption is
 * timed on its own, thousands a second.
 *
 * Interruptions shorter than LONG_NS (-l) are interrupts (the timer, the
 * sample, an IPI); longer ones are preemptions (the recorder's reader, a
 * hypervisor's steal) and are counted apart.  The spin sits under a few
 * real frames, so that the profilers walk a user stack as they do in the
 * CPU-bound workload.
 *
 * Prints one line per run:
 *   interruptions: cpus=N secs=S irqs=I irq_ns=T irq_median_ns=M
 *     irq_p90_ns=P long=L long_ns=U
 * counts and times summed over the CPUs, the median and p90 of the
 * interrupts' lengths over all CPUs.
 *
 * Usage: fxt-bench-interruptions [-s SECONDS] [-t THRESH_NS] [-l LONG_NS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Defaults for a virtualised host; under QEMU TCG a loop of reads and an
 * interrupt both take longer, and the VM script passes -t and -l.
 */
#define THRESH_NS	700u		/* well above one loop of reads */
#define LONG_NS		100000u		/* interrupts are shorter */
#define MAX_LONG_NS	10000000u
#define NBINS		5000u		/* histogram: LONG_NS / NBINS a bin */
#define MAX_CPUS	256

#define noinline __attribute__((noinline))

struct spinner {
	pthread_t thread;
	int cpu;
	uint64_t secs_ns;
	uint64_t irqs, irq_ns, longs, long_ns;
	uint32_t hist[NBINS];
};

static pthread_barrier_t start_barrier;
static uint64_t thresh_ns = THRESH_NS, long_ns = LONG_NS, bin_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static noinline void spin(struct spinner *s)
{
	uint64_t start = now_ns(), prev = start, end = start + s->secs_ns;

	for (;;) {
		uint64_t t = now_ns(), gap = t - prev;

		prev = t;
		if (gap > thresh_ns) {
			if (gap < long_ns) {
				s->irqs++;
				s->irq_ns += gap;
				s->hist[gap / bin_ns]++;
			} else {
				s->longs++;
				s->long_ns += gap;
			}
		}
		if (t >= end)
			break;
	}
}

/* Frames for the profilers to walk, as the workload's worker -> round. */
static noinline void phase(struct spinner *s)
{
	spin(s);
	__asm__ volatile("" ::: "memory");
}

static noinline void round_(struct spinner *s)
{
	phase(s);
	__asm__ volatile("" ::: "memory");
}

static void *spinner_main(void *arg)
{
	struct spinner *s = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "interruptions: cannot pin to CPU %d\n", s->cpu);
	pthread_barrier_wait(&start_barrier);
	round_(s);
	return NULL;
}

/* The bin holding the q-quantile of all CPUs' interrupts, in ns. */
static uint64_t quantile(const struct spinner *sp, int n, uint64_t total,
			 double q)
{
	uint64_t want = (uint64_t)(q * (double)total), seen = 0;

	for (unsigned int b = 0; b < NBINS; b++) {
		for (int i = 0; i < n; i++)
			seen += sp[i].hist[b];
		if (seen > want)
			return (uint64_t)b * bin_ns + bin_ns / 2;
	}
	return long_ns;
}

int main(int argc, char **argv)
{
	uint64_t irqs = 0, irq_ns = 0, longs = 0, long_total = 0;
	double secs = 3.0;
	struct spinner *sp;
	cpu_set_t allowed;
	int c, n = 0;

	while ((c = getopt(argc, argv, "s:t:l:")) != -1) {
		switch (c) {
		case 's':
			secs = strtod(optarg, NULL);
			break;
		case 't':
			thresh_ns = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			long_ns = strtoull(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (secs <= 0 || secs > 600 || long_ns < NBINS ||
	    long_ns > MAX_LONG_NS || thresh_ns >= long_ns)
		goto usage;
	bin_ns = long_ns / NBINS;
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("interruptions: sched_getaffinity");
		return 1;
	}
	sp = calloc(MAX_CPUS, sizeof(*sp));
	if (!sp) {
		perror("interruptions");
		return 1;
	}
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		sp[n].cpu = cpu;
		sp[n].secs_ns = (uint64_t)(secs * 1e9);
		n++;
	}
	pthread_barrier_init(&start_barrier, NULL, (unsigned int)n);
	for (int i = 0; i < n; i++) {
		int err = pthread_create(&sp[i].thread, NULL, spinner_main, &sp[i]);

		if (err) {
			fprintf(stderr, "interruptions: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	for (int i = 0; i < n; i++) {
		pthread_join(sp[i].thread, NULL);
		irqs += sp[i].irqs;
		irq_ns += sp[i].irq_ns;
		longs += sp[i].longs;
		long_total += sp[i].long_ns;
	}
	printf("interruptions: cpus=%d secs=%.3f irqs=%" PRIu64 " irq_ns=%" PRIu64
	       " irq_median_ns=%" PRIu64 " irq_p90_ns=%" PRIu64 " long=%" PRIu64
	       " long_ns=%" PRIu64 "\n", n, secs, irqs, irq_ns,
	       quantile(sp, n, irqs, 0.5), quantile(sp, n, irqs, 0.9), longs,
	       long_total);
	free(sp);
	return 0;
usage:
	fprintf(stderr, "usage: fxt-bench-interruptions [-s SECONDS (0-600]] "
		"[-t THRESH_NS] [-l LONG_NS (%u-%u)]\n", NBINS, MAX_LONG_NS);
	return 2;
}

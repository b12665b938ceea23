// SPDX-License-Identifier: GPL-2.0-only
/*
 * workload.c - the fixed CPU-bound program of `make bench-kernel`.
 *
 * N threads (default 2, one per vCPU of the test VM) each run the same
 * deterministic mix of integer hashing over a private table and floating
 * point recurrences, through a few noinline functions so that profilers
 * walk a real user call chain (main thread -> worker -> round -> phase ->
 * kernel).  The work does no system calls and no allocation once started;
 * all threads start together behind a barrier.
 *
 * Prints one line:
 *   workload: threads=T rounds=R wall_ns=N checksum=0x...
 * where wall_ns is CLOCK_MONOTONIC from the barrier to the last join and
 * checksum must not depend on anything but T and R (it catches a broken
 * build; it is not the measurement).
 *
 * Usage: fxt-bench-workload [-t THREADS] [-r ROUNDS]
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TABLE_WORDS	(32u << 10)	/* 256 KiB per thread */
#define INT_STEPS	(1u << 16)
#define FP_STEPS	(1u << 15)
#define MAX_THREADS	64

#define noinline __attribute__((noinline))

struct worker {
	pthread_t thread;
	unsigned int id;
	unsigned int rounds;
	uint64_t *table;
	uint64_t result;
};

static pthread_barrier_t start_barrier;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Leaf: one splitmix64-style step; kept out of line on purpose. */
static noinline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Integer phase: data-dependent walk over the table, hashing as it goes. */
static noinline uint64_t int_phase(uint64_t *table, uint64_t seed)
{
	uint64_t h = seed, idx = seed;
	unsigned int i;

	for (i = 0; i < INT_STEPS; i++) {
		idx = (idx + (h >> 7)) & (TABLE_WORDS - 1);
		h = mix64(h ^ table[idx]) + i;
		table[idx] ^= h;
	}
	return h;
}

/* Leaf: a polynomial in Horner form. */
static noinline double poly(double x)
{
	return ((((0.0083 * x - 0.166) * x + 0.5) * x - 1.0) * x + 1.0);
}

/* FP phase: a damped logistic-style recurrence that stays in [0, 1]. */
static noinline double fp_phase(double x)
{
	double acc = 0.0;
	unsigned int i;

	for (i = 0; i < FP_STEPS; i++) {
		x = 3.7 * x * (1.0 - x);
		acc += poly(x) / (1.0 + x * x);
	}
	return acc + x;
}

static noinline uint64_t one_round(struct worker *w, unsigned int round)
{
	uint64_t seed = mix64(((uint64_t)w->id << 32) | round);
	double x = 0.1 + (double)(seed & 0xffff) / 131072.0;
	uint64_t h;
	double f;

	h = int_phase(w->table, seed);
	f = fp_phase(x);
	/* Use both results after the calls: no sibling-call elimination. */
	return h ^ (uint64_t)(f * 1e6) ^ round;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t sum = 0;
	unsigned int r;

	pthread_barrier_wait(&start_barrier);
	for (r = 0; r < w->rounds; r++)
		sum = mix64(sum + one_round(w, r));
	w->result = sum;
	return NULL;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-t THREADS] [-r ROUNDS]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	unsigned int threads = 2, rounds = 200, i, w;
	uint64_t start, end, checksum = 0;
	int c;

	while ((c = getopt(argc, argv, "t:r:")) != -1) {
		switch (c) {
		case 't':
			threads = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			rounds = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc || !threads || threads > MAX_THREADS || !rounds)
		usage(argv[0]);

	/* Set up everything (and fault the tables in) before timing. */
	for (w = 0; w < threads; w++) {
		workers[w].id = w;
		workers[w].rounds = rounds;
		workers[w].table = malloc(TABLE_WORDS * sizeof(uint64_t));
		if (!workers[w].table) {
			perror("malloc");
			return 1;
		}
		for (i = 0; i < TABLE_WORDS; i++)
			workers[w].table[i] = mix64(((uint64_t)w << 40) | i);
	}
	pthread_barrier_init(&start_barrier, NULL, threads + 1);
	for (w = 0; w < threads; w++) {
		if (pthread_create(&workers[w].thread, NULL, worker_main,
				   &workers[w])) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}

	pthread_barrier_wait(&start_barrier);
	start = now_ns();
	for (w = 0; w < threads; w++) {
		pthread_join(workers[w].thread, NULL);
		checksum ^= mix64(workers[w].result + w);
	}
	end = now_ns();

	printf("workload: threads=%u rounds=%u wall_ns=%" PRIu64
	       " checksum=0x%016" PRIx64 "\n", threads, rounds, end - start,
	       checksum);
	for (w = 0; w < threads; w++)
		free(workers[w].table);
	return 0;
}

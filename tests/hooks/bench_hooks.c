// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_hooks.c - fxt-bench-hooks URI [BATCHES]: the cost of one
 * begin-plus-end region pair through libfxtprof-hooks to URI, next to two
 * floors measured in the same run: a bare pair of clock_gettime() calls
 * (CLOCK_BOOTTIME, what the standalone mode stamps with) and one write()
 * to /dev/null of the bytes the fxtprof: mode writes for one annotation.
 *
 * Each figure is the median over BATCHES (default 200) batches of 1000
 * operations of the batch's mean.  In standalone mode the program waits
 * between batches, untimed, until the writer thread has taken the batch,
 * so that a batch never finds its ring full: the figure is the cost of
 * queueing, not of dropping.  One line on stdout:
 *   BENCH uri=... clock_pair_ns=... devnull_write_ns=... pair_ns=...
 *         annotations=... dropped=... no_session=...
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtprof.h>

#include "fxtprof_hooks.h"

#define BATCH		1000
#define REGION_NAME	"bench-region"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double bench_clock_pair(double *v, int nb)
{
	struct timespec a, b;

	for (int i = 0; i < nb; i++) {
		uint64_t t0 = now_ns();

		for (int j = 0; j < BATCH; j++) {
			clock_gettime(CLOCK_BOOTTIME, &a);
			clock_gettime(CLOCK_BOOTTIME, &b);
			__asm__ volatile("" : : "r"(&a), "r"(&b) : "memory");
		}
		v[i] = (double)(now_ns() - t0) / BATCH;
	}
	return median(v, nb);
}

static double bench_devnull(double *v, int nb)
{
	struct {
		struct fxtprof_annotation a;
		char name[sizeof(REGION_NAME) - 1];
	} m;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("fxt-bench-hooks: /dev/null");
		exit(1);
	}
	memset(&m, 0, sizeof(m));
	m.a.size = sizeof(m);
	m.a.kind = FXTPROF_ANNOT_REGION_BEGIN;
	m.a.name_len = sizeof(m.name);
	memcpy(m.name, REGION_NAME, sizeof(m.name));
	for (int i = 0; i < nb; i++) {
		uint64_t t0 = now_ns();

		for (int j = 0; j < BATCH; j++) {
			if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
				exit(1);
		}
		v[i] = (double)(now_ns() - t0) / BATCH;
	}
	close(fd);
	return median(v, nb);
}

static uint64_t taken(void)
{
	struct fxtprof_hooks_stats st;

	fxtprof_get_stats(&st, sizeof(st));
	return st.annotations + st.dropped + st.no_session;
}

static double bench_pairs(double *v, int nb, int standalone)
{
	uint64_t expect = taken();

	for (int i = 0; i < nb; i++) {
		uint64_t t0 = now_ns();

		for (int j = 0; j < BATCH; j++) {
			fxtprof_begin_region(REGION_NAME);
			fxtprof_end_region();
		}
		v[i] = (double)(now_ns() - t0) / BATCH;
		expect += 2 * BATCH;
		/* Untimed: the writer takes the batch before the next. */
		while (standalone && taken() < expect)
			usleep(100);
	}
	return median(v, nb);
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "fxtprof:";
	int nb = argc > 2 ? atoi(argv[2]) : 200;
	struct fxtprof_hooks_stats st;
	double clock_ns, devnull_ns, pair_ns;
	double *v;
	int ret;

	if (nb < 1 || nb > 100000) {
		fprintf(stderr, "usage: fxt-bench-hooks URI [BATCHES]\n");
		return 2;
	}
	v = calloc((size_t)nb, sizeof(*v));
	if (!v)
		return 1;
	ret = fxtprof_initialize(uri);
	if (ret) {
		fprintf(stderr, "fxt-bench-hooks: initialize(%s): %s\n", uri,
			strerror(ret));
		return 1;
	}
	clock_ns = bench_clock_pair(v, nb);
	devnull_ns = bench_devnull(v, nb);
	pair_ns = bench_pairs(v, nb, strncmp(uri, "fxtprof:", 8) != 0);
	ret = fxtprof_finalize();
	fxtprof_get_stats(&st, sizeof(st));
	printf("BENCH uri=%s clock_pair_ns=%.1f devnull_write_ns=%.1f pair_ns=%.1f annotations=%llu dropped=%llu no_session=%llu finalize=%d\n",
	       uri, clock_ns, devnull_ns, pair_ns,
	       (unsigned long long)st.annotations,
	       (unsigned long long)st.dropped,
	       (unsigned long long)st.no_session, ret);
	free(v);
	return 0;
}

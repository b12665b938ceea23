// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxt_pingpong CPU ROUNDS - two threads pinned to CPU hand a byte back
 * and forth over two pipes ROUNDS times: two context switches per round
 * on that CPU, each thread blocking in read() in turn.  The sched.switch
 * tests and scripts/bench-sched.sh run it.  Prints "pingpong TID_A TID_B
 * NS" (NS: the wall time of the rounds) and exits 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds;
static int cpu;
static pid_t tid_b;

static void pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("fxt_pingpong: sched_setaffinity");
		exit(1);
	}
}

static void xfer(int rfd, int wfd, int first)
{
	char c = 0;

	for (long i = 0; i < rounds; i++) {
		if (!first && read(rfd, &c, 1) != 1)
			exit(1);
		if (write(wfd, &c, 1) != 1)
			exit(1);
		if (first && read(rfd, &c, 1) != 1)
			exit(1);
	}
}

static void *thread_b(void *arg)
{
	(void)arg;
	tid_b = (pid_t)syscall(SYS_gettid);
	pin();
	xfer(ab[0], ba[1], 0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t thr;

	if (argc != 3 || (cpu = atoi(argv[1])) < 0 ||
	    (rounds = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: fxt_pingpong CPU ROUNDS\n");
		return 2;
	}
	if (pipe(ab) || pipe(ba)) {
		perror("fxt_pingpong: pipe");
		return 1;
	}
	pin();
	if (pthread_create(&thr, NULL, thread_b, NULL)) {
		fprintf(stderr, "fxt_pingpong: cannot start a thread\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	xfer(ba[0], ab[1], 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(thr, NULL);
	printf("pingpong %d %d %lld\n", (int)syscall(SYS_gettid), (int)tid_b,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}

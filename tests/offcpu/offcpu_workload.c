// SPDX-License-Identifier: GPL-2.0-only
/*
 * offcpu_workload.c - threads that wait in known ways, for the off-CPU
 * tests (tests/bpf/run_record_offcpu.sh): each waits in a function of its
 * own, timing every wait from before the call to after it returns.
 *
 *   oc-sleep   offcpu_nanosleep: nanosleep() 10 ms
 *   oc-pipe    offcpu_pipe_read: read() of a pipe that oc-writer writes
 *              a byte to every 20 ms
 *   oc-mutex   offcpu_mutex_lock: pthread_mutex_lock() of a mutex that
 *              oc-holder holds 15 ms at a time
 *   oc-fsync   offcpu_fsync: fsync() of 1 MiB just written to DIR
 *   oc-wall    offcpu_spin for 3 ms on the CPU, then nanosleep 7 ms: for
 *              the wall-clock profile, whose total must be the time it
 *              ran for
 *
 * usage: offcpu_workload WARM_MS MS DIR.  Waits WARM_MS milliseconds
 * unmeasured (the recorder loads the process's unwind tables at its
 * first waits), then MS measured, then prints "start NS", the
 * CLOCK_BOOTTIME the measured part began at, and one line per waiter:
 * "COMM FUNCTION NS WAITS", NS the time FUNCTION's calls spent off the
 * CPU: their wall time less the thread's CPU time in them; and "oc-wall
 * FROM TO CPU", the CLOCK_BOOTTIME oc-wall's measured part began and
 * ended, and the CPU time it ran for in between.  Built -O0
 * -fno-inline, so each function keeps its frame.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct waiter {
	const char *comm, *func;
	uint64_t ns, waits;
};

enum { W_SLEEP, W_PIPE, W_MUTEX, W_FSYNC, W_NR };

static struct waiter waiters[W_NR] = {
	[W_SLEEP] = { "oc-sleep", "offcpu_nanosleep" },
	[W_PIPE] = { "oc-pipe", "offcpu_pipe_read" },
	[W_MUTEX] = { "oc-mutex", "offcpu_mutex_lock" },
	[W_FSYNC] = { "oc-fsync", "offcpu_fsync" },
};

static atomic_bool stop, measuring;
static int pipefd[2];
static uint64_t wall_from, wall_to, wall_cpu;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *dir;

static uint64_t clock_now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Time @fn(@arg)'s wait into waiter @w, once the measured part began. */
static void timed(struct waiter *w, void (*fn)(void *), void *arg)
{
	bool counted = measuring;
	uint64_t t0 = clock_now(CLOCK_MONOTONIC);
	uint64_t c0 = clock_now(CLOCK_THREAD_CPUTIME_ID);
	uint64_t wall, cpu;

	fn(arg);
	cpu = clock_now(CLOCK_THREAD_CPUTIME_ID) - c0;
	wall = clock_now(CLOCK_MONOTONIC) - t0;
	if (!counted)
		return;
	w->ns += wall > cpu ? wall - cpu : 0;
	w->waits++;
}

void offcpu_nanosleep(void *arg)
{
	(void)arg;
	sleep_ms(10);
}

void offcpu_pipe_read(void *arg)
{
	char c;

	*(ssize_t *)arg = read(pipefd[0], &c, 1);
}

void offcpu_mutex_lock(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
}

void offcpu_fsync(void *arg)
{
	fsync(*(int *)arg);
}

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), waiters[W_SLEEP].comm);
	while (!stop)
		timed(&waiters[W_SLEEP], offcpu_nanosleep, NULL);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "oc-writer");
	while (!stop) {
		sleep_ms(20);
		if (write(pipefd[1], "x", 1) != 1)
			break;
	}
	close(pipefd[1]);
	return NULL;
}

static void *reader(void *arg)
{
	ssize_t n = 1;

	(void)arg;
	pthread_setname_np(pthread_self(), waiters[W_PIPE].comm);
	while (n > 0)
		timed(&waiters[W_PIPE], offcpu_pipe_read, &n);
	return NULL;
}

static void *holder(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "oc-holder");
	while (!stop) {
		pthread_mutex_lock(&lock);
		sleep_ms(15);
		pthread_mutex_unlock(&lock);
		sleep_ms(2);
	}
	return NULL;
}

static void *contender(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), waiters[W_MUTEX].comm);
	while (!stop) {
		sleep_ms(1);	/* the holder takes it again meanwhile */
		timed(&waiters[W_MUTEX], offcpu_mutex_lock, NULL);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

void offcpu_spin(unsigned int ms)
{
	uint64_t end = clock_now(CLOCK_MONOTONIC) + ms * 1000000ull;

	while (clock_now(CLOCK_MONOTONIC) < end)
		;
}

/* Runs 30 % of the time, sleeps 70 %, from its first measured turn. */
static void *waller(void *arg)
{
	uint64_t cpu0;

	(void)arg;
	pthread_setname_np(pthread_self(), "oc-wall");
	while (!measuring && !stop) {
		offcpu_spin(3);
		sleep_ms(7);
	}
	cpu0 = clock_now(CLOCK_THREAD_CPUTIME_ID);
	wall_from = clock_now(CLOCK_BOOTTIME);
	while (!stop) {
		offcpu_spin(3);
		sleep_ms(7);
	}
	wall_to = clock_now(CLOCK_BOOTTIME);
	wall_cpu = clock_now(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return NULL;
}

static void *syncer(void *arg)
{
	static char buf[1024 * 1024];
	char path[4096];
	int fd;

	(void)arg;
	pthread_setname_np(pthread_self(), waiters[W_FSYNC].comm);
	snprintf(path, sizeof(path), "%s/offcpu_workload.%d", dir, getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	memset(buf, 'f', sizeof(buf));
	while (!stop) {
		if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
			perror("pwrite");
			exit(1);
		}
		timed(&waiters[W_FSYNC], offcpu_fsync, &fd);
	}
	close(fd);
	unlink(path);
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = { sleeper, writer, reader, holder, contender,
				   syncer, waller };
	pthread_t t[sizeof(fns) / sizeof(fns[0])];
	unsigned int i, warm, ms;
	uint64_t start;

	if (argc != 4) {
		fprintf(stderr, "usage: offcpu_workload WARM_MS MS DIR\n");
		return 2;
	}
	warm = (unsigned int)atoi(argv[1]);
	ms = (unsigned int)atoi(argv[2]);
	dir = argv[3];
	if (pipe(pipefd)) {
		perror("pipe");
		return 1;
	}
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (pthread_create(&t[i], NULL, fns[i], NULL)) {
			fprintf(stderr, "cannot start a thread\n");
			return 1;
		}
	sleep_ms(warm);
	start = clock_now(CLOCK_BOOTTIME);
	measuring = true;
	sleep_ms(ms);
	stop = true;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		pthread_join(t[i], NULL);
	printf("start %llu\n", (unsigned long long)start);
	for (i = 0; i < W_NR; i++)
		printf("%s %s %llu %llu\n", waiters[i].comm, waiters[i].func,
		       (unsigned long long)waiters[i].ns,
		       (unsigned long long)waiters[i].waits);
	printf("oc-wall %llu %llu %llu\n", (unsigned long long)wall_from,
	       (unsigned long long)wall_to, (unsigned long long)wall_cpu);
	return 0;
}

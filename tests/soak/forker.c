// SPDX-License-Identifier: GPL-2.0-only
/*
 * forker.c - the soak's workload (scripts/soak.sh, tests/soak/soak.vm.sh):
 * a machine that forks forever.
 *
 *   fxt-soak-forker RATE THREADS
 *
 * forks and reaps up to RATE processes a second, each of which renames
 * itself and exits; one in ten execs this program again first (with
 * "--exit"), so that the recorder also sees execs and their mappings come
 * and go.  THREADS threads rename themselves ten times a second, each
 * under a name it never had before, and one thread a second is created
 * and exits.  Runs until SIGTERM or SIGINT, then prints
 * "forker: forked N execs E renamed M threads T" on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC	1000000000ull
#define MAX_THREADS	64

static volatile sig_atomic_t stop;
static atomic_ulong renamed;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_until(unsigned long long t)
{
	struct timespec ts = { .tv_sec = t / NSEC_PER_SEC,
			       .tv_nsec = t % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR && !stop)
		;
}

/* A thread that renames itself every 100 ms until the end. */
static void *renamer(void *arg)
{
	unsigned long id = (unsigned long)arg;
	unsigned long long next = now_ns();
	char name[16];

	for (unsigned long n = 0; !stop; n++) {
		snprintf(name, sizeof(name), "r%lu.%lu", id, n);
		pthread_setname_np(pthread_self(), name);
		atomic_fetch_add(&renamed, 1);
		next += NSEC_PER_SEC / 10;
		sleep_until(next);
	}
	return NULL;
}

/* A thread that names itself and is gone. */
static void *brief(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "brief%lu", (unsigned long)arg);
	pthread_setname_np(pthread_self(), name);
	return NULL;
}

static void child(unsigned long n, const char *self)
{
	char name[16];

	snprintf(name, sizeof(name), "soak%lu", n);
	prctl(PR_SET_NAME, name);
	if (n % 10 == 0)
		execl(self, "fxt-soak-forker", "--exit", (char *)NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	unsigned long forked = 0, execs = 0, threads = 0, nr_renamers;
	pthread_t renamers[MAX_THREADS];
	unsigned long long next, gap, next_thread;
	struct sigaction sa = { .sa_handler = on_stop };
	unsigned long rate;

	if (argc == 2 && !strcmp(argv[1], "--exit")) {
		prctl(PR_SET_NAME, "soak-exec");
		return 0;
	}
	if (argc != 3 || !(rate = strtoul(argv[1], NULL, 0)) ||
	    (nr_renamers = strtoul(argv[2], NULL, 0)) > MAX_THREADS) {
		fprintf(stderr, "usage: fxt-soak-forker RATE THREADS (at most %d)\n",
			MAX_THREADS);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (unsigned long i = 0; i < nr_renamers; i++)
		if (pthread_create(&renamers[i], NULL, renamer, (void *)i)) {
			fprintf(stderr, "forker: pthread_create: %s\n",
				strerror(errno));
			return 1;
		}

	gap = NSEC_PER_SEC / rate;
	next = now_ns();
	next_thread = next + NSEC_PER_SEC;
	while (!stop) {
		pid_t pid = fork();

		if (pid == 0)
			child(forked, "/proc/self/exe");
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			execs += forked % 10 == 0;
			forked++;
		}
		if (now_ns() >= next_thread) {
			pthread_t t;

			if (!pthread_create(&t, NULL, brief, (void *)threads)) {
				pthread_join(t, NULL);
				threads++;
			}
			next_thread += NSEC_PER_SEC;
		}
		/* Behind by more than a second: start the schedule over. */
		next += gap;
		if (now_ns() > next + NSEC_PER_SEC)
			next = now_ns();
		sleep_until(next);
	}
	for (unsigned long i = 0; i < nr_renamers; i++)
		pthread_join(renamers[i], NULL);
	printf("forker: forked %lu execs %lu renamed %lu threads %lu\n", forked,
	       execs, atomic_load(&renamed), threads);
	return 0;
}

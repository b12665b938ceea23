// SPDX-License-Identifier: GPL-2.0-only
/*
 * rec_workload - a small multi-process workload with a known shape, for
 * the reader's end-to-end tests and the demo.
 *
 * usage: rec_workload [-c CHILDREN] [-t MS]
 *
 * Forks CHILDREN processes (default: one per online CPU, at least 2).
 * Child i pins itself to CPU i % ncpus, names itself "wl-child-<i>",
 * starts two named threads "wl-t<i>-<j>" that spin for MS ms, spins
 * itself, joins them, then:
 *   i odd:  execs itself ("rec_workload -x CODE MS"), which spins MS/2 ms
 *           and exits with CODE = 10 + i;
 *   i even: exits with CODE = 10 + i.
 * Every fact the tests check is printed on stdout, one line each (single
 * write()s, so concurrent lines never interleave):
 *   workload PID                  the parent
 *   child I PID                   a forked child
 *   thread PID TID NAME           a thread with the name it set
 *   exec PID                      about to exec
 *   exit PID CODE                 a child reaped with exit code CODE
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(STDOUT_FILENO, buf, (size_t)n) < 0)
		_exit(99);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

static void __attribute__((noinline)) spin(unsigned int ms)
{
	double end = now() + ms / 1e3;
	unsigned long x = 0;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i * 2654435761u;
	sink = x;
}

struct thr {
	pthread_t t;
	char name[16];
	unsigned int ms;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;

	pthread_setname_np(pthread_self(), t->name);
	say("thread %d %d %s\n", getpid(), gettid(), t->name);
	spin(t->ms);
	return NULL;
}

static void child(int i, int ncpus, unsigned int ms, const char *self)
{
	struct thr thr[2];
	cpu_set_t set;
	char name[16], code[16], msbuf[16];
	int j;

	CPU_ZERO(&set);
	CPU_SET(i % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set);
	/* comm names: 15 bytes at most, as the kernel keeps them */
	snprintf(name, sizeof(name), "wl-child-%u", (unsigned int)i % 10000u);
	prctl(PR_SET_NAME, name);
	say("thread %d %d %s\n", getpid(), gettid(), name);
	for (j = 0; j < 2; j++) {
		snprintf(thr[j].name, sizeof(thr[j].name), "wl-t%u-%d",
			 (unsigned int)i % 10000u, j);
		thr[j].ms = ms;
		if (pthread_create(&thr[j].t, NULL, thread_main, &thr[j]))
			_exit(98);
	}
	spin(ms);
	for (j = 0; j < 2; j++)
		pthread_join(thr[j].t, NULL);
	if (i & 1) {
		snprintf(code, sizeof(code), "%d", 10 + i);
		snprintf(msbuf, sizeof(msbuf), "%u", ms / 2);
		say("exec %d\n", getpid());
		execl(self, "rec_workload", "-x", code, msbuf, (char *)NULL);
		_exit(97);
	}
	exit(10 + i);
}

int main(int argc, char **argv)
{
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN), nchild = 0, c, i;
	unsigned int ms = 600;
	char self[4096];
	ssize_t n;

	if (argc == 4 && !strcmp(argv[1], "-x")) {
		spin((unsigned int)atoi(argv[3]));
		return atoi(argv[2]);
	}
	while ((c = getopt(argc, argv, "c:t:")) != -1) {
		switch (c) {
		case 'c': nchild = atoi(optarg); break;
		case 't': ms = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: rec_workload [-c CHILDREN] [-t MS]\n");
			return 2;
		}
	}
	if (ncpus < 1)
		ncpus = 1;
	if (nchild <= 0)
		nchild = ncpus < 2 ? 2 : ncpus;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	say("workload %d\n", getpid());
	for (i = 0; i < nchild; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			child(i, ncpus, ms, self);
		say("child %d %d\n", i, pid);
	}
	for (i = 0; i < nchild; i++) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0)
			return 1;
		say("exit %d %d\n", pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	return 0;
}

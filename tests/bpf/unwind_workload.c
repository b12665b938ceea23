// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_workload.c - the program test_bpf_unwind records, built -O2
 * -fomit-frame-pointer (no rbp chain: the test checks with objdump), in
 * one of five modes:
 *   qsort MS          hot in a qsort comparison callback, called through
 *                     glibc, itself built without frame pointers
 *   recurse MS        hot in the leaf of a 41-deep recursion
 *   dlopen MS LIB     hot in a function of a dlopen'ed library
 *   forked MS         as qsort, in two children forked without exec (a
 *                     pre-fork server's workers), the parent waiting
 * It writes 'r' on stdout once set up (the library loaded), waits for a
 * byte on stdin (the test loads and maps its tables meanwhile), works for
 * MS milliseconds and exits.  Every function is noinline and noipa, so
 * the names in its symbol table are the frames the test expects.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE	__attribute__((noinline, noipa))
#define NR_KEYS		2048
#define DEPTH		41

static volatile unsigned long sink;

static unsigned long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000 +
	       (unsigned long)ts.tv_nsec / 1000000;
}

/* Some work per comparison, so that samples land here. */
NOINLINE static int cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	unsigned long h = x ^ y;
	int i;

	for (i = 0; i < 64; i++)
		h = h * 6364136223846793005ul + 1442695040888963407ul;
	sink += h;
	return (x > y) - (x < y);
}

NOINLINE static void sort_loop(unsigned long until)
{
	static unsigned int keys[NR_KEYS];
	unsigned int seed = 1;
	int i;

	do {
		for (i = 0; i < NR_KEYS; i++)
			keys[i] = seed = seed * 1103515245u + 12345u;
		qsort(keys, NR_KEYS, sizeof(keys[0]), cmp);
	} while (now_ms() < until);
}

NOINLINE static unsigned long leaf(unsigned long x)
{
	int i;

	for (i = 0; i < 20000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

/* The volatile read after the call keeps it a call, not a loop. */
NOINLINE static unsigned long recurse(int depth, unsigned long x)
{
	unsigned long r;

	if (!depth)
		return leaf(x);
	r = recurse(depth - 1, x + 1);
	return r ^ sink;
}

NOINLINE static void recurse_loop(unsigned long until)
{
	do
		sink += recurse(DEPTH, sink);
	while (now_ms() < until);
}

/* Two children run the qsort loop; 0 once both exited 0. */
NOINLINE static int forked_loop(unsigned long until)
{
	int i, status, bad = 0;
	pid_t pid;

	for (i = 0; i < 2; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			sort_loop(until);
			_exit(0);
		}
	}
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	return bad;
}

NOINLINE static void call_dl(void (*fn)(unsigned long), unsigned long until)
{
	fn(until);
	sink++;
}

int main(int argc, char **argv)
{
	void (*dl_spin)(unsigned long) = NULL;
	unsigned long until;
	char c;

	if (argc < 3 || (!strcmp(argv[1], "dlopen") && argc < 4)) {
		fprintf(stderr, "usage: %s qsort|recurse|forked|dlopen MS [LIB]\n",
			argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "dlopen")) {
		void *h = dlopen(argv[3], RTLD_NOW);

		if (!h || !(*(void **)&dl_spin = dlsym(h, "dl_spin"))) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
	}
	if (write(1, "r", 1) != 1 || read(0, &c, 1) != 1)
		return 1;
	until = now_ms() + strtoul(argv[2], NULL, 10);
	if (!strcmp(argv[1], "qsort"))
		sort_loop(until);
	else if (!strcmp(argv[1], "recurse"))
		recurse_loop(until);
	else if (!strcmp(argv[1], "forked"))
		return forked_loop(until);
	else if (dl_spin)
		call_dl(dl_spin, until);
	return 0;
}

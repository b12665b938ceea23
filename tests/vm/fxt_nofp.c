// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxt_nofp - a VM test helper built -O2 -fomit-frame-pointer
 * (tests/vm/build.mk): no frame-pointer chain anywhere in it, glibc's
 * static qsort included, so only unwind tables give its stacks.
 *
 *   fxt_nofp qsort MS	hot in the comparison callback of qsort
 *   fxt_nofp recurse MS	hot at the bottom of a recursion
 *			NOFP_DEPTH + 1 frames of nofp_recurse deep
 *
 * It writes one byte to stdout once it runs, then waits for one on stdin
 * before it starts: test_unwind maps its ranges in between, after the
 * exec that would have dropped them.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOFP_DEPTH	40
#define NOFP_N		512

/* noipa: no inlining, cloning or tail-call tricks across these. */
#define NOFP_FN		__attribute__((noipa))

static volatile unsigned long sink;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

/* Slow on purpose, so that samples land here, inside qsort. */
NOFP_FN int nofp_cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;
	unsigned long h = x;

	for (int i = 0; i < 200; i++)
		h = h * 6364136223846793005ul + y;
	sink = h;
	return (x > y) - (x < y);
}

NOFP_FN void nofp_sort(unsigned int *v, size_t n)
{
	qsort(v, n, sizeof(*v), nofp_cmp);
	sink += v[0];
}

NOFP_FN unsigned long nofp_leaf(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

NOFP_FN unsigned long nofp_recurse(int depth, unsigned long x)
{
	unsigned long r;

	if (!depth)
		return nofp_leaf(x);
	r = nofp_recurse(depth - 1, x + depth);
	return r ^ (r >> 7) ^ depth;
}

int main(int argc, char **argv)
{
	static unsigned int v[NOFP_N];
	long long end;
	char c = 0;

	if (argc != 3)
		return 2;
	if (write(1, &c, 1) != 1 || read(0, &c, 1) != 1)
		return 3;
	end = now_ms() + atoll(argv[2]);
	for (unsigned int seed = 1; now_ms() < end; seed++) {
		if (!strcmp(argv[1], "qsort")) {
			for (unsigned int i = 0; i < NOFP_N; i++)
				v[i] = (i * 2654435761u) ^ seed;
			nofp_sort(v, NOFP_N);
		} else {
			sink += nofp_recurse(NOFP_DEPTH, seed);
		}
	}
	return 0;
}

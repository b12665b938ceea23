// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind.c - the fixed workload of `make bench-unwind`
 * (scripts/bench-unwind.sh), built -O2 -fomit-frame-pointer -g and linked
 * against the shared glibc (tests/bench/build.mk): no frame-pointer chain
 * in it nor in glibc, so only unwind tables give its stacks.
 *
 * It runs R rounds of two phases of about equal length:
 *   sort     qsort of NR_KEYS keys; hot in the comparison callback
 *            unwind_cmp, called from glibc's msort_with_tmp recursion
 *   recurse  unwind_recurse DEPTH + 1 frames deep, hot in unwind_leaf
 * One process: the script starts a copy per CPU, each by exec, since the
 * recorder maps a process's unwind tables when it sees its mappings.
 * The stacks the bench checks are main -> unwind_round ->
 * unwind_sort -> qsort (glibc) -> ... -> unwind_cmp and main ->
 * unwind_round -> unwind_recurse x DEPTH -> unwind_leaf (the innermost
 * unwind_recurse tail-calls the leaf).
 *
 * Prints one line:
 *   unwind: rounds=R wall_ns=N checksum=0x...
 * The checksum depends on R only (it catches a broken build; it is not
 * the measurement).
 *
 * Usage: fxt-bench-unwind [-r ROUNDS]
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NR_KEYS		1024
#define CMP_STEPS	24
#define DEPTH		40
#define LEAF_STEPS	(1u << 17)

/* noipa: no inlining, cloning or tail calls: the frames stay as named. */
#define UNWIND_FN	__attribute__((noinline, noipa))

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Some hashing per comparison, so that samples land in the callback. */
UNWIND_FN int unwind_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t h = x ^ y;

	for (int i = 0; i < CMP_STEPS; i++)
		h = h * 6364136223846793005ull + 1442695040888963407ull;
	sink += h;
	return (x > y) - (x < y);
}

UNWIND_FN uint64_t unwind_sort(uint32_t seed)
{
	static uint32_t keys[NR_KEYS];

	for (int i = 0; i < NR_KEYS; i++)
		keys[i] = seed = seed * 1103515245u + 12345u;
	qsort(keys, NR_KEYS, sizeof(keys[0]), unwind_cmp);
	return keys[0] ^ keys[NR_KEYS / 2] ^ keys[NR_KEYS - 1];
}

UNWIND_FN uint64_t unwind_leaf(uint64_t x)
{
	for (unsigned int i = 0; i < LEAF_STEPS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* Using the result after the call keeps it a call, not a jump. */
UNWIND_FN uint64_t unwind_recurse(int depth, uint64_t x)
{
	uint64_t r;

	if (!depth)
		return unwind_leaf(x);
	r = unwind_recurse(depth - 1, x + (uint64_t)depth);
	return r ^ (r >> 7) ^ (uint64_t)depth;
}

UNWIND_FN uint64_t unwind_round(unsigned int round)
{
	uint64_t sum = unwind_sort(round * 2654435761u + 1);

	return sum ^ unwind_recurse(DEPTH, sum);
}

static uint64_t unwind_run(unsigned int rounds)
{
	uint64_t sum = 0;

	for (unsigned int r = 0; r < rounds; r++)
		sum = sum * 31 + unwind_round(r);
	return sum;
}

int main(int argc, char **argv)
{
	unsigned int rounds = 200;
	uint64_t start, sum;
	int opt;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r') {
			fprintf(stderr, "usage: %s [-r ROUNDS]\n", argv[0]);
			return 2;
		}
		rounds = (unsigned int)strtoul(optarg, NULL, 0);
	}
	if (!rounds) {
		fprintf(stderr, "unwind: rounds must be > 0\n");
		return 2;
	}
	start = now_ns();
	sum = unwind_run(rounds);
	printf("unwind: rounds=%u wall_ns=%" PRIu64 " checksum=0x%016" PRIx64
	       "\n", rounds, now_ns() - start, sum);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * test_hmap.c - the hash map of user/util/hmap.h: u64 keys through
 * growth and removal against a plain array, keys the caller holds
 * (strings), colliding hashes, and the overflow checks of its growth.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "util/hmap.h"

TEST(empty_map)
{
	struct hmap m = { 0 };
	struct hmap_slot *s;
	size_t n = 0;

	ASSERT_EQ(NULL, hmap__get(&m, 0));
	ASSERT_FALSE(hmap__del(&m, 42));
	hmap__for_each(&m, s)
		n++;
	ASSERT_EQ(0, n);
	hmap__clear(&m);
	hmap__free(&m);
}

/* 100000 keys, a third removed, every lookup checked against an array. */
TEST(u64_keys_grow_and_remove)
{
	enum { N = 100000 };
	struct hmap m = { 0 };
	struct hmap_slot *s;
	uint64_t *v;
	size_t i, seen = 0;

	for (i = 0; i < N; i++) {
		/* Key 0 and keys sharing low bits: the mixer must spread. */
		ASSERT_EQ(1, hmap__get_or_add(&m, i << 20, &v));
		ASSERT_EQ(0, *v);
		*v = i + 1;
	}
	ASSERT_EQ(N, m.len);
	ASSERT_LE(2 * m.len, m.mask + 1);
	for (i = 0; i < N; i += 3)
		ASSERT_TRUE(hmap__del(&m, i << 20));
	for (i = 0; i < N; i++) {
		v = hmap__get(&m, i << 20);
		if (i % 3 == 0) {
			ASSERT_EQ(NULL, v);
		} else {
			ASSERT_NE(NULL, v);
			ASSERT_EQ(i + 1, *v);
		}
	}
	ASSERT_EQ(0, hmap__put(&m, 1 << 20, 7));
	ASSERT_EQ(7, *hmap__get(&m, 1 << 20));
	ASSERT_EQ(0, hmap__get_or_add(&m, 1 << 20, &v));
	ASSERT_EQ(7, *v);
	hmap__for_each(&m, s) {
		ASSERT_EQ(0, (s->key >> 20) % 3 == 0);
		seen++;
	}
	ASSERT_EQ(m.len, seen);
	hmap__clear(&m);
	ASSERT_EQ(NULL, hmap__get(&m, 2 << 20));
	hmap__free(&m);
}

/* Strings the test holds, the map keeps their index. */
struct strkey {
	const char *const *strs;
	const char *s;
};

static bool str_eq(const void *ctx, const struct hmap_slot *s)
{
	const struct strkey *k = ctx;

	return !strcmp(k->strs[s->key], k->s);
}

TEST(string_keys)
{
	static const char *const strs[] = {
		"cpu", "sample", "kframes", "fxtprof:kernel_lost", "",
		"a", "a\x01", "eight by", "eight byt", "sixteen bytes!!!",
	};
	enum { N = sizeof(strs) / sizeof(strs[0]) };
	struct hmap m = { 0 };
	struct hmap_slot *s;
	size_t i;

	for (i = 0; i < N; i++) {
		struct strkey k = { strs, strs[i] };
		uint64_t h = hmap_hash_bytes(strs[i], strlen(strs[i]), 0);

		ASSERT_EQ(NULL, hmap__find(&m, h, str_eq, &k));
		ASSERT_EQ(0, hmap__add(&m, h, i, i * 10, &s));
		ASSERT_EQ(i * 10, s->val);
	}
	for (i = 0; i < N; i++) {
		struct strkey k = { strs, strs[i] };
		uint64_t h = hmap_hash_bytes(strs[i], strlen(strs[i]), 0);

		s = hmap__find(&m, h, str_eq, &k);
		ASSERT_NE(NULL, s);
		ASSERT_EQ(i, s->key);
	}
	/* Spans that share a prefix or differ in length hash apart. */
	ASSERT_NE(hmap_hash_bytes("a", 1, 0), hmap_hash_bytes("a\0", 2, 0));
	ASSERT_NE(hmap_hash_bytes("ab", 2, 0), hmap_hash_bytes("ab", 2, 1));
	hmap__free(&m);
}

static bool key_eq(const void *ctx, const struct hmap_slot *s)
{
	return s->key == *(const uint64_t *)ctx;
}

/* Every entry in one probe run (one hash, 0 too): removal keeps the rest. */
TEST(colliding_hashes)
{
	struct hmap m = { 0 };
	struct hmap_slot *s;
	uint64_t k;

	for (k = 0; k < 64; k++)
		ASSERT_EQ(0, hmap__add(&m, 0, k, k, NULL));
	for (k = 0; k < 64; k += 2) {
		s = hmap__find(&m, 0, key_eq, &k);
		ASSERT_NE(NULL, s);
		hmap__remove(&m, s);
	}
	for (k = 0; k < 64; k++) {
		s = hmap__find(&m, 0, key_eq, &k);
		if (k % 2) {
			ASSERT_NE(NULL, s);
		} else {
			ASSERT_EQ(NULL, s);
		}
	}
	ASSERT_EQ(32, m.len);
	hmap__free(&m);
}

TEST(growth_overflow)
{
	struct hmap m = { 0 };

	ASSERT_EQ(-ENOMEM, hmap__reserve(&m, SIZE_MAX));
	ASSERT_EQ(-ENOMEM, hmap__reserve(&m, SIZE_MAX / 2 + 1));
	ASSERT_EQ(-ENOMEM, hmap__reserve(&m, SIZE_MAX / 4));
	ASSERT_EQ(NULL, m.slots);
	ASSERT_EQ(0, hmap__reserve(&m, 1000));
	ASSERT_LE(2000, m.mask + 1);
	/* A failed growth leaves the map as it was. */
	ASSERT_EQ(0, hmap__put(&m, 5, 6));
	ASSERT_EQ(-ENOMEM, hmap__reserve(&m, SIZE_MAX / 3));
	ASSERT_EQ(6, *hmap__get(&m, 5));
	hmap__free(&m);
}

TEST_HARNESS_MAIN

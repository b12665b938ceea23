// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_extents.c - where the bpf source puts each table's rows
 * (user/source/bpf/unwind_extents.c): never-used space first, then the
 * first freed extent that fits; freed neighbours merge, and a freed
 * extent that reaches the never-used space joins it; exhaustion is
 * -ENOSPC.  No privileges.
 */
#include <errno.h>

#include "kselftest_harness.h"

#include "unwind_extents.h"

TEST(never_used_space_first)
{
	struct unwind_extents x;
	__u32 a, b, c, d;

	unwind_extents__init(&x, 100);
	ASSERT_EQ(0, unwind_extents__alloc(&x, 30, &a));
	ASSERT_EQ(0, unwind_extents__alloc(&x, 30, &b));
	EXPECT_EQ(0u, a);
	EXPECT_EQ(30u, b);
	EXPECT_EQ(0, unwind_extents__free(&x, a, 30));
	/* 40 never used remain: taken before the freed 30 */
	ASSERT_EQ(0, unwind_extents__alloc(&x, 20, &c));
	EXPECT_EQ(60u, c);
	/* 20 never used left: 25 must come from the freed extent */
	ASSERT_EQ(0, unwind_extents__alloc(&x, 25, &d));
	EXPECT_EQ(0u, d);
	EXPECT_EQ(25u, unwind_extents__avail(&x));
	EXPECT_EQ(-ENOSPC, unwind_extents__alloc(&x, 21, &d));
	EXPECT_EQ(-EINVAL, unwind_extents__alloc(&x, 0, &d));
	unwind_extents__fini(&x);
}

TEST(neighbours_merge)
{
	struct unwind_extents x;
	__u32 r[5], i, big;

	unwind_extents__init(&x, 50);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, unwind_extents__alloc(&x, 10, &r[i]));
	EXPECT_EQ(0u, unwind_extents__avail(&x));
	/* 10..20 and 30..40, then 20..30 between them: one extent of 30 */
	EXPECT_EQ(0, unwind_extents__free(&x, r[1], 10));
	EXPECT_EQ(0, unwind_extents__free(&x, r[3], 10));
	EXPECT_EQ(2u, x.nr_free);
	EXPECT_EQ(-ENOSPC, unwind_extents__alloc(&x, 11, &big));
	EXPECT_EQ(0, unwind_extents__free(&x, r[2], 10));
	EXPECT_EQ(1u, x.nr_free);
	ASSERT_EQ(0, unwind_extents__alloc(&x, 30, &big));
	EXPECT_EQ(10u, big);
	EXPECT_EQ(0u, x.nr_free);
	unwind_extents__fini(&x);
}

TEST(freed_top_joins_never_used_space)
{
	struct unwind_extents x;
	__u32 a, b, c;

	unwind_extents__init(&x, 100);
	ASSERT_EQ(0, unwind_extents__alloc(&x, 40, &a));
	ASSERT_EQ(0, unwind_extents__alloc(&x, 40, &b));
	EXPECT_EQ(0, unwind_extents__free(&x, b, 40));
	EXPECT_EQ(40u, x.top);
	EXPECT_EQ(0u, x.nr_free);
	/* and a free below it then merged with it goes too */
	ASSERT_EQ(0, unwind_extents__alloc(&x, 30, &b));
	ASSERT_EQ(0, unwind_extents__alloc(&x, 30, &c));
	EXPECT_EQ(0, unwind_extents__free(&x, b, 30));
	EXPECT_EQ(0, unwind_extents__free(&x, c, 30));
	EXPECT_EQ(40u, x.top);
	EXPECT_EQ(0u, x.nr_free);
	EXPECT_EQ(0, unwind_extents__free(&x, a, 40));
	EXPECT_EQ(0u, x.top);
	EXPECT_EQ(100u, unwind_extents__avail(&x));
	unwind_extents__fini(&x);
}

/* Many tables come and go: the rows free always add up. */
TEST(churn_keeps_the_count)
{
	struct unwind_extents x;
	__u32 first[64] = { 0 }, nr[64] = { 0 }, i, k, used = 0;
	unsigned int seed = 1;

	unwind_extents__init(&x, 10000);
	for (k = 0; k < 5000; k++) {
		i = (seed = seed * 1103515245u + 12345u) >> 16 & 63;
		if (nr[i]) {
			ASSERT_EQ(0, unwind_extents__free(&x, first[i], nr[i]));
			used -= nr[i];
			nr[i] = 0;
		} else {
			__u32 want = 1 + ((seed >> 8) % 300);

			if (!unwind_extents__alloc(&x, want, &first[i])) {
				nr[i] = want;
				used += want;
				ASSERT_LE(first[i] + want, 10000u);
			}
		}
		ASSERT_EQ(10000u - used, unwind_extents__avail(&x));
	}
	/* no two live extents overlap */
	for (i = 0; i < 64; i++)
		for (k = i + 1; k < 64; k++)
			if (nr[i] && nr[k])
				ASSERT_TRUE(first[i] + nr[i] <= first[k] ||
					    first[k] + nr[k] <= first[i]);
	unwind_extents__fini(&x);
}

TEST_HARNESS_MAIN

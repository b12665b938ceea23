// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_ranges.c - FXTPROF_IOC_UNWIND_MAP's semantics on the bpf
 * source's array of a process's ranges (user/source/bpf/unwind_ranges.c),
 * which the sampling program binary-searches: sorted, no overlaps, a new
 * range replacing what it overlaps and keeping the parts outside, id 0
 * removing, and -ENOSPC leaving the array as it was.  No privileges.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"

#include "unwind_ranges.h"

static int map(struct fxtprof_bpf_unwind_proc *p, __u64 start, __u64 end,
	       __u32 id, __u64 bias)
{
	struct fxtprof_unwind_map m = {
		.size = sizeof(m), .pid = 1, .id = id,
		.start = start, .end = end, .bias = bias,
	};

	return unwind_ranges__update(p, &m);
}

/* @p is exactly the @n ranges {start, end, id} of @want. */
static bool is(const struct fxtprof_bpf_unwind_proc *p, unsigned int n,
	       const __u64 (*want)[3])
{
	unsigned int i;

	if (p->nr != n)
		return false;
	for (i = 0; i < n; i++) {
		if (p->r[i].start != want[i][0] || p->r[i].end != want[i][1] ||
		    p->r[i].id != want[i][2])
			return false;
	}
	return true;
}

TEST(sorted_whatever_the_order_of_the_maps)
{
	static const __u64 want[][3] = {
		{ 0x1000, 0x2000, 1 }, { 0x3000, 0x4000, 2 },
		{ 0x5000, 0x6000, 3 },
	};
	struct fxtprof_bpf_unwind_proc p;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, map(&p, 0x3000, 0x4000, 2, 0));
	ASSERT_EQ(0, map(&p, 0x5000, 0x6000, 3, 0));
	ASSERT_EQ(0, map(&p, 0x1000, 0x2000, 1, 0x77));
	EXPECT_TRUE(is(&p, 3, want));
	EXPECT_EQ(0x77, p.r[0].bias);
}

TEST(overlap_replaced_outside_parts_kept)
{
	static const __u64 want[][3] = {
		{ 0x1000, 0x1800, 1 }, { 0x1800, 0x3800, 9 },
		{ 0x3800, 0x4000, 2 }, { 0x5000, 0x6000, 3 },
	};
	struct fxtprof_bpf_unwind_proc p;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, map(&p, 0x1000, 0x2000, 1, 0));
	ASSERT_EQ(0, map(&p, 0x3000, 0x4000, 2, 0));
	ASSERT_EQ(0, map(&p, 0x5000, 0x6000, 3, 0));
	ASSERT_EQ(0, map(&p, 0x1800, 0x3800, 9, 0));
	EXPECT_TRUE(is(&p, 4, want));
}

TEST(a_range_inside_another_splits_it)
{
	static const __u64 want[][3] = {
		{ 0x1000, 0x1400, 1 }, { 0x1400, 0x1800, 5 },
		{ 0x1800, 0x2000, 1 },
	};
	struct fxtprof_bpf_unwind_proc p;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, map(&p, 0x1000, 0x2000, 1, 0));
	ASSERT_EQ(0, map(&p, 0x1400, 0x1800, 5, 0));
	EXPECT_TRUE(is(&p, 3, want));
}

TEST(id_0_removes_within)
{
	static const __u64 want[][3] = {
		{ 0x1000, 0x1400, 1 }, { 0x5800, 0x6000, 3 },
	};
	struct fxtprof_bpf_unwind_proc p;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, map(&p, 0x1000, 0x2000, 1, 0));
	ASSERT_EQ(0, map(&p, 0x3000, 0x4000, 2, 0));
	ASSERT_EQ(0, map(&p, 0x5000, 0x6000, 3, 0));
	ASSERT_EQ(0, map(&p, 0x1400, 0x5800, 0, 0));
	EXPECT_TRUE(is(&p, 2, want));
	ASSERT_EQ(0, map(&p, 0, ~0ull, 0, 0));
	EXPECT_EQ(0, p.nr);
}

TEST(full_is_enospc_and_unchanged)
{
	struct fxtprof_bpf_unwind_proc p, before;
	unsigned int i;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < FXTPROF_BPF_UNWIND_MAX_RANGES; i++)
		ASSERT_EQ(0, map(&p, 0x10000 * (i + 1),
				 0x10000 * (i + 1) + 0x100, i + 1, 0));
	memcpy(&before, &p, sizeof(p));
	EXPECT_EQ(-ENOSPC, map(&p, 0x1000, 0x2000, 99, 0));
	/* splitting one in two needs a slot too */
	EXPECT_EQ(-ENOSPC, map(&p, 0x10040, 0x10080, 99, 0));
	EXPECT_EQ(0, memcmp(&p, &before, sizeof(p)));
	/* replacing one exactly does not */
	EXPECT_EQ(0, map(&p, 0x10000, 0x10100, 99, 0));
	EXPECT_EQ(99, p.r[0].id);
	EXPECT_EQ(FXTPROF_BPF_UNWIND_MAX_RANGES, p.nr);
}

TEST_HARNESS_MAIN

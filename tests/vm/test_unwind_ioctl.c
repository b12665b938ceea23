// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind_ioctl.c - FXTPROF_IOC_UNWIND_LOAD, _MAP (ABI 5) and _UNLOAD
 * (ABI 7) as a device: every error their uapi comment names, the size
 * versioning every ioctl has, build ids (-EEXIST), the unwind_memory cap
 * (-ENOSPC) and what frees it: removing ranges, a process's exec and exit,
 * a new configuration.
 *
 * Runs in the test VM after `insmod /fxtprof.ko`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "vm_util.h"
#include "vm_fixture.h"

#define SP	FXTPROF_UNWIND_CFA_SP
#define FP	FXTPROF_UNWIND_CFA_FP
#define NONE	FXTPROF_UNWIND_CFA_NONE

/* A pid no process has: ranges are keyed by number, not checked. */
#define NO_PID	0x7ffffff0u

static const struct fxtprof_unwind_row good_rows[] = {
	{ .pc = 0x1000, .cfa_reg = SP, .cfa_offset = 16, .ra_offset = -8 },
	{ .pc = 0x1010, .cfa_reg = FP, .cfa_offset = 16, .ra_offset = -8,
	  .fp_offset = -16, .flags = FXTPROF_UNWIND_ROW_FP_SAVED },
	{ .pc = 0x1020, .cfa_reg = SP, .flags = FXTPROF_UNWIND_ROW_RA_IN_LR },
	{ .pc = 0x1030, .cfa_reg = NONE, .flags = FXTPROF_UNWIND_ROW_NO_RULE },
	{ .pc = 0x1040, .cfa_reg = SP, .cfa_offset = 8,
	  .flags = FXTPROF_UNWIND_ROW_OUTERMOST },
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

/* A table of @nr rows (from @rows, NULL: generated) and build id @tag. */
static struct fxtprof_unwind_table table(const struct fxtprof_unwind_row *rows,
					 __u32 nr, __u8 tag)
{
	static struct fxtprof_unwind_row many[4096];
	struct fxtprof_unwind_table t = {
		.size = sizeof(t), .nr_rows = nr, .build_id_size = 20,
	};

	if (!rows) {
		for (__u32 i = 0; i < nr && i < 4096; i++)
			many[i] = (struct fxtprof_unwind_row){
				.pc = 0x1000 + 16 * i, .cfa_reg = SP,
				.cfa_offset = 16, .ra_offset = -8 };
		rows = many;
	}
	t.rows_ptr = (uintptr_t)rows;
	t.pc_end = nr ? rows[nr - 1].pc + 16 : 0;
	memset(t.build_id, tag, sizeof(t.build_id));
	return t;
}

static struct fxtprof_unwind_map range(__u32 pid, __u32 id, __u64 start,
				       __u64 end)
{
	struct fxtprof_unwind_map m = {
		.size = sizeof(m), .pid = pid, .id = id,
		.start = start, .end = end, .bias = 0x400000,
	};

	return m;
}

static struct fxtprof_config unwind_config(__u32 flags, __u64 memory)
{
	struct fxtprof_config c = vm_config(flags | FXTPROF_CFG_USTACK |
					    FXTPROF_CFG_UNWIND, 100, 1 << 16);

	c.unwind_memory = memory;
	return c;
}

static int load(struct fxtprof_dev *dev, struct fxtprof_unwind_table t)
{
	int ret = fxtprof_dev__unwind_load(dev, &t);

	return ret ? ret : (int)t.id;
}

TEST(unwind_needs_a_session_that_unwinds)
{
	struct fxtprof_unwind_table t = table(good_rows, 5, 1);
	struct fxtprof_unwind_map m = range(NO_PID, 0, 0x1000, 0x2000);
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE |
					    FXTPROF_CFG_USTACK, 100, 1 << 16);
	int fd = open(FXTPROF_DEVICE, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, xioctl(fd, FXTPROF_IOC_UNWIND_LOAD, &t));
	EXPECT_EQ(-EBUSY, xioctl(fd, FXTPROF_IOC_UNWIND_MAP, &m));
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_CONFIGURE, &c));
	EXPECT_EQ(-EBUSY, xioctl(fd, FXTPROF_IOC_UNWIND_LOAD, &t));
	EXPECT_EQ(-EBUSY, xioctl(fd, FXTPROF_IOC_UNWIND_MAP, &m));
	c = unwind_config(FXTPROF_CFG_SAMPLE, 0);
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_CONFIGURE, &c));
	EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_UNWIND_LOAD, &t));
	EXPECT_EQ(1, t.id);
	m.id = t.id;
	EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_UNWIND_MAP, &m));
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_DETACH, NULL));
	EXPECT_EQ(-ESHUTDOWN, xioctl(fd, FXTPROF_IOC_UNWIND_LOAD, &t));
	EXPECT_EQ(-ESHUTDOWN, xioctl(fd, FXTPROF_IOC_UNWIND_MAP, &m));
	close(fd);
}

TEST_F(dev, build_ids_and_eexist)
{
	struct fxtprof_config c = unwind_config(FXTPROF_CFG_SAMPLE, 0);
	struct fxtprof_unwind_table t;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	EXPECT_EQ(1, load(self->dev, table(good_rows, 5, 1)));
	EXPECT_EQ(2, load(self->dev, table(good_rows, 5, 2)));
	/* The same build id again, whatever its rows: the table there. */
	t = table(good_rows, 2, 1);
	EXPECT_EQ(-EEXIST, fxtprof_dev__unwind_load(self->dev, &t));
	EXPECT_EQ(1, t.id);
	/* A shorter id with the same first bytes is another id. */
	t = table(good_rows, 5, 1);
	t.build_id_size = 8;
	EXPECT_EQ(3, load(self->dev, t));
	/* A new configuration starts again. */
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	EXPECT_EQ(1, load(self->dev, table(good_rows, 5, 2)));
}

struct bad_table {
	const char *what;
	unsigned int row;		/* good_rows[row] replaced by r, if r.pc */
	struct fxtprof_unwind_row r;
	int err;
};

TEST_F(dev, bad_tables_are_refused)
{
	const struct bad_table rows[] = {
		{ "equal pcs", 1, { .pc = 0x1000, .cfa_reg = SP,
				    .cfa_offset = 16, .ra_offset = -8 }, -EINVAL },
		{ "pc going down", 2, { .pc = 0x1008, .cfa_reg = SP,
					.cfa_offset = 16, .ra_offset = -8 }, -EINVAL },
		{ "cfa_reg 3", 0, { .pc = 0x1000, .cfa_reg = 3,
				    .cfa_offset = 16, .ra_offset = -8 }, -EINVAL },
		{ "flag 1<<4", 0, { .pc = 0x1000, .cfa_reg = SP, .cfa_offset = 16,
				    .ra_offset = -8, .flags = 1u << 4 }, -EINVAL },
		{ "NO_RULE with SP", 0, { .pc = 0x1000, .cfa_reg = SP,
					  .cfa_offset = 16, .ra_offset = -8,
					  .flags = FXTPROF_UNWIND_ROW_NO_RULE }, -EINVAL },
		{ "ra_offset 0", 0, { .pc = 0x1000, .cfa_reg = SP,
				      .cfa_offset = 16 }, -EINVAL },
		{ "ra_offset -4", 0, { .pc = 0x1000, .cfa_reg = SP,
				       .cfa_offset = 16, .ra_offset = -4 }, -EINVAL },
		{ "fp_offset 0", 1, { .pc = 0x1010, .cfa_reg = FP, .cfa_offset = 16,
				      .ra_offset = -8,
				      .flags = FXTPROF_UNWIND_ROW_FP_SAVED }, -EINVAL },
		{ "fp_offset -12", 1, { .pc = 0x1010, .cfa_reg = FP,
					.cfa_offset = 16, .ra_offset = -8,
					.fp_offset = -12,
					.flags = FXTPROF_UNWIND_ROW_FP_SAVED }, -EINVAL },
		{ "NONE with RA_IN_LR", 3, { .pc = 0x1030, .cfa_reg = NONE,
					     .flags = FXTPROF_UNWIND_ROW_RA_IN_LR }, -EINVAL },
	};
	struct fxtprof_config c = unwind_config(FXTPROF_CFG_SAMPLE, 0);
	struct fxtprof_unwind_row copy[5];
	struct fxtprof_unwind_table t;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	for (unsigned int i = 0; i < ARRAY_SIZE(rows); i++) {
		memcpy(copy, good_rows, sizeof(copy));
		copy[rows[i].row] = rows[i].r;
		EXPECT_EQ(rows[i].err, load(self->dev, table(copy, 5, 9)))
			TH_LOG("%s", rows[i].what);
	}
	/* The header's fields, one at a time. */
	for (int i = 0; i < 12; i++) {
		const char *what[] = { "flags", "reserved[0]", "reserved[2]",
				       "reserved2", "build_id_size 0",
				       "build_id_size 21", "nr_rows 0",
				       "nr_rows max+1", "pc_end at the last pc",
				       "pc_end 0", "rows_ptr NULL",
				       "rows_ptr kernel" };
		int err = i >= 10 ? -EFAULT : -EINVAL;

		t = table(good_rows, 5, 9);
		switch (i) {
		case 0: t.flags = 1; break;
		case 1: t.reserved[0] = 1; break;
		case 2: t.reserved[2] = 0x80; break;
		case 3: t.reserved2 = 1; break;
		case 4: t.build_id_size = 0; break;
		case 5: t.build_id_size = FXTPROF_BUILD_ID_MAX + 1; break;
		case 6: t.nr_rows = 0; break;
		case 7: t.nr_rows = FXTPROF_UNWIND_MAX_ROWS + 1; break;
		case 8: t.pc_end = good_rows[4].pc; break;
		case 9: t.pc_end = 0; break;
		case 10: t.rows_ptr = 0; break;
		case 11: t.rows_ptr = ~0ull << 47; break;
		}
		EXPECT_EQ(err, load(self->dev, t)) TH_LOG("%s", what[i]);
	}
	/* Nothing of them was kept: the good one gets the first id. */
	EXPECT_EQ(1, load(self->dev, table(good_rows, 5, 9)));
}

TEST_F(dev, sizes_are_versioned)
{
	struct fxtprof_config c = unwind_config(FXTPROF_CFG_SAMPLE, 0);
	struct {
		struct fxtprof_unwind_table t;
		__u64 tail;
	} ut;
	struct {
		struct fxtprof_unwind_map m;
		__u64 tail;
	} um;
	int fd = fxtprof_dev__fd(self->dev);
	const __u32 sizes[] = { 0, FXTPROF_UNWIND_TABLE_SIZE_VER0 - 8, 1u << 20 };

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
		ut.t = table(good_rows, 5, 1);
		ut.t.size = sizes[i];
		EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_UNWIND_LOAD, &ut));
		um.m = range(NO_PID, 0, 0x1000, 0x2000);
		um.m.size = sizes[i] ? sizes[i] - FXTPROF_UNWIND_TABLE_SIZE_VER0 +
				       FXTPROF_UNWIND_MAP_SIZE_VER0 : 0;
		EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_UNWIND_MAP, &um));
	}
	/* A newer caller's larger struct: its tail must be zero. */
	ut.t = table(good_rows, 5, 1);
	ut.t.size = sizeof(ut);
	ut.tail = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_UNWIND_LOAD, &ut));
	ut.tail = 0;
	EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_UNWIND_LOAD, &ut));
	EXPECT_EQ(1, ut.t.id);
	EXPECT_EQ(FXTPROF_UNWIND_TABLE_SIZE_VER0, ut.t.size);
	um.m = range(NO_PID, 1, 0x1000, 0x2000);
	um.m.size = sizeof(um);
	um.tail = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_UNWIND_MAP, &um));
	um.tail = 0;
	EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_UNWIND_MAP, &um));
	/* -EEXIST still says which table: the id is copied out. */
	ut.t = table(good_rows, 5, 1);
	EXPECT_EQ(-EEXIST, xioctl(fd, FXTPROF_IOC_UNWIND_LOAD, &ut));
	EXPECT_EQ(1, ut.t.id);
}

TEST_F(dev, map_errors)
{
	struct fxtprof_config c = unwind_config(FXTPROF_CFG_SAMPLE, 0);
	struct fxtprof_unwind_map m;
	int id;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	id = load(self->dev, table(good_rows, 5, 1));
	ASSERT_EQ(1, id);
	m = range(NO_PID, id, 0x2000, 0x2000);
	EXPECT_EQ(-EINVAL, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, id, 0x3000, 0x2000);
	EXPECT_EQ(-EINVAL, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, id, 0x1000, 0x2000);
	m.reserved = 1;
	EXPECT_EQ(-EINVAL, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, id + 1, 0x1000, 0x2000);
	EXPECT_EQ(-EINVAL, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, ~0u, 0x1000, 0x2000);
	EXPECT_EQ(-EINVAL, fxtprof_dev__unwind_map(self->dev, &m));
	/* Removing what is not there, adding, splitting, removing. */
	m = range(NO_PID, 0, 0, ~0ull);
	EXPECT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, id, 0x1000, 0x9000);
	EXPECT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, 0, 0x3000, 0x4000);
	EXPECT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, id, 0x3800, 0x5000);
	EXPECT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, 0, 0, ~0ull);
	EXPECT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
}

/* Map ranges for @pid until unwind_memory is full: how many fit. */
static int fill(struct fxtprof_dev *dev, __u32 pid, __u32 id)
{
	struct fxtprof_unwind_map m;
	int n, ret = 0;

	for (n = 0; n < 100000; n++) {
		m = range(pid, id, 0x10000 * (n + 1), 0x10000 * (n + 1) + 0x1000);
		ret = fxtprof_dev__unwind_map(dev, &m);
		if (ret)
			break;
	}
	return ret == -ENOSPC ? n : ret;
}

/* Whether a range for another pid fits now, retried for up to 5 s. */
static bool room_comes(struct fxtprof_dev *dev, __u32 id)
{
	struct fxtprof_unwind_map m = range(NO_PID - 1, id, 0x1000, 0x2000);

	for (int i = 0; i < 500; i++) {
		if (!fxtprof_dev__unwind_map(dev, &m)) {
			m.id = 0;
			fxtprof_dev__unwind_map(dev, &m);
			return true;
		}
		vm_sleep_ms(10);
	}
	return false;
}

TEST_F(dev, memory_is_capped)
{
	struct fxtprof_config c = unwind_config(FXTPROF_CFG_SAMPLE, 4096);
	struct fxtprof_unwind_map m;
	int id, tables = 0, ret, n;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	/* 4096 rows never fit 4 KiB, and are refused before the copy. */
	EXPECT_EQ(-ENOSPC, load(self->dev, table(NULL, 4096, 1)));
	while ((ret = load(self->dev, table(NULL, 64, 10 + tables))) > 0)
		tables++;
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_LE(1, tables);
	EXPECT_GE(5, tables);
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	id = load(self->dev, table(good_rows, 1, 1));
	ASSERT_EQ(1, id);
	n = fill(self->dev, NO_PID, id);
	EXPECT_LT(0, n);
	EXPECT_FALSE(room_comes(self->dev, id));
	/* Removing ranges gives their memory back. */
	m = range(NO_PID, 0, 0, ~0ull);
	EXPECT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	EXPECT_TRUE(room_comes(self->dev, id));
	EXPECT_EQ(n, fill(self->dev, NO_PID, id));
	/* A new configuration frees it all. */
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	EXPECT_EQ(1, load(self->dev, table(good_rows, 1, 1)));
	EXPECT_EQ(n, fill(self->dev, NO_PID, 1));
}

/*
 * A child blocked on a pipe, whose ranges fill unwind_memory; released, it
 * execs fxt_nofp (which then waits for stdin) or exits.  The module drops
 * its ranges at either, while the session runs.
 */
static void drop_at(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dev) *self, bool exec)
{
	struct fxtprof_config c = unwind_config(FXTPROF_CFG_SAMPLE, 4096);
	int go[2], out[2], in[2], status, id;
	char byte = 0;
	pid_t pid;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	id = load(self->dev, table(good_rows, 1, 1));
	ASSERT_EQ(1, id);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(out));
	ASSERT_EQ(0, pipe(in));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		if (!exec)
			_exit(0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(vm_test_path("fxt_nofp"), "fxt_nofp", "qsort", "0",
		      (char *)NULL);
		_exit(127);
	}
	EXPECT_LT(0, fill(self->dev, pid, id));
	EXPECT_FALSE(room_comes(self->dev, id));
	ASSERT_EQ(1, write(go[1], &byte, 1));
	if (exec) {
		/* fxt_nofp runs: the exec is done. */
		ASSERT_EQ(1, read(out[0], &byte, 1));
		EXPECT_TRUE(room_comes(self->dev, id));
		ASSERT_EQ(1, write(in[1], &byte, 1));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_TRUE(room_comes(self->dev, id));
	EXPECT_EQ(0, fxtprof_dev__stop(self->dev));
	close(go[0]);
	close(go[1]);
	close(out[0]);
	close(out[1]);
	close(in[0]);
	close(in[1]);
}

TEST_F(dev, exec_drops_ranges)
{
	drop_at(_metadata, self, true);
}

TEST_F(dev, exit_drops_ranges)
{
	drop_at(_metadata, self, false);
}

static int unload(int fd, __u32 id, __u32 size, __u64 reserved)
{
	struct {
		struct fxtprof_unwind_unload u;
		__u64 tail;
	} a = { .u = { .size = size, .id = id, .reserved = reserved } };

	return xioctl(fd, FXTPROF_IOC_UNWIND_UNLOAD, &a);
}

/*
 * FXTPROF_IOC_UNWIND_UNLOAD (ABI 7): not while a range runs the table;
 * then the id maps nothing, the next load takes it, and the memory comes
 * back.
 */
TEST_F(dev, unload_gives_the_table_back)
{
	struct fxtprof_config c = unwind_config(FXTPROF_CFG_SAMPLE, 0);
	int fd = fxtprof_dev__fd(self->dev);
	const __u32 sz = sizeof(struct fxtprof_unwind_unload);
	struct fxtprof_unwind_map m;
	int a, b, ret, n;

	EXPECT_EQ(-EBUSY, unload(fd, 1, sz, 0));
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	a = load(self->dev, table(good_rows, 5, 1));
	b = load(self->dev, table(good_rows, 5, 2));
	ASSERT_EQ(1, a);
	ASSERT_EQ(2, b);
	m = range(NO_PID, a, 0x1000, 0x2000);
	ASSERT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	EXPECT_EQ(-ENOTEMPTY, unload(fd, a, sz, 0));
	EXPECT_EQ(-EINVAL, unload(fd, 0, sz, 0));
	EXPECT_EQ(-EINVAL, unload(fd, b, sz, 1));
	EXPECT_EQ(-EINVAL, unload(fd, b, 8, 0));
	EXPECT_EQ(-ENOENT, unload(fd, b + 7, sz, 0));
	EXPECT_EQ(0, fxtprof_dev__unwind_unload(self->dev, b));
	EXPECT_EQ(-ENOENT, fxtprof_dev__unwind_unload(self->dev, b));
	/* A larger struct from a newer caller, its tail zero. */
	EXPECT_EQ(-ENOENT, unload(fd, b, sz + 8, 0));
	/* The dropped id maps nothing. */
	m = range(NO_PID, b, 0x3000, 0x4000);
	EXPECT_EQ(-EINVAL, fxtprof_dev__unwind_map(self->dev, &m));
	m = range(NO_PID, 0, 0, ~0ull);
	ASSERT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
	EXPECT_EQ(0, fxtprof_dev__unwind_unload(self->dev, a));
	/* The lowest free id is the next; the build id was forgotten. */
	EXPECT_EQ(1, load(self->dev, table(good_rows, 5, 2)));
	EXPECT_EQ(2, load(self->dev, table(good_rows, 5, 1)));

	/* Room for a few tables of 64 rows: unloading one makes room. */
	c = unwind_config(FXTPROF_CFG_SAMPLE, 4096);
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	for (n = 0; (ret = load(self->dev, table(NULL, 64, 10 + n))) > 0; n++)
		;
	EXPECT_EQ(-ENOSPC, ret);
	ASSERT_LE(1, n);
	EXPECT_EQ(0, fxtprof_dev__unwind_unload(self->dev, 1));
	EXPECT_EQ(1, load(self->dev, table(NULL, 64, 10 + n)));
	EXPECT_EQ(-ENOSPC, load(self->dev, table(NULL, 64, 11 + n)));
}

/* The child's loop, at an address the parent knows (fork keeps it). */
static __attribute__((noinline, noreturn)) void spin(void)
{
	volatile unsigned long x = 0;

	for (;;)
		x++;
}

/* The module's table frames so far, summed over the CPUs. */
static __u64 table_frames(struct fxtprof_dev *dev)
{
	struct fxtprof_stats st;
	__u64 n = 0;

	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++)
		if (fxtprof_dev__ring(dev, cpu) &&
		    !fxtprof_dev__stats(dev, cpu, &st))
			n += st.unwind_table_frames;
	return n;
}

/*
 * Unload while sampling a process whose walk reads the table: each round
 * maps the table around the child's loop, waits for the walk to use a row
 * of it, removes the range and unloads the table.  The debug VM's KASAN
 * watches the table's memory.
 */
TEST_F(dev, unload_while_sampling)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE |
					    FXTPROF_CFG_USTACK |
					    FXTPROF_CFG_UNWIND, 1000, 1 << 16);
	/* 64 KiB around spin(), which the 4096 rows of the table cover. */
	unsigned long start = ((unsigned long)spin & ~0xfffUL) - 0x8000;
	struct fxtprof_unwind_map m;
	int status, id, round, used = 0;
	__u64 before;
	pid_t pid;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		spin();
	for (round = 0; round < 20; round++) {
		/* Rows every 16 bytes of the first 64 KiB of its text. */
		id = load(self->dev, table(NULL, 4096, 1));
		ASSERT_LT(0, id);
		m = range(pid, id, start, start + 0x10000);
		m.bias = start - 0x1000;
		ASSERT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
		before = table_frames(self->dev);
		for (int i = 0; i < 200 && table_frames(self->dev) == before;
		     i++)
			usleep(10000);
		used += table_frames(self->dev) > before;
		m.id = 0;
		ASSERT_EQ(0, fxtprof_dev__unwind_map(self->dev, &m));
		ASSERT_EQ(0, fxtprof_dev__unwind_unload(self->dev, id));
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, fxtprof_dev__stop(self->dev));
	TH_LOG("the walk used the table in %d of 20 rounds", used);
	EXPECT_LE(10, used);
}

TEST_HARNESS_MAIN

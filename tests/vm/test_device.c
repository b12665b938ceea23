// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_device.c - /dev/fxtprof as a device: node, exclusive open, info,
 * every bad input we can think of (each followed by a check that nothing
 * changed and the device still works), start/stop.
 *
 * Runs in the test VM after `insmod /fxtprof.ko`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "vm_util.h"

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* ioctl returning 0 or -errno */
static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static struct fxtprof_info get_info(int fd)
{
	struct fxtprof_info info = { .size = sizeof(info) };

	if (xioctl(fd, FXTPROF_IOC_GET_INFO, &info))
		info.abi_version = 0;
	return info;
}

/*
 * configure + map every ring + attach + start + stop + unmap: the device
 * is usable.  START needs the attach (ABI 3).
 */
static int device_works(int fd)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 1000, 0);
	struct vm_raw_maps m;
	struct fxtprof_info info;
	int err;

	err = xioctl(fd, FXTPROF_IOC_CONFIGURE, &c);
	if (err)
		return err;
	info = get_info(fd);
	if (info.state != FXTPROF_STATE_CONFIGURED ||
	    info.ring_size != FXTPROF_DEFAULT_RING_SIZE)
		return -EPROTO;
	err = vm_raw_map(fd, &m);
	if (err)
		return err;
	err = xioctl(fd, FXTPROF_IOC_START, NULL);
	if (err != -ENOTCONN) {
		vm_raw_unmap(&m);
		return err ? err : -EPROTO;
	}
	err = vm_raw_attach(fd, &m);
	if (!err)
		err = xioctl(fd, FXTPROF_IOC_START, NULL);
	if (!err && get_info(fd).state != (FXTPROF_STATE_CONFIGURED |
					   FXTPROF_STATE_ATTACHED |
					   FXTPROF_STATE_RUNNING))
		err = -EPROTO;
	if (!err)
		err = xioctl(fd, FXTPROF_IOC_STOP, NULL);
	vm_raw_unmap(&m);
	return err;
}

FIXTURE(dev) {
	struct fxtprof_dev *dev;
	int fd;
};

FIXTURE_SETUP(dev)
{
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &self->dev));
	self->fd = fxtprof_dev__fd(self->dev);
}

FIXTURE_TEARDOWN(dev)
{
	fxtprof_dev__close(self->dev);
}

/* ------------------------------------------------------------------ */

TEST(node_is_root_only)
{
	struct stat st;
	pid_t pid;
	int status;

	ASSERT_EQ(0, stat(FXTPROF_DEVICE, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);

	/* An unprivileged user cannot open it. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		if (open(FXTPROF_DEVICE, O_RDWR) >= 0)
			_exit(3);
		_exit(errno == EACCES ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST(second_open_is_ebusy)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 0, 0);
	int fd, fd2;
	long page = page_size();
	void *p;

	fd = open(FXTPROF_DEVICE, O_RDWR);
	ASSERT_LE(0, fd);
	fd2 = open(FXTPROF_DEVICE, O_RDWR);
	EXPECT_EQ(-1, fd2);
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, open(FXTPROF_DEVICE, O_RDONLY));
	EXPECT_EQ(EBUSY, errno);
	/* the first one is untouched */
	EXPECT_EQ(FXTPROF_ABI_VERSION, get_info(fd).abi_version);
	EXPECT_EQ(0, device_works(fd));

	/* A mapping keeps the session, and so the device, busy. */
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_CONFIGURE, &c));
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, page);
	ASSERT_NE(MAP_FAILED, p);
	close(fd);
	EXPECT_EQ(FXTPROF_RING_MAGIC, ((struct fxtprof_ring_ctrl *)p)->magic);
	EXPECT_EQ(-1, open(FXTPROF_DEVICE, O_RDWR));
	EXPECT_EQ(EBUSY, errno);
	munmap(p, page);

	fd = open(FXTPROF_DEVICE, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, get_info(fd).state);	/* a fresh session */
	EXPECT_EQ(0, device_works(fd));
	close(fd);
}

TEST_F(dev, info)
{
	const struct fxtprof_info *i = fxtprof_dev__info(self->dev);
	__u64 min_ring = FXTPROF_MIN_RING_SIZE;
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 0, 1 << 16);

	if (min_ring < (__u64)page_size())
		min_ring = page_size();
	EXPECT_EQ(sizeof(*i), i->size);
	EXPECT_EQ(FXTPROF_ABI_VERSION, i->abi_version);
	EXPECT_LE(2, i->nr_cpus);
	EXPECT_LE(2, i->nr_online);
	EXPECT_LE(i->nr_online, i->nr_cpus);
	EXPECT_EQ(page_size(), i->page_size);
	EXPECT_EQ(0, i->state);
	EXPECT_EQ(FXTPROF_MIN_FREQ, i->min_freq);
	EXPECT_EQ(FXTPROF_MAX_FREQ, i->max_freq);
	EXPECT_EQ(FXTPROF_DEFAULT_FREQ, i->default_freq);
	EXPECT_EQ(FXTPROF_MAX_STACK_DEPTH, i->max_stack_depth);
	EXPECT_EQ(min_ring, i->min_ring_size);
	EXPECT_EQ(FXTPROF_MAX_RING_SIZE, i->max_ring_size);
	EXPECT_EQ(FXTPROF_DEFAULT_RING_SIZE, i->default_ring_size);
	EXPECT_EQ(0, i->ring_size);
	EXPECT_EQ(0, i->mmap_stride);
	EXPECT_EQ(0, fxtprof_dev__nr_rings(self->dev));

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	i = fxtprof_dev__info(self->dev);
	/* the library attaches to what it mapped */
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED | FXTPROF_STATE_ATTACHED, i->state);
	EXPECT_EQ(1 << 16, i->ring_size);
	EXPECT_LE(2ull * i->page_size + 2 * i->ring_size, i->mmap_stride);
	EXPECT_EQ(0, i->mmap_stride % i->page_size);
	EXPECT_EQ(i->nr_cpus, fxtprof_dev__nr_rings(self->dev));
	/* every possible CPU has a ring, task records come from anywhere */
	for (__u32 cpu = 0; cpu < i->nr_cpus; cpu++) {
		struct fxtprof_ring *r = fxtprof_dev__ring(self->dev, cpu);

		ASSERT_NE(NULL, r);
		EXPECT_EQ(cpu, fxtprof_ring__cpu(r));
		EXPECT_EQ(1 << 16, fxtprof_ring__size(r));
		EXPECT_EQ(0, fxtprof_ring__pending(r));
	}
	EXPECT_EQ(NULL, fxtprof_dev__ring(self->dev, i->nr_cpus));

	/* a larger info struct is fine; the kernel says what it filled */
	{
		struct { struct fxtprof_info info; __u64 more[4]; } big;

		memset(&big, 0xff, sizeof(big));
		big.info.size = sizeof(big);
		ASSERT_EQ(0, xioctl(self->fd, FXTPROF_IOC_GET_INFO, &big));
		EXPECT_EQ(sizeof(struct fxtprof_info), big.info.size);
		EXPECT_EQ(88, big.info.size);
		EXPECT_EQ(FXTPROF_ABI_VERSION, big.info.abi_version);
	}
	/* an ABI 1 caller's 80 bytes get exactly those, nothing beyond */
	{
		struct { struct fxtprof_info info; __u64 more; } old;

		memset(&old, 0xff, sizeof(old));
		old.info.size = FXTPROF_INFO_SIZE_VER0;
		ASSERT_EQ(0, xioctl(self->fd, FXTPROF_IOC_GET_INFO, &old));
		EXPECT_EQ(FXTPROF_INFO_SIZE_VER0, old.info.size);
		EXPECT_EQ(i->mmap_stride, old.info.mmap_stride);
		EXPECT_EQ(0xffffffffu, old.info.nr_sources);
		EXPECT_EQ(~0ull, old.more);
	}
}

TEST_F(dev, unknown_ioctl_is_enotty)
{
	static const unsigned long cmds[] = {
		_IO(FXTPROF_IOC_MAGIC, 0),
		_IO(FXTPROF_IOC_MAGIC, 12),
		_IOWR(FXTPROF_IOC_MAGIC, 99, struct fxtprof_info),
		_IO('x', 1),
		_IOWR('T', 1, struct fxtprof_info),
		0x5401,		/* TCGETS */
		0,
	};

	for (unsigned int i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char arg[256] = { 0 };

		EXPECT_EQ(-ENOTTY, xioctl(self->fd, cmds[i], arg))
			TH_LOG("cmd %#lx", cmds[i]);
	}
	EXPECT_EQ(0, get_info(self->fd).state);
	EXPECT_EQ(0, device_works(self->fd));
}

/* ------------------------------------------------------------------ */

struct bad_cfg {
	const char *what;
	struct fxtprof_config c;
	int tail;		/* nonzero byte after the struct */
	int err;
};

static __u64 zero_mask, far_mask = 1ull << 63;

static void check_bad_configs(struct __test_metadata *_metadata, int fd,
			      struct fxtprof_info before)
{
	const __u32 page = page_size();
	const __u64 ok_ring = 1 << 16;
	static __u64 big_mask[1 << 13];
	struct bad_cfg cases[] = {
		{ "size 0", { .size = 0 }, 0, -EINVAL },
		{ "size 4", { .size = 4 }, 0, -EINVAL },
		{ "size 40", { .size = 40 }, 0, -EINVAL },
		{ "size huge", { .size = 1 << 20 }, 0, -EINVAL },
		{ "nonzero tail", { .size = sizeof(struct fxtprof_config) + 8 }, 1, -EINVAL },
		{ "flag 1<<11", { .flags = 1u << 11 }, 0, -EINVAL },
		{ "OFFCPU without SCHED", { .flags = FXTPROF_CFG_OFFCPU }, 0, -EINVAL },
		{ "UNWIND without USTACK", { .flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_UNWIND }, 0, -EINVAL },
		{ "unwind_memory max+1", { .unwind_memory = FXTPROF_MAX_UNWIND_MEMORY + 1ull }, 0, -EINVAL },
		{ "unwind_memory -1", { .unwind_memory = ~0ull }, 0, -EINVAL },
		{ "unwind_budget max+1", { .unwind_budget = FXTPROF_MAX_UNWIND_BUDGET + 1 }, 0, -EINVAL },
		{ "reserved2 1", { .reserved2 = 1 }, 0, -EINVAL },
		{ "stack_copy_size 4", { .stack_copy_size = 4 }, 0, -EINVAL },
		{ "stack_copy_size 8K+4", { .stack_copy_size = 8196 }, 0, -EINVAL },
		{ "stack_copy_size max+8", { .stack_copy_size = FXTPROF_MAX_STACK_COPY + 8 }, 0, -EINVAL },
		{ "stack_copy_size -8", { .stack_copy_size = ~7u }, 0, -EINVAL },
		{ "STACK_COPY, 8K, ring 16K", { .flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_STACK_COPY, .ring_size = 16384 }, 0, -EINVAL },
		{ "STACK_COPY, max, ring 32K", { .flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_STACK_COPY, .stack_copy_size = FXTPROF_MAX_STACK_COPY, .ring_size = 32768 }, 0, -EINVAL },
		{ "reserved3 1", { .reserved3 = 1 }, 0, -EINVAL },
		{ "flag 1<<31", { .flags = 1u << 31 }, 0, -EINVAL },
		{ "freq max+1", { .freq_hz = FXTPROF_MAX_FREQ + 1 }, 0, -EINVAL },
		{ "freq 2^32-1", { .freq_hz = 0xffffffffu }, 0, -EINVAL },
		{ "kstack 128", { .kstack_depth = 128 }, 0, -EINVAL },
		{ "ustack 65535", { .ustack_depth = 0xffff }, 0, -EINVAL },
		{ "ring 3*16K", { .ring_size = 3 * 16384 }, 0, -EINVAL },
		{ "ring 16K+page", { .ring_size = 16384 + page }, 0, -EINVAL },
		{ "ring 8K", { .ring_size = 8192 }, 0, -EINVAL },
		{ "ring 8", { .ring_size = 8 }, 0, -EINVAL },
		{ "ring 512M", { .ring_size = 512u << 20 }, 0, -EINVAL },
		{ "ring 2^40", { .ring_size = 1ull << 40 }, 0, -EINVAL },
		{ "ring 2^63", { .ring_size = 1ull << 63 }, 0, -EINVAL },
		{ "ring -1", { .ring_size = ~0ull }, 0, -EINVAL },
		{ "watermark > ring", { .ring_size = ok_ring, .watermark = ok_ring + 1 }, 0, -EINVAL },
		{ "reserved 1", { .reserved = 1 }, 0, -EINVAL },
		{ "reserved 1<<31", { .reserved = 1u << 31 }, 0, -EINVAL },
		{ "cpumask len 4", { .cpumask_ptr = (uintptr_t)&far_mask, .cpumask_len = 4 }, 0, -EINVAL },
		{ "cpumask len 12", { .cpumask_ptr = (uintptr_t)big_mask, .cpumask_len = 12 }, 0, -EINVAL },
		{ "cpumask empty", { .cpumask_ptr = (uintptr_t)&zero_mask, .cpumask_len = 8 }, 0, -EINVAL },
		{ "cpumask CPU 63", { .cpumask_ptr = (uintptr_t)&far_mask, .cpumask_len = 8 }, 0, -EINVAL },
		{ "cpumask 64K", { .cpumask_ptr = (uintptr_t)big_mask, .cpumask_len = sizeof(big_mask) }, 0, -EINVAL },
		{ "cpumask NULL", { .cpumask_ptr = 0, .cpumask_len = 8 }, 0, -EFAULT },
		{ "cpumask bad ptr", { .cpumask_ptr = 8, .cpumask_len = 8 }, 0, -EFAULT },
	};

	big_mask[0] = 1;		/* CPU 0, but the length is wrong */
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct { struct fxtprof_config c; __u64 tail; } u;
		struct fxtprof_info after;

		u.c = cases[i].c;
		if (!u.c.size)
			u.c.size = sizeof(u.c);
		if (!strcmp(cases[i].what, "size 0"))
			u.c.size = 0;
		if (!u.c.ring_size && strncmp(cases[i].what, "ring", 4))
			u.c.ring_size = ok_ring;
		u.tail = cases[i].tail ? 0x100 : 0;
		EXPECT_EQ(cases[i].err, xioctl(fd, FXTPROF_IOC_CONFIGURE, &u))
			TH_LOG("%s", cases[i].what);
		after = get_info(fd);
		/* a refused configure changes nothing */
		EXPECT_EQ(before.state, after.state) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(before.ring_size, after.ring_size) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(before.mmap_stride, after.mmap_stride) TH_LOG("%s", cases[i].what);
	}
}

TEST(bad_config_is_refused)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 0, 32768);
	int fd = open(FXTPROF_DEVICE, O_RDWR);

	ASSERT_LE(0, fd);
	/* unconfigured ... */
	check_bad_configs(_metadata, fd, get_info(fd));
	/* ... and configured: the old configuration stays */
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_CONFIGURE, &c));
	check_bad_configs(_metadata, fd, get_info(fd));
	EXPECT_EQ(32768, get_info(fd).ring_size);
	EXPECT_EQ(0, device_works(fd));
	close(fd);
}

TEST(config_edges_are_accepted)
{
	int fd = open(FXTPROF_DEVICE, O_RDWR);
	__u64 cpu0 = 1, wide[FXTPROF_MAX_CPUMASK_LEN / 8] = { 1 };
	struct { struct fxtprof_config c; __u64 tail[3]; } big = { 0 };
	struct fxtprof_config ok[] = {
		vm_config(0, FXTPROF_MIN_FREQ, 0),
		vm_config(FXTPROF_CFG_ALL, FXTPROF_MAX_FREQ, 0),
		vm_config(FXTPROF_CFG_DEFAULT, 0, FXTPROF_MIN_RING_SIZE),
		{ .size = sizeof(struct fxtprof_config), .kstack_depth = 127,
		  .ustack_depth = 1, .ring_size = 1 << 16, .watermark = 1 << 16,
		  .cpumask_ptr = (uintptr_t)&cpu0, .cpumask_len = 8 },
		{ .size = sizeof(struct fxtprof_config),
		  .flags = FXTPROF_CFG_USTACK | FXTPROF_CFG_UNWIND,
		  .unwind_memory = FXTPROF_MAX_UNWIND_MEMORY,
		  .unwind_budget = FXTPROF_MAX_UNWIND_BUDGET },
		{ .size = sizeof(struct fxtprof_config),
		  .flags = FXTPROF_CFG_USTACK | FXTPROF_CFG_UNWIND,
		  .unwind_memory = 1, .unwind_budget = 1 },
		/* stack copies: the default size, the extremes that fit */
		vm_config(FXTPROF_CFG_SAMPLE | FXTPROF_CFG_STACK_COPY, 0,
			  1 << 15),
		{ .size = sizeof(struct fxtprof_config),
		  .flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_STACK_COPY,
		  .stack_copy_size = 8, .ring_size = FXTPROF_MIN_RING_SIZE },
		{ .size = sizeof(struct fxtprof_config),
		  .flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_STACK_COPY,
		  .stack_copy_size = FXTPROF_MAX_STACK_COPY,
		  .ring_size = 1 << 16 },
		/* without the flag the size is checked, not the ring */
		{ .size = sizeof(struct fxtprof_config),
		  .stack_copy_size = FXTPROF_MAX_STACK_COPY,
		  .ring_size = FXTPROF_MIN_RING_SIZE },
		/* waits: every one, or none under an hour-and-more */
		{ .size = sizeof(struct fxtprof_config),
		  .flags = FXTPROF_CFG_SCHED | FXTPROF_CFG_OFFCPU },
		{ .size = sizeof(struct fxtprof_config),
		  .flags = FXTPROF_CFG_SCHED | FXTPROF_CFG_OFFCPU |
			   FXTPROF_CFG_KSTACK | FXTPROF_CFG_USTACK,
		  .offcpu_min_ns = ~0ull },
		/* wider than this kernel's NR_CPUS, the rest zero */
		{ .size = sizeof(struct fxtprof_config),
		  .cpumask_ptr = (uintptr_t)wide, .cpumask_len = sizeof(wide) },
	};

	ASSERT_LE(0, fd);
	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_CONFIGURE, &ok[i])) TH_LOG("%u", i);
	}
	/* a newer, larger struct whose extra bytes are zero */
	big.c = vm_config(FXTPROF_CFG_SAMPLE, 0, 1 << 15);
	big.c.size = sizeof(big);
	EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_CONFIGURE, &big));
	EXPECT_EQ(1 << 15, get_info(fd).ring_size);
	EXPECT_EQ(0, device_works(fd));
	close(fd);
}

TEST(nothing_works_before_configure)
{
	struct fxtprof_flush f = { .size = sizeof(f) };
	struct fxtprof_stats st = { .size = sizeof(st) };
	int fd = open(FXTPROF_DEVICE, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_START, NULL));
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_FLUSH, &f));
	{
		/* nothing mapped yet, and no geometry to match: EINVAL */
		__u32 n = get_info(fd).nr_cpus;
		struct fxtprof_attach_ring *zero = calloc(n, sizeof(*zero));
		struct fxtprof_attach a = {
			.size = sizeof(a), .version = FXTPROF_ABI_VERSION,
			.nr_rings = n, .rings_ptr = (uintptr_t)zero,
		};

		ASSERT_NE(NULL, zero);
		EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_ATTACH, &a));
		free(zero);
	}
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_GET_STATS, &st));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_STOP, NULL));	/* harmless */
	EXPECT_EQ(0, get_info(fd).state);
	EXPECT_EQ(0, device_works(fd));
	close(fd);
}

TEST_F(dev, busy_while_running_or_mapped)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 0, 1 << 16);
	struct fxtprof_config c2 = vm_config(FXTPROF_CFG_SAMPLE, 0, 1 << 15);

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	/* the library holds the rings mapped */
	EXPECT_EQ(-EBUSY, xioctl(self->fd, FXTPROF_IOC_CONFIGURE, &c2));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED | FXTPROF_STATE_ATTACHED |
		  FXTPROF_STATE_RUNNING, fxtprof_dev__info(self->dev)->state);
	EXPECT_EQ(-EBUSY, xioctl(self->fd, FXTPROF_IOC_CONFIGURE, &c2));
	/* the library refuses before unmapping anything */
	EXPECT_EQ(-EBUSY, fxtprof_dev__configure(self->dev, &c2));
	EXPECT_NE(NULL, fxtprof_dev__ring(self->dev, 0));
	EXPECT_EQ(-EBUSY, fxtprof_dev__start(self->dev));
	EXPECT_EQ(1 << 16, fxtprof_dev__info(self->dev)->ring_size);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	EXPECT_EQ(0, fxtprof_dev__stop(self->dev));
	/* stopped and unmapped by the library: reconfigure works */
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c2));
	EXPECT_EQ(1 << 15, fxtprof_dev__info(self->dev)->ring_size);
	EXPECT_EQ(1 << 15, fxtprof_ring__size(fxtprof_dev__ring(self->dev, 0)));
	/* a bad configure through the library keeps the mapped rings */
	c2.reserved = 1;
	EXPECT_EQ(-EINVAL, fxtprof_dev__configure(self->dev, &c2));
	ASSERT_NE(NULL, fxtprof_dev__ring(self->dev, 1));
	EXPECT_EQ(1 << 15, fxtprof_ring__size(fxtprof_dev__ring(self->dev, 1)));
}

static int only_flush_cb(void *ctx, const struct fxtprof_rec_hdr *h)
{
	(void)ctx;
	return h->type == FXTPROF_REC_FLUSH ? 0 : -EBADMSG;
}

TEST_F(dev, bad_flush_and_stats)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 0, 1 << 16);
	const struct fxtprof_info *i;
	struct fxtprof_flush f;
	struct fxtprof_stats st;
	struct fxtprof_info info;
	__u64 seq = 0, seq2 = 0;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	i = fxtprof_dev__info(self->dev);

	f = (struct fxtprof_flush){ .size = sizeof(f), .flags = 1 };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, FXTPROF_IOC_FLUSH, &f));
	f = (struct fxtprof_flush){ .size = 8 };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, FXTPROF_IOC_FLUSH, &f));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, FXTPROF_IOC_FLUSH, NULL));

	st = (struct fxtprof_stats){ .size = sizeof(st), .cpu = i->nr_cpus };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, FXTPROF_IOC_GET_STATS, &st));
	st = (struct fxtprof_stats){ .size = sizeof(st), .cpu = ~0u };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, FXTPROF_IOC_GET_STATS, &st));
	st = (struct fxtprof_stats){ .size = 8, .cpu = 0 };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, FXTPROF_IOC_GET_STATS, &st));
	info = (struct fxtprof_info){ .size = 8 };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, FXTPROF_IOC_GET_INFO, &info));
	EXPECT_EQ(-EFAULT, xioctl(self->fd, FXTPROF_IOC_GET_INFO, (void *)8));

	/* nothing changed: flush works, sequence numbers increase, and
	 * one FLUSH record lands in every ring */
	EXPECT_EQ(0, fxtprof_dev__flush(self->dev, &seq));
	EXPECT_EQ(0, fxtprof_dev__flush(self->dev, &seq2));
	EXPECT_LT(seq, seq2);
	for (__u32 cpu = 0; cpu < i->nr_cpus; cpu++) {
		ASSERT_EQ(0, fxtprof_dev__stats(self->dev, cpu, &st));
		EXPECT_EQ(2, st.records);
		EXPECT_EQ(2 * sizeof(struct fxtprof_flush_rec), st.bytes);
		EXPECT_EQ(2, fxtprof_ring__drain(fxtprof_dev__ring(self->dev, cpu),
						 only_flush_cb, NULL));
	}
}

TEST_F(dev, bad_mmap_is_refused)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 0, 1 << 16);
	const struct fxtprof_info *i;
	__u64 stride, page, len;
	struct vm_recs r = { 0 };
	void *p;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	i = fxtprof_dev__info(self->dev);
	stride = i->mmap_stride;
	page = i->page_size;
	len = page + 2 * i->ring_size;

#define REFUSED(len, prot, flags, off, err) do {				\
		errno = 0;							\
		p = mmap(NULL, (len), (prot), (flags), self->fd, (off));	\
		EXPECT_EQ(MAP_FAILED, p) TH_LOG("%s", #len " " #prot " " #off);	\
		EXPECT_EQ(err, errno) TH_LOG("%s", #len " " #prot " " #off);	\
		if (p != MAP_FAILED)						\
			munmap(p, (len));					\
	} while (0)
	/* past the last ring */
	REFUSED(page, PROT_READ, MAP_SHARED, i->nr_cpus * stride, EINVAL);
	REFUSED(page, PROT_READ, MAP_SHARED, 1000 * stride, EINVAL);
	/* across the end of a CPU's region */
	REFUSED(2 * page, PROT_READ, MAP_SHARED, stride - page, EINVAL);
	REFUSED(stride + page, PROT_READ, MAP_SHARED, 0, EINVAL);
	/* writable control or data */
	REFUSED(page, PROT_READ | PROT_WRITE, MAP_SHARED, page, EPERM);
	REFUSED(len, PROT_READ | PROT_WRITE, MAP_SHARED, page, EPERM);
	REFUSED(page, PROT_WRITE, MAP_SHARED, 2 * page, EPERM);
	REFUSED(page, PROT_READ | PROT_WRITE, MAP_SHARED, stride + 3 * page, EPERM);
	/* private mappings: writes would go to a copy nobody reads */
	REFUSED(page, PROT_READ | PROT_WRITE, MAP_PRIVATE, page, EINVAL);
	REFUSED(page, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0, EINVAL);
	REFUSED(page, PROT_READ, MAP_PRIVATE, page, EINVAL);
	/* the consumer page only alone */
	REFUSED(2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, 0, EPERM);
	/* not page aligned, empty */
	REFUSED(page, PROT_READ, MAP_SHARED, page + 8, EINVAL);
	REFUSED(0, PROT_READ, MAP_SHARED, 0, EINVAL);
#undef REFUSED

	/* a read-only mapping cannot become writable */
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, page);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(p, len, PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(FXTPROF_RING_MAGIC, ((struct fxtprof_ring_ctrl *)p)->magic);
	munmap(p, len);
	/* the consumer page can be mapped RO and upgraded */
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, self->fd, stride);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, mprotect(p, page, PROT_READ | PROT_WRITE));
	munmap(p, page);

	/* and the device still works: samples arrive in the mapped rings */
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	vm_sleep_ms(100);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	EXPECT_LT(0, vm_recs_drain_all(self->dev, &r));
	EXPECT_LT(0, r.nr_by_type[FXTPROF_REC_SAMPLE]);
	vm_recs_free(&r);
}

TEST_F(dev, start_stop)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 1000, 1 << 16);
	struct fxtprof_stats st;
	struct vm_recs r = { 0 };
	size_t first;
	__u64 t0, t1;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	t0 = vm_boottime_ns();
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED | FXTPROF_STATE_ATTACHED |
		  FXTPROF_STATE_RUNNING, fxtprof_dev__info(self->dev)->state);
	vm_sleep_ms(200);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	t1 = vm_boottime_ns();
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED | FXTPROF_STATE_ATTACHED,
		  fxtprof_dev__info(self->dev)->state);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &r));
	first = r.nr_by_type[FXTPROF_REC_SAMPLE];
	EXPECT_LT(0, first);
	EXPECT_EQ(0, r.err);
	vm_recs_for_each(&r, rec) {
		/* CLOCK_BOOTTIME, within the session */
		EXPECT_LE(t0, rec->time_ns);
		EXPECT_GE(t1, rec->time_ns);
		if (rec->time_ns < t0 || rec->time_ns > t1)
			break;
	}

	/* stopped means stopped */
	vm_sleep_ms(50);
	EXPECT_EQ(0, vm_recs_drain_all(self->dev, &r));

	/* and it starts again, same rings */
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	vm_sleep_ms(100);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	EXPECT_LT(0, vm_recs_drain_all(self->dev, &r));
	EXPECT_LT(first, r.nr_by_type[FXTPROF_REC_SAMPLE]);
	{
		__u64 samples = 0;

		for (__u32 cpu = 0; cpu < fxtprof_dev__nr_rings(self->dev); cpu++) {
			ASSERT_EQ(0, fxtprof_dev__stats(self->dev, cpu, &st));
			samples += st.samples;
			EXPECT_EQ(0, st.lost_records);
			EXPECT_LE(st.samples, st.handler_calls);
		}
		EXPECT_EQ(r.nr_by_type[FXTPROF_REC_SAMPLE], samples);
	}
	vm_recs_free(&r);
}

/* poll(2) right now: 1 if readable, 0 if not, -errno. */
static int poll_now(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);

	if (n < 0)
		return -errno;
	return n && (p.revents & POLLIN);
}

static void fork_and_reap(int n)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (!pid)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

/*
 * poll() compares positions and changes nothing: below the watermark a
 * ring is readable until the reader has consumed what the last flush or
 * stop committed, and never because of what an earlier poll saw.  A flush
 * wakes a sleeping poll.
 */
TEST_F(dev, poll_is_a_pure_comparison)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 16);
	struct vm_recs r = { 0 };
	pid_t pid;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	EXPECT_EQ(0, poll_now(self->fd, 0));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));

	/* a flush asks for everything, however often one asks */
	ASSERT_EQ(0, fxtprof_dev__flush(self->dev, NULL));
	EXPECT_EQ(1, poll_now(self->fd, 0));
	EXPECT_EQ(1, poll_now(self->fd, 0));
	ASSERT_LT(0, vm_recs_drain(self->dev, &r));
	/*
	 * No poll between the drain and these records: what the reader
	 * consumed decides, not whether a poll saw the rings empty.
	 */
	fork_and_reap(3);
	EXPECT_EQ(0, poll_now(self->fd, 0));
	EXPECT_EQ(0, poll_now(self->fd, 0));

	/* a stop asks for everything too */
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	EXPECT_EQ(1, poll_now(self->fd, 0));
	ASSERT_LE(0, vm_recs_drain_all(self->dev, &r));
	EXPECT_EQ(0, poll_now(self->fd, 0));
	EXPECT_LT(0, r.nr_by_type[FXTPROF_REC_FORK]);

	/* a flush from elsewhere wakes a sleeping poll */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		vm_sleep_ms(100);
		_exit(fxtprof_dev__flush(self->dev, NULL) ? 1 : 0);
	}
	EXPECT_EQ(1, poll_now(self->fd, 10000));
	{
		int status;

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_EQ(0, status);
	}
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &r));
	EXPECT_EQ(0, poll_now(self->fd, 0));
	EXPECT_EQ(0, r.err);
	vm_recs_free(&r);
}

/* delete_module(2) as rmmod does it: never wait for the module to go idle. */
/* A field of /proc/meminfo ("MemTotal", "MemAvailable"), in bytes. */
static unsigned long long meminfo(const char *field)
{
	unsigned long long kb = 0;
	char line[128], name[64];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %llu kB", name, &kb) == 2 &&
		    !strcmp(name, field))
			break;
	fclose(f);
	return kb << 10;
}

#define MAX_RINGS_KB "/sys/module/fxtprof/parameters/max_rings_kb"

/*
 * Ring memory is capped (max_rings_kb, by default an eighth of RAM): a
 * configuration over the cap gets E2BIG before anything is allocated.
 * With the cap lifted, rings that the available memory cannot hold get
 * ENOMEM, checked before allocating and never by waking the OOM killer
 * (the suite's dmesg scan fails on any OOM report).  Either way the
 * session keeps the rings it had, and they still work.
 */
/*
 * Populating the hog is most of the time: about 1.4 GiB, page by page,
 * in the debug VM, where KASAN and TCG make each page slow (over 30 s,
 * the harness's default, on a loaded host).
 */
TEST_F_TIMEOUT(dev, ring_memory_is_bounded, 100)
{
	struct fxtprof_config small = vm_config(FXTPROF_CFG_SAMPLE, 0, 1 << 16);
	struct fxtprof_info info = get_info(self->fd);
	unsigned long long ram = meminfo("MemTotal"), big, need, avail, hog = 0;
	struct fxtprof_config c;
	char lifted[32];
	void *p = MAP_FAILED;

	ASSERT_NE(0, ram);
	ASSERT_LT(0, info.nr_cpus);
	/* The smallest power of two whose rings exceed the cap. */
	for (big = FXTPROF_MIN_RING_SIZE; info.nr_cpus * big <= ram / 8; big <<= 1)
		;
	ASSERT_LE(big, FXTPROF_MAX_RING_SIZE);

	ASSERT_EQ(0, xioctl(self->fd, FXTPROF_IOC_CONFIGURE, &small));
	c = vm_config(FXTPROF_CFG_SAMPLE, 0, big);
	EXPECT_EQ(-E2BIG, xioctl(self->fd, FXTPROF_IOC_CONFIGURE, &c));
	EXPECT_EQ(1 << 16, get_info(self->fd).ring_size);

	/*
	 * Lift the cap, and take memory away until the largest rings do not
	 * fit in what is left: half of what they need stays available.
	 */
	snprintf(lifted, sizeof(lifted), "%llu", (ram * 4) >> 10);
	ASSERT_EQ(0, vm_write_file(MAX_RINGS_KB, lifted));
	need = (unsigned long long)info.nr_cpus * FXTPROF_MAX_RING_SIZE;
	avail = meminfo("MemAvailable");
	if (avail > need / 2) {
		struct timespec t0, t1;

		hog = avail - need / 2;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		p = mmap(NULL, hog, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		ASSERT_NE(MAP_FAILED, p);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		TH_LOG("%llu MiB taken in %.1f s", hog >> 20,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	c = vm_config(FXTPROF_CFG_SAMPLE, 0, FXTPROF_MAX_RING_SIZE);
	EXPECT_EQ(-ENOMEM, xioctl(self->fd, FXTPROF_IOC_CONFIGURE, &c))
		TH_LOG("%u rings of %u MiB, %llu MiB available",
		       info.nr_cpus, FXTPROF_MAX_RING_SIZE >> 20,
		       meminfo("MemAvailable") >> 20);
	if (p != MAP_FAILED)
		munmap(p, hog);
	EXPECT_EQ(0, vm_write_file(MAX_RINGS_KB, "0"));
	EXPECT_EQ(1 << 16, get_info(self->fd).ring_size);
	/* The session is as it was, and still records. */
	EXPECT_EQ(0, device_works(self->fd));
}

static int try_rmmod(void)
{
	return syscall(SYS_delete_module, "fxtprof", O_NONBLOCK) ? -errno : 0;
}

struct kallsym {
	unsigned long long addr;
	char *name;			/* "name" or "name [module]" */
};

static int kallsym_cmp(const void *a, const void *b)
{
	const struct kallsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The text symbols of /proc/kallsyms, sorted by address; *n of them.
 * Those of code that may go while the test runs, and mapping symbols,
 * are left out.
 */
static struct kallsym *read_kallsyms(size_t *n)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	struct kallsym *v = NULL;
	size_t cap = 0;
	char line[1024], name[760], mod[128];
	unsigned long long addr;
	char type;

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		int k = sscanf(line, "%llx %c %599s %127s", &addr, &type, name,
			       mod);

		if (k < 3 || (type != 't' && type != 'T'))
			continue;
		/* Code that comes and goes (BPF programs, trampolines). */
		if (k == 4 && (!strcmp(mod, "[bpf]") ||
			       !strcmp(mod, "[__builtin__ftrace]")))
			continue;
		/*
		 * arm64's mapping symbols ($x, $d), which 6.12 lists for
		 * modules: the kernel's own lookups pass over them.
		 */
		if (name[0] == '$')
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 65536;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				break;
		}
		v[*n].addr = addr;
		if (k == 4)
			strcat(strcat(name, " "), mod);
		v[(*n)++].name = strdup(name);
	}
	fclose(f);
	if (v)
		qsort(v, *n, sizeof(*v), kallsym_cmp);
	return v;
}

/* Whether kallsyms lists @name at @addr (aliases share addresses). */
static int kallsyms_has(const struct kallsym *v, size_t n,
			unsigned long long addr, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].addr == addr; lo++)
		if (!strcmp(v[lo].name, name))
			return 1;
	return 0;
}

/*
 * FXTPROF_IOC_KSYM names what /proc/kallsyms lists, the kernel's and the
 * modules' (ours among them), and refuses bad queries.
 */
TEST(ksym_names_what_kallsyms_lists)
{
	struct fxtprof_ksym_query q;
	struct kallsym *v;
	size_t n, i, checked = 0, step;
	int fd = open(FXTPROF_DEVICE, O_RDWR), own = 0;

	ASSERT_LE(0, fd);
	v = read_kallsyms(&n);
	ASSERT_NE(NULL, v);
	ASSERT_LT(1000, n);
	step = n / 997;
	for (i = 0; i < n; i += step) {
		unsigned long long addr = v[i].addr;

		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.addr = addr;
		ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_KSYM, &q)) {
			TH_LOG("%llx %s", addr, v[i].name);
		}
		EXPECT_EQ(addr, q.start);
		EXPECT_LT(0, q.len);
		EXPECT_TRUE(kallsyms_has(v, n, q.start, q.name)) {
			TH_LOG("%llx: kallsyms %s, ioctl %s", addr, v[i].name,
			       q.name);
		}
		/* Its last byte is in it too. */
		q.addr = addr + q.len - 1;
		EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_KSYM, &q));
		EXPECT_EQ(addr, q.start);
		checked++;
	}
	/* One of this module's own functions, named with the module. */
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].name, "fxtprof_ksym_lookup [fxtprof]"))
			continue;
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.addr = v[i].addr + 1;
		EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_KSYM, &q));
		EXPECT_EQ(v[i].addr, q.start);
		EXPECT_STREQ("fxtprof_ksym_lookup [fxtprof]", q.name);
		own++;
	}
	EXPECT_EQ(1, own);
	TH_LOG("%zu of %zu text symbols checked", checked, n);

	/* Bad queries, each refused with its errno. */
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.addr = 0;
	EXPECT_EQ(-ENOENT, xioctl(fd, FXTPROF_IOC_KSYM, &q));
	q.addr = ~0ull;
	EXPECT_EQ(-ENOENT, xioctl(fd, FXTPROF_IOC_KSYM, &q));
	q.addr = v[0].addr;
	q.flags = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_KSYM, &q));
	q.flags = 0;
	q.size = 8;
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_KSYM, &q));
	EXPECT_EQ(-EFAULT, xioctl(fd, FXTPROF_IOC_KSYM, (void *)8));
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	EXPECT_EQ(0, device_works(fd));
	close(fd);
}

/*
 * rmmod while the device is open, or while a ring is still mapped after
 * close, fails cleanly and leaves the module working.  /init unloads it
 * for real after the last test.
 */
TEST(rmmod_while_open_or_mapped_fails)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 1000, 0);
	long pg = page_size();
	int fd, err;
	void *p;

	fd = open(FXTPROF_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	err = try_rmmod();
	EXPECT_TRUE(err == -EWOULDBLOCK || err == -EBUSY) TH_LOG("rmmod: %d", err);

	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_CONFIGURE, &c));
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, close(fd));
	err = try_rmmod();
	EXPECT_TRUE(err == -EWOULDBLOCK || err == -EBUSY) TH_LOG("rmmod: %d", err);
	/* The mapping still works, and still holds the session. */
	EXPECT_EQ(0, ((struct fxtprof_ring_consumer *)p)->consumer_pos);
	EXPECT_EQ(-1, open(FXTPROF_DEVICE, O_RDWR | O_CLOEXEC));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, munmap(p, pg));

	fd = open(FXTPROF_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, device_works(fd));
	close(fd);
}

TEST_HARNESS_MAIN

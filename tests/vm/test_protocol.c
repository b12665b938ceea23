// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_protocol.c - the module-reader protocol of Documentation/protocol.md:
 * attach (every rejection, a rejected attach leaving a working session
 * alone, retry), detach (a fresh session for the next open while the old
 * mappings stay valid), sync, and flush (concurrent producers on every
 * CPU with sequence numbers, hotplug during flushes, a flush while
 * stopped).  Each row of the state table names the test here that covers
 * it.
 *
 * Runs in the test VM after `insmod /fxtprof.ko`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "vm_util.h"

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

static int attach_with(int fd, struct fxtprof_attach *a)
{
	return xioctl(fd, FXTPROF_IOC_ATTACH, a);
}

/* poll(2) now: the revents, or -errno. */
static int poll_events(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);

	return n < 0 ? -errno : (n ? p.revents : 0);
}

/* ------------------------------------------------------------------ */
/* Attach                                                              */
/* ------------------------------------------------------------------ */

struct bad_attach {
	const char *what;
	int err;
};

/*
 * Every way an attach can be wrong, on a configured session with every
 * ring mapped by hand.  After each: not attached, START still refused,
 * nothing recorded.  Then the valid request is accepted (the retry), a
 * second one is EBUSY, and the session records.
 */
TEST(attach_rejections_then_retry)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 16);
	const int fd = open(FXTPROF_DEVICE, O_RDWR);
	struct fxtprof_attach_ring *saved;
	struct fxtprof_attach a;
	struct fxtprof_info info;
	struct vm_raw_maps m;
	long page = sysconf(_SC_PAGESIZE);
	void *anon, *short_ro, *consumer_ro;
	unsigned int n;
	int zfd, status;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_CONFIGURE, &c));
	ASSERT_EQ(0, vm_raw_map(fd, &m));
	info = get_info(fd);
	n = m.nr;
	ASSERT_LE(2, n);
	saved = calloc(n, sizeof(*saved));
	ASSERT_NE(NULL, saved);
	memcpy(saved, m.rings, n * sizeof(*saved));

	anon = mmap(NULL, m.ro_len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, anon);
	zfd = open("/dev/zero", O_RDWR);
	ASSERT_LE(0, zfd);
	/* CPU 1's control page and one copy of the data: too short */
	short_ro = mmap(NULL, page + info.ring_size, PROT_READ, MAP_SHARED, fd,
			info.mmap_stride + page);
	ASSERT_NE(MAP_FAILED, short_ro);
	consumer_ro = mmap(NULL, page, PROT_READ, MAP_SHARED, fd,
			   info.mmap_stride);
	ASSERT_NE(MAP_FAILED, consumer_ro);

#define REJECT(desc, err, ...) do {					\
		a = vm_raw_attach_req(fd, &m);				\
		memcpy(m.rings, saved, n * sizeof(*saved));		\
		__VA_ARGS__;						\
		EXPECT_EQ(err, attach_with(fd, &a)) TH_LOG("%s", desc);	\
		EXPECT_EQ(FXTPROF_STATE_CONFIGURED, get_info(fd).state)	\
			TH_LOG("%s", desc);				\
		EXPECT_EQ(-ENOTCONN, xioctl(fd, FXTPROF_IOC_START, NULL)) \
			TH_LOG("%s", desc);				\
	} while (0)

	/* the layout version the reader speaks */
	REJECT("version 2", -EPROTO, a.version = 2);
	REJECT("version 4", -EPROTO, a.version = FXTPROF_ABI_VERSION + 1);
	REJECT("version 0", -EPROTO, a.version = 0);
	/* the request itself */
	REJECT("flags", -EINVAL, a.flags = 1);
	REJECT("reserved", -EINVAL, a.reserved = 1u << 31);
	REJECT("size 40", -EINVAL, a.size = 40);
	REJECT("rings_ptr NULL", -EFAULT, a.rings_ptr = 0);
	REJECT("rings_ptr bad", -EFAULT, a.rings_ptr = 8);
	/* geometry */
	REJECT("ring_size / 2", -EINVAL, a.ring_size /= 2);
	REJECT("ring_size * 2", -EINVAL, a.ring_size *= 2);
	REJECT("mmap_stride + page", -EINVAL, a.mmap_stride += page);
	REJECT("page_size 2x", -EINVAL, a.page_size *= 2);
	REJECT("nr_rings - 1", -EINVAL, a.nr_rings = n - 1);
	REJECT("nr_rings + 1", -EINVAL, a.nr_rings = n + 1);
	REJECT("nr_rings 0", -EINVAL, a.nr_rings = 0);
	/* the mappings: missing, not ours, wrong offset, too short */
	REJECT("CPU 1 missing", -ENXIO, memset(&m.rings[1], 0, sizeof(m.rings[1])));
	REJECT("CPU 1 consumer missing", -ENXIO, m.rings[1].consumer_addr = 0);
	REJECT("CPU 0 ctrl missing", -ENXIO, m.rings[0].ctrl_addr = 0);
	REJECT("consumer not mapped", -ENXIO,
	       m.rings[0].consumer_addr = 0x10000);
	REJECT("consumer unaligned", -ENXIO, m.rings[0].consumer_addr += 8);
	REJECT("consumer anonymous", -ENXIO,
	       m.rings[0].consumer_addr = (uintptr_t)anon);
	REJECT("ctrl anonymous", -ENXIO, m.rings[0].ctrl_addr = (uintptr_t)anon);
	REJECT("consumer /dev/zero", -ENXIO, {
		void *z = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
			       zfd, 0);
		ASSERT_NE(MAP_FAILED, z);
		m.rings[0].consumer_addr = (uintptr_t)z;
	});
	REJECT("consumers swapped", -ENXIO, {
		m.rings[0].consumer_addr = saved[1].consumer_addr;
		m.rings[1].consumer_addr = saved[0].consumer_addr;
	});
	REJECT("ctrls swapped", -ENXIO, {
		m.rings[0].ctrl_addr = saved[1].ctrl_addr;
		m.rings[1].ctrl_addr = saved[0].ctrl_addr;
	});
	REJECT("consumer given as ctrl", -ENXIO,
	       m.rings[0].ctrl_addr = saved[0].consumer_addr);
	REJECT("ctrl one page in", -ENXIO, {
		m.rings[0].ctrl_addr += page;
		m.rings[0].ctrl_len -= page;
	});
	REJECT("consumer mapped read-only", -ENXIO,
	       m.rings[1].consumer_addr = (uintptr_t)consumer_ro);
	REJECT("ctrl_len short", -ENXIO, m.rings[0].ctrl_len -= page);
	REJECT("ctrl_len 0", -ENXIO, m.rings[0].ctrl_len = 0);
	REJECT("ctrl_len past the mapping", -ENXIO, m.rings[0].ctrl_len += page);
	REJECT("mapping shorter than the ring", -ENXIO, {
		m.rings[1].ctrl_addr = (uintptr_t)short_ro;
		m.rings[1].ctrl_len = m.ro_len;
	});
	REJECT("ctrl_len wraps", -ENXIO, m.rings[0].ctrl_len = ~0ull - 4095);

	/* Another process's mappings are not the caller's. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct fxtprof_attach req = vm_raw_attach_req(fd, &m);

		memcpy(m.rings, saved, n * sizeof(*saved));
		for (unsigned int cpu = 0; cpu < n; cpu++) {
			munmap((void *)(uintptr_t)saved[cpu].consumer_addr, page);
			munmap((void *)(uintptr_t)saved[cpu].ctrl_addr, m.ro_len);
		}
		_exit(attach_with(fd, &req) == -ENXIO ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED, get_info(fd).state);

	/* Rings a reader drained before are not new. */
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_FLUSH,
			    &(struct fxtprof_flush){ .size = 16 }));
	{
		struct fxtprof_ring_consumer *cons =
			(void *)(uintptr_t)saved[1].consumer_addr;

		cons->consumer_pos = sizeof(struct fxtprof_flush_rec);
		REJECT("consumer_pos moved", -ESTALE, (void)0);
		/* a position beyond what was ever written, the same */
		cons->consumer_pos = 1ull << 40;
		REJECT("consumer_pos garbage", -ESTALE, (void)0);
		/*
		 * Put back: nothing was overwritten, so the ring is new
		 * again and the reader will start at 0.
		 */
		cons->consumer_pos = 0;
	}
#undef REJECT

	/* The retry: the valid request is accepted, once. */
	memcpy(m.rings, saved, n * sizeof(*saved));
	ASSERT_EQ(0, vm_raw_attach(fd, &m));
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED | FXTPROF_STATE_ATTACHED,
		  get_info(fd).state);
	EXPECT_EQ(-EBUSY, vm_raw_attach(fd, &m));
	/* Data published before the attach is kept: the FLUSH at 0. */
	for (unsigned int cpu = 0; cpu < n; cpu++) {
		const struct fxtprof_ring_ctrl *ctrl =
			(const void *)(uintptr_t)saved[cpu].ctrl_addr;
		const struct fxtprof_flush_rec *f =
			(const void *)((const char *)ctrl + ctrl->data_offset -
				       page);

		EXPECT_EQ(sizeof(*f), ctrl->producer_pos);
		EXPECT_EQ(FXTPROF_REC_FLUSH, f->hdr.type);
		EXPECT_EQ(1, f->seq);
	}
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_START, NULL));
	vm_sleep_ms(20);
	{
		pid_t child = fork();

		if (!child)
			_exit(0);
		waitpid(child, NULL, 0);
	}
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_STOP, NULL));
	{
		__u64 total = 0;

		for (unsigned int cpu = 0; cpu < n; cpu++) {
			const struct fxtprof_ring_ctrl *ctrl =
				(const void *)(uintptr_t)saved[cpu].ctrl_addr;

			total += ctrl->producer_pos;
		}
		/* the fork and the exit, at least, beyond the n markers */
		EXPECT_LT(n * sizeof(struct fxtprof_flush_rec), total);
	}
	munmap(anon, m.ro_len);
	munmap(short_ro, page + info.ring_size);
	munmap(consumer_ro, page);
	close(zfd);
	vm_raw_unmap(&m);
	free(saved);
	close(fd);
}

/*
 * A running, attached session is not disturbed by attaches that fail on
 * its own file: the state, the rings and the records stay as they were.
 */
TEST(rejected_attach_leaves_session_undisturbed)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_SAMPLE,
					    1000, 1 << 20);
	const unsigned int want = FXTPROF_STATE_CONFIGURED |
				  FXTPROF_STATE_ATTACHED | FXTPROF_STATE_RUNNING;
	struct fxtprof_dev *dev;
	struct vm_recs r = { 0 };
	struct vm_raw_maps m;
	struct fxtprof_attach a;
	struct fxtprof_stats st;
	size_t before;
	int fd;

	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	fd = fxtprof_dev__fd(dev);
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	vm_sleep_ms(50);
	ASSERT_LT(0, vm_recs_drain(dev, &r));
	before = r.nr_by_type[FXTPROF_REC_SAMPLE];

	/* a second reader's mappings of the same file, valid in themselves */
	ASSERT_EQ(0, vm_raw_map(fd, &m));
	EXPECT_EQ(-EBUSY, vm_raw_attach(fd, &m));
	a = vm_raw_attach_req(fd, &m);
	a.version = 1;
	EXPECT_EQ(-EPROTO, attach_with(fd, &a));
	a = vm_raw_attach_req(fd, &m);
	a.ring_size = 1 << 16;
	EXPECT_EQ(-EINVAL, attach_with(fd, &a));
	a = vm_raw_attach_req(fd, &m);
	a.rings_ptr = 0;
	EXPECT_EQ(-EFAULT, attach_with(fd, &a));
	EXPECT_EQ(want, get_info(fd).state);
	vm_raw_unmap(&m);

	/* still recording into the same rings, nothing lost */
	vm_sleep_ms(50);
	ASSERT_EQ(0, fxtprof_dev__stop(dev));
	ASSERT_LT(0, vm_recs_drain_all(dev, &r));
	EXPECT_LT(before, r.nr_by_type[FXTPROF_REC_SAMPLE]);
	EXPECT_EQ(0, r.err);
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		ASSERT_EQ(0, fxtprof_dev__stats(dev, cpu, &st));
		EXPECT_EQ(0, st.lost_records);
	}
	vm_recs_free(&r);
	fxtprof_dev__close(dev);
}

/* ------------------------------------------------------------------ */
/* Detach                                                              */
/* ------------------------------------------------------------------ */

static int last_type;
static __u64 last_flush;

static int note_last(void *ctx, const struct fxtprof_rec_hdr *h)
{
	(void)ctx;
	last_type = h->type;
	if (h->type == FXTPROF_REC_FLUSH)
		last_flush = ((const struct fxtprof_flush_rec *)h)->seq;
	return 0;
}

/*
 * DETACH: the session stops, leaves a last FLUSH on every ring, and gives
 * the device up.  Its file answers GET_INFO and GET_STATS, and poll says
 * EPOLLHUP (with EPOLLIN until drained); everything else is ESHUTDOWN.
 * A new open gets a fresh session while the old mappings stay readable,
 * and the old file's close does not free the new session's slot.
 */
TEST(detach_then_fresh_session_old_mappings_valid)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 16);
	struct fxtprof_flush f = { .size = sizeof(f) };
	struct fxtprof_sync sy = { .size = sizeof(sy) };
	struct fxtprof_stats st;
	struct fxtprof_dev *dev, *dev2;
	struct vm_raw_maps m = { 0 }, old = { 0 };
	struct fxtprof_attach req;
	__u64 seq = 0;
	int fd, fd2, fd3, ev;
	void *p;

	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	fd = fxtprof_dev__fd(dev);
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	/* a second set of this session's mappings, offered to the next one */
	ASSERT_EQ(0, vm_raw_map(fd, &old));
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	ASSERT_EQ(0, fxtprof_dev__flush(dev, &seq));
	{
		pid_t child = fork();

		if (!child)
			_exit(0);
		waitpid(child, NULL, 0);
	}
	/* another open is refused while the session holds the device */
	EXPECT_EQ(-1, open(FXTPROF_DEVICE, O_RDWR));
	EXPECT_EQ(EBUSY, errno);

	ASSERT_EQ(0, fxtprof_dev__detach(dev));
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED | FXTPROF_STATE_DETACHED,
		  get_info(fd).state);
	EXPECT_EQ(0, fxtprof_dev__stats(dev, 0, &st));
	EXPECT_LT(0, st.records);
	EXPECT_EQ(-ESHUTDOWN, xioctl(fd, FXTPROF_IOC_START, NULL));
	EXPECT_EQ(-ESHUTDOWN, xioctl(fd, FXTPROF_IOC_STOP, NULL));
	EXPECT_EQ(-ESHUTDOWN, xioctl(fd, FXTPROF_IOC_CONFIGURE, &c));
	EXPECT_EQ(-ESHUTDOWN, xioctl(fd, FXTPROF_IOC_FLUSH, &f));
	EXPECT_EQ(-ESHUTDOWN, xioctl(fd, FXTPROF_IOC_SYNC, &sy));
	EXPECT_EQ(-ESHUTDOWN, xioctl(fd, FXTPROF_IOC_DETACH, NULL));
	EXPECT_EQ(-ESHUTDOWN, vm_raw_attach(fd, &m));
	errno = 0;
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ESHUTDOWN, errno);
	/* what is left is readable, and the hangup shows */
	ev = poll_events(fd, 0);
	EXPECT_EQ(POLLIN | POLLHUP, ev & (POLLIN | POLLHUP));

	/*
	 * The next session refuses the old one's mappings: same geometry,
	 * same offsets, but another file (not this session's).
	 */
	fd3 = open(FXTPROF_DEVICE, O_RDWR);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, xioctl(fd3, FXTPROF_IOC_CONFIGURE, &c));
	req = vm_raw_attach_req(fd3, &old);
	EXPECT_EQ(-ENXIO, attach_with(fd3, &req));
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED, get_info(fd3).state);
	EXPECT_EQ(-ENOTCONN, xioctl(fd3, FXTPROF_IOC_START, NULL));
	close(fd3);
	vm_raw_unmap(&old);

	/* a fresh session for the next open, while the old one is mapped */
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev2));
	fd2 = fxtprof_dev__fd(dev2);
	EXPECT_EQ(0, get_info(fd2).state);
	c.ring_size = 1 << 15;
	ASSERT_EQ(0, fxtprof_dev__configure(dev2, &c));
	EXPECT_EQ(FXTPROF_STATE_CONFIGURED | FXTPROF_STATE_ATTACHED,
		  get_info(fd2).state);
	ASSERT_EQ(0, fxtprof_dev__start(dev2));

	/* the old rings drain to their last marker, the detach's */
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		struct fxtprof_ring *ring = fxtprof_dev__ring(dev, cpu);

		ASSERT_NE(NULL, ring);
		EXPECT_EQ(1 << 16, fxtprof_ring__size(ring));
		last_type = 0;
		EXPECT_LT(0, fxtprof_ring__drain(ring, note_last, NULL));
		EXPECT_EQ(FXTPROF_REC_FLUSH, last_type) TH_LOG("CPU %u", cpu);
		EXPECT_EQ(seq + 1, last_flush) TH_LOG("CPU %u", cpu);
		EXPECT_EQ(0, fxtprof_ring__pending(ring));
	}
	ev = poll_events(fd, 0);
	EXPECT_EQ(POLLHUP, ev & (POLLIN | POLLHUP));

	/* closing the old one leaves the new one the device */
	fxtprof_dev__close(dev);
	EXPECT_EQ(-1, open(FXTPROF_DEVICE, O_RDWR));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, fxtprof_dev__stop(dev2));
	fxtprof_dev__close(dev2);
	fd = open(FXTPROF_DEVICE, O_RDWR);
	ASSERT_LE(0, fd);
	close(fd);
}

/*
 * Detach before configure, and a detached file whose last mapping
 * outlives it: the session lives until both are gone.
 */
TEST(detach_unconfigured_and_mapping_outlives_file)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 16);
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(FXTPROF_DEVICE, O_RDWR);
	int fd2;
	struct fxtprof_ring_ctrl *ctrl;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xioctl(fd, FXTPROF_IOC_DETACH, NULL));
	EXPECT_EQ(FXTPROF_STATE_DETACHED, get_info(fd).state);
	fd2 = open(FXTPROF_DEVICE, O_RDWR);
	ASSERT_LE(0, fd2);
	close(fd);

	ASSERT_EQ(0, xioctl(fd2, FXTPROF_IOC_CONFIGURE, &c));
	ctrl = mmap(NULL, page, PROT_READ, MAP_SHARED, fd2, page);
	ASSERT_NE(MAP_FAILED, ctrl);
	ASSERT_EQ(0, xioctl(fd2, FXTPROF_IOC_DETACH, NULL));
	close(fd2);
	/* the mapping keeps the old session: its marker is there */
	EXPECT_EQ(FXTPROF_RING_MAGIC, ctrl->magic);
	EXPECT_EQ(sizeof(struct fxtprof_flush_rec), ctrl->producer_pos);
	fd = open(FXTPROF_DEVICE, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, get_info(fd).state);
	munmap(ctrl, page);
	/* the old session's end does not free the slot of this one */
	EXPECT_EQ(-1, open(FXTPROF_DEVICE, O_RDWR));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Sync                                                                */
/* ------------------------------------------------------------------ */

/*
 * SYNC counts every request the session processed before it, failed ones
 * included, unknown ones (ENOTTY) not; it is itself one.  After a flush
 * and a sync the wakeup is delivered: poll says readable at once.
 */
TEST(sync_counts_requests_and_is_a_barrier)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 16);
	struct fxtprof_sync s = { .size = sizeof(s) };
	struct fxtprof_dev *dev;
	__u64 n0 = 0, n1 = 0;
	int fd;

	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	fd = fxtprof_dev__fd(dev);
	ASSERT_EQ(0, fxtprof_dev__sync(dev, &n0));
	/* open's GET_INFO */
	EXPECT_EQ(1, n0);
	ASSERT_EQ(0, fxtprof_dev__sync(dev, &n1));
	EXPECT_EQ(n0 + 1, n1);

	get_info(fd);						/* 1 */
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_START, NULL));	/* 2 */
	EXPECT_EQ(-ENOTTY, xioctl(fd, _IO(FXTPROF_IOC_MAGIC, 99), NULL));
	EXPECT_EQ(0, xioctl(fd, FXTPROF_IOC_STOP, NULL));		/* 3 */
	ASSERT_EQ(0, fxtprof_dev__sync(dev, &n0));
	EXPECT_EQ(n1 + 1 + 3, n0);

	s.flags = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_SYNC, &s));
	s = (struct fxtprof_sync){ .size = 8 };
	EXPECT_EQ(-EINVAL, xioctl(fd, FXTPROF_IOC_SYNC, &s));
	EXPECT_EQ(-EFAULT, xioctl(fd, FXTPROF_IOC_SYNC, NULL));
	ASSERT_EQ(0, fxtprof_dev__sync(dev, &n1));
	EXPECT_EQ(n0 + 1 + 3, n1);

	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	ASSERT_EQ(0, fxtprof_dev__stop(dev));
	ASSERT_EQ(0, fxtprof_dev__flush(dev, NULL));
	ASSERT_EQ(0, fxtprof_dev__sync(dev, NULL));
	EXPECT_EQ(POLLIN, poll_events(fd, 0) & POLLIN);
	fxtprof_dev__close(dev);
}

/* ------------------------------------------------------------------ */
/* Flush                                                               */
/* ------------------------------------------------------------------ */

#define MAX_PRODUCERS	64

/*
 * How far a producer may run ahead of the drain, in renames: 4096 RENAME
 * records are 224 KiB, far below the 4 MiB ring.  Without the bound the
 * producers write a few MB/s each (TCG), and a reader that does not run
 * for a second (its vCPU preempted on a loaded host) overflows a ring: the
 * rename the flush must follow is lost, or the marker itself, and the
 * test fails for a reason that is not the flush's.
 */
#define PRODUCER_BACKLOG	4096

/*
 * One thread per CPU, pinned, renaming itself "q<cpu>-<n>" with n counting
 * up: each rename is a RENAME record on that CPU's ring, committed before
 * prctl() returns, after which the thread publishes n.
 */
struct producers {
	pthread_t thr[MAX_PRODUCERS];
	atomic_ullong done[MAX_PRODUCERS];	/* last n committed */
	atomic_ullong drained[MAX_PRODUCERS];	/* seen[] after a drain pass */
	unsigned long long seen[MAX_PRODUCERS];	/* highest n drained */
	unsigned long long want[MAX_PRODUCERS];	/* done[] at the flush */
	int nr;
	atomic_int stop;
	atomic_int pin_errors;
	unsigned int checked, violations, misplaced;
	__u64 flush_seq;
	struct {				/* the first violation */
		unsigned int cpu;
		__u64 seq;
		unsigned long long seen, want;
	} bad;
};

struct producer_arg {
	struct producers *p;
	int cpu;
};

static struct producer_arg parg[MAX_PRODUCERS];

static void *producer_fn(void *arg)
{
	struct producer_arg *a = arg;
	struct producers *p = a->p;
	cpu_set_t set;
	char name[16];

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	/* Unpinned, the renames would land on other CPUs' rings. */
	if (sched_setaffinity(0, sizeof(set), &set))
		atomic_fetch_add(&p->pin_errors, 1);
	for (unsigned long long n = 1; !atomic_load(&p->stop); n++) {
		while (n - atomic_load(&p->drained[a->cpu]) > PRODUCER_BACKLOG &&
		       !atomic_load(&p->stop))
			usleep(100);
		snprintf(name, sizeof(name), "q%d-%llu", a->cpu, n);
		prctl(PR_SET_NAME, name);
		atomic_store(&p->done[a->cpu], n);
		if (!(n % 64))
			usleep(100);
	}
	return NULL;
}

static int producers_start(struct producers *p, int n)
{
	memset(p, 0, sizeof(*p));
	p->nr = n > MAX_PRODUCERS ? MAX_PRODUCERS : n;
	for (int i = 0; i < p->nr; i++) {
		parg[i] = (struct producer_arg){ p, i };
		if (pthread_create(&p->thr[i], NULL, producer_fn, &parg[i]))
			return -1;
	}
	return 0;
}

static void producers_stop(struct producers *p)
{
	atomic_store(&p->stop, 1);
	for (int i = 0; i < p->nr; i++)
		pthread_join(p->thr[i], NULL);
}

/*
 * In ring order: a rename raises seen[] of its thread; the marker of the
 * flush in progress on CPU c checks that c's producer was seen at least
 * up to what it had committed when the flush was asked for.
 */
static int seq_cb(void *ctx, const struct fxtprof_rec_hdr *h)
{
	struct producers *p = ctx;

	if (h->type == FXTPROF_REC_RENAME) {
		const struct fxtprof_rename *r = (const void *)h;
		unsigned long long n;
		int cpu;

		if (sscanf(r->comm, "q%d-%llu", &cpu, &n) != 2 ||
		    cpu < 0 || cpu >= p->nr)
			return 0;
		if (cpu != h->cpu)
			p->misplaced++;
		if (n > p->seen[cpu])
			p->seen[cpu] = n;
	} else if (h->type == FXTPROF_REC_FLUSH &&
		   ((const struct fxtprof_flush_rec *)h)->seq == p->flush_seq &&
		   h->cpu < p->nr) {
		p->checked++;
		if (p->seen[h->cpu] < p->want[h->cpu] && !p->violations++) {
			p->bad.cpu = h->cpu;
			p->bad.seq = p->flush_seq;
			p->bad.seen = p->seen[h->cpu];
			p->bad.want = p->want[h->cpu];
		}
	}
	return 0;
}

/* Drain every ring once, then let the producers run on. */
static int drain_pass(struct fxtprof_dev *dev, struct producers *p)
{
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		struct fxtprof_ring *ring = fxtprof_dev__ring(dev, cpu);
		int n;

		if (!ring)
			continue;
		n = fxtprof_ring__drain(ring, seq_cb, p);
		if (n < 0)
			return n;
	}
	for (int t = 0; t < p->nr; t++)
		atomic_store(&p->drained[t], p->seen[t]);
	return 0;
}

static bool flushed(struct fxtprof_dev *dev, const struct producers *p,
		    __u64 seq)
{
	(void)p;
	return fxtprof_dev__flush_done(dev, seq);
}

/*
 * Every producer has committed a rename beyond want[]: each flush then
 * has a record of every producer to be ordered after.
 */
static bool all_renamed(struct fxtprof_dev *dev, const struct producers *p,
			__u64 unused)
{
	(void)dev;
	(void)unused;
	for (int t = 0; t < p->nr; t++)
		if (atomic_load(&p->done[t]) <= p->want[t])
			return false;
	return true;
}

/* Drain pass after pass until done(dev, p, arg), or -ETIMEDOUT. */
static int drain_until(struct fxtprof_dev *dev, struct producers *p,
		       bool (*done)(struct fxtprof_dev *, const struct producers *,
				    __u64),
		       __u64 arg, unsigned int timeout_ms)
{
	unsigned long long end = vm_boottime_ns() + timeout_ms * 1000000ull;
	int err;

	while (!done(dev, p, arg)) {
		err = drain_pass(dev, p);
		if (err)
			return err;
		if (vm_boottime_ns() > end)
			return -ETIMEDOUT;
		poll_events(fxtprof_dev__fd(dev), 1);
	}
	return 0;
}

/*
 * Producers on every CPU, sampling at 1 kHz on top, and 50 flushes: each
 * completes, and its marker on each CPU comes after every record that
 * CPU's producer had committed when the flush was asked for.  Before each
 * flush every producer has renamed itself again since the last one, and
 * none is ever more than PRODUCER_BACKLOG renames ahead of the drain, so
 * nothing depends on how fast the reader runs: no ring can fill.
 */
TEST(flush_sees_everything_committed_before_it)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_SAMPLE,
					    1000, 4 << 20);
	struct producers *p = calloc(1, sizeof(*p));
	struct fxtprof_dev *dev;
	struct fxtprof_stats st;
	int nr_online;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	nr_online = fxtprof_dev__info(dev)->nr_online;
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	ASSERT_EQ(0, producers_start(p, nr_online));
	for (int i = 0; i < 50; i++) {
		__u64 seq;

		ASSERT_EQ(0, drain_until(dev, p, all_renamed, 0, 10000))
			TH_LOG("before flush %d", i + 1);
		for (int t = 0; t < p->nr; t++)
			p->want[t] = atomic_load(&p->done[t]);
		ASSERT_EQ(0, fxtprof_dev__flush(dev, &seq));
		p->flush_seq = seq;
		ASSERT_EQ(0, drain_until(dev, p, flushed, seq, 10000))
			TH_LOG("flush %llu", (unsigned long long)seq);
		for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++)
			EXPECT_LE(seq, fxtprof_ring__flush_seq(
					fxtprof_dev__ring(dev, cpu)));
	}
	producers_stop(p);
	ASSERT_EQ(0, fxtprof_dev__stop(dev));
	TH_LOG("%u markers checked, last committed %llu on CPU 0",
	       p->checked, p->want[0]);
	EXPECT_EQ(0, atomic_load(&p->pin_errors));
	EXPECT_EQ(0, p->misplaced);
	EXPECT_EQ(50u * p->nr, p->checked);
	EXPECT_EQ(0, p->violations)
		TH_LOG("first at flush %llu on CPU %u: renames drained up to %llu, %llu committed before the flush",
		       (unsigned long long)p->bad.seq, p->bad.cpu,
		       p->bad.seen, p->bad.want);
	for (int t = 0; t < p->nr; t++) {
		EXPECT_LE(50, p->want[t]) TH_LOG("CPU %d", t);
	}
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		ASSERT_EQ(0, fxtprof_dev__stats(dev, cpu, &st));
		EXPECT_EQ(0, st.lost_records) TH_LOG("CPU %u", cpu);
	}
	fxtprof_dev__close(dev);
	free(p);
}

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

struct hotplug_arg {
	atomic_int stop;
	int toggles, errors;
};

static void *hotplug_fn(void *arg)
{
	struct hotplug_arg *h = arg;

	while (!atomic_load(&h->stop)) {
		if (vm_write_file(CPU1_ONLINE, "0") ||
		    vm_write_file(CPU1_ONLINE, "1"))
			h->errors++;
		h->toggles++;
	}
	return NULL;
}

/*
 * CPU 1 goes offline and online in a loop while flushes run: every flush
 * completes, with a marker on every ring (an offline CPU's ring gets its
 * marker from the flushing CPU), in order, and sampling goes on.
 */
TEST(flush_during_hotplug)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_SAMPLE,
					    1000, 1 << 20);
	struct hotplug_arg h = { 0 };
	struct producers *p = calloc(1, sizeof(*p));
	struct fxtprof_dev *dev;
	pthread_t thr;
	__u64 seq = 0, prev = 0;
	int flushes = 0;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, access(CPU1_ONLINE, W_OK));
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	/* no producers: count the markers of every ring */
	p->nr = fxtprof_dev__info(dev)->nr_cpus;
	ASSERT_GE(MAX_PRODUCERS, p->nr);
	ASSERT_EQ(0, pthread_create(&thr, NULL, hotplug_fn, &h));
	{
		unsigned long long end = vm_boottime_ns() + 3000000000ull;

		while (vm_boottime_ns() < end || h.toggles < 3) {
			ASSERT_EQ(0, fxtprof_dev__flush(dev, &seq));
			EXPECT_LT(prev, seq);
			prev = seq;
			p->flush_seq = seq;
			ASSERT_EQ(0, drain_until(dev, p, flushed, seq, 10000))
				TH_LOG("flush %llu", (unsigned long long)seq);
			flushes++;
			if (vm_boottime_ns() > end + 60000000000ull)
				break;
		}
	}
	atomic_store(&h.stop, 1);
	pthread_join(thr, NULL);
	EXPECT_EQ(0, vm_write_file(CPU1_ONLINE, "1"));
	TH_LOG("%d flushes over %d offline/online cycles", flushes, h.toggles);
	EXPECT_LE(3, h.toggles);
	EXPECT_EQ(0, h.errors);
	/* each flush left its marker on every ring */
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++)
		EXPECT_EQ(seq, fxtprof_ring__flush_seq(fxtprof_dev__ring(dev, cpu)));
	EXPECT_EQ(flushes, (int)p->checked / fxtprof_dev__info(dev)->nr_cpus);
	ASSERT_EQ(0, fxtprof_dev__stop(dev));
	fxtprof_dev__close(dev);
	free(p);
}

/*
 * A flush while sampling is stopped (before the first start, and after a
 * stop) writes exactly one marker per ring, after everything, and
 * completes once drained.
 */
TEST(flush_while_stopped)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_SAMPLE,
					    1000, 1 << 16);
	struct fxtprof_stats st;
	struct fxtprof_dev *dev;
	struct vm_recs r = { 0 };
	__u64 seq;

	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	ASSERT_EQ(0, fxtprof_dev__flush(dev, &seq));
	EXPECT_EQ(0, fxtprof_dev__flush_done(dev, seq));
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		ASSERT_EQ(0, fxtprof_dev__stats(dev, cpu, &st));
		EXPECT_EQ(1, st.records);
	}
	ASSERT_EQ(fxtprof_dev__nr_rings(dev), vm_recs_drain_all(dev, &r));
	EXPECT_EQ(1, fxtprof_dev__flush_done(dev, seq));

	ASSERT_EQ(0, fxtprof_dev__start(dev));
	vm_sleep_ms(50);
	ASSERT_EQ(0, fxtprof_dev__stop(dev));
	ASSERT_EQ(0, fxtprof_dev__flush(dev, &seq));
	EXPECT_EQ(0, fxtprof_dev__flush_done(dev, seq));
	for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
		struct fxtprof_ring *ring = fxtprof_dev__ring(dev, cpu);

		last_type = 0;
		ASSERT_LE(0, fxtprof_ring__drain(ring, note_last, NULL));
		EXPECT_EQ(FXTPROF_REC_FLUSH, last_type);
		EXPECT_EQ(seq, last_flush);
		EXPECT_EQ(seq, fxtprof_ring__flush_seq(ring));
	}
	EXPECT_EQ(1, fxtprof_dev__flush_done(dev, seq));
	EXPECT_EQ(1, fxtprof_dev__flush_done(dev, seq - 1));
	EXPECT_EQ(0, fxtprof_dev__flush_done(dev, seq + 1));
	vm_recs_free(&r);
	fxtprof_dev__close(dev);
}

TEST_HARNESS_MAIN

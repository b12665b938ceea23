// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_annotate - write(2) of a struct fxtprof_annotation on
 * /dev/fxtprof-annotate (ABI 4), in the VM:
 *  - no running session (none, configured, stopped): -ESRCH; the main
 *    device takes no annotation (-EINVAL);
 *  - a running session configured without FXTPROF_CFG_ANNOTATE: -ESRCH
 *    and no record, while a trigger still lands; with the bit, taken;
 *  - every invalid field, one at a time: -EINVAL (a bad buffer -EFAULT),
 *    and nothing reaches the rings;
 *  - each kind, from each online CPU, is an ANNOTATION record in that
 *    CPU's ring with the caller's pid and tid, the kind, key and name,
 *    a zero-padded tail; names of 1 and 512 bytes;
 *  - a full ring counts annotations as lost, and says so in a LOST record;
 *  - 16 threads annotating at once: every record arrives, intact;
 *  - a descriptor of the annotate device, even one root opened, neither
 *    reads nor maps nor configures; nobody opens neither device;
 *  - with the module's group= parameter, a member of the group annotates
 *    and its record lands, but still cannot open /dev/fxtprof or read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vm_fixture.h"

#define NOBODY		65534
#define TEST_GID	4243
#define NTHREADS	16
#define PER_THREAD	400

union annot {
	struct fxtprof_annotation a;
	unsigned char bytes[sizeof(struct fxtprof_annotation) +
			    FXTPROF_ANNOTATION_NAME_MAX + 16];
};

/* A valid annotation of @kind; its size (the count to write). */
static size_t mk(union annot *u, __u16 kind, const char *name, __u64 key)
{
	size_t len = strlen(name);

	memset(u, 0, sizeof(*u));
	u->a.size = (__u32)(sizeof(u->a) + len);
	u->a.kind = kind;
	u->a.name_len = (__u16)len;
	u->a.key = key;
	memcpy(u->a.name, name, len);
	return u->a.size;
}

static int put_fd(int fd, const void *buf, size_t count)
{
	ssize_t n = write(fd, buf, count);

	if (n < 0)
		return -errno;
	return n == (ssize_t)count ? 0 : -EIO;
}

static int put(const void *buf, size_t count)
{
	int fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = put_fd(fd, buf, count);
	close(fd);
	return ret;
}

static int annotate(__u16 kind, const char *name, __u64 key)
{
	union annot u;
	size_t n = mk(&u, kind, name, key);

	return put(&u, n);
}

static bool keyed(__u16 kind)
{
	return kind == FXTPROF_ANNOT_SECTION_BEGIN ||
	       kind == FXTPROF_ANNOT_SECTION_END ||
	       kind == FXTPROF_ANNOT_KERNEL_BEGIN ||
	       kind == FXTPROF_ANNOT_KERNEL_END;
}

static size_t count_annotations(const struct vm_recs *r)
{
	return r->nr_by_type[FXTPROF_REC_ANNOTATION];
}

TEST(no_session_is_esrch)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_ANNOTATE, 0, 1 << 20);
	struct fxtprof_dev *dev;

	EXPECT_EQ(-ESRCH, annotate(FXTPROF_ANNOT_EVENT, "nobody-home", 0));
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	EXPECT_EQ(-ESRCH, annotate(FXTPROF_ANNOT_EVENT, "configured", 0));
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	EXPECT_EQ(0, annotate(FXTPROF_ANNOT_EVENT, "running", 0));
	ASSERT_EQ(0, fxtprof_dev__stop(dev));
	EXPECT_EQ(-ESRCH, annotate(FXTPROF_ANNOT_EVENT, "stopped", 0));
	/* The main device does not take them. */
	{
		union annot u;
		size_t n = mk(&u, FXTPROF_ANNOT_EVENT, "main", 0);

		EXPECT_EQ(-EINVAL, put_fd(fxtprof_dev__fd(dev), &u, n));
	}
	fxtprof_dev__close(dev);
	/* An invalid one is -EINVAL with or without a session. */
	EXPECT_EQ(-EINVAL, annotate(FXTPROF_ANNOT_EVENT, "key", 1));
}

/*
 * app.annotations off is the same -ESRCH as no session and writes
 * nothing; triggers are the protocol's and land either way.
 */
TEST_F(dev, session_without_the_annotate_bit_refuses_them)
{
	struct fxtprof_config off = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 20);
	struct fxtprof_config on = vm_config(FXTPROF_CFG_TASKS |
					     FXTPROF_CFG_ANNOTATE, 0, 1 << 20);
	struct fxtprof_trigger t = { .size = sizeof(t), .name = "still-fires" };
	struct fxtprof_source src;
	int fd;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &off));
	ASSERT_EQ(0, fxtprof_dev__source(self->dev, 3, &src));
	EXPECT_STREQ("app.annotations", src.name);
	EXPECT_EQ(0, src.flags & FXTPROF_SOURCE_ENABLED);
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	EXPECT_EQ(-ESRCH, annotate(FXTPROF_ANNOT_EVENT, "unwanted", 0));
	EXPECT_EQ(-ESRCH, annotate(FXTPROF_ANNOT_SECTION_BEGIN, "unwanted", 7));
	/* Invalid fields are still -EINVAL first. */
	EXPECT_EQ(-EINVAL, annotate(FXTPROF_ANNOT_EVENT, "key", 1));
	fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, FXTPROF_IOC_TRIGGER, &t));
	close(fd);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_EQ(0, self->r.err);
	EXPECT_EQ(0, count_annotations(&self->r));
	EXPECT_EQ(1, self->r.nr_by_type[FXTPROF_REC_TRIGGER]);
	EXPECT_EQ(0, self->r.lost_records);
	vm_recs_free(&self->r);
	/* A fresh session: the first one's rings are still mapped. */
	fxtprof_dev__close(self->dev);
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &self->dev));

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &on));
	ASSERT_EQ(0, fxtprof_dev__source(self->dev, 3, &src));
	EXPECT_EQ(FXTPROF_SOURCE_ENABLED, src.flags & FXTPROF_SOURCE_ENABLED);
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	EXPECT_EQ(0, annotate(FXTPROF_ANNOT_EVENT, "wanted", 0));
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_EQ(0, self->r.err);
	EXPECT_EQ(1, count_annotations(&self->r));
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_annotation_rec *a = (const void *)rec;

		if (rec->type != FXTPROF_REC_ANNOTATION)
			continue;
		EXPECT_EQ(6, a->name_len);
		EXPECT_EQ(0, memcmp(a->name, "wanted", 6));
	}
}

TEST_F(dev, invalid_fields_are_einval_and_write_nothing)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_ANNOTATE, 0, 1 << 20);
	char big[FXTPROF_ANNOTATION_NAME_MAX + 2];
	union annot u;
	size_t n;
	int fd;

	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);

	/* count is not size: more, less, shorter than the header */
	n = mk(&u, FXTPROF_ANNOT_EVENT, "count", 0);
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n + 1));
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n - 1));
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, sizeof(u.a) - 1));
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, 0));
	/* size is not offsetof(name) + name_len, though it is count */
	u.a.size += 1;
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n + 1));
	n = mk(&u, FXTPROF_ANNOT_EVENT, "size", 0);
	u.a.name_len -= 1;
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	/* kind 0 and KIND_MAX */
	n = mk(&u, 0, "kind", 0);
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	n = mk(&u, FXTPROF_ANNOT_KIND_MAX, "kind", 0);
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	/* flags, reserved */
	n = mk(&u, FXTPROF_ANNOT_EVENT, "flags", 0);
	u.a.flags = 1;
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	n = mk(&u, FXTPROF_ANNOT_EVENT, "reserved", 0);
	u.a.reserved = 0x80000000u;
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	/* name_len 0 and 513 */
	n = mk(&u, FXTPROF_ANNOT_EVENT, "", 0);
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	n = mk(&u, FXTPROF_ANNOT_EVENT, big, 0);
	ASSERT_EQ(sizeof(u.a) + FXTPROF_ANNOTATION_NAME_MAX + 1, n);
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	/* a NUL inside the name, at its start, at its end */
	n = mk(&u, FXTPROF_ANNOT_EVENT, "a?c", 0);
	u.a.name[1] = '\0';
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	u.a.name[1] = 'b';
	u.a.name[0] = '\0';
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	u.a.name[0] = 'a';
	u.a.name[2] = '\0';
	EXPECT_EQ(-EINVAL, put_fd(fd, &u, n));
	/* the key rule, both ways, for every kind */
	for (__u16 k = FXTPROF_ANNOT_REGION_BEGIN; k < FXTPROF_ANNOT_KIND_MAX; k++) {
		n = mk(&u, k, "key", keyed(k) ? 0 : 1);
		EXPECT_EQ(-EINVAL, put_fd(fd, &u, n)) TH_LOG("kind %u", k);
	}
	/* not readable memory */
	{
		void *none = mmap(NULL, 4096, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, none);
		EXPECT_EQ(-EFAULT, put_fd(fd, none, 64));
		munmap(none, 4096);
	}

	/* The valid ones next to them: 1 and 512 bytes of name. */
	n = mk(&u, FXTPROF_ANNOT_EVENT, "1", 0);
	EXPECT_EQ(0, put_fd(fd, &u, n));
	big[FXTPROF_ANNOTATION_NAME_MAX] = '\0';
	n = mk(&u, FXTPROF_ANNOT_REGION_BEGIN, big, 0);
	EXPECT_EQ(0, put_fd(fd, &u, n));
	close(fd);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_EQ(0, self->r.err);
	EXPECT_EQ(2, count_annotations(&self->r));
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_annotation_rec *a = (const void *)rec;

		if (rec->type != FXTPROF_REC_ANNOTATION)
			continue;
		if (a->kind == FXTPROF_ANNOT_EVENT) {
			EXPECT_EQ(1, a->name_len);
			EXPECT_EQ('1', a->name[0]);
		} else {
			EXPECT_EQ(FXTPROF_ANNOT_REGION_BEGIN, a->kind);
			EXPECT_EQ(FXTPROF_ANNOTATION_NAME_MAX, a->name_len);
			EXPECT_EQ(0, memcmp(a->name, big, a->name_len));
			EXPECT_EQ(40 + FXTPROF_ANNOTATION_NAME_MAX, rec->size);
		}
	}
}

TEST_F(dev, each_kind_lands_in_the_callers_cpu_ring)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_ANNOTATE, 0, 1 << 20);
	unsigned int cpu, found = 0, written = 0;
	unsigned long long before, after;
	char name[64];
	cpu_set_t set;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	before = vm_boottime_ns();
	for (cpu = 0; cpu < self->info->nr_cpus && cpu < 64; cpu++) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			continue;	/* offline */
		for (__u16 k = FXTPROF_ANNOT_REGION_BEGIN;
		     k < FXTPROF_ANNOT_KIND_MAX; k++) {
			/* lengths 9 to 15: every padding length but 0 */
			snprintf(name, sizeof(name), "cpu%u-kind%u%.*s", cpu, k,
				 (int)k, "xxxxxxx");
			ASSERT_EQ(0, annotate(k, name,
					      keyed(k) ? (__u64)cpu << 40 | k : 0));
			written++;
		}
	}
	after = vm_boottime_ns();
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LE(FXTPROF_ANNOT_KIND_MAX - 1, written);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_EQ(0, self->r.err);
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_annotation_rec *a = (const void *)rec;
		size_t pad;

		if (rec->type != FXTPROF_REC_ANNOTATION)
			continue;
		found++;
		snprintf(name, sizeof(name), "cpu%u-kind%u%.*s", rec->cpu,
			 a->kind, (int)a->kind, "xxxxxxx");
		EXPECT_EQ(strlen(name), a->name_len);
		EXPECT_EQ(0, memcmp(a->name, name, a->name_len))
			TH_LOG("cpu %u: \"%.*s\"", rec->cpu, a->name_len, a->name);
		EXPECT_EQ(keyed(a->kind) ? (__u64)rec->cpu << 40 | a->kind : 0,
			  a->key);
		EXPECT_EQ(getpid(), (pid_t)a->pid);
		EXPECT_EQ(syscall(SYS_gettid), (long)a->tid);
		EXPECT_EQ(40 + ((a->name_len + 7) & ~7u), rec->size);
		EXPECT_EQ(0, a->reserved);
		for (pad = a->name_len; pad < rec->size - 40; pad++)
			EXPECT_EQ(0, a->name[pad]);
		EXPECT_LE(before, rec->time_ns);
		EXPECT_GE(after, rec->time_ns);
	}
	EXPECT_EQ(written, found);
}

TEST_F(dev, full_ring_counts_annotations_as_lost)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_ANNOTATE, 0,
					    FXTPROF_MIN_RING_SIZE);
	const unsigned int n = 1000;
	unsigned long long lost_in_recs = 0;
	struct fxtprof_stats st;
	unsigned int i, kept;
	char name[128];
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	memset(name, 'f', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';	/* 127 bytes: 168-byte records */
	for (i = 0; i < n; i++) {
		union annot u;
		size_t len = mk(&u, FXTPROF_ANNOT_EVENT, name, 0);

		/* Full or not, the write succeeds: loss is the ring's. */
		ASSERT_EQ(0, put_fd(fd, &u, len));
	}
	ASSERT_EQ(0, fxtprof_dev__stats(self->dev, 0, &st));
	EXPECT_LE(n - FXTPROF_MIN_RING_SIZE / 168, st.lost_records);
	/* Room again: the next one comes after a LOST record. */
	ASSERT_LT(0, vm_recs_drain(self->dev, &self->r));
	kept = (unsigned int)count_annotations(&self->r);
	ASSERT_EQ(0, annotate(FXTPROF_ANNOT_EVENT, "after", 0));
	close(fd);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LE(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_EQ(0, self->r.err);
	EXPECT_EQ(kept + 1, count_annotations(&self->r));
	EXPECT_LT(0, kept);
	EXPECT_GT(n, kept);
	vm_recs_for_each(&self->r, rec)
		if (rec->type == FXTPROF_REC_LOST && rec->cpu == 0)
			lost_in_recs += ((const struct fxtprof_lost *)rec)->records;
	/* Every annotation not kept was counted, and reported. */
	EXPECT_LE(n - kept, lost_in_recs);
	EXPECT_LE(n - kept, st.lost_records);
}

struct writer {
	pthread_t th;
	unsigned int idx;
	pid_t tid;
	int err;
};

/* Names "wIDX-SEQ": a kind per SEQ, keyed ones keyed by (IDX, SEQ). */
static __u16 writer_kind(unsigned int seq)
{
	return (__u16)(FXTPROF_ANNOT_REGION_BEGIN +
		       seq % (FXTPROF_ANNOT_KIND_MAX - 1));
}

static __u64 writer_key(unsigned int idx, unsigned int seq)
{
	return keyed(writer_kind(seq)) ? (__u64)(idx + 1) << 32 | seq : 0;
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	int fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC);
	char name[32];

	w->tid = (pid_t)syscall(SYS_gettid);
	if (fd < 0) {
		w->err = -errno;
		return NULL;
	}
	for (unsigned int seq = 0; seq < PER_THREAD && !w->err; seq++) {
		union annot u;
		size_t n;

		snprintf(name, sizeof(name), "w%u-%u", w->idx, seq);
		n = mk(&u, writer_kind(seq), name, writer_key(w->idx, seq));
		w->err = put_fd(fd, &u, n);
	}
	close(fd);
	return NULL;
}

TEST_F(dev, sixteen_threads_annotate_at_once)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_ANNOTATE, 0, 4 << 20);
	static unsigned char seen[NTHREADS][PER_THREAD];
	struct writer w[NTHREADS];
	unsigned int i, total = 0;
	cpu_set_t all;

	/* Let the threads run on every CPU, whatever the fixture left. */
	CPU_ZERO(&all);
	for (i = 0; i < self->info->nr_cpus && i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	sched_setaffinity(0, sizeof(all), &all);
	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	for (i = 0; i < NTHREADS; i++) {
		w[i].idx = i;
		w[i].err = 0;
		ASSERT_EQ(0, pthread_create(&w[i].th, NULL, writer_fn, &w[i]));
	}
	for (i = 0; i < NTHREADS; i++) {
		ASSERT_EQ(0, pthread_join(w[i].th, NULL));
		EXPECT_EQ(0, w[i].err) TH_LOG("thread %u", i);
	}
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_EQ(0, self->r.err);
	EXPECT_EQ(0, self->r.lost_records);
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_annotation_rec *a = (const void *)rec;
		unsigned int idx, seq;
		char name[32];
		int len;

		if (rec->type != FXTPROF_REC_ANNOTATION)
			continue;
		ASSERT_GT(sizeof(name), a->name_len);
		memcpy(name, a->name, a->name_len);
		name[a->name_len] = '\0';
		ASSERT_EQ(2, sscanf(name, "w%u-%u%n", &idx, &seq, &len));
		ASSERT_EQ((int)a->name_len, len);
		ASSERT_GT(NTHREADS, idx);
		ASSERT_GT(PER_THREAD, seq);
		EXPECT_EQ(w[idx].tid, (pid_t)a->tid);
		EXPECT_EQ(getpid(), (pid_t)a->pid);
		EXPECT_EQ(writer_kind(seq), a->kind);
		EXPECT_EQ(writer_key(idx, seq), a->key);
		EXPECT_EQ(0, seen[idx][seq]) TH_LOG("%s twice", name);
		seen[idx][seq] = 1;
		total++;
	}
	EXPECT_EQ(NTHREADS * PER_THREAD, total);
}

/*
 * In a child, as nobody (with @gid as a supplementary group if nonzero):
 * bit 0: /dev/fxtprof opened; bit 1: the annotate device opened for
 * writing; bit 2: an annotation written; bit 3: read() gave anything but
 * -EINVAL or the open failed; bit 4: a CONFIGURE ioctl gave anything but
 * -ENOTTY.  100 if dropping privileges failed.
 */
static int child_try(gid_t gid)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct fxtprof_config c = vm_config(0, 0, 1 << 20);
		gid_t groups[1] = { gid };
		int code = 0, fd;
		char buf[64];

		if (setgroups(gid ? 1 : 0, groups) || setgid(NOBODY) ||
		    setuid(NOBODY))
			_exit(100);
		fd = open(FXTPROF_DEVICE, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			code |= 1;
		fd = open(FXTPROF_ANNOTATE_DEVICE, O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			code |= 2;
			if (!annotate(FXTPROF_ANNOT_EVENT, "from-nobody", 0))
				code |= 4;
			if (read(fd, buf, sizeof(buf)) != -1 || errno != EINVAL)
				code |= 8;
			if (ioctl(fd, FXTPROF_IOC_CONFIGURE, &c) != -1 ||
			    errno != ENOTTY)
				code |= 16;
		}
		_exit(code);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(descriptor_neither_reads_nor_configures)
{
	struct fxtprof_config c = vm_config(0, 0, 1 << 20);
	struct fxtprof_info info = { .size = sizeof(info) };
	int fd = open(FXTPROF_ANNOTATE_DEVICE, O_RDWR | O_CLOEXEC);
	char buf[64];
	pid_t pid;
	int status;

	ASSERT_LE(0, fd);
	/* Root's own descriptor: the device has no read, mmap, or config. */
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, ioctl(fd, FXTPROF_IOC_CONFIGURE, &c));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, FXTPROF_IOC_GET_INFO, &info));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, FXTPROF_IOC_START));
	EXPECT_EQ(ENOTTY, errno);
	/* Opened by root, then handed down to nobody: the same refusals. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		if (read(fd, buf, sizeof(buf)) != -1 || errno != EINVAL)
			_exit(1);
		if (ioctl(fd, FXTPROF_IOC_CONFIGURE, &c) != -1 ||
		    errno != ENOTTY)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fd);
	/* Without the group parameter, nobody opens neither device. */
	EXPECT_EQ(0, child_try(0));
	EXPECT_EQ(0, child_try(TEST_GID));
}

static int sh(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(group_parameter_lets_its_members_annotate)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS | FXTPROF_CFG_ANNOTATE, 0, 1 << 20);
	const char *ko = getenv("FXTPROF_KO");
	struct fxtprof_dev *dev;
	struct vm_recs r = { 0 };
	unsigned int from_nobody = 0;
	char cmd[512];

	if (!ko || access(ko, R_OK))
		SKIP(return, "FXTPROF_KO not set: cannot reload the module");
	ASSERT_EQ(0, sh("rmmod fxtprof"));
	snprintf(cmd, sizeof(cmd), "insmod %s group=%d", ko, TEST_GID);
	ASSERT_EQ(0, sh(cmd));
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	/* A member: opens and annotates; reads and configures nothing. */
	EXPECT_EQ(2 | 4, child_try(TEST_GID));
	/* Anyone else: nothing. */
	EXPECT_EQ(0, child_try(0));
	ASSERT_EQ(0, fxtprof_dev__stop(dev));
	ASSERT_LT(0, vm_recs_drain_all(dev, &r));
	EXPECT_EQ(0, r.err);
	vm_recs_for_each(&r, rec) {
		const struct fxtprof_annotation_rec *a = (const void *)rec;

		if (rec->type == FXTPROF_REC_ANNOTATION &&
		    a->name_len == 11 && !memcmp(a->name, "from-nobody", 11)) {
			EXPECT_NE(getpid(), (pid_t)a->pid);
			from_nobody++;
		}
	}
	EXPECT_EQ(1, from_nobody);
	vm_recs_free(&r);
	fxtprof_dev__close(dev);
	/* Back as the suite loaded it, for the tests that follow. */
	ASSERT_EQ(0, sh("rmmod fxtprof"));
	snprintf(cmd, sizeof(cmd), "insmod %s", ko);
	ASSERT_EQ(0, sh(cmd));
}

TEST_HARNESS_MAIN

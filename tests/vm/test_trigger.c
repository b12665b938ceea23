// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_trigger - FXTPROF_IOC_TRIGGER on /dev/fxtprof-annotate, in the VM:
 *  - no running session (none open, or configured and stopped): -ESRCH;
 *  - bad names and structures: -EINVAL, and nothing reaches the rings;
 *  - a trigger from each online CPU is a TRIGGER record in that CPU's
 *    ring, with the caller's pid, tid, name and a zero-padded tail;
 *  - the node is root:root 0600 and an unprivileged open gets -EACCES;
 *  - with the module's group= parameter it is root:GROUP 0660: a member
 *    of the group may fire (reaching -ESRCH, past the permission check),
 *    anyone else still gets -EACCES.  The module is reloaded for this.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vm_fixture.h"

#define NOBODY		65534
#define TEST_GID	4242

static int fire(const char *name, __u32 size, __u32 flags)
{
	struct fxtprof_trigger t;
	int fd, ret;

	memset(&t, 0, sizeof(t));
	t.size = size;
	t.flags = flags;
	memcpy(t.name, name, strnlen(name, sizeof(t.name)));
	fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, FXTPROF_IOC_TRIGGER, &t) ? -errno : 0;
	close(fd);
	return ret;
}

static int fire_raw(const struct fxtprof_trigger *t)
{
	int fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, FXTPROF_IOC_TRIGGER, t) ? -errno : 0;
	close(fd);
	return ret;
}

TEST(no_session_is_esrch)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 20);
	struct fxtprof_dev *dev;

	EXPECT_EQ(-ESRCH, fire("nobody-home", sizeof(struct fxtprof_trigger), 0));
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	ASSERT_EQ(0, fxtprof_dev__configure(dev, &c));
	EXPECT_EQ(-ESRCH, fire("configured", sizeof(struct fxtprof_trigger), 0));
	ASSERT_EQ(0, fxtprof_dev__start(dev));
	EXPECT_EQ(0, fire("running", sizeof(struct fxtprof_trigger), 0));
	ASSERT_EQ(0, fxtprof_dev__stop(dev));
	EXPECT_EQ(-ESRCH, fire("stopped", sizeof(struct fxtprof_trigger), 0));
	fxtprof_dev__close(dev);
	/* The main device does not take it. */
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &dev));
	{
		struct fxtprof_trigger t = { .size = sizeof(t), .name = "x" };

		EXPECT_EQ(-1, ioctl(fxtprof_dev__fd(dev), FXTPROF_IOC_TRIGGER, &t));
		EXPECT_EQ(ENOTTY, errno);
	}
	fxtprof_dev__close(dev);
}

TEST_F(dev, bad_names_are_einval_and_write_nothing)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 20);
	char longname[FXTPROF_TRIGGER_NAME_MAX + 2];
	struct fxtprof_trigger t;
	size_t n = 0;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	EXPECT_EQ(-EINVAL, fire("", sizeof(t), 0));
	EXPECT_EQ(-EINVAL, fire(longname, sizeof(t), 0));	/* 64, no NUL */
	EXPECT_EQ(-EINVAL, fire("a b", sizeof(t), 0));
	EXPECT_EQ(-EINVAL, fire("caf\xc3\xa9", sizeof(t), 0));
	EXPECT_EQ(-EINVAL, fire("ok", sizeof(t), 1));		/* flags */
	EXPECT_EQ(-EINVAL, fire("ok", FXTPROF_TRIGGER_SIZE_VER0 - 8, 0));
	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	memcpy(t.name, "a\0b", 3);				/* junk after NUL */
	EXPECT_EQ(-EINVAL, fire_raw(&t));
	longname[FXTPROF_TRIGGER_NAME_MAX] = 0;			/* 63: fine */
	EXPECT_EQ(0, fire(longname, sizeof(t), 0));
	EXPECT_EQ(0, fire("Ok_1.2-3", sizeof(t), 0));
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_trigger_rec *tr = (const void *)rec;

		if (rec->type != FXTPROF_REC_TRIGGER)
			continue;
		EXPECT_TRUE(tr->name_len == FXTPROF_TRIGGER_NAME_MAX ||
			    (tr->name_len == 8 && !memcmp(tr->name, "Ok_1.2-3", 8)));
		n++;
	}
	EXPECT_EQ(2, n);
}

TEST_F(dev, trigger_is_a_record_in_the_callers_cpu_ring)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 20);
	unsigned long long before, after;
	unsigned int cpu, found = 0, fired = 0;
	char name[32];
	cpu_set_t set;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	before = vm_boottime_ns();
	for (cpu = 0; cpu < self->info->nr_cpus && cpu < 64; cpu++) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			continue;	/* offline */
		snprintf(name, sizeof(name), "cpu%u", cpu);
		ASSERT_EQ(0, fire(name, sizeof(struct fxtprof_trigger), 0));
		fired++;
	}
	after = vm_boottime_ns();
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LE(1, fired);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_trigger_rec *tr = (const void *)rec;
		size_t pad;

		if (rec->type != FXTPROF_REC_TRIGGER)
			continue;
		found++;
		snprintf(name, sizeof(name), "cpu%u", rec->cpu);
		EXPECT_EQ(strlen(name), tr->name_len);
		EXPECT_EQ(0, memcmp(tr->name, name, tr->name_len));
		EXPECT_EQ(getpid(), (pid_t)tr->pid);
		EXPECT_EQ(syscall(SYS_gettid), (long)tr->tid);
		EXPECT_EQ(32 + ((tr->name_len + 7) & ~7u), rec->size);
		EXPECT_EQ(0, tr->reserved);
		EXPECT_EQ(0, tr->reserved2);
		for (pad = tr->name_len; pad < rec->size - 32; pad++)
			EXPECT_EQ(0, tr->name[pad]);
		EXPECT_LE(before, rec->time_ns);
		EXPECT_GE(after, rec->time_ns);
	}
	EXPECT_EQ(fired, found);
}

/* In a child: drop to nobody (with @gid as a supplementary group if
 * nonzero) and report what opening the device gives, as an exit code. */
static int child_open(gid_t gid)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		gid_t groups[1] = { gid };

		if (setgroups(gid ? 1 : 0, groups) || setgid(NOBODY) ||
		    setuid(NOBODY))
			_exit(100);
		switch (fire("from-nobody", sizeof(struct fxtprof_trigger), 0)) {
		case -EACCES: _exit(1);
		case -EPERM: _exit(2);
		case -ESRCH: _exit(3);
		case 0: _exit(4);
		default: _exit(5);
		}
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(unprivileged_is_refused_by_default)
{
	struct stat st;

	ASSERT_EQ(0, stat(FXTPROF_ANNOTATE_DEVICE, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);
	EXPECT_EQ(1, child_open(0));		/* EACCES */
	EXPECT_EQ(1, child_open(TEST_GID));	/* a group is no key */
}

static int sh(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(group_parameter_lets_its_members_trigger)
{
	const char *ko = getenv("FXTPROF_KO");
	char cmd[512];
	struct stat st;

	if (!ko || access(ko, R_OK))
		SKIP(return, "FXTPROF_KO not set: cannot reload the module");
	ASSERT_EQ(0, sh("rmmod fxtprof"));
	snprintf(cmd, sizeof(cmd), "insmod %s group=%d", ko, TEST_GID);
	ASSERT_EQ(0, sh(cmd));
	ASSERT_EQ(0, stat(FXTPROF_ANNOTATE_DEVICE, &st));
	EXPECT_EQ(0660, st.st_mode & 07777);
	EXPECT_EQ(TEST_GID, st.st_gid);
	EXPECT_EQ(3, child_open(TEST_GID));	/* past the check: ESRCH */
	EXPECT_EQ(1, child_open(0));		/* others: EACCES */
	/* Back as the suite loaded it, for the tests that follow. */
	ASSERT_EQ(0, sh("rmmod fxtprof"));
	snprintf(cmd, sizeof(cmd), "insmod %s", ko);
	ASSERT_EQ(0, sh(cmd));
	ASSERT_EQ(0, stat(FXTPROF_ANNOTATE_DEVICE, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	/* A bad group is refused at load. */
	ASSERT_EQ(0, sh("rmmod fxtprof"));
	snprintf(cmd, sizeof(cmd), "insmod %s group=-2 2>/dev/null", ko);
	EXPECT_NE(0, sh(cmd));
	snprintf(cmd, sizeof(cmd), "insmod %s", ko);
	ASSERT_EQ(0, sh(cmd));
}

TEST_HARNESS_MAIN

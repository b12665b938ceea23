// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tasks.c - task records (fork, exec, exit, rename), the snapshot at
 * start, exact loss accounting, and 10,000 children exiting at once.
 *
 * Runs in the test VM (2 vCPUs, QEMU TCG) after `insmod /fxtprof.ko`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "vm_util.h"

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static void my_comm(char comm[FXTPROF_COMM_LEN])
{
	memset(comm, 0, FXTPROF_COMM_LEN);
	prctl(PR_GET_NAME, comm);
}

/* comm fields are NUL padded: compare all 16 bytes. */
static int comm_is(const char *field, const char *want)
{
	char buf[FXTPROF_COMM_LEN] = { 0 };

	memcpy(buf, want, strnlen(want, FXTPROF_COMM_LEN - 1));
	return !memcmp(field, buf, FXTPROF_COMM_LEN);
}

#include "vm_fixture.h"

static volatile pid_t thr_tid;

static void *named_thread(void *arg)
{
	(void)arg;
	thr_tid = gettid_();
	prctl(PR_SET_NAME, "fxt-thr");
	return NULL;
}

/* The EXIT record of the thread @arg (a pid_t *) is among @r's records. */
static bool thread_exited(const struct vm_recs *r, const void *arg)
{
	pid_t tid = *(const pid_t *)arg;

	vm_recs_for_each(r, rec) {
		const struct fxtprof_exit *x = (const void *)rec;

		if (rec->type == FXTPROF_REC_EXIT && x->tid == (__u32)tid)
			return true;
	}
	return false;
}

/*
 * A child that execs /tests/fxt_child, which exits with 7, and a thread
 * that renames itself and returns: every record, every field.
 */
TEST_F(dev, fork_exec_exit_rename)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 20);
	const char *path = vm_test_path("fxt_child");
	const struct fxtprof_fork *fork_rec = NULL, *thr_fork = NULL;
	const struct fxtprof_exec *exec_rec = NULL;
	const struct fxtprof_exit *exit_rec = NULL, *thr_exit = NULL;
	const struct fxtprof_rename *ren = NULL;
	char comm[FXTPROF_COMM_LEN];
	pid_t me = getpid(), tid = gettid_(), pid, tid_exited;
	pthread_t thr;
	int status;

	my_comm(comm);
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	pid = fork();
	if (pid == 0) {
		execl(path, "fxt_child", (char *)NULL);
		_exit(127);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, pthread_create(&thr, NULL, named_thread, NULL));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	/*
	 * do_exit() wakes pthread_join() from exit_mm(), before
	 * trace_sched_process_exit: the thread's EXIT may come later still.
	 * (waitpid() returns after the child's.)  Drain while recording
	 * until it is in, for at most 10 s, then stop.
	 */
	tid_exited = thr_tid;
	ASSERT_EQ(0, vm_recs_drain_until(self->dev, &self->r, thread_exited,
					 &tid_exited, 10000));
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(7, WEXITSTATUS(status));
	ASSERT_LE(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_LT(0, self->r.nr);
	EXPECT_EQ(0, self->r.lost_records);
	EXPECT_EQ(0, self->r.nr_by_type[FXTPROF_REC_SAMPLE]);	/* not asked for */

	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_fork *f = (const void *)rec;
		const struct fxtprof_exec *e = (const void *)rec;
		const struct fxtprof_exit *x = (const void *)rec;
		const struct fxtprof_rename *n = (const void *)rec;

		if (rec->type == FXTPROF_REC_FORK && f->child_tid == (__u32)pid)
			fork_rec = f;
		if (rec->type == FXTPROF_REC_FORK && f->child_tid == (__u32)thr_tid)
			thr_fork = f;
		if (rec->type == FXTPROF_REC_EXEC && e->tid == (__u32)pid)
			exec_rec = e;
		if (rec->type == FXTPROF_REC_EXIT && x->tid == (__u32)pid)
			exit_rec = x;
		if (rec->type == FXTPROF_REC_EXIT && x->tid == (__u32)thr_tid)
			thr_exit = x;
		if (rec->type == FXTPROF_REC_RENAME && n->tid == (__u32)thr_tid)
			ren = n;
	}

	ASSERT_NE(NULL, fork_rec);
	EXPECT_EQ(me, fork_rec->parent_pid);
	EXPECT_EQ(tid, fork_rec->parent_tid);
	EXPECT_EQ(pid, fork_rec->child_pid);
	EXPECT_EQ(0, fork_rec->clone_flags & (CLONE_VM | CLONE_THREAD |
					      CLONE_FILES | CLONE_SIGHAND));
	EXPECT_TRUE(comm_is(fork_rec->comm, comm));	/* inherited */

	ASSERT_NE(NULL, exec_rec);
	EXPECT_EQ(pid, exec_rec->pid);
	EXPECT_EQ(pid, exec_rec->old_tid);
	EXPECT_EQ(strlen(path), exec_rec->filename_len);
	EXPECT_EQ(0, exec_rec->flags);
	EXPECT_EQ(0, memcmp(exec_rec->filename, path, strlen(path)));
	EXPECT_TRUE(comm_is(exec_rec->comm, "fxt_child"));
	EXPECT_LE(fork_rec->hdr.time_ns, exec_rec->hdr.time_ns);

	ASSERT_NE(NULL, exit_rec);
	EXPECT_EQ(pid, exit_rec->pid);
	EXPECT_EQ(7 << 8, exit_rec->exit_code);
	EXPECT_EQ(FXTPROF_EXIT_GROUP_DEAD, exit_rec->flags);
	EXPECT_TRUE(comm_is(exit_rec->comm, "fxt_child"));
	EXPECT_LE(exec_rec->hdr.time_ns, exit_rec->hdr.time_ns);

	/* the thread: shared everything, renamed, not the group's end */
	ASSERT_NE(NULL, thr_fork);
	EXPECT_EQ(me, thr_fork->child_pid);
	EXPECT_EQ(me, thr_fork->parent_pid);
	EXPECT_EQ(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD,
		  thr_fork->clone_flags);
	ASSERT_NE(NULL, ren);
	EXPECT_EQ(me, ren->pid);
	EXPECT_TRUE(comm_is(ren->old_comm, comm));
	EXPECT_TRUE(comm_is(ren->comm, "fxt-thr"));
	ASSERT_NE(NULL, thr_exit);
	EXPECT_EQ(me, thr_exit->pid);
	EXPECT_EQ(0, thr_exit->flags);
	EXPECT_EQ(0, thr_exit->exit_code);
	EXPECT_TRUE(comm_is(thr_exit->comm, "fxt-thr"));
}

/* An exec path longer than FXTPROF_MAX_FILENAME is cut and flagged. */
TEST_F(dev, long_exec_filename_is_truncated)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_TASKS, 0, 1 << 20);
	char path[2048], seg[201];
	const struct fxtprof_exec *e = NULL;
	int status;
	pid_t pid;

	memset(seg, 'd', 200);
	seg[200] = 0;
	strcpy(path, "/tmp");
	for (int i = 0; i < 6; i++) {
		strcat(path, "/");
		strcat(path, seg);
		mkdir(path, 0700);
	}
	strcat(path, "/fxt_child");
	unlink(path);
	ASSERT_EQ(0, symlink(vm_test_path("fxt_child"), path));
	ASSERT_LT(FXTPROF_MAX_FILENAME, strlen(path));

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	pid = fork();
	if (pid == 0) {
		execl(path, "fxt_child", "3", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	EXPECT_EQ(3, WEXITSTATUS(status));
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	vm_recs_for_each(&self->r, rec) {
		if (rec->type == FXTPROF_REC_EXEC &&
		    ((const struct fxtprof_exec *)rec)->pid == (__u32)pid)
			e = (const void *)rec;
	}
	ASSERT_NE(NULL, e);
	EXPECT_EQ(FXTPROF_MAX_FILENAME, e->filename_len);
	EXPECT_EQ(FXTPROF_EXEC_FILENAME_TRUNCATED, e->flags);
	EXPECT_EQ(0, memcmp(e->filename, path, FXTPROF_MAX_FILENAME));
	EXPECT_EQ(sizeof(*e) + FXTPROF_MAX_FILENAME, e->hdr.size);
}

static void *sleeper(void *arg)
{
	volatile int *ready = arg;

	prctl(PR_SET_NAME, "fxt-sleeper");
	*ready = gettid_();
	pause();
	return NULL;
}

/* Tasks that existed before start are in the snapshot. */
TEST_F(dev, snapshot_holds_existing_tasks)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SNAPSHOT, 0, 1 << 20);
	const struct fxtprof_snapshot *init = NULL, *me_rec = NULL, *sl = NULL,
		*kthreadd = NULL;
	char comm[FXTPROF_COMM_LEN];
	volatile int sleeper_tid = 0;
	pid_t me = getpid();
	pthread_t thr;

	my_comm(comm);
	ASSERT_EQ(0, pthread_create(&thr, NULL, sleeper, (void *)&sleeper_tid));
	while (!sleeper_tid)
		vm_sleep_ms(1);
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	EXPECT_EQ(0, self->r.lost_records);

	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_snapshot *s = (const void *)rec;

		if (rec->type != FXTPROF_REC_SNAPSHOT)
			continue;
		if (s->tid == 1)
			init = s;
		if (s->tid == 2)
			kthreadd = s;
		if (s->tid == (__u32)me)
			me_rec = s;
		if (s->tid == (__u32)sleeper_tid)
			sl = s;
	}
	TH_LOG("%zu snapshot records", self->r.nr_by_type[FXTPROF_REC_SNAPSHOT]);
	EXPECT_LE(20, self->r.nr_by_type[FXTPROF_REC_SNAPSHOT]);

	ASSERT_NE(NULL, init);
	EXPECT_EQ(1, init->pid);
	EXPECT_EQ(0, init->ppid);
	EXPECT_EQ(0, init->flags);
	EXPECT_NE(0, init->comm[0]);

	ASSERT_NE(NULL, kthreadd);
	EXPECT_EQ(FXTPROF_SNAPSHOT_KTHREAD, kthreadd->flags);
	EXPECT_TRUE(comm_is(kthreadd->comm, "kthreadd"));

	ASSERT_NE(NULL, me_rec);
	EXPECT_EQ(me, me_rec->pid);
	EXPECT_EQ(getppid(), me_rec->ppid);
	EXPECT_TRUE(comm_is(me_rec->comm, comm));
	EXPECT_TRUE(comm_is(me_rec->process_comm, comm));

	ASSERT_NE(NULL, sl);
	EXPECT_EQ(me, sl->pid);
	EXPECT_EQ(getppid(), sl->ppid);
	EXPECT_EQ(0, sl->flags);
	EXPECT_TRUE(comm_is(sl->comm, "fxt-sleeper"));
	EXPECT_TRUE(comm_is(sl->process_comm, comm));
}

/* Per-ring totals of a drained ring. */
struct ring_total {
	unsigned long long records, bytes, lost_records, lost_bytes;
};

static int total_cb(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct ring_total *t = ctx;

	t->records++;
	t->bytes += rec->size;
	if (rec->type == FXTPROF_REC_LOST) {
		t->lost_records += ((const struct fxtprof_lost *)rec)->records;
		t->lost_bytes += ((const struct fxtprof_lost *)rec)->bytes;
	}
	return 0;
}

static int drain_totals(struct fxtprof_dev *dev, struct ring_total *t)
{
	int n, total = 0;

	do {
		n = 0;
		for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(dev); cpu++) {
			int k = fxtprof_ring__drain(fxtprof_dev__ring(dev, cpu),
						    total_cb, &t[cpu]);

			if (k < 0)
				return k;
			n += k;
		}
		total += n;
	} while (n);
	return total;
}

/*
 * A ring nobody drains loses records; after stop, drain, FLUSH, drain,
 * the LOST records plus lost_unreported match the module's counters
 * exactly, and every committed record was delivered.
 */
TEST_F(dev, lost_records_are_accounted_exactly)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK |
					    FXTPROF_CFG_USTACK | FXTPROF_CFG_TASKS,
					    2000, 16384);
	struct ring_total t[64] = { 0 };
	unsigned long long lost = 0;
	__u64 seq;

	/* Idle samples count too: both CPUs fill their 16 KiB in ~0.1 s. */
	ASSERT_LE(self->info->nr_cpus, 64);
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	for (int i = 0; i < 50; i++) {
		pid_t pid = fork();

		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	vm_sleep_ms(300);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));

	ASSERT_LT(0, drain_totals(self->dev, t));
	ASSERT_EQ(0, fxtprof_dev__flush(self->dev, &seq));
	ASSERT_LT(0, drain_totals(self->dev, t));

	for (unsigned int cpu = 0; cpu < self->info->nr_cpus; cpu++) {
		struct fxtprof_stats st;

		ASSERT_EQ(0, fxtprof_dev__stats(self->dev, cpu, &st));
		TH_LOG("cpu%u: %llu records, %llu lost (%llu in LOST records, "
		       "%llu unreported)", cpu, (unsigned long long)st.records,
		       (unsigned long long)st.lost_records, t[cpu].lost_records,
		       (unsigned long long)st.lost_unreported);
		EXPECT_EQ(st.lost_records, t[cpu].lost_records + st.lost_unreported);
		EXPECT_EQ(st.lost_bytes, t[cpu].lost_bytes +
			  (st.lost_unreported ? st.lost_bytes - t[cpu].lost_bytes : 0));
		/* the flush went into a drained ring, so it reported all */
		EXPECT_EQ(0, st.lost_unreported);
		EXPECT_EQ(st.lost_bytes, t[cpu].lost_bytes);
		/* everything committed was delivered */
		EXPECT_EQ(st.records, t[cpu].records);
		EXPECT_EQ(st.bytes, t[cpu].bytes);
		lost += st.lost_records;
	}
	EXPECT_LT(0, lost);
}

/* ------------------------------------------------------------------ */
/* 10,000 children                                                     */
/* ------------------------------------------------------------------ */

#define STORM_N		10000
#define STORM_STACK	16384

/*
 * Per pid, what the records said.  An EXIT can be drained before its
 * task's FORK: the two sit in different CPUs' rings (the parent forks on
 * one CPU, the child may exit on another), and rings are drained one
 * after the other.  So exits are kept for every pid and matched with the
 * forks once everything is drained (storm_tally()).
 */
#define STORM_EXIT_BAD	0x80	/* in exited[]: an exit with a wrong field */

struct storm {
	pid_t parent;
	unsigned char *forked, *exited;	/* by pid: counts (+ STORM_EXIT_BAD) */
	unsigned int pid_max;
	unsigned long long forks, exits, dup, bad_exit, lost;
	unsigned long long samples;
	struct fxtprof_dev *dev;
	volatile int stop;
	int err;
};

static int storm_cb(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct storm *s = ctx;
	const struct fxtprof_fork *f = (const void *)rec;
	const struct fxtprof_exit *x = (const void *)rec;

	switch (rec->type) {
	case FXTPROF_REC_FORK:
		if (f->parent_pid != (__u32)s->parent || f->child_pid >= s->pid_max ||
		    f->child_pid == f->parent_pid)
			break;
		if (s->forked[f->child_pid]++)
			s->dup++;
		s->forks++;
		break;
	case FXTPROF_REC_EXIT:
		if (x->pid >= s->pid_max)
			break;
		if (!(x->flags & FXTPROF_EXIT_GROUP_DEAD) || x->exit_code)
			s->exited[x->pid] |= STORM_EXIT_BAD;
		if ((s->exited[x->pid] & ~STORM_EXIT_BAD) < 0x7f)
			s->exited[x->pid]++;
		break;
	case FXTPROF_REC_LOST:
		s->lost += ((const struct fxtprof_lost *)rec)->records;
		break;
	case FXTPROF_REC_SAMPLE:
		s->samples++;
		break;
	}
	return 0;
}

/* The exits of the tasks that forked: counted, duplicates, bad fields. */
static void storm_tally(struct storm *s)
{
	for (unsigned int pid = 0; pid < s->pid_max; pid++) {
		unsigned int n = s->exited[pid] & ~STORM_EXIT_BAD;

		if (!s->forked[pid])
			continue;
		s->exits += n ? 1 : 0;
		s->dup += n > 1 ? n - 1 : 0;
		s->bad_exit += (s->exited[pid] & STORM_EXIT_BAD) ? 1 : 0;
	}
}

static int storm_drain(struct storm *s)
{
	int n, total = 0;

	do {
		n = 0;
		for (unsigned int cpu = 0; cpu < fxtprof_dev__nr_rings(s->dev); cpu++) {
			int k = fxtprof_ring__drain(fxtprof_dev__ring(s->dev, cpu),
						    storm_cb, s);

			if (k < 0)
				return k;
			n += k;
		}
		total += n;
	} while (n);
	return total;
}

static void *storm_reader(void *arg)
{
	struct storm *s = arg;

	while (!s->stop) {
		int n = storm_drain(s);

		if (n < 0) {
			s->err = n;
			break;
		}
		vm_sleep_ms(2);
	}
	return NULL;
}

static int storm_child(void *arg)
{
	int fd = (int)(long)arg;
	char c;

	/*
	 * Raw syscalls: we share the parent's memory, TLS and all.  The fd
	 * table is shared too, so the parent closing the write end is
	 * everyone's EOF.
	 */
	while (syscall(SYS_read, fd, &c, 1) < 0)
		;
	syscall(SYS_exit, 0);
	return 0;
}

static unsigned int meminfo(const char *key)
{
	char line[256];
	unsigned int v = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtoul(line + strlen(key), NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static unsigned int read_uint(const char *path)
{
	char buf[32] = { 0 };
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return strtoul(buf, NULL, 10);
}

/*
 * 10,000 children block on a pipe, then exit at once while every CPU
 * samples at 10 kHz; a reader thread drains all along.  Every fork record
 * has its exit record, or LOST records account for the difference.
 * The children share our memory, files and signal handlers (CLONE_VM,
 * _FILES, _FS, _SIGHAND: still a new process each, not threads), so the
 * VM's memory holds 10,000 of them and creating them is quick.
 */
TEST_F_TIMEOUT(dev, ten_thousand_children_exit_at_once, 240)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_DEFAULT, 10000, 16 << 20);
	struct storm s = { .parent = getpid(), .dev = self->dev };
	unsigned int threads_max = read_uint("/proc/sys/kernel/threads-max");
	unsigned long long t0, t1, t2, t3;
	unsigned long long lost_stats = 0;
	unsigned int pid_max_saved = 0;
	unsigned char *stacks;
	pthread_t reader;
	int pipefd[2], n = 0;
	char buf[32];

	s.pid_max = read_uint("/proc/sys/kernel/pid_max");
	if (s.pid_max < 3 * STORM_N) {
		/* small kernels (CONFIG_BASE_SMALL) default to 4096 */
		pid_max_saved = s.pid_max;
		snprintf(buf, sizeof(buf), "%u", 3 * STORM_N);
		ASSERT_EQ(0, vm_write_file("/proc/sys/kernel/pid_max", buf));
		s.pid_max = read_uint("/proc/sys/kernel/pid_max");
	}
	ASSERT_LT(STORM_N + 1000, s.pid_max);
	s.forked = calloc(s.pid_max, 1);
	s.exited = calloc(s.pid_max, 1);
	ASSERT_NE(NULL, s.forked);
	ASSERT_NE(NULL, s.exited);
	if (threads_max < 3 * STORM_N) {
		snprintf(buf, sizeof(buf), "%u", 3 * STORM_N);
		ASSERT_EQ(0, vm_write_file("/proc/sys/kernel/threads-max", buf));
	}
	stacks = mmap(NULL, (size_t)STORM_N * STORM_STACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, stacks);
	ASSERT_EQ(0, pipe(pipefd));

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	ASSERT_EQ(0, pthread_create(&reader, NULL, storm_reader, &s));
	TH_LOG("pid_max %u, threads-max %u, MemAvailable %u kB", s.pid_max,
	       threads_max, meminfo("MemAvailable:"));

	t0 = vm_boottime_ns();
	for (n = 0; n < STORM_N; n++) {
		pid_t pid = clone(storm_child, stacks + (size_t)(n + 1) * STORM_STACK,
				  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				  SIGCHLD, (void *)(long)pipefd[0]);

		if (pid < 0)
			break;
	}
	t1 = vm_boottime_ns();
	EXPECT_EQ(STORM_N, n) TH_LOG("clone: %s", strerror(errno));
	TH_LOG("%d children blocked after %.2f s, MemAvailable %u kB", n,
	       (t1 - t0) / 1e9, meminfo("MemAvailable:"));
	close(pipefd[1]);		/* everyone wakes up and exits */
	for (int i = 0; i < n; i++)
		if (waitpid(-1, NULL, __WALL) < 0)
			break;
	t2 = vm_boottime_ns();
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	s.stop = 1;
	pthread_join(reader, NULL);
	ASSERT_EQ(0, s.err);
	ASSERT_LE(0, storm_drain(&s));
	ASSERT_EQ(0, fxtprof_dev__flush(self->dev, NULL));
	ASSERT_LE(0, storm_drain(&s));
	t3 = vm_boottime_ns();
	storm_tally(&s);

	for (unsigned int cpu = 0; cpu < self->info->nr_cpus; cpu++) {
		struct fxtprof_stats st;

		ASSERT_EQ(0, fxtprof_dev__stats(self->dev, cpu, &st));
		EXPECT_EQ(0, st.lost_unreported);
		lost_stats += st.lost_records;
	}
	TH_LOG("%d children: clone %.2f s, exit+reap %.2f s, drain %.2f s; "
	       "%llu forks, %llu exits, %llu samples, %llu lost",
	       n, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9,
	       s.forks, s.exits, s.samples, s.lost);
	EXPECT_EQ(lost_stats, s.lost);
	EXPECT_EQ(0, s.dup);
	EXPECT_EQ(0, s.bad_exit);
	/* every child's fork and exit, or a LOST record for it */
	EXPECT_GE(s.lost, (unsigned long long)(n - s.forks) + (n - s.exits));
	if (!s.lost) {
		EXPECT_EQ(n, s.forks);
		EXPECT_EQ(n, s.exits);
	}
	for (unsigned int pid = 0; pid < s.pid_max && !s.lost; pid++)
		if (s.forked[pid] && s.forked[pid] != (s.exited[pid] & ~STORM_EXIT_BAD)) {
			EXPECT_EQ(s.forked[pid], s.exited[pid] & ~STORM_EXIT_BAD)
				TH_LOG("pid %u", pid);
			break;
		}
	if (threads_max < 3 * STORM_N) {
		snprintf(buf, sizeof(buf), "%u", threads_max);
		vm_write_file("/proc/sys/kernel/threads-max", buf);
	}
	if (pid_max_saved) {
		snprintf(buf, sizeof(buf), "%u", pid_max_saved);
		vm_write_file("/proc/sys/kernel/pid_max", buf);
	}
	munmap(stacks, (size_t)STORM_N * STORM_STACK);
	free(s.forked);
	free(s.exited);
}

TEST_HARNESS_MAIN

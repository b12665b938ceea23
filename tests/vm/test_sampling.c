// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sampling.c - what the sampler records: the rate on every CPU, user
 * stacks of a frame-pointer program, kernel stacks of a task busy in the
 * kernel, and sampling across CPU hotplug.
 *
 * Runs in the test VM (2 vCPUs, QEMU TCG) after `insmod /fxtprof.ko`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "vm_util.h"

#define KERNEL_TEXT_MIN 0xffff000000000000ull

#include "vm_fixture.h"

/*
 * Samples arrive on every CPU at the configured rate.  Idle samples count
 * (SKIP_IDLE is off), and busy loops keep the CPUs from idling anyway.
 *
 * Under QEMU TCG a vCPU thread can be descheduled for longer than a
 * period: the timer then fires late and hrtimer_forward() skips whole
 * periods, which the module counts in timer_overruns.  How many samples a
 * window holds therefore depends on the host's load (a loaded 2-CPU host
 * gave 82% of them at 100 Hz and 45% at 1 kHz), so the rate is checked
 * where load cannot move it:
 *  - the accounting, exactly: samples + overruns over the session are the
 *    session's periods +-15%;
 *  - the spacing: the median interval between a CPU's consecutive samples
 *    in a 2 s window away from start and stop is at least 85% of the
 *    period, and at most 150% of the mean interval the CPU achieved in
 *    that window (window / its samples there): bunched or irregular
 *    samples are caught, a vCPU the loaded host starved is not (one such
 *    had 786 samples and 1537 overruns at 1 kHz, median 1.95 ms); that
 *    rate itself is bounded by the count below;
 *  - the count, loosely: at least @min_pct of the window's samples, and
 *    never more than 115%.
 */
static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static void expect_rate(struct __test_metadata *_metadata,
			FIXTURE_DATA(dev) *self, unsigned int freq,
			unsigned int min_pct)
{
	const unsigned int window_ms = 2000, lead_ms = 250;
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, freq, 1 << 20);
	unsigned int n = self->info->nr_cpus;
	unsigned long long t0, t1, lo, hi, per_cpu[64] = { 0 }, last[64];
	unsigned long long period = 1000000000ull / freq, *gaps;
	size_t cap, ngaps[64] = { 0 };
	struct vm_spinners *spin;

	ASSERT_LE(n, 64);
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	spin = vm_spinners_start(self->info->nr_online);
	ASSERT_NE(NULL, spin);
	t0 = vm_boottime_ns();
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	vm_sleep_ms(lead_ms + window_ms + lead_ms);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	t1 = vm_boottime_ns();
	vm_spinners_stop(spin);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	EXPECT_EQ(0, self->r.lost_records);

	lo = t0 + lead_ms * 1000000ull;
	hi = lo + window_ms * 1000000ull;
	cap = (size_t)freq * window_ms / 1000 * 2 + 16;
	gaps = calloc(n * cap, sizeof(*gaps));
	ASSERT_NE(NULL, gaps);
	/* A CPU's records come out of its ring in the order it wrote them. */
	vm_recs_for_each(&self->r, rec) {
		unsigned int cpu = rec->cpu;

		if (rec->type != FXTPROF_REC_SAMPLE || cpu >= n ||
		    rec->time_ns < lo || rec->time_ns >= hi)
			continue;
		if (per_cpu[cpu]++ && ngaps[cpu] < cap)
			gaps[cpu * cap + ngaps[cpu]++] = rec->time_ns - last[cpu];
		last[cpu] = rec->time_ns;
	}
	for (unsigned int cpu = 0; cpu < n; cpu++) {
		struct fxtprof_stats st;
		unsigned long long want = (unsigned long long)freq * window_ms / 1000;
		unsigned long long periods, want_periods = (t1 - t0) * freq / 1000000000ull;

		unsigned long long *g = &gaps[cpu * cap], median = 0;
		unsigned long long achieved = window_ms * 1000000ull /
					      (per_cpu[cpu] ? per_cpu[cpu] : 1);

		ASSERT_EQ(0, fxtprof_dev__stats(self->dev, cpu, &st));
		periods = st.samples + st.timer_overruns;
		if (ngaps[cpu]) {
			qsort(g, ngaps[cpu], sizeof(*g), cmp_ull);
			median = g[ngaps[cpu] / 2];
		}
		TH_LOG("%u Hz, cpu%u: %llu samples in the %u ms window (rate: %llu), "
		       "median interval %llu ns (period %llu); session: %llu "
		       "samples + %llu overruns of %llu periods, handler %.1f us "
		       "avg", freq, cpu, per_cpu[cpu], window_ms, want, median,
		       period, (unsigned long long)st.samples,
		       (unsigned long long)st.timer_overruns, want_periods,
		       st.handler_calls ? st.handler_ns / 1e3 / st.handler_calls : 0);
		EXPECT_LE(want_periods * 85 / 100, periods);
		EXPECT_GE(want_periods * 115 / 100, periods);
		/*
		 * Bunched samples (two a period) put the median near 0;
		 * a guest whose clock the host runs unevenly moves it less:
		 * 8.35 ms at 100 Hz on arm64-6.12 under two hogs, with
		 * exactly 200 samples in the window and no overrun.
		 */
		EXPECT_LE(period / 2, median);
		EXPECT_GE(achieved * 150 / 100, median)
			TH_LOG("cpu%u: the mean interval it achieved is %llu ns",
			       cpu, achieved);
		EXPECT_LE(want * min_pct / 100, per_cpu[cpu]);
		EXPECT_GE(want * 115 / 100, per_cpu[cpu]);
		EXPECT_EQ(st.samples, st.handler_calls);
		EXPECT_EQ(0, st.lost_records);
	}
	free(gaps);
}

/*
 * A vCPU that the host deschedules loses whole periods to overruns, and
 * the share it keeps is the host's doing: with two CPU hogs beside the
 * guest and other builds and guests on the host (load 8 to 13 on 2
 * CPUs), 39-48% of the window's samples were left at 100 Hz (97 samples
 * + 183 overruns of 284 periods) and 14-16% at 1 kHz (2137 overruns
 * against 440 samples).  What the test holds exactly is the accounting
 * (every period a sample or an overrun, within 15%) and the spacing; the
 * floors only say that the timer keeps firing.  The rate a quiet machine
 * achieves is measured by make bench-kernel, not here.
 */
TEST_F(dev, rate_on_every_cpu)
{
	expect_rate(_metadata, self, 100, 20);
}

TEST_F(dev, default_rate_on_every_cpu)
{
	expect_rate(_metadata, self, FXTPROF_DEFAULT_FREQ, 10);
}

static int spawn(const char *path, const char *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * The user stacks of fxt_fpchain (frame pointers, no inlining) show
 * spin <- level3 <- level2 <- level1 <- main, resolved from its own ELF
 * symbols.
 */
TEST_F(dev, user_stack_of_frame_pointer_program)
{
	static const char *const chain[] = { "spin", "level3", "level2",
					     "level1", "main" };
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE | FXTPROF_CFG_USTACK |
					    FXTPROF_CFG_KSTACK, 1000, 1 << 20);
	const char *path = vm_test_path("fxt_fpchain");
	unsigned long long addr[5], size[5];
	unsigned int user = 0, in_spin = 0, full = 0;
	int status;
	pid_t pid;

	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(0, vm_elf_sym(path, chain[i], &addr[i], &size[i]))
			TH_LOG("%s in %s", chain[i], path);
		ASSERT_LT(0, size[i]);
	}
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	pid = spawn(path, "1500");
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));

	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_sample *s = (const void *)rec;
		const __u64 *ips;
		int ok = 1;

		if (rec->type != FXTPROF_REC_SAMPLE || s->pid != (__u32)pid ||
		    s->mode != FXTPROF_MODE_USER)
			continue;
		user++;
		ips = s->ips + s->nr_kernel;
		EXPECT_EQ(0, s->nr_kernel);	/* user mode: no kernel stack */
		if (!s->nr_user || ips[0] - addr[0] >= size[0])
			continue;
		in_spin++;
		for (int i = 1; i < 5; i++)
			if (s->nr_user <= i || ips[i] - addr[i] >= size[i])
				ok = 0;
		if (ok)
			full++;
		else if (in_spin - full <= 3)
			TH_LOG("partial chain: nr_user %u flags %#x: %#llx %#llx %#llx %#llx %#llx",
			       s->nr_user, s->flags,
			       (unsigned long long)ips[0],
			       s->nr_user > 1 ? (unsigned long long)ips[1] : 0ull,
			       s->nr_user > 2 ? (unsigned long long)ips[2] : 0ull,
			       s->nr_user > 3 ? (unsigned long long)ips[3] : 0ull,
			       s->nr_user > 4 ? (unsigned long long)ips[4] : 0ull);
	}
	TH_LOG("%u user samples of fxt_fpchain, %u in spin, %u with the full chain",
	       user, in_spin, full);
	EXPECT_LE(100, user);		/* ~1500 expected */
	EXPECT_LE(user * 8 / 10, in_spin);
	EXPECT_LE(in_spin * 9 / 10, full);
}

static volatile int reader_stop;
static volatile pid_t reader_tid;

/* Spends its life in the kernel: big reads from /dev/zero. */
static void *zero_reader(void *arg)
{
	size_t len = 1 << 20;
	char *buf = malloc(len);
	int fd = open("/dev/zero", O_RDONLY);

	(void)arg;
	reader_tid = syscall(SYS_gettid);
	while (!reader_stop && fd >= 0 && buf)
		if (read(fd, buf, len) < 0)
			break;
	close(fd);
	free(buf);
	return NULL;
}

/* A thread busy in the kernel has kernel stacks, in kernel text. */
TEST_F(dev, kernel_stack_of_busy_syscalls)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE | FXTPROF_CFG_USTACK |
					    FXTPROF_CFG_KSTACK, 1000, 1 << 20);
	unsigned int kernel = 0, deep = 0, in_text = 0, with_user = 0;
	pthread_t thr;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	reader_stop = 0;
	ASSERT_EQ(0, pthread_create(&thr, NULL, zero_reader, NULL));
	while (!reader_tid)
		vm_sleep_ms(1);
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	vm_sleep_ms(1000);
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	reader_stop = 1;
	pthread_join(thr, NULL);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));

	vm_recs_for_each(&self->r, rec) {
		const struct fxtprof_sample *s = (const void *)rec;
		int ok = 1;

		if (rec->type != FXTPROF_REC_SAMPLE || s->tid != (__u32)reader_tid ||
		    s->mode != FXTPROF_MODE_KERNEL)
			continue;
		kernel++;
		if (s->nr_kernel >= 2)
			deep++;
		for (unsigned int i = 0; i < s->nr_kernel; i++)
			if (s->ips[i] < KERNEL_TEXT_MIN)
				ok = 0;
		if (ok && s->nr_kernel)
			in_text++;
		/* the user context of the syscall follows */
		if (s->nr_user)
			with_user++;
	}
	TH_LOG("%u kernel-mode samples of the reader, %u with >= 2 kernel frames, "
	       "%u all in kernel text, %u with a user stack too",
	       kernel, deep, in_text, with_user);
	EXPECT_LE(50, kernel);
	EXPECT_LE(kernel * 9 / 10, deep);
	EXPECT_EQ(kernel, in_text);
	EXPECT_LE(kernel * 9 / 10, with_user);
}

static int cpu1_online(int on)
{
	return vm_write_file("/sys/devices/system/cpu/cpu1/online", on ? "1" : "0");
}

/*
 * CPU1 goes offline and back online while sampling: no samples from it
 * while it is away, samples again once it is back, a FLUSH reaches its
 * ring while it is offline, and the kernel log stays clean.
 */
TEST_F(dev, cpu_hotplug_while_sampling)
{
	const unsigned int freq = 100;	/* see rate_on_every_cpu */
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, freq, 1 << 20);
	unsigned long long t_off, t_offd, t_on, t_ond, t_end;
	unsigned int before = 0, away = 0, after = 0, flushes1 = 0;
	struct vm_spinners *spin;
	__u64 seq;

	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "CPU1 cannot be hotplugged here");
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	spin = vm_spinners_start(2);
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	vm_sleep_ms(300);
	t_off = vm_boottime_ns();
	ASSERT_EQ(0, cpu1_online(0));
	t_offd = vm_boottime_ns();
	/* the ring of an offline CPU takes a flush marker too */
	EXPECT_EQ(0, fxtprof_dev__flush(self->dev, &seq));
	vm_sleep_ms(300);
	t_on = vm_boottime_ns();
	EXPECT_EQ(0, cpu1_online(1));
	t_ond = vm_boottime_ns();
	vm_sleep_ms(500);
	t_end = vm_boottime_ns();
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	vm_spinners_stop(spin);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	EXPECT_EQ(0, self->r.lost_records);

	vm_recs_for_each(&self->r, rec) {
		if (rec->cpu == 1 && rec->type == FXTPROF_REC_FLUSH)
			flushes1++;
		if (rec->cpu != 1 || rec->type != FXTPROF_REC_SAMPLE)
			continue;
		if (rec->time_ns < t_off)
			before++;
		else if (rec->time_ns > t_offd && rec->time_ns < t_on)
			away++;
		else if (rec->time_ns > t_ond)
			after++;
	}
	TH_LOG("cpu1: %u samples before, %u while offline, %u after "
	       "(%.0f ms after online)", before, away, after,
	       (t_end - t_ond) / 1e6);
	EXPECT_LT(0, before);
	EXPECT_EQ(0, away);
	EXPECT_EQ(1, flushes1);
	/* resumed: at least half the expected rate once back */
	EXPECT_LE((t_end - t_ond) / 1000000 * freq / 1000 / 2, after);
	/* make sure CPU1 is back for the tests that follow */
	cpu1_online(1);
}

/* A cpumask naming only an offline CPU is refused. */
TEST_F(dev, cpumask_of_offline_cpu_is_refused)
{
	__u64 mask = 1u << 1;
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SAMPLE, 0, 1 << 16);

	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "CPU1 cannot be hotplugged here");
	c.cpumask_ptr = (uintptr_t)&mask;
	c.cpumask_len = sizeof(mask);
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));	/* online */
	ASSERT_EQ(0, cpu1_online(0));
	EXPECT_EQ(-EINVAL, fxtprof_dev__configure(self->dev, &c));
	/* the earlier configuration stays, rings mapped */
	EXPECT_NE(NULL, fxtprof_dev__ring(self->dev, 1));
	EXPECT_EQ(1 << 16, fxtprof_dev__info(self->dev)->ring_size);
	ASSERT_EQ(0, cpu1_online(1));
	EXPECT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	/* sampling restricted to CPU1: nothing from CPU0 */
	{
		struct vm_spinners *spin = vm_spinners_start(2);

		ASSERT_EQ(0, fxtprof_dev__start(self->dev));
		vm_sleep_ms(200);
		ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
		vm_spinners_stop(spin);
	}
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	vm_recs_for_each(&self->r, rec) {
		if (rec->type == FXTPROF_REC_SAMPLE)
			EXPECT_EQ(1, rec->cpu);
	}
	EXPECT_LT(0, self->r.nr_by_type[FXTPROF_REC_SAMPLE]);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_flight - `fxtprof record --flight-recorder` and `fxtprof trigger`
 * end to end, in the VM, with the module:
 *  - a trigger's snapshot covers [trigger - SECONDS, trigger] on every
 *    online CPU to within one sampling period, passes the checker, names
 *    every thread its events are on and holds the trigger event; triggers
 *    not in --trigger write nothing;
 *  - `fxtprof trigger` with no recording running fails and says so;
 *  - several triggers and SIGUSR2 give one file each, named by trigger;
 *  - at 10 kHz on every CPU for a minute, the window's own accounting and
 *    the recorder's RSS stay within --max-window-bytes, and the snapshot
 *    at the end is whole (it passes the checker).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <linux/fxtprof.h>
#include "snapshot_check.h"
#include "vm_util.h"

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	char *buf;

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	*len = buf ? (size_t)read(fd, buf, (size_t)st.st_size) : 0;
	if (buf)
		buf[*len] = 0;
	close(fd);
	return buf;
}

/* Files of @dir starting with @prefix; the last one's path in @last. */
static int count_files(const char *dir, const char *prefix, char *last,
		       size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		n++;
		if (last)
			snprintf(last, len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	return n;
}

static void analyze_file(struct __test_metadata *_metadata, const char *path,
			 pid_t recorder, struct snap_info *si)
{
	size_t len = 0;
	char *buf = slurp(path, &len);
	struct stat st;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
	si->ignore_pid = (uint64_t)recorder;
	snap_analyze(buf, len, si);
	free(buf);
	ASSERT_EQ(0, si->err) TH_LOG("%s: %s", path, si->errmsg);
	EXPECT_EQ(0, si->unnamed) TH_LOG("%s: tid %llu of pid %llu has no name",
					 path, (unsigned long long)si->first_unnamed_tid,
					 (unsigned long long)si->first_unnamed_pid);
	EXPECT_EQ(0, si->ksym_late) TH_LOG("%s: a kernel frame named after it", path);
}

static void make_dir(char *dir, size_t len, const char *what)
{
	snprintf(dir, len, "/tmp/flight-%s-%d", what, getpid());
	mkdir(dir, 0700);
}

TEST(snapshot_covers_the_window_on_every_cpu)
{
	const char *args[] = { "-F", "100", "--flight-recorder", "2",
			       "--trigger", "boom", "-d", "60", NULL };
	/*
	 * A starved vCPU skips periods (the module counts them as
	 * overruns), so a CPU's first sample in the window may come a few
	 * periods late: up to 100 ms still shows a window of 2 s, not of
	 * what the ring happened to keep.
	 */
	const uint64_t period = 10000000ull, window = 2000000000ull,
		       late = 10 * period;
	struct snap_info *si = calloc(1, sizeof(*si));
	char dir[128], path[512], errpath[160];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t rec;

	ASSERT_NE(NULL, si);
	make_dir(dir, sizeof(dir), "cover");
	snprintf(errpath, sizeof(errpath), "%s.err", dir);
	rec = vm_record_start(args, dir, errpath);
	ASSERT_LT(0, rec);
	sleep(4);	/* the workload: a window's worth and more recorded */
	ASSERT_EQ(0, vm_trigger("boom"));
	ASSERT_EQ(0, vm_trigger("not-listed"));
	/*
	 * Stop only once the snapshot is out: a stop before it makes the
	 * recorder write it from its last drain, and a slow (loaded) guest
	 * may not have drained every CPU past the trigger by then.
	 */
	ASSERT_EQ(1, vm_record_wait_snapshots(errpath, 1, 30000));
	ASSERT_EQ(0, vm_record_stop(rec));
	ASSERT_EQ(1, count_files(dir, "", path, sizeof(path)));
	ASSERT_EQ(1, count_files(dir, "boom-", NULL, 0));
	ASSERT_EQ(0, strcmp(path + strlen(path) - 4, ".fxt"));
	analyze_file(_metadata, path, rec, si);
	EXPECT_LE(1, si->triggers);
	EXPECT_STREQ("boom", si->trigger);
	for (long cpu = 0; cpu < ncpu && cpu < SNAP_MAX_CPUS; cpu++) {
		EXPECT_TRUE(si->cpus & (1ull << cpu)) TH_LOG("no samples on CPU %ld", cpu);
		EXPECT_GE(si->cpu_first[cpu], si->trigger_ts - window);
		EXPECT_LE(si->cpu_first[cpu], si->trigger_ts - window + late)
			TH_LOG("CPU %ld starts %.3f s after the window", cpu,
			       (si->cpu_first[cpu] - (si->trigger_ts - window)) / 1e9);
		EXPECT_GE(si->cpu_last[cpu] + late, si->trigger_ts)
			TH_LOG("CPU %ld ends %.3f s before the trigger", cpu,
			       (si->trigger_ts - si->cpu_last[cpu]) / 1e9);
	}
	free(si);
}

TEST(trigger_without_recorder_says_so)
{
	char errpath[64], *err;
	size_t len;
	int status;
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "/tmp/trig-%d.err", getpid());
	pid = fork();
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		execl(vm_test_path("fxtprof"), "fxtprof", "trigger", "lonely",
		      (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status));
	err = slurp(errpath, &len);
	ASSERT_NE(NULL, err);
	EXPECT_NE(NULL, strstr(err, "no recording is running")) TH_LOG("%s", err);
	free(err);
	EXPECT_EQ(-ESRCH, vm_trigger("lonely"));
}

TEST(several_triggers_give_several_files)
{
	const char *args[] = { "-F", "200", "--flight-recorder", "1",
			       "--trigger", "alpha,beta", "-d", "60", NULL };
	struct snap_info *si = calloc(1, sizeof(*si));
	char dir[128], path[512], errpath[160];
	const char *prefix[] = { "alpha-", "beta-", "sigusr2-" };
	pid_t rec;

	ASSERT_NE(NULL, si);
	make_dir(dir, sizeof(dir), "many");
	snprintf(errpath, sizeof(errpath), "%s.err", dir);
	rec = vm_record_start(args, dir, errpath);
	ASSERT_LT(0, rec);
	sleep(2);	/* the workload: the 1 s window fills */
	/* one trigger at a time, each snapshot out before the next */
	ASSERT_EQ(0, vm_trigger("alpha"));
	ASSERT_EQ(1, vm_record_wait_snapshots(errpath, 1, 30000));
	ASSERT_EQ(0, vm_trigger("beta"));
	ASSERT_EQ(2, vm_record_wait_snapshots(errpath, 2, 30000));
	ASSERT_EQ(0, vm_trigger("alpha"));
	ASSERT_EQ(3, vm_record_wait_snapshots(errpath, 3, 30000));
	kill(rec, SIGUSR2);
	ASSERT_EQ(4, vm_record_wait_snapshots(errpath, 4, 30000));
	ASSERT_EQ(0, vm_record_stop(rec));
	EXPECT_EQ(4, count_files(dir, "", NULL, 0));
	EXPECT_EQ(2, count_files(dir, "alpha-", NULL, 0));
	EXPECT_EQ(1, count_files(dir, "beta-", NULL, 0));
	EXPECT_EQ(1, count_files(dir, "sigusr2-", NULL, 0));
	for (int i = 0; i < 3; i++) {
		if (count_files(dir, prefix[i], path, sizeof(path)) < 1)
			continue;
		analyze_file(_metadata, path, rec, si);
		EXPECT_LT(0, si->samples);
	}
	free(si);
}

static long rss_kb(pid_t pid)
{
	char path[64], *s, *p;
	size_t len;
	long kb = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	s = slurp(path, &len);
	if (s && (p = strstr(s, "VmRSS:")))
		kb = strtol(p + 6, NULL, 10);
	free(s);
	return kb;
}

/* The minute's test needs more than the harness's default 30 s. */
FIXTURE(minute) {
	int unused;
};

FIXTURE_SETUP(minute)
{
}

FIXTURE_TEARDOWN(minute)
{
}

TEST_F_TIMEOUT(minute, window_bound_holds_at_10khz_for_a_minute, 110)
{
	const char *args[] = { "-F", "10000", "--flight-recorder", "60",
			       "--max-window-bytes", "8M", "-d", "120", NULL };
	const long bound_kb = 8 << 10;
	struct snap_info *si = calloc(1, sizeof(*si));
	char dir[128], path[512], errpath[160], *err, *p;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), base = -1, peak = 0, kb;
	pid_t rec, spin[64];
	double held = -1, bound = -1;
	size_t len;

	ASSERT_NE(NULL, si);
	make_dir(dir, sizeof(dir), "bound");
	snprintf(errpath, sizeof(errpath), "%s.err", dir);
	for (long i = 0; i < ncpu && i < 64; i++) {
		spin[i] = fork();
		if (spin[i] == 0) {
			alarm(90);
			for (;;)
				;
		}
	}
	rec = vm_record_start(args, dir, errpath);
	ASSERT_LT(0, rec);
	for (int s = 0; s < 60; s++) {
		sleep(1);	/* the workload: a minute, RSS each second */
		kb = rss_kb(rec);
		if (s == 1)
			base = kb;
		if (kb > peak)
			peak = kb;
	}
	kill(rec, SIGUSR2);
	ASSERT_EQ(1, vm_record_wait_snapshots(errpath, 1, 30000));
	ASSERT_EQ(0, vm_record_stop(rec));
	for (long i = 0; i < ncpu && i < 64; i++) {
		kill(spin[i], SIGKILL);
		waitpid(spin[i], NULL, 0);
	}
	err = slurp(errpath, &len);
	ASSERT_NE(NULL, err);
	p = strstr(err, "held at most ");
	ASSERT_NE(NULL, p) TH_LOG("%s", err);
	ASSERT_EQ(2, sscanf(p, "held at most %lf MB (bound %lf MB", &held, &bound));
	EXPECT_LE(held, bound) TH_LOG("%s", err);
	EXPECT_EQ(NULL, strstr(err, "exceeded"));
	/* The window is all that grows: RSS after the first second, plus it. */
	EXPECT_LE(peak, base + bound_kb + 4096)
		TH_LOG("RSS %ld kB at 1 s, %ld kB at most", base, peak);
	ASSERT_EQ(1, count_files(dir, "sigusr2-", path, sizeof(path)));
	analyze_file(_metadata, path, rec, si);
	EXPECT_LT(10000, si->samples);
	free(err);
	free(si);
}

TEST_HARNESS_MAIN

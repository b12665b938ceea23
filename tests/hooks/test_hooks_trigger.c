// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_hooks_trigger - in the VM, with the module: fxtprof_trigger() of
 * libfxtprof-hooks (fxtprof: mode) makes `fxtprof record
 * --flight-recorder --trigger slow-frame` save its window: one snapshot,
 * named for the trigger, that passes the checker and holds the trigger
 * event; with nothing recording it says ESRCH, and a bad name EINVAL.  The library's objects are linked in statically (the VM's
 * test programs are static; tests/reader/test_annotations loads the .so).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <linux/fxtprof.h>

#include "fxtprof_hooks.h"
#include "snapshot_check.h"
#include "vm_util.h"

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
		if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		n++;
		snprintf(last, len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	return n;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	char *buf = NULL;

	*len = 0;
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st))
		buf = malloc((size_t)st.st_size + 1);
	if (buf)
		*len = (size_t)read(fd, buf, (size_t)st.st_size);
	close(fd);
	return buf;
}

TEST(library_trigger_saves_the_window)
{
	const char *args[] = { "-F", "100", "--flight-recorder", "1",
			       "--trigger", "slow-frame", "-d", "60", NULL };
	struct snap_info *si = calloc(1, sizeof(*si));
	char dir[64], errpath[80], path[512], *buf;
	size_t len;
	pid_t rec;

	ASSERT_NE(NULL, si);
	ASSERT_EQ(0, fxtprof_initialize("fxtprof:"));
	snprintf(dir, sizeof(dir), "/tmp/hooks-trigger-%d", getpid());
	ASSERT_EQ(0, mkdir(dir, 0700));
	snprintf(errpath, sizeof(errpath), "%s.err", dir);
	rec = vm_record_start(args, dir, errpath);
	ASSERT_LT(0, rec);
	fxtprof_begin_region("frame-1042");
	sleep(2);		/* the workload: more than the window */
	ASSERT_EQ(0, fxtprof_trigger("slow-frame"));
	fxtprof_end_region();
	/* the snapshot comes two drain turns after the trigger */
	ASSERT_EQ(1, vm_record_wait_snapshots(errpath, 1, 30000));
	ASSERT_EQ(0, vm_record_stop(rec));
	ASSERT_EQ(0, fxtprof_finalize());
	ASSERT_EQ(1, count_files(dir, "slow-frame-", path, sizeof(path)));

	buf = slurp(path, &len);
	ASSERT_NE(NULL, buf);
	si->ignore_pid = (uint64_t)rec;
	snap_analyze(buf, len, si);
	free(buf);
	ASSERT_EQ(0, si->err) TH_LOG("%s: %s", path, si->errmsg);
	EXPECT_LE(1, si->triggers);
	EXPECT_STREQ("slow-frame", si->trigger);
	free(si);
}

TEST(library_trigger_without_recording)
{
	struct fxtprof_hooks_stats st;

	ASSERT_EQ(0, fxtprof_initialize(NULL));
	EXPECT_EQ(ESRCH, fxtprof_trigger("slow-frame"));
	EXPECT_EQ(EINVAL, fxtprof_trigger("slow frame"));
	EXPECT_EQ(EINVAL, fxtprof_trigger(NULL));
	fxtprof_begin_region("r");
	fxtprof_end_region();
	ASSERT_EQ(0, fxtprof_finalize());
	fxtprof_get_stats(&st, sizeof(st));
	EXPECT_EQ(2, st.no_session);
}

TEST_HARNESS_MAIN

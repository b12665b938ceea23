// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_archive_vm - `fxtprof record` to an archive, in the VM, with the
 * module: a .fxtz name writes a finished archive whose every chunk
 * decodes alone, passes the FXT checker and names its threads, and whose
 * summaries agree with the chunks; a live archive whose recorder is
 * killed with SIGKILL reads up to its last complete chunk by scanning and
 * repairs into a finished one.  A busy child keeps the CPUs sampling.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "archive/archive.h"
#include "fxt_reader.h"
#include "snapshot_check.h"
#include "vm_util.h"

/* A child spinning until killed. */
static pid_t busy(void)
{
	pid_t p = fork();

	if (!p) {
		volatile unsigned long x = 0;

		for (;;)
			x++;
	}
	return p;
}

/* A segment: the checker, its threads named (see below); its samples. */
static uint64_t check_segment(struct __test_metadata *_metadata,
			      const unsigned char *seg, size_t len,
			      uint64_t records, size_t first, pid_t recorder,
			      struct snap_info *si)
{
	memset(si, 0, sizeof(*si));
	si->ignore_pid = (uint64_t)recorder;
	snap_analyze(seg, len, si);
	EXPECT_EQ(0, si->err) TH_LOG("chunk %zu: %s", first, si->errmsg);
	/*
	 * From the second segment on, the replay names every live thread
	 * first.  The first is the recording's start, as in a flat file:
	 * the rings are drained one CPU after another, so a sample of a
	 * thread may come before the SNAPSHOT record naming it from another
	 * CPU's ring.
	 */
	if (first)
		EXPECT_EQ(0, si->unnamed) TH_LOG("chunk %zu: tid %llu", first,
			(unsigned long long)si->first_unnamed_tid);
	EXPECT_EQ(records, si->records);
	return si->samples;
}

/* Every segment (a chunk and its continuations) checked; the samples. */
static uint64_t check_chunks(struct __test_metadata *_metadata,
			     struct archive_reader *a, pid_t recorder)
{
	size_t total = 0, len = 0, first = 0, n = archive_reader__nchunks(a);
	struct snap_info *si = calloc(1, sizeof(*si));
	uint64_t samples = 0, records = 0;
	unsigned char *seg;
	char err[256];

	for (size_t i = 0; i < n; i++)
		total += archive_reader__chunk(a, i)->uncompressed;
	seg = malloc(total ? total : 1);
	if (!seg || !si)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct archive_chunk_info *c = archive_reader__chunk(a, i);
		ssize_t got;

		if (!(c->flags & ARCHIVE_CHUNK_CONTINUATION) && len) {
			samples += check_segment(_metadata, seg, len, records,
						 first, recorder, si);
			len = 0;
			records = 0;
			first = i;
		}
		got = archive_reader__read_chunk(a, i, seg + len, total - len,
						 err, sizeof(err));
		EXPECT_EQ((ssize_t)c->uncompressed, got) TH_LOG("%s", err);
		if (got < 0)
			break;
		len += (size_t)got;
		records += c->records;
	}
	if (len)
		samples += check_segment(_metadata, seg, len, records, first,
					 recorder, si);
	free(si);
	free(seg);
	return samples;
}

TEST(record_to_fxtz_writes_a_finished_archive)
{
	const char *path = "/tmp/vm.fxtz";
	const char *args[] = { "-q", "-F", "1000", "-d", "3", "--chunk-ms", "50",
			       path, NULL };
	const struct archive_thread_count *th;
	struct archive_metrics m;
	struct archive_reader *a;
	struct stat st;
	uint64_t samples, sum = 0;
	size_t n;
	char err[256];
	int status;
	pid_t b, rec;

	if (access("/dev/fxtprof", F_OK))
		SKIP(return, "no /dev/fxtprof (module not loaded)");
	b = busy();
	rec = vm_record_spawn(args, NULL, NULL);
	ASSERT_LT(0, rec);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);

	ASSERT_EQ(0, archive_reader__open(&a, path, 0, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(ARCHIVE_INDEX_FOOTER, archive_reader__index(a));
	EXPECT_LE(2, archive_reader__nchunks(a));
	samples = check_chunks(_metadata, a, rec);
	ASSERT_EQ(0, archive_reader__metrics(a, &m));
	EXPECT_LT(0, samples);
	EXPECT_EQ(samples, m.samples);
	EXPECT_EQ(archive_reader__nchunks(a), m.chunks);
	EXPECT_EQ(0, m.sink_dropped_records);
	ASSERT_EQ(0, archive_reader__threads(a, &th, &n));
	for (size_t i = 0; i < n; i++)
		sum += th[i].samples;
	EXPECT_EQ(samples, sum);
	archive_reader__close(a);
	unlink(path);
}

/*
 * Until the live archive @path, written by @rec, scans to @n whole chunks,
 * for at most @secs: 0, or -ETIMEDOUT, -ECHILD if @rec exited.
 */
static int wait_chunks(const char *path, size_t n, pid_t rec, unsigned int secs)
{
	unsigned long long end = vm_boottime_ns() + secs * 1000000000ull;
	struct archive_reader *a;
	char err[256];
	size_t got;
	int status;

	while (vm_boottime_ns() < end) {
		if (waitpid(rec, &status, WNOHANG) == rec)
			return -ECHILD;
		got = 0;
		if (!archive_reader__open(&a, path, 0, err, sizeof(err))) {
			got = archive_reader__nchunks(a);
			archive_reader__close(a);
		}
		if (got >= n)
			return 0;
		vm_sleep_ms(50);	/* the poll interval */
	}
	return -ETIMEDOUT;
}

TEST(a_killed_live_archive_scans_and_repairs)
{
	const char *path = "/tmp/live.fxtz";
	const char *args[] = { "-q", "-F", "1000", "--live-archive",
			       "--flush-ms", "100", path, NULL };
	struct archive_repair_stats rs;
	struct archive_metrics m;
	struct archive_reader *a;
	uint64_t samples;
	size_t chunks;
	char err[256];
	int status;
	pid_t b, rec;

	if (access("/dev/fxtprof", F_OK))
		SKIP(return, "no /dev/fxtprof (module not loaded)");
	b = busy();
	rec = vm_record_spawn(args, NULL, NULL);
	ASSERT_LT(0, rec);
	/* Until two whole chunks are on disk (60 s), then killed mid-write. */
	ASSERT_EQ(0, wait_chunks(path, 2, rec, 60));
	kill(rec, SIGKILL);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	ASSERT_TRUE(WIFSIGNALED(status));

	ASSERT_EQ(0, archive_reader__open(&a, path, 0, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(ARCHIVE_INDEX_SCAN, archive_reader__index(a));
	chunks = archive_reader__nchunks(a);
	EXPECT_LE(2, chunks);
	samples = check_chunks(_metadata, a, rec);
	EXPECT_LT(0, samples);
	archive_reader__close(a);

	ASSERT_EQ(0, archive__repair(path, &rs, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_FALSE(rs.was_finished);
	EXPECT_EQ(chunks, rs.chunks);
	EXPECT_EQ(0, rs.bad_chunks);
	ASSERT_EQ(0, archive_reader__open(&a, path, 0, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(ARCHIVE_INDEX_FOOTER, archive_reader__index(a));
	ASSERT_EQ(0, archive_reader__metrics(a, &m));
	EXPECT_EQ(samples, m.samples);
	EXPECT_EQ(chunks, m.chunks);
	archive_reader__close(a);
	unlink(path);
}

TEST_HARNESS_MAIN

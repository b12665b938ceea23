// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_procs.c - the parsers behind a process's container and its JIT
 * functions (user/source/proc_info.h, user/source/perf_map.h) on good
 * and bad input, and the .build-id layout's paths
 * (user/util/build_id_path.h).  No privileges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "source/perf_map.h"
#include "source/proc_info.h"
#include "util/build_id_path.h"

TEST(cgroup_v2_line)
{
	char out[64];

	ASSERT_EQ(0, proc_info__parse_cgroup(
		"12:cpu:/v1/path\n0::/system.slice/app.service\n", out,
		sizeof(out)));
	ASSERT_STREQ("/system.slice/app.service", out);
	/* The last line without its newline. */
	ASSERT_EQ(0, proc_info__parse_cgroup("0::/", out, sizeof(out)));
	ASSERT_STREQ("/", out);
	/* Cut to fit, still a prefix. */
	ASSERT_EQ(0, proc_info__parse_cgroup("0::/abcdefgh\n", out, 5));
	ASSERT_STREQ("/abc", out);
}

TEST(cgroup_bad)
{
	char out[64] = "x";

	/* cgroup v1 only: no unified line. */
	ASSERT_EQ(-ENOENT, proc_info__parse_cgroup("4:memory:/a\n", out,
						   sizeof(out)));
	ASSERT_STREQ("", out);
	ASSERT_EQ(-ENOENT, proc_info__parse_cgroup("", out, sizeof(out)));
	ASSERT_EQ(-EINVAL, proc_info__parse_cgroup("0::\n", out, sizeof(out)));
	ASSERT_EQ(-EINVAL, proc_info__parse_cgroup("0::rel\n", out,
						   sizeof(out)));
}

TEST(nspid_innermost)
{
	int64_t v = 0;

	ASSERT_EQ(0, proc_info__parse_nspid("Name:\tx\nNSpid:\t4242\t7\t1\n"
					    "NSpgid:\t1\n", &v));
	ASSERT_EQ(1, v);
	ASSERT_EQ(0, proc_info__parse_nspid("NSpid:\t30617", &v));
	ASSERT_EQ(30617, v);
}

TEST(nspid_bad)
{
	int64_t v = 99;

	ASSERT_EQ(-ENOENT, proc_info__parse_nspid("Name:\tx\nPid:\t3\n", &v));
	ASSERT_EQ(-EINVAL, proc_info__parse_nspid("NSpid:\n", &v));
	ASSERT_EQ(-EINVAL, proc_info__parse_nspid("NSpid:\t12x\n", &v));
	ASSERT_EQ(-EINVAL, proc_info__parse_nspid("NSpid:\t-3\n", &v));
	ASSERT_EQ(-EINVAL, proc_info__parse_nspid("NSpid:\t99999999999\n",
						  &v));
	ASSERT_EQ(99, v);
}

TEST(proc_info_of_self)
{
	struct proc_info pi;

	ASSERT_EQ(0, proc_info__read(NULL, (uint32_t)getpid(), &pi));
	/* No pid namespace of its own: the same pid. */
	ASSERT_EQ(getpid(), pi.nspid);
	/* A process that is not there has exited. */
	ASSERT_EQ(-ESRCH, proc_info__read(NULL, 0x7ffffffe, &pi));
}

TEST(perf_map_line)
{
	struct perf_map_entry e;
	const char *why = NULL;
	const char *l = "7f0012345000 1a0 LazyCompile:*hot /a.js:3";

	ASSERT_EQ(0, perf_map__parse_line(l, strlen(l), &e, &why));
	ASSERT_EQ(0x7f0012345000ull, e.start);
	ASSERT_EQ(0x1a0ull, e.size);
	ASSERT_EQ(strlen("LazyCompile:*hot /a.js:3"), e.name_len);
	ASSERT_EQ(0, memcmp(e.name, "LazyCompile:*hot /a.js:3", e.name_len));
	/* 0x prefixes (perf-map-agent), a CR, names with blanks. */
	l = "0x1000 0x10 py::f:/x.py\r";
	ASSERT_EQ(0, perf_map__parse_line(l, strlen(l), &e, &why));
	ASSERT_EQ(0x1000ull, e.start);
	ASSERT_EQ(strlen("py::f:/x.py"), e.name_len);
}

static void bad(struct __test_metadata *_metadata, const char *l,
		const char *want)
{
	struct perf_map_entry e;
	const char *why = NULL;

	ASSERT_EQ(-EINVAL, perf_map__parse_line(l, strlen(l), &e, &why));
	ASSERT_NE(NULL, why);
	ASSERT_NE(NULL, strstr(why, want));
}

TEST(perf_map_bad_lines)
{
	bad(_metadata, "", "START");
	bad(_metadata, "zz 10 f", "START");
	bad(_metadata, "1000", "START");
	bad(_metadata, "1000 10", "SIZE");
	bad(_metadata, "1000 1g f", "SIZE");
	bad(_metadata, "1000 10 ", "no name");
	bad(_metadata, "1000 0 f", "SIZE is 0");
	/* Huge: more than 4 GiB, more than 64 bits, past the top. */
	bad(_metadata, "1000 100000001 f", "larger than 4 GiB");
	bad(_metadata, "1000 10000000000000000 f", "SIZE");
	bad(_metadata, "fffffffffffff000 2000 f", "past the address space");
}

struct collected {
	uint64_t starts[8];
	char names[8][16];
	int n;
};

static int collect(void *ctx, const struct perf_map_entry *e)
{
	struct collected *c = ctx;

	if (c->n == 8)
		return -E2BIG;
	c->starts[c->n] = e->start;
	snprintf(c->names[c->n], sizeof(c->names[0]), "%.*s",
		 (int)e->name_len, e->name);
	c->n++;
	return 0;
}

static int map_fd(const char *text)
{
	int fd = memfd_create("perf-map", 0);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    lseek(fd, 0, SEEK_SET)) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST(perf_map_file)
{
	/* Unsorted, a bad line in the middle, no newline at the end. */
	int fd = map_fd("3000 10 third\n1000 10 first\nbogus\n2000 10 second");
	struct perf_map_stats st = { 0 };
	struct collected c = { 0 };

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, perf_map__read_fd(fd, 100, 1 << 20, collect, &c, &st));
	close(fd);
	ASSERT_EQ(3, c.n);
	ASSERT_EQ(3, st.entries);
	ASSERT_EQ(0x3000ull, c.starts[0]);
	ASSERT_STREQ("first", c.names[1]);
	ASSERT_STREQ("second", c.names[2]);
	ASSERT_EQ(1, st.bad_lines);
	ASSERT_EQ(3, st.first_error_line);
	ASSERT_NE(NULL, strstr(st.first_error, "START"));
	ASSERT_EQ(0, st.truncated);
}

TEST(perf_map_caps)
{
	int fd = map_fd("1000 10 a\n2000 10 b\n3000 10 c\n");
	struct perf_map_stats st = { 0 };
	struct collected c = { 0 };

	ASSERT_LE(0, fd);
	/* Two functions at most: cut there, counted once. */
	ASSERT_EQ(0, perf_map__read_fd(fd, 2, 1 << 20, collect, &c, &st));
	ASSERT_EQ(2, c.n);
	ASSERT_EQ(1, st.truncated);
	/* Fifteen bytes at most: the first line (ten) only. */
	memset(&st, 0, sizeof(st));
	memset(&c, 0, sizeof(c));
	lseek(fd, 0, SEEK_SET);
	ASSERT_EQ(0, perf_map__read_fd(fd, 100, 15, collect, &c, &st));
	ASSERT_EQ(1, c.n);
	ASSERT_EQ(1, st.truncated);
	close(fd);
}

TEST(perf_map_long_line)
{
	char text[4096];
	struct perf_map_stats st = { 0 };
	struct collected c = { 0 };
	int fd;

	/* A line past the reader's buffer is bad; the next still reads. */
	memset(text, 'x', sizeof(text));
	memcpy(text, "1000 10 ", 8);
	strcpy(text + 3000, "\n2000 10 after\n");
	fd = map_fd(text);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, perf_map__read_fd(fd, 100, 1 << 20, collect, &c, &st));
	close(fd);
	ASSERT_EQ(1, c.n);
	ASSERT_STREQ("after", c.names[0]);
	ASSERT_EQ(1, st.bad_lines);
	ASSERT_NE(NULL, strstr(st.first_error, "longer"));
}

TEST(build_id_layout)
{
	static const uint8_t id[] = { 0xab, 0x01, 0xcd, 0xef };
	char buf[64];

	ASSERT_EQ((int)strlen("/d/.build-id/ab/01cdef"),
		  build_id_path(buf, sizeof(buf), "/d", id, sizeof(id), NULL));
	ASSERT_STREQ("/d/.build-id/ab/01cdef", buf);
	ASSERT_LT(0, build_id_path(buf, sizeof(buf), NULL, id, sizeof(id),
				   ".debug"));
	ASSERT_STREQ(".build-id/ab/01cdef.debug", buf);
	ASSERT_EQ(-EINVAL, build_id_path(buf, sizeof(buf), "/d", id, 1, NULL));
	ASSERT_EQ(-ENAMETOOLONG, build_id_path(buf, 10, "/d", id, sizeof(id),
					       NULL));
}

TEST_HARNESS_MAIN

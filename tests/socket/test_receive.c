// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_receive.c - `fxtprof receive` and `fxtprof send` as child
 * processes: many concurrent streams into one receiver, over unix and
 * loopback TCP sockets; every file must be byte-identical to what its
 * sender sent (nothing is dropped: send waits for the socket).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "sock_util.h"

#define NSEND 16

static void fxtprof_path(char *buf, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	/* build/ARCH/tests/socket/test_receive -> build/ARCH/bin/fxtprof */
	snprintf(buf, cap, "%s/../../bin/fxtprof", dirname(exe));
}

static pid_t spawn(char *const argv[], int out_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (out_fd >= 0)
			dup2(out_fd, STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int wait_exit(pid_t pid, int timeout_ms)
{
	int status;

	for (; timeout_ms > 0; timeout_ms -= 10) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static int read_file(const char *path, struct buf *b)
{
	char tmp[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		buf__append(b, tmp, (size_t)n);
	close(fd);
	return 0;
}

struct fixture_data {
	char dir[64], outdir[96], fxtprof[PATH_MAX];
	struct buf in[NSEND];
	char in_path[NSEND][128];
};

static void setup_inputs(struct __test_metadata *_metadata,
			 struct fixture_data *d)
{
	int i, fd;

	strcpy(d->dir, "/tmp/fxtprof-recv-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(d->dir));
	snprintf(d->outdir, sizeof(d->outdir), "%s/out", d->dir);
	fxtprof_path(d->fxtprof, sizeof(d->fxtprof));
	ASSERT_EQ(0, access(d->fxtprof, X_OK));
	for (i = 0; i < NSEND; i++) {
		memset(&d->in[i], 0, sizeof(d->in[i]));
		/* Distinct sizes and contents, 300 KB .. 1.8 MB. */
		ASSERT_EQ(0, gen__stream(i + 1, 300000 + i * 100000,
					 &d->in[i]));
		snprintf(d->in_path[i], sizeof(d->in_path[i]), "%s/in-%d.fxt",
			 d->dir, i);
		fd = open(d->in_path[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ASSERT_GE(fd, 0);
		ASSERT_EQ((ssize_t)d->in[i].len,
			  write(fd, d->in[i].p, d->in[i].len));
		close(fd);
	}
}

/* Every received file matches exactly one input, byte for byte. */
static void match_outputs(struct __test_metadata *_metadata,
			  struct fixture_data *d, int nsend)
{
	bool used[NSEND] = { false };
	struct dirent *de;
	int files = 0, i;
	DIR *dir = opendir(d->outdir);

	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir))) {
		struct buf got = { 0 };
		char path[512];
		bool found = false;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->outdir, de->d_name);
		ASSERT_EQ(0, read_file(path, &got));
		for (i = 0; i < nsend; i++)
			if (!used[i] && got.len == d->in[i].len &&
			    !memcmp(got.p, d->in[i].p, got.len)) {
				used[i] = found = true;
				break;
			}
		if (!found)
			TH_LOG("%s (%zu bytes) matches no input", path, got.len);
		EXPECT_TRUE(found);
		buf__free(&got);
		files++;
	}
	closedir(dir);
	ASSERT_EQ(nsend, files);
}

static void cleanup(struct fixture_data *d)
{
	char cmd[200];
	int i;

	for (i = 0; i < NSEND; i++)
		buf__free(&d->in[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->dir);
	if (system(cmd))
		return;
}

static int count_lines(const char *path, const char *needle)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

TEST(sixteen_senders_unix)
{
	struct fixture_data d;
	char uri[128], log[128], sock[100];
	pid_t rpid, spid[NSEND];
	int i, logfd;

	setup_inputs(_metadata, &d);
	snprintf(sock, sizeof(sock), "%s/s.sock", d.dir);
	snprintf(uri, sizeof(uri), "unix://%s", sock);
	snprintf(log, sizeof(log), "%s/recv.log", d.dir);
	logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	{
		char *argv[] = { d.fxtprof, "receive", uri, "-o", d.outdir,
				 "-n", "16", NULL };

		rpid = spawn(argv, logfd);
	}
	for (i = 0; i < 500 && access(sock, F_OK); i++)
		usleep(10000);
	ASSERT_EQ(0, access(sock, F_OK));
	for (i = 0; i < NSEND; i++) {
		char *argv[] = { d.fxtprof, "send", "-q", "--sndbuf", "16K",
				 d.in_path[i], uri, NULL };

		spid[i] = spawn(argv, -1);
	}
	for (i = 0; i < NSEND; i++)
		EXPECT_EQ(0, wait_exit(spid[i], 20000));
	ASSERT_EQ(0, wait_exit(rpid, 20000));
	close(logfd);
	match_outputs(_metadata, &d, NSEND);
	ASSERT_EQ(NSEND, count_lines(log, "ended on a record boundary"));
	cleanup(&d);
}

/* Loopback TCP on an ephemeral port; the receiver stops at SIGINT. */
TEST(tcp_senders_then_sigint)
{
	struct fixture_data d;
	char uri[128], line[256];
	pid_t rpid, spid[NSEND];
	int i, pipefd[2];
	FILE *rout;

	setup_inputs(_metadata, &d);
	ASSERT_EQ(0, pipe(pipefd));
	{
		char *argv[] = { d.fxtprof, "receive", "tcp://127.0.0.1:0",
				 "-o", d.outdir, NULL };

		rpid = spawn(argv, pipefd[1]);
	}
	close(pipefd[1]);
	rout = fdopen(pipefd[0], "r");
	ASSERT_NE(NULL, fgets(line, sizeof(line), rout));
	ASSERT_EQ(1, sscanf(line, "listening on %127s", uri));
	for (i = 0; i < NSEND; i++) {
		char *argv[] = { d.fxtprof, "send", "-q", d.in_path[i], uri,
				 NULL };

		spid[i] = spawn(argv, -1);
	}
	for (i = 0; i < NSEND; i++)
		EXPECT_EQ(0, wait_exit(spid[i], 20000));
	/* Every sender is done, but its stream may still be in flight. */
	usleep(300000);
	kill(rpid, SIGINT);
	ASSERT_EQ(0, wait_exit(rpid, 5000));
	for (i = 0; fgets(line, sizeof(line), rout);)
		if (strstr(line, "ended on a record boundary"))
			i++;
	fclose(rout);
	ASSERT_EQ(NSEND, i);
	match_outputs(_metadata, &d, NSEND);
	cleanup(&d);
}

TEST_HARNESS_MAIN

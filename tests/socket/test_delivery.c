// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_delivery.c - what `fxtprof send` says it delivered is what reached
 * the destination, and its exit status says whether all of it did
 * (user/cmd/delivery.c; 0 = delivered and confirmed, 3 = output lost).
 *  - into `fxtprof receive`: confirmed by the receiver's acknowledgement;
 *  - into a peer that reads 1000 bytes and closes: nothing confirmed;
 *  - into a file on a full file system: it ends on its last whole record,
 *    the summary names ENOSPC and counts what is in the file;
 *  - files are created 0600 (an existing file is made so), or --mode.
 * `fxtprof send` and `fxtprof receive` run as child processes, over real
 * sockets.  The full-disk test mounts a small tmpfs in a mount namespace
 * of its own, so it needs root, as make check runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "sock_util.h"

struct env {
	char dir[64], in[128], err[128], fxtprof[PATH_MAX];
	struct buf input;
};

static void env_init(struct __test_metadata *_metadata, struct env *e,
		     size_t input_bytes)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd;

	memset(e, 0, sizeof(*e));
	exe[n > 0 ? n : 0] = '\0';
	/* build/ARCH/tests/socket/test_delivery -> build/ARCH/bin/fxtprof */
	snprintf(e->fxtprof, sizeof(e->fxtprof), "%s/../../bin/fxtprof",
		 dirname(exe));
	ASSERT_EQ(0, access(e->fxtprof, X_OK));
	strcpy(e->dir, "/tmp/fxtprof-dlv-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(e->dir));
	snprintf(e->in, sizeof(e->in), "%s/in.fxt", e->dir);
	snprintf(e->err, sizeof(e->err), "%s/err", e->dir);
	ASSERT_EQ(0, gen__stream(7, input_bytes, &e->input));
	fd = open(e->in, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)e->input.len, write(fd, e->input.p, e->input.len));
	close(fd);
}

static void env_fini(struct env *e)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->dir);
	if (system(cmd))
		return;
	buf__free(&e->input);
}

/* Run `fxtprof ARGS...` with stderr into e->err; its exit status. */
static int run(struct env *e, const char *const *args)
{
	const char *argv[16] = { e->fxtprof };
	int n = 1, status;
	pid_t pid;

	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int fd = open(e->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fd, STDERR_FILENO);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *slurp(const char *path)
{
	struct buf b = { 0 };
	char tmp[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		buf__append(&b, tmp, (size_t)n);
	close(fd);
	buf__append(&b, "", 1);
	return (char *)b.p;
}

/* "delivered N bytes (R records)" of send's summary; -1 if absent. */
static long long delivered(const char *err, long long *records)
{
	const char *l = err ? strstr(err, "delivered ") : NULL;
	long long b;

	if (!l || sscanf(l, "delivered %lld bytes (%lld records)", &b,
			 records) != 2)
		return -1;
	return b;
}

/* Records in a whole FXT buffer: header words' size fields. */
static long long count_records(const unsigned char *p, size_t len)
{
	long long n = 0;
	size_t off = 0;

	while (off + 8 <= len) {
		uint64_t h;
		size_t sz;

		memcpy(&h, p + off, 8);
		sz = ((h >> 4) & 0xfff) * 8;
		if (!sz || off + sz > len)
			return -1;
		off += sz;
		n++;
	}
	return off == len ? n : -1;
}

TEST(confirmed_by_receive)
{
	char sock[128], uri[160], outdir[128], *err;
	long long bytes, records = 0;
	struct env e;
	pid_t rpid;
	int i;

	env_init(_metadata, &e, 400000);
	snprintf(sock, sizeof(sock), "%s/s.sock", e.dir);
	snprintf(uri, sizeof(uri), "unix://%s", sock);
	snprintf(outdir, sizeof(outdir), "%s/out", e.dir);
	rpid = fork();
	if (rpid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		execl(e.fxtprof, e.fxtprof, "receive", uri, "-o", outdir, "-n",
		      "1", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500 && access(sock, F_OK); i++)
		usleep(10000);	/* the poll interval: 5 s for the socket */
	ASSERT_EQ(0, access(sock, F_OK));
	EXPECT_EQ(0, run(&e, (const char *[]){ "send", e.in, uri, NULL }));
	err = slurp(e.err);
	TH_LOG("send said:\n%s", err);
	EXPECT_NE(NULL, strstr(err, "confirmed by the receiver"));
	bytes = delivered(err, &records);
	EXPECT_EQ((long long)e.input.len, bytes);
	EXPECT_EQ(count_records(e.input.p, e.input.len), records);
	EXPECT_EQ(NULL, strstr(err, "lost"));
	free(err);
	kill(rpid, SIGINT);
	waitpid(rpid, NULL, 0);
	env_fini(&e);
}

struct closer {
	int lfd;
	size_t read_bytes;
};

/* Accept one connection, read 1000 bytes, close with the rest unread. */
static void *closer_main(void *arg)
{
	struct closer *c = arg;
	char tmp[1000];
	int fd = accept(c->lfd, NULL, NULL);
	ssize_t n;

	while (fd >= 0 && c->read_bytes < sizeof(tmp) &&
	       (n = recv(fd, tmp, sizeof(tmp) - c->read_bytes, 0)) > 0)
		c->read_bytes += (size_t)n;
	/* More arrived and is left unread, so that close resets (10 s). */
	for (int i = 0, unread = 0; fd >= 0 && !unread && i < 1000; i++) {
		if (ioctl(fd, FIONREAD, &unread) || !unread)
			usleep(10000);	/* the poll interval */
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

TEST(early_closer_is_lost)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct closer c = { 0 };
	char uri[160], *err;
	long long records = -1;
	struct env e;
	pthread_t th;

	env_init(_metadata, &e, 2000000);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/c.sock", e.dir);
	snprintf(uri, sizeof(uri), "unix://%s", sun.sun_path);
	c.lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_EQ(0, bind(c.lfd, (struct sockaddr *)&sun, sizeof(sun)));
	ASSERT_EQ(0, listen(c.lfd, 1));
	ASSERT_EQ(0, pthread_create(&th, NULL, closer_main, &c));
	EXPECT_EQ(3, run(&e, (const char *[]){ "send", "--linger", "5",
					       e.in, uri, NULL }));
	pthread_join(th, NULL);
	err = slurp(e.err);
	TH_LOG("the peer read %zu bytes; send said:\n%s", c.read_bytes, err);
	EXPECT_EQ(1000, c.read_bytes);
	/* Nothing confirmed, and the rest said to be lost. */
	EXPECT_EQ(0, delivered(err, &records));
	EXPECT_EQ(0, records);
	EXPECT_NE(NULL, strstr(err, "lost "));
	EXPECT_NE(NULL, strstr(err, "the output is incomplete"));
	free(err);
	close(c.lfd);
	env_fini(&e);
}

TEST(full_disk_ends_on_a_whole_record)
{
	char mnt[160], out[200], uri[220], *err;
	long long bytes, records = 0;
	struct buf got = { 0 };
	struct env e;
	char tmp[65536];
	ssize_t n;
	int fd;

	env_init(_metadata, &e, 1000000);
	/* A 128 KiB file system of our own: private to this test. */
	ASSERT_EQ(0, unshare(CLONE_NEWNS)) TH_LOG("needs root: %m");
	/* Private, so the small file system shows nowhere else. */
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		TH_LOG("/ must be a mount point (not a plain chroot): %m");
	snprintf(mnt, sizeof(mnt), "%s/small", e.dir);
	ASSERT_EQ(0, mkdir(mnt, 0700));
	ASSERT_EQ(0, mount("tmpfs", mnt, "tmpfs", 0, "size=128k"));
	snprintf(out, sizeof(out), "%s/out.fxt", mnt);
	snprintf(uri, sizeof(uri), "file://%s", out);

	EXPECT_EQ(3, run(&e, (const char *[]){ "send", e.in, uri, NULL }));
	err = slurp(e.err);
	TH_LOG("send said:\n%s", err);
	EXPECT_NE(NULL, strstr(err, "No space left on device"));
	fd = open(out, O_RDONLY);
	ASSERT_LE(0, fd);
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		buf__append(&got, tmp, (size_t)n);
	close(fd);
	/* What the file holds is what the summary says: whole records. */
	bytes = delivered(err, &records);
	EXPECT_LT(0, got.len);
	EXPECT_EQ((long long)got.len, bytes);
	EXPECT_EQ(count_records(got.p, got.len), records);
	EXPECT_EQ(0, memcmp(got.p, e.input.p, got.len));
	EXPECT_EQ(0, fxt_check_buffer(got.p, got.len, NULL));
	free(err);
	buf__free(&got);
	umount2(mnt, MNT_DETACH);
	env_fini(&e);
}

TEST(files_are_private)
{
	char out[160], uri[180];
	struct stat st;
	struct env e;
	int fd;

	env_init(_metadata, &e, 20000);
	snprintf(out, sizeof(out), "%s/out.fxt", e.dir);
	snprintf(uri, sizeof(uri), "file://%s", out);
	umask(0022);
	EXPECT_EQ(0, run(&e, (const char *[]){ "send", "-q", e.in, uri, NULL }));
	ASSERT_EQ(0, stat(out, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	/* An existing file, kept by O_TRUNC, is made private too. */
	ASSERT_EQ(0, chmod(out, 0644));
	EXPECT_EQ(0, run(&e, (const char *[]){ "send", "-q", e.in, out, NULL }));
	ASSERT_EQ(0, stat(out, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	/* Unless a flag says otherwise. */
	EXPECT_EQ(0, run(&e, (const char *[]){ "send", "-q", "--mode", "0640",
					       e.in, out, NULL }));
	ASSERT_EQ(0, stat(out, &st));
	EXPECT_EQ(0640, st.st_mode & 07777);
	fd = open(out, O_RDONLY);
	EXPECT_LE(0, fd);
	close(fd);
	env_fini(&e);
}

TEST_HARNESS_MAIN

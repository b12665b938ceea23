// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_receive.c - `fxtprof receive` and `fxtprof send` as child
 * processes: many concurrent streams into one receiver, over unix and
 * loopback TCP sockets; every file must be byte-identical to what its
 * sender sent (nothing is dropped: send waits for the socket).
 *
 * Then receive against peers written here, over real sockets: the
 * acknowledgement of a stream's end, file modes, and hostile peers (a
 * string flood, more peers than fds, random bytes, stallers, empty
 * connections), each bounded in time, memory or disk.  Every summary
 * line must give the bytes its file has on disk.
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
#include <endian.h>
#include <inttypes.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "cmd/receive.h"
#include "fxt/fxt_profile.h"
#include "transport/stream_ack.h"
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
		usleep(10000);	/* the poll interval */
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

/* @needle's occurrences in @b (not NUL-terminated). */
static int count_in(const struct buf *b, const char *needle)
{
	size_t nlen = strlen(needle), off = 0;
	const unsigned char *p;
	int n = 0;

	while (off < b->len &&
	       (p = memmem(b->p + off, b->len - off, needle, nlen))) {
		n++;
		off = (size_t)(p - b->p) + nlen;
	}
	return n;
}

/*
 * Append what @fd gives to @b until @b holds @n occurrences of @needle,
 * EOF, or @timeout_ms: the occurrences it holds.
 */
static int read_until(int fd, struct buf *b, const char *needle, int n,
		      int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char tmp[4096];
	int found;

	while ((found = count_in(b, needle)) < n && now_ns() < end) {
		ssize_t got;

		if (poll(&p, 1, (int)((end - now_ns()) / 1000000) + 1) != 1)
			continue;
		got = read(fd, tmp, sizeof(tmp));
		if (got <= 0)
			break;
		buf__append(b, tmp, (size_t)got);
	}
	return found;
}

/* Until a line of @path holds @needle, for at most @timeout_ms: 0 or -1. */
static int wait_line(const char *path, const char *needle, int timeout_ms)
{
	for (; timeout_ms > 0; timeout_ms -= 10) {
		if (count_lines(path, needle) > 0)
			return 0;
		usleep(10000);	/* the poll interval */
	}
	return -1;
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
		usleep(10000);	/* the poll interval: 5 s for the socket */
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
	static const char ended[] = "ended on a record boundary";
	struct fixture_data d;
	char uri[128], line[256];
	struct buf out = { 0 };
	const unsigned char *nl;
	pid_t rpid, spid[NSEND];
	int i, pipefd[2];

	setup_inputs(_metadata, &d);
	ASSERT_EQ(0, pipe(pipefd));
	{
		char *argv[] = { d.fxtprof, "receive", "tcp://127.0.0.1:0",
				 "-o", d.outdir, NULL };

		rpid = spawn(argv, pipefd[1]);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read_until(pipefd[0], &out, "\n", 1, 20000));
	nl = memchr(out.p, '\n', out.len);
	snprintf(line, sizeof(line), "%.*s", (int)(nl - out.p), out.p);
	ASSERT_EQ(1, sscanf(line, "listening on %127s", uri));
	for (i = 0; i < NSEND; i++) {
		char *argv[] = { d.fxtprof, "send", "-q", d.in_path[i], uri,
				 NULL };

		spid[i] = spawn(argv, -1);
	}
	for (i = 0; i < NSEND; i++)
		EXPECT_EQ(0, wait_exit(spid[i], 20000));
	/* Every sender is done; the receiver says so of each stream. */
	EXPECT_EQ(NSEND, read_until(pipefd[0], &out, ended, NSEND, 20000));
	kill(rpid, SIGINT);
	ASSERT_EQ(0, wait_exit(rpid, 5000));
	/* To EOF: no stream ends twice. */
	ASSERT_EQ(NSEND, read_until(pipefd[0], &out, ended, NSEND + 1, 5000));
	close(pipefd[0]);
	buf__free(&out);
	match_outputs(_metadata, &d, NSEND);
	cleanup(&d);
}

/* ------------------------------------------------------------------ */
/* Against peers written here                                          */
/* ------------------------------------------------------------------ */

struct rcv {
	char dir[64], outdir[96], sock[128], uri[160], err[128];
	char fxtprof[PATH_MAX];
	pid_t pid;
	FILE *out;		/* the receiver's stdout */
};

/*
 * Start `fxtprof receive unix://DIR/s.sock -o DIR/out ARGS...`, stderr to
 * DIR/err, with RLIMIT_NOFILE at @nofile if non-zero; wait for it to
 * listen.
 */
static int rcv_start(struct rcv *r, rlim_t nofile, const char *const *args)
{
	char *argv[32];
	char line[256];
	int pipefd[2], n = 0, errfd;

	memset(r, 0, sizeof(*r));
	strcpy(r->dir, "/tmp/fxtprof-rcvh-XXXXXX");
	if (!mkdtemp(r->dir))
		return -errno;
	snprintf(r->outdir, sizeof(r->outdir), "%s/out", r->dir);
	snprintf(r->sock, sizeof(r->sock), "%s/s.sock", r->dir);
	snprintf(r->uri, sizeof(r->uri), "unix://%s", r->sock);
	snprintf(r->err, sizeof(r->err), "%s/err", r->dir);
	fxtprof_path(r->fxtprof, sizeof(r->fxtprof));
	argv[n++] = r->fxtprof;
	argv[n++] = "receive";
	argv[n++] = r->uri;
	argv[n++] = "-o";
	argv[n++] = r->outdir;
	while (args && *args && n < 30)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	if (pipe(pipefd))
		return -errno;
	errfd = open(r->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	r->pid = fork();
	if (r->pid == 0) {
		struct rlimit rl = { nofile, nofile };

		dup2(pipefd[1], STDOUT_FILENO);
		dup2(errfd, STDERR_FILENO);
		/* Only stdio goes to the receiver: fd counts are exact. */
		close(pipefd[0]);
		close(pipefd[1]);
		close(errfd);
		if (nofile && setrlimit(RLIMIT_NOFILE, &rl))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	close(errfd);
	r->out = fdopen(pipefd[0], "r");
	if (!r->out || !fgets(line, sizeof(line), r->out) ||
	    !strstr(line, "listening on"))
		return -EIO;
	return 0;
}

static int rcv_connect(const struct rcv *r)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sun.sun_path, r->sock);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Stop the receiver (if still running) and collect its exit status. */
static int rcv_stop(struct rcv *r, bool signal)
{
	if (signal)
		kill(r->pid, SIGINT);
	return wait_exit(r->pid, 20000);
}

static void rcv_cleanup(struct rcv *r)
{
	char cmd[200];

	if (r->out)
		fclose(r->out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir);
	if (system(cmd))
		return;
}

struct summary {
	char path[512];
	uint64_t bytes, records;
	char line[2048];
};

/*
 * Read summary lines until one contains @needle (NULL: any "stream"
 * line); check that its file holds as many bytes as it says, whole
 * records only, or that no file exists when it says "no file".
 */
static int next_summary(struct __test_metadata *_metadata, struct rcv *r,
			const char *needle, struct summary *sm)
{
	struct stat st;
	char *p;

	while (fgets(sm->line, sizeof(sm->line), r->out)) {
		if (strncmp(sm->line, "stream ", 7))
			continue;
		if (needle && !strstr(sm->line, needle)) {
			TH_LOG("summary: %s", sm->line);
			return -ENOENT;
		}
		p = strstr(sm->line, ": ");
		if (!p || sscanf(p + 2, "%511[^:]: %" SCNu64 " bytes, %" SCNu64
				 " records", sm->path, &sm->bytes,
				 &sm->records) != 3)
			return -EINVAL;
		if (!strcmp(sm->path, "no file")) {
			EXPECT_EQ(0, sm->bytes);
			return 0;
		}
		EXPECT_EQ(0, stat(sm->path, &st));
		EXPECT_EQ(sm->bytes, (uint64_t)st.st_size);
		{
			struct buf b = { 0 };
			bool whole;

			EXPECT_EQ(0, read_file(sm->path, &b));
			EXPECT_EQ(sm->records,
				  fxt_count_records(b.p, b.len, &whole));
			EXPECT_TRUE(whole);
			buf__free(&b);
		}
		return 0;
	}
	return -EIO;
}

static int count_files(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Send all of @len, or stop at the first error; returns bytes sent. */
static size_t send_some(int fd, const void *p, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, (const char *)p + done, len - done,
				 MSG_NOSIGNAL);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return done;
}

/* Read up to @cap bytes until EOF, error or @timeout_ms. */
static ssize_t recv_until_eof(int fd, void *p, size_t cap, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < cap && poll(&pfd, 1, timeout_ms) == 1) {
		ssize_t n = recv(fd, (char *)p + got, cap - got, 0);

		if (n <= 0)
			return n < 0 && !got ? -errno : (ssize_t)got;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static uint64_t proc_cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	/* Fields after the command name, which may hold spaces. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%lu %lu", &ut, &st) != 2)
		return 0;
	return (uint64_t)(ut + st) * 1000 / (uint64_t)sysconf(_SC_CLK_TCK);
}

/* Half-close after a whole stream: the ack gives the file's counts. */
TEST(ack_after_half_close)
{
	static const char *const args[] = { "-n", "1", NULL };
	struct buf in = { 0 };
	struct summary sm;
	unsigned char ack[STREAM_ACK_SIZE + 8];
	uint64_t bytes, records;
	bool whole;
	struct rcv r;
	int fd;

	ASSERT_EQ(0, gen__stream(7, 2000000, &in));
	ASSERT_EQ(0, rcv_start(&r, 0, args));
	fd = rcv_connect(&r);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(in.len, send_some(fd, in.p, in.len));
	ASSERT_EQ(0, shutdown(fd, SHUT_WR));
	/* Exactly 24 bytes, then EOF. */
	ASSERT_EQ(STREAM_ACK_SIZE, recv_until_eof(fd, ack, sizeof(ack), 10000));
	ASSERT_EQ(0, stream_ack__decode(ack, &bytes, &records));
	EXPECT_EQ(0x01004b4341545846ull, le64toh(*(uint64_t *)ack));
	EXPECT_EQ(0, memcmp(ack, "FXTACK\0\1", 8));
	close(fd);
	ASSERT_EQ(0, next_summary(_metadata, &r, "acknowledgement sent", &sm));
	EXPECT_EQ(in.len, bytes);
	EXPECT_EQ(sm.bytes, bytes);
	EXPECT_EQ(sm.records, records);
	EXPECT_EQ(fxt_count_records(in.p, in.len, &whole), records);
	EXPECT_EQ(0, rcv_stop(&r, false));
	buf__free(&in);
	rcv_cleanup(&r);
}

/* A stream cut inside a record: the ack counts the whole records kept. */
TEST(ack_counts_whole_records_only)
{
	static const char *const args[] = { "-n", "1", NULL };
	struct buf in = { 0 };
	struct summary sm;
	unsigned char ack[STREAM_ACK_SIZE];
	uint64_t bytes, records;
	bool whole;
	struct rcv r;
	int fd;

	ASSERT_EQ(0, gen__stream(8, 100000, &in));
	ASSERT_EQ(0, rcv_start(&r, 0, args));
	fd = rcv_connect(&r);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(in.len - 3, send_some(fd, in.p, in.len - 3));
	ASSERT_EQ(0, shutdown(fd, SHUT_WR));
	ASSERT_EQ(STREAM_ACK_SIZE, recv_until_eof(fd, ack, sizeof(ack), 10000));
	ASSERT_EQ(0, stream_ack__decode(ack, &bytes, &records));
	close(fd);
	ASSERT_EQ(0, next_summary(_metadata, &r, "ended inside a record", &sm));
	EXPECT_EQ(sm.bytes, bytes);
	EXPECT_EQ(sm.records, records);
	EXPECT_EQ(fxt_count_records(in.p, in.len - 3, &whole), records);
	EXPECT_GT(in.len - 3, bytes);
	EXPECT_EQ(0, rcv_stop(&r, false));
	buf__free(&in);
	rcv_cleanup(&r);
}

/* Files are private unless --mode says otherwise. */
TEST(file_modes)
{
	static const char *const dflt[] = { "-n", "1", NULL };
	static const char *const open_mode[] = { "-n", "1", "--mode", "0644",
						 NULL };
	const char *const *argsets[] = { dflt, open_mode };
	const mode_t want[] = { 0600, 0644 };
	struct buf in = { 0 };
	mode_t old = umask(022);
	unsigned char ack[STREAM_ACK_SIZE];
	struct summary sm;
	struct stat st;
	struct rcv r;
	int fd, i;

	ASSERT_EQ(0, gen__stream(9, 10000, &in));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rcv_start(&r, 0, argsets[i]));
		fd = rcv_connect(&r);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(in.len, send_some(fd, in.p, in.len));
		shutdown(fd, SHUT_WR);
		EXPECT_EQ(STREAM_ACK_SIZE,
			  recv_until_eof(fd, ack, sizeof(ack), 10000));
		close(fd);
		ASSERT_EQ(0, next_summary(_metadata, &r, NULL, &sm));
		ASSERT_EQ(0, stat(sm.path, &st));
		EXPECT_EQ(want[i], st.st_mode & 0777);
		ASSERT_EQ(0, stat(r.outdir, &st));
		EXPECT_EQ(i ? 0755 : 0700, st.st_mode & 0777);
		EXPECT_EQ(0, rcv_stop(&r, false));
		rcv_cleanup(&r);
	}
	umask(old);
	buf__free(&in);
}

/*
 * String records with ever new indices, 32000 bytes each, across
 * providers: 100 MB in.  The receiver keeps no tables, so its peak RSS
 * stays small (it grew to 105 MB before).
 */
TEST(string_flood_bounded_rss)
{
	enum { STR = 32000, TOTAL = 100 << 20 };
	size_t rec_bytes = 8 + STR, sent = 0;
	unsigned char *rec = calloc(1, rec_bytes);
	uint64_t magic = FXT_MAGIC, h, idx = 1, hwm;
	struct summary sm;
	struct rcv r;
	int fd;

	ASSERT_NE(NULL, rec);
	memset(rec + 8, 'x', STR);
	ASSERT_EQ(0, rcv_start(&r, 0, NULL));
	fd = rcv_connect(&r);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(8, send_some(fd, &magic, 8));
	while (sent < TOTAL) {
		h = FXT_REC_STRING | (uint64_t)(rec_bytes / 8) << 4 |
		    idx << 16 | (uint64_t)STR << 32;
		idx = idx % 0x7fff + 1;
		memcpy(rec, &h, 8);
		ASSERT_EQ(rec_bytes, send_some(fd, rec, rec_bytes));
		sent += rec_bytes;
	}
	shutdown(fd, SHUT_WR);
	recv_until_eof(fd, &h, sizeof(h), 20000);
	close(fd);
	ASSERT_EQ(0, next_summary(_metadata, &r, "acknowledgement sent", &sm));
	EXPECT_EQ(8 + sent, sm.bytes);
	hwm = proc_hwm_kb(r.pid);
	TH_LOG("receiver peak RSS %" PRIu64 " KiB after %zu MB", hwm, sent >> 20);
	EXPECT_NE(0, hwm);
	EXPECT_GT(32 * 1024, hwm);
	EXPECT_EQ(0, rcv_stop(&r, true));
	free(rec);
	rcv_cleanup(&r);
}

/*
 * 40 peers against RLIMIT_NOFILE 32 (2 fds a stream): some are refused,
 * with a reason logged a bounded number of times, and the receiver does
 * not spin (it used 2.93 s of CPU in 3 s before).
 */
TEST(fd_limit_cpu_bounded)
{
	enum { PEERS = 40 };
	int fds[PEERS], i, open_peers = 0;
	uint64_t cpu0, cpu;
	struct stat st;
	struct rcv r;

	ASSERT_EQ(0, rcv_start(&r, 32, NULL));
	cpu0 = proc_cpu_ms(r.pid);
	for (i = 0; i < PEERS; i++)
		fds[i] = rcv_connect(&r);
	ASSERT_EQ(0, wait_line(r.err, "refused", 20000));
	sleep(3);	/* the window its CPU use is measured over */
	cpu = proc_cpu_ms(r.pid) - cpu0;
	TH_LOG("receiver CPU %" PRIu64 " ms in 3 s", cpu);
	EXPECT_GT(500, cpu);
	/* The refused peers see their connection closed. */
	for (i = 0; i < PEERS; i++) {
		char c;

		if (fds[i] < 0)
			continue;
		if (recv(fds[i], &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN)
			open_peers++;
	}
	TH_LOG("%d peers still open", open_peers);
	EXPECT_LT(0, open_peers);
	EXPECT_GT(PEERS, open_peers);
	ASSERT_EQ(0, stat(r.err, &st));
	EXPECT_GT(4096, st.st_size);
	EXPECT_EQ(1, count_lines(r.err, "refused"));
	for (i = 0; i < PEERS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	EXPECT_EQ(0, rcv_stop(&r, true));
	EXPECT_EQ(0, count_files(r.outdir));
	rcv_cleanup(&r);
}

/*
 * accept() failing with EMFILE for real: the receiver's fd limit is
 * lowered, from outside, to the fds it has open.  It backs off (one log
 * line a second at most, little CPU), and once the limit is raised again
 * it takes the waiting peers within its longest backoff.
 */
TEST(emfile_backs_off)
{
	static const char *const args[] = { "-n", "8", NULL };
	enum { PEERS = 8 };
	struct rlimit rl, old;
	char path[64];
	int fds[PEERS], i, nfds = 0;
	struct summary sm;
	struct dirent *de;
	uint64_t cpu0, cpu;
	struct rcv r;
	DIR *d;

	ASSERT_EQ(0, rcv_start(&r, 0, args));
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)r.pid);
	d = opendir(path);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			nfds++;
	closedir(d);
	ASSERT_EQ(0, prlimit(r.pid, RLIMIT_NOFILE, NULL, &old));
	rl = old;
	rl.rlim_cur = (rlim_t)nfds;
	ASSERT_EQ(0, prlimit(r.pid, RLIMIT_NOFILE, &rl, NULL));
	cpu0 = proc_cpu_ms(r.pid);
	for (i = 0; i < PEERS; i++) {
		fds[i] = rcv_connect(&r);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, wait_line(r.err, "Too many open files", 20000));
	sleep(3);	/* the window its CPU use is measured over */
	cpu = proc_cpu_ms(r.pid) - cpu0;
	TH_LOG("receiver CPU %" PRIu64 " ms in 3 s at EMFILE (%d fds)", cpu,
	       nfds);
	EXPECT_GT(300, cpu);
	EXPECT_LE(1, count_lines(r.err, "Too many open files"));
	EXPECT_GE(4, count_lines(r.err, "accept failed"));
	ASSERT_EQ(0, prlimit(r.pid, RLIMIT_NOFILE, &old, NULL));
	/* Each peer is taken now: an empty stream, half-closed, acked. */
	for (i = 0; i < PEERS; i++) {
		unsigned char ack[STREAM_ACK_SIZE];

		shutdown(fds[i], SHUT_WR);
		EXPECT_EQ(STREAM_ACK_SIZE,
			  recv_until_eof(fds[i], ack, sizeof(ack), 5000));
		close(fds[i]);
		ASSERT_EQ(0, next_summary(_metadata, &r, "no file", &sm));
	}
	EXPECT_EQ(0, rcv_stop(&r, false));
	rcv_cleanup(&r);
}

/* Random bytes: refused at byte 0, nothing written (4.48 GB before). */
TEST(random_bytes_disk_bounded)
{
	static const char *const args[] = { "-n", "2", "--max-stream", "1M",
					    NULL };
	enum { CHUNK = 1 << 16, MAX = 64 << 20 };
	unsigned char *p = malloc(CHUNK);
	uint64_t magic = FXT_MAGIC, x = 88172645463325252ull;
	struct summary sm;
	size_t sent, k;
	struct rcv r;
	int fd, pass;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, rcv_start(&r, 0, args));
	for (pass = 0; pass < 2; pass++) {
		fd = rcv_connect(&r);
		ASSERT_GE(fd, 0);
		/* Second pass: a valid magic, then noise. */
		if (pass)
			ASSERT_EQ(8, send_some(fd, &magic, 8));
		for (sent = 0; sent < MAX; sent += CHUNK) {
			for (k = 0; k < CHUNK; k += 8) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				memcpy(p + k, &x, 8);
			}
			if (send_some(fd, p, CHUNK) < CHUNK)
				break;
		}
		EXPECT_GT(MAX, sent);
		close(fd);
		ASSERT_EQ(0, next_summary(_metadata, &r, pass ? NULL :
				"framing error at byte 0 (magic-missing", &sm));
		if (pass) {
			TH_LOG("%s", sm.line);
			EXPECT_GE(1 << 20, sm.bytes);
			EXPECT_LE(8, sm.bytes);
		} else {
			EXPECT_EQ(0, strcmp(sm.path, "no file"));
		}
	}
	EXPECT_EQ(0, rcv_stop(&r, false));
	EXPECT_EQ(1, count_files(r.outdir));
	free(p);
	rcv_cleanup(&r);
}

/* Half a record, then silence: closed at the idle timeout, the magic
 * kept.  A header claiming a huge record: closed at once. */
TEST(staller_closed_at_idle_timeout)
{
	static const char *const args[] = { "-n", "2", "--idle-timeout", "1",
					    NULL };
	uint64_t words[3] = { FXT_MAGIC, FXT_REC_STRING | 4 << 4, 0 };
	uint64_t huge[2] = { FXT_MAGIC, FXT_REC_LARGE | 0xffffffull << 4 };
	struct summary sm;
	uint64_t t0, ms;
	struct rcv r;
	char c;
	int fd;

	ASSERT_EQ(0, rcv_start(&r, 0, args));
	fd = rcv_connect(&r);
	ASSERT_GE(fd, 0);
	t0 = now_ns();
	ASSERT_EQ(sizeof(words), send_some(fd, words, sizeof(words)));
	/* The receiver closes: EOF, no ack. */
	EXPECT_EQ(0, recv_until_eof(fd, &c, 1, 10000));
	ms = (now_ns() - t0) / 1000000;
	TH_LOG("closed after %" PRIu64 " ms", ms);
	EXPECT_LE(900, ms);
	EXPECT_GT(5000, ms);
	close(fd);
	ASSERT_EQ(0, next_summary(_metadata, &r, "idle for 1 s", &sm));
	EXPECT_EQ(8, sm.bytes);
	EXPECT_EQ(1, sm.records);

	fd = rcv_connect(&r);
	ASSERT_GE(fd, 0);
	t0 = now_ns();
	ASSERT_EQ(sizeof(huge), send_some(fd, huge, sizeof(huge)));
	EXPECT_GE(0, recv_until_eof(fd, &c, 1, 10000));
	EXPECT_GT(900, (now_ns() - t0) / 1000000);
	close(fd);
	ASSERT_EQ(0, next_summary(_metadata, &r, "record-too-large", &sm));
	EXPECT_EQ(8, sm.bytes);
	EXPECT_EQ(0, rcv_stop(&r, false));
	rcv_cleanup(&r);
}

/*
 * --max-stream ends a stream at whole records, unacknowledged; once
 * --max-disk is spent, the next connection is refused, and the log says
 * why.
 */
TEST(stream_and_disk_limits)
{
	static const char *const args[] = { "--max-stream", "1M",
					    "--max-disk", "1500K", NULL };
	struct buf in = { 0 };
	struct summary sm;
	unsigned char ack[STREAM_ACK_SIZE];
	uint64_t total = 0;
	struct rcv r;
	int fd, i;

	ASSERT_EQ(0, gen__stream(10, 3000000, &in));
	ASSERT_EQ(0, rcv_start(&r, 0, args));
	for (i = 0; i < 2; i++) {
		fd = rcv_connect(&r);
		ASSERT_GE(fd, 0);
		EXPECT_GT(in.len, send_some(fd, in.p, in.len));
		shutdown(fd, SHUT_WR);
		/* No acknowledgement: EOF or a reset. */
		EXPECT_GE(0, recv_until_eof(fd, ack, sizeof(ack), 10000));
		close(fd);
		ASSERT_EQ(0, next_summary(_metadata, &r, i ? "--max-disk"
					  : "--max-stream", &sm));
		EXPECT_GE(1 << 20, sm.bytes);
		EXPECT_EQ(NULL, strstr(sm.line, "acknowledgement"));
		total += sm.bytes;
	}
	EXPECT_GE(1500 << 10, total);
	/* The disk is spent: refused at once, with the reason logged. */
	fd = rcv_connect(&r);
	ASSERT_GE(fd, 0);
	EXPECT_GE(0, recv_until_eof(fd, ack, sizeof(ack), 10000));
	close(fd);
	EXPECT_EQ(0, rcv_stop(&r, true));
	EXPECT_EQ(1, count_lines(r.err, "--max-disk 1536000 reached"));
	EXPECT_EQ(2, count_files(r.outdir));
	buf__free(&in);
	rcv_cleanup(&r);
}

/* Connect and go, 1000 times: 1000 summaries, no file. */
TEST(empty_connections_leave_no_files)
{
	static const char *const args[] = { "-n", "1000", "-q", NULL };
	struct rcv r;
	int i, fd;

	ASSERT_EQ(0, rcv_start(&r, 0, args));
	for (i = 0; i < 1000; i++) {
		fd = rcv_connect(&r);
		ASSERT_GE(fd, 0);
		close(fd);
	}
	EXPECT_EQ(0, rcv_stop(&r, false));
	EXPECT_EQ(0, count_files(r.outdir));
	rcv_cleanup(&r);
}

/*
 * --collect: a peer's file chunks (fxt_profile.h, FXT_PROFILE_FILE) that
 * never make a whole file: one whose second chunk is missing (a gap) and
 * one the stream ends inside.  Both are dropped, counted by reason in the
 * stream's second summary line, and leave nothing in the tree.
 */
static size_t file_chunk_rec(uint64_t *rec, size_t cap, uint8_t id0,
			     uint64_t size, uint64_t off, size_t n)
{
	static unsigned char payload[FXT_MAX_BLOB_LEN];
	uint64_t w[3] = { size, off, 20 };
	size_t head = fxt_file_head_len(20);
	int words;

	memset(payload, 0xab, sizeof(payload));
	memcpy(payload, w, sizeof(w));
	memset(payload + 24, id0, 20);
	words = fxt_enc_blob(rec, cap, fxt_sref_inline(FXT_PROFILE_FILE,
				strlen(FXT_PROFILE_FILE)), FXT_BLOB_DATA,
			     payload, head + n);
	return words > 0 ? 8 * (size_t)words : 0;
}

TEST(collect_drops_incomplete_files)
{
	char col[64], cnt[128];
	const char *args[] = { "-n", "1", "--collect", col, NULL };
	static uint64_t rec[FXT_MAX_RECORD_WORDS];
	uint64_t magic = FXT_MAGIC;
	struct summary sm;
	char line[512];
	struct rcv r;
	size_t len;
	int fd;

	/* rcv_start() makes the directory: --collect names one inside. */
	snprintf(col, sizeof(col), "/tmp/fxtprof-rcvc-%d", (int)getpid());
	ASSERT_EQ(0, rcv_start(&r, 0, args));
	fd = rcv_connect(&r);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(8, send_some(fd, &magic, 8));
	/* File 0x11: chunks at 0 and 2 * chunk, of three. */
	len = file_chunk_rec(rec, FXT_MAX_RECORD_WORDS, 0x11,
			     3 * FXT_FILE_CHUNK, 0, FXT_FILE_CHUNK);
	ASSERT_LT(0, len);
	ASSERT_EQ(len, send_some(fd, rec, len));
	len = file_chunk_rec(rec, FXT_MAX_RECORD_WORDS, 0x11,
			     3 * FXT_FILE_CHUNK, 2 * FXT_FILE_CHUNK,
			     FXT_FILE_CHUNK);
	ASSERT_EQ(len, send_some(fd, rec, len));
	/* File 0x22: its first chunk, then the stream ends. */
	len = file_chunk_rec(rec, FXT_MAX_RECORD_WORDS, 0x22,
			     2 * FXT_FILE_CHUNK, 0, FXT_FILE_CHUNK);
	ASSERT_EQ(len, send_some(fd, rec, len));
	ASSERT_EQ(0, shutdown(fd, SHUT_WR));
	ASSERT_EQ(0, next_summary(_metadata, &r, "acknowledgement sent", &sm));
	ASSERT_NE(NULL, fgets(line, sizeof(line), r.out));
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "files: 0 collected (0 bytes), 0 there "
			       "already, 2 dropped (gap: 1, incomplete: 1)"));
	close(fd);
	EXPECT_EQ(0, rcv_stop(&r, false));
	/* The directories were made; no file is left in them. */
	snprintf(cnt, sizeof(cnt), "%s/.build-id/11", col);
	EXPECT_EQ(0, count_files(cnt));
	snprintf(cnt, sizeof(cnt), "%s/.build-id/22", col);
	EXPECT_EQ(0, count_files(cnt));
	snprintf(line, sizeof(line), "rm -rf '%s'", col);
	EXPECT_EQ(0, system(line));
	rcv_cleanup(&r);
}

TEST_HARNESS_MAIN

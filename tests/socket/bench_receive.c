// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_receive.c - `make bench-receive`: the throughput of one
 * `fxtprof receive` with 1, 16 and 64 senders over a unix socket, next
 * to `cat` copying a file of the same bytes into a file in the same
 * directory, and the receiver's peak RSS.
 *
 * Senders are threads of this program sending a valid stream from memory
 * as fast as the socket takes it, so what is measured is the receiver.
 * A run is timed from the first connect to the last acknowledgement; an
 * acknowledgement comes after the file's fdatasync, so the baseline that
 * compares like with like is `cat` followed by `sync -d` on its output.
 * Both are printed, with the ratio to each, and the CPU time the
 * receiver and cat used (the senders share the machine's cores with the
 * receiver; cat has no producer).  Prints one Markdown table
 * (Documentation/performance.md, "Receive throughput").
 *
 * The push row (-r RECORDING -u URL): 64 senders each send RECORDING (a
 * profile with a clock object, tests/push/push_testgen's) into one
 * receive, without and with `--push URL`, URL a stand-in for Pyroscope
 * (tests/push/capture_server.py, scripts/bench-receive.sh starts it).
 * It prints the receive path's speed with pushing as a ratio to without,
 * and the CPU the pusher's threads took (receive's "push:" line, read
 * after it stops and has pushed everything) per board-second of profile.
 *
 * usage: bench_receive [-b BYTES] [-d DIR] [-r RECORDING -u URL]
 *        (default 256M, a new /tmp dir)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/receive.h"
#include "transport/stream_ack.h"
#include "sock_util.h"

#define UNIT_BYTES	(1u << 20)	/* one stream's building block */

struct sender {
	pthread_t th;
	const char *sock;
	const struct buf *unit;
	unsigned int copies;
	uint64_t sent;
	int err;
};

static char fxtprof[PATH_MAX];

static void *sender_run(void *arg)
{
	struct sender *s = arg;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	unsigned char ack[STREAM_ACK_SIZE];
	uint64_t bytes, records;
	size_t got = 0;
	int fd;

	strcpy(sun.sun_path, s->sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		s->err = -errno;
		goto out_close;
	}
	for (unsigned int i = 0; i < s->copies; i++) {
		size_t off = 0;

		while (off < s->unit->len) {
			ssize_t n = send(fd, s->unit->p + off,
					 s->unit->len - off, MSG_NOSIGNAL);

			if (n <= 0) {
				s->err = n < 0 ? -errno : -EPIPE;
				goto out_close;
			}
			off += (size_t)n;
		}
		s->sent += s->unit->len;
	}
	shutdown(fd, SHUT_WR);
	while (got < sizeof(ack)) {
		ssize_t n = recv(fd, ack + got, sizeof(ack) - got, 0);

		if (n <= 0) {
			s->err = -EPROTO;
			goto out_close;
		}
		got += (size_t)n;
	}
	if (stream_ack__decode(ack, &bytes, &records) || bytes != s->sent)
		s->err = -EPROTO;
out_close:
	if (fd >= 0)
		close(fd);
	return NULL;
}

static double rusage_s(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
	       (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

/* Run @argv, stdout to @out_fd if >= 0; exit status, CPU seconds added
 * to *cpu if non-NULL. */
static int run_wait(char *const argv[], int out_fd, double *cpu)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (out_fd >= 0)
			dup2(out_fd, STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return -1;
	if (cpu)
		*cpu += rusage_s(&ru);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void rm_rf(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };

	run_wait(argv, -1, NULL);
}

/* --push URL for the receiver, or NULL; its "push:" line goes here. */
static const char *push_url;
static char push_line[512];

/* One receiver, @n senders of @copies units each: seconds, the
 * receiver's CPU seconds and peak RSS. */
static int bench_receive(const char *dir, const struct buf *unit,
			 unsigned int n, unsigned int copies, double *secs,
			 double *cpu, uint64_t *rss_kb)
{
	struct rusage ru;
	char sock[160], uri[180], outdir[160], line[256];
	struct sender *s = calloc(n, sizeof(*s));
	int pipefd[2], ret = 0;
	uint64_t t0;
	pid_t pid;
	FILE *out;

	if (!s)
		return -ENOMEM;
	snprintf(sock, sizeof(sock), "%s/s.sock", dir);
	snprintf(uri, sizeof(uri), "unix://%s", sock);
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	rm_rf(outdir);
	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { fxtprof, "receive", uri, "-o", outdir, "-q",
				 push_url ? "--push" : NULL, (char *)push_url,
				 NULL };

		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	if (!out || !fgets(line, sizeof(line), out)) {
		ret = -EIO;
		goto out_stop;
	}
	t0 = now_ns();
	for (unsigned int i = 0; i < n; i++) {
		s[i].sock = sock;
		s[i].unit = unit;
		s[i].copies = copies;
		pthread_create(&s[i].th, NULL, sender_run, &s[i]);
	}
	for (unsigned int i = 0; i < n; i++) {
		pthread_join(s[i].th, NULL);
		if (s[i].err && !ret)
			ret = s[i].err;
	}
	*secs = (double)(now_ns() - t0) / 1e9;
	*rss_kb = proc_hwm_kb(pid);
out_stop:
	kill(pid, SIGINT);
	/* After the acknowledgements: the pusher finishes its work now. */
	push_line[0] = '\0';
	while (out && fgets(line, sizeof(line), out))
		if (!strncmp(line, "push: ", 6))
			snprintf(push_line, sizeof(push_line), "%s", line);
	if (wait4(pid, NULL, 0, &ru) == pid)
		*cpu = rusage_s(&ru);
	if (out)
		fclose(out);
	free(s);
	rm_rf(outdir);
	return ret;
}

/* `cat IN > OUT` (then `sync -d OUT` if @sync): seconds; cat's CPU. */
static double bench_cat(const char *in, const char *outpath, bool sync,
			double *cpu)
{
	char *cat[] = { "cat", (char *)in, NULL };
	char *syncd[] = { "sync", "-d", (char *)outpath, NULL };
	uint64_t t0;
	int fd;

	unlink(outpath);
	fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	t0 = now_ns();
	*cpu = 0;
	if (run_wait(cat, fd, cpu) || (sync && run_wait(syncd, -1, NULL))) {
		close(fd);
		return -1;
	}
	close(fd);
	return (double)(now_ns() - t0) / 1e9;
}

/*
 * The push row: 64 senders of @rec each, without and with --push.
 * 0, or -errno.
 */
static int bench_push(const char *dir, const struct buf *rec,
		      const char *url)
{
	double t_plain = 0, t_push = 0, cpu = 0, push_cpu = 0, board = 0;
	uint64_t rss = 0, pushed = 0, dropped = 0;
	const char *p;
	int ret;

	push_url = NULL;
	ret = bench_receive(dir, rec, 64, 1, &t_plain, &cpu, &rss);
	if (!ret) {
		push_url = url;
		ret = bench_receive(dir, rec, 64, 1, &t_push, &cpu, &rss);
		push_url = NULL;
	}
	if (ret)
		return ret;
	p = strstr(push_line, "push: ");
	if (!p || sscanf(p, "push: %" SCNu64 " intervals pushed, %" SCNu64,
			 &pushed, &dropped) != 2 ||
	    !(p = strrchr(push_line, ';')) ||
	    sscanf(p, "; %lf s CPU for %lf s of profile", &push_cpu,
		   &board) != 2 || board <= 0) {
		fprintf(stderr, "bench_receive: no push summary from receive: "
			"%s\n", push_line);
		return -EPROTO;
	}
	printf("\n| senders | MiB | receive MiB/s | receive --push MiB/s "
	       "| with / without | intervals pushed, dropped | push CPU s "
	       "| board-seconds of profile | push CPU per board-second |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	printf("| 64 | %.0f | %.0f | %.0f | %.2f | %" PRIu64 ", %" PRIu64
	       " | %.2f | %.0f | %.2f ms |\n",
	       64.0 * (double)rec->len / (1 << 20),
	       64.0 * (double)rec->len / (1 << 20) / t_plain,
	       64.0 * (double)rec->len / (1 << 20) / t_push,
	       t_plain / t_push, pushed, dropped, push_cpu, board,
	       push_cpu / board * 1e3);
	fflush(stdout);
	return 0;
}

/* The file @path into @b: 0 or -errno. */
static int read_file(const char *path, struct buf *b)
{
	unsigned char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf__append(b, chunk, (size_t)n);
	close(fd);
	return n < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const unsigned int senders[] = { 1, 16, 64 };
	char dir[PATH_MAX] = "", in[PATH_MAX + 16], out[PATH_MAX + 16];
	char exe[PATH_MAX];
	uint64_t total = 256ull << 20;
	struct buf unit = { 0 }, rec = { 0 };
	const char *rec_path = NULL, *url = NULL;
	ssize_t len;
	int c, fd, ret = 0;

	while ((c = getopt(argc, argv, "b:d:r:u:")) != -1) {
		switch (c) {
		case 'r':
			rec_path = optarg;
			break;
		case 'u':
			url = optarg;
			break;
		case 'b':
			total = strtoull(optarg, NULL, 0);
			if (strchr("Mm", optarg[strlen(optarg) - 1]))
				total <<= 20;
			break;
		case 'd':
			snprintf(dir, sizeof(dir), "%s", optarg);
			break;
		default:
			fprintf(stderr, "usage: bench_receive [-b BYTES[M]] "
				"[-d DIR] [-r RECORDING -u URL]\n");
			return 2;
		}
	}
	if (!dir[0]) {
		strcpy(dir, "/tmp/fxtprof-bench-receive-XXXXXX");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			return 1;
		}
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	/* build/ARCH/tests/socket/bench_receive -> build/ARCH/bin/fxtprof */
	snprintf(fxtprof, sizeof(fxtprof), "%s/../../bin/fxtprof", dirname(exe));
	if (gen__stream(1, UNIT_BYTES, &unit)) {
		fprintf(stderr, "bench_receive: cannot generate a stream\n");
		return 1;
	}
	printf("| senders | MiB | receive MiB/s | cat MiB/s | cat + fdatasync MiB/s "
	       "| receive / cat | receive / (cat + fdatasync) | CPU s: receiver, cat "
	       "| receiver peak RSS |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (unsigned int k = 0; k < 3; k++) {
		unsigned int n = senders[k];
		unsigned int copies = (unsigned int)(total / unit.len / n);
		uint64_t bytes, rss = 0;
		double t_rcv = 0, t_cat, t_sync, mib, cpu_rcv = 0, cpu_cat, cpu_sync;

		if (!copies)
			copies = 1;
		bytes = (uint64_t)n * copies * unit.len;
		mib = (double)bytes / (1 << 20);
		/* The same bytes as one file, for cat. */
		snprintf(in, sizeof(in), "%s/in.fxt", dir);
		snprintf(out, sizeof(out), "%s/cat.fxt", dir);
		fd = open(in, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		for (uint64_t i = 0; fd >= 0 && i < (uint64_t)n * copies; i++)
			if (write(fd, unit.p, unit.len) != (ssize_t)unit.len)
				break;
		if (fd >= 0)
			close(fd);
		ret = bench_receive(dir, &unit, n, copies, &t_rcv, &cpu_rcv, &rss);
		if (ret) {
			fprintf(stderr, "bench_receive: %u senders: %s\n", n,
				strerror(-ret));
			break;
		}
		t_cat = bench_cat(in, out, false, &cpu_cat);
		t_sync = bench_cat(in, out, true, &cpu_sync);
		printf("| %u | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f, %.2f "
		       "| %.1f MiB |\n", n, mib, mib / t_rcv, mib / t_cat,
		       mib / t_sync, t_cat / t_rcv, t_sync / t_rcv, cpu_rcv,
		       cpu_cat, (double)rss / 1024);
		fflush(stdout);
		unlink(in);
		unlink(out);
	}
	if (!ret && rec_path && url) {
		ret = read_file(rec_path, &rec);
		if (!ret)
			ret = bench_push(dir, &rec, url);
		if (ret)
			fprintf(stderr, "bench_receive: the push row: %s\n",
				strerror(-ret));
		buf__free(&rec);
	}
	buf__free(&unit);
	rm_rf(dir);
	return ret ? 1 : 0;
}

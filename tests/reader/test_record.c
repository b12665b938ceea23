// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_record - `fxtprof record` end to end, in the VM.
 *
 * Each test runs /tests/fxtprof record for a few seconds while
 * /tests/rec_workload (forks, named threads, exec, known exit codes) runs,
 * to a file, to a TCP listener and to a unix-socket listener of the
 * test's own (threads that save what they receive), then decodes the
 * output with the FXT library and checks:
 *  - it passes the checker (fxt_check_buffer);
 *  - every fork and exit of the workload is there (pids and tids from the
 *    workload's own report), with the exit codes it reported;
 *  - a kernel object names each of the workload's threads as it named
 *    itself;
 *  - there are samples from every online CPU (the "cpu" argument);
 *  - the kernel loss in the output (the last fxtprof:kernel_lost counter)
 *    equals the kernel's statistics (the final fxtprof:stats counter, and
 *    what the recorder printed), including when loss is forced with a
 *    16 KiB ring, a high frequency and a reader stopped for a while.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fxt_reader.h"
#include "vm_util.h"

#define MAX_WL		64
#define RECORD_SECS	"3"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	*bufp = buf;
	*lenp = len;
	return 0;
}

/* A listener thread: accept one connection, save everything until EOF. */
struct capture {
	int lfd;
	pthread_t th;
	char *buf;
	size_t len;
	atomic_size_t got;
	int err;
	char uri[160];
};

static void *capture_main(void *arg)
{
	struct capture *c = arg;
	struct pollfd p = { .fd = c->lfd, .events = POLLIN };
	size_t cap = 1 << 20;
	int fd;

	c->buf = malloc(cap);
	if (!c->buf || poll(&p, 1, 20000) != 1) {
		c->err = ETIMEDOUT;
		return NULL;
	}
	fd = accept(c->lfd, NULL, NULL);
	if (fd < 0) {
		c->err = errno;
		return NULL;
	}
	for (;;) {
		ssize_t n;

		if (c->len == cap) {
			char *nb = realloc(c->buf, 2 * cap);

			if (!nb) {
				c->err = ENOMEM;
				break;
			}
			c->buf = nb;
			cap *= 2;
		}
		n = read(fd, c->buf + c->len, cap - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			c->err = errno;
		if (n <= 0)
			break;
		c->len += (size_t)n;
		atomic_store(&c->got, c->len);
	}
	close(fd);
	return NULL;
}

static int capture_start(struct capture *c, bool tcp)
{
	memset(c, 0, sizeof(*c));
	if (tcp) {
		struct sockaddr_in a = { .sin_family = AF_INET };
		socklen_t alen = sizeof(a);

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		c->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->lfd < 0 || bind(c->lfd, (void *)&a, sizeof(a)) ||
		    getsockname(c->lfd, (void *)&a, &alen))
			return -errno;
		snprintf(c->uri, sizeof(c->uri), "tcp://127.0.0.1:%u",
			 ntohs(a.sin_port));
	} else {
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/rec-%d.sock",
			 getpid());
		unlink(a.sun_path);
		c->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->lfd < 0 || bind(c->lfd, (void *)&a, sizeof(a)))
			return -errno;
		snprintf(c->uri, sizeof(c->uri), "unix://%s", a.sun_path);
	}
	if (listen(c->lfd, 1))
		return -errno;
	return -pthread_create(&c->th, NULL, capture_main, c);
}

/* What the workload says it did. */
struct wl {
	int nchild;
	struct { int pid, code; } child[MAX_WL];
	int nthr;
	struct { int pid, tid; char name[16]; } thr[MAX_WL];
	int nexec;
	int exec_pid[MAX_WL];
};

static void parse_workload(const char *out, struct wl *w)
{
	const char *l;

	memset(w, 0, sizeof(*w));
	for (l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		int a, b;
		char name[16];

		if (sscanf(l, "child %d %d", &a, &b) == 2 && w->nchild < MAX_WL) {
			w->child[w->nchild].pid = b;
			w->child[w->nchild++].code = -1;
		} else if (sscanf(l, "thread %d %d %15s", &a, &b, name) == 3 &&
			   w->nthr < MAX_WL) {
			w->thr[w->nthr].pid = a;
			w->thr[w->nthr].tid = b;
			strcpy(w->thr[w->nthr++].name, name);
		} else if (sscanf(l, "exec %d", &a) == 1 && w->nexec < MAX_WL) {
			w->exec_pid[w->nexec++] = a;
		}
	}
	for (l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		int pid, code, i;

		if (sscanf(l, "exit %d %d", &pid, &code) != 2)
			continue;
		for (i = 0; i < w->nchild; i++)
			if (w->child[i].pid == pid)
				w->child[i].code = code;
	}
}

/* What the trace says. */
#define MAX_EV 4096
struct seen {
	int nfork;
	uint64_t fork_tid[MAX_EV];
	int nexit;
	struct { uint64_t tid; int32_t code; } exit[MAX_EV];
	int nexec;
	uint64_t exec_pid[MAX_EV];
	int nname;
	struct { uint64_t tid; char name[32]; } name[MAX_EV];
	uint64_t cpus;		/* bitmask of CPUs with samples */
	uint64_t samples;
	bool have_klost, have_stats;
	uint64_t klost, st_lost, st_unreported, st_samples;
	uint64_t overflow;
	int err;
	char errmsg[256];
};

static bool str_is(const struct fxt_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->data, lit, s->len);
}

static const struct fxt_argv *find_arg(const struct fxt_record *r,
				       const char *name)
{
	for (unsigned int i = 0; i < r->nargs; i++)
		if (str_is(&r->args[i].name, name))
			return &r->args[i];
	return NULL;
}

static uint64_t uarg(const struct fxt_record *r, const char *name)
{
	const struct fxt_argv *a = find_arg(r, name);

	if (!a)
		return ~0ull;
	switch (a->type) {
	case FXT_ARG_UINT32: return a->v.u32;
	case FXT_ARG_INT32: return (uint64_t)(int64_t)a->v.i32;
	case FXT_ARG_UINT64: return a->v.u64;
	case FXT_ARG_INT64: return (uint64_t)a->v.i64;
	case FXT_ARG_KOID: return a->v.koid;
	}
	return ~0ull;
}

static void decode(const void *buf, size_t len, struct seen *s)
{
	struct fxt_record *rec = malloc(sizeof(*rec));
	struct fxt_reader *r;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!rec || fxt_reader__new(0, &r)) {
		s->err = -ENOMEM;
		free(rec);
		return;
	}
	ret = fxt_reader__feed(r, buf, len);
	while (!ret && (ret = fxt_reader__next(r, rec)) > 0) {
		ret = 0;
		if (rec->type == FXT_REC_KERNEL_OBJ &&
		    rec->subtype == FXT_KOBJ_THREAD && s->nname < MAX_EV) {
			size_t n = rec->kobj.name.len < 31 ? rec->kobj.name.len : 31;

			s->name[s->nname].tid = rec->kobj.koid;
			memcpy(s->name[s->nname].name, rec->kobj.name.data, n);
			s->name[s->nname++].name[n] = 0;
		} else if (rec->type == FXT_REC_METADATA &&
			   rec->subtype == FXT_META_PROVIDER_EVENT) {
			s->overflow++;
		} else if (rec->type == FXT_REC_EVENT) {
			const struct fxt_str *c = &rec->event.category;
			const struct fxt_str *n = &rec->event.name;

			if (str_is(c, "cpu") && str_is(n, "sample")) {
				uint64_t cpu = uarg(rec, "cpu");

				s->samples++;
				if (cpu < 64)
					s->cpus |= 1ull << cpu;
			} else if (str_is(c, "task") && str_is(n, "fork")) {
				if (s->nfork < MAX_EV)
					s->fork_tid[s->nfork++] = uarg(rec, "child_tid");
			} else if (str_is(c, "task") && str_is(n, "exit")) {
				if (s->nexit < MAX_EV) {
					s->exit[s->nexit].tid = rec->thread.tid;
					s->exit[s->nexit++].code =
						(int32_t)uarg(rec, "exit_code");
				}
			} else if (str_is(c, "task") && str_is(n, "exec")) {
				if (s->nexec < MAX_EV)
					s->exec_pid[s->nexec++] = rec->thread.pid;
			} else if (str_is(n, "fxtprof:kernel_lost")) {
				s->have_klost = true;
				s->klost = uarg(rec, "records");
			} else if (str_is(n, "fxtprof:stats")) {
				s->have_stats = true;
				s->st_samples = uarg(rec, "samples");
				s->st_lost = uarg(rec, "lost_records");
				s->st_unreported = uarg(rec, "lost_unreported");
			}
		}
	}
	if (!ret)
		ret = fxt_reader__finish(r);
	if (ret) {
		const struct fxt_error *e = fxt_reader__error(r);

		s->err = ret;
		snprintf(s->errmsg, sizeof(s->errmsg), "offset %" PRIu64 ": %s: %s",
			 e->offset, e->rule ? e->rule : "?", e->msg);
	}
	fxt_reader__free(r);
	free(rec);
}

static bool has_fork(const struct seen *s, uint64_t tid)
{
	for (int i = 0; i < s->nfork; i++)
		if (s->fork_tid[i] == tid)
			return true;
	return false;
}

static const int32_t *exit_of(const struct seen *s, uint64_t tid)
{
	for (int i = 0; i < s->nexit; i++)
		if (s->exit[i].tid == tid)
			return &s->exit[i].code;
	return NULL;
}

static bool has_name(const struct seen *s, uint64_t tid, const char *name)
{
	for (int i = 0; i < s->nname; i++)
		if (s->name[i].tid == tid && !strcmp(s->name[i].name, name))
			return true;
	return false;
}

static bool has_exec(const struct seen *s, uint64_t pid)
{
	for (int i = 0; i < s->nexec; i++)
		if (s->exec_pid[i] == pid)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* One recording                                                       */
/* ------------------------------------------------------------------ */

struct run {
	const char *uri;
	struct capture *cap;	/* NULL: uri is a file */
	const char *extra[8];	/* more record options */
	bool stop_reader;	/* SIGSTOP the reader during the workload */
	bool usr1;		/* SIGUSR1 (a flush) after the workload */
	char *usr1_err;		/* the recorder's stderr once it completed */
	/* results */
	char *out;		/* the trace */
	size_t out_len;
	char *err;		/* the recorder's stderr */
	char *wl_out;
	int rc;
	int wl_rc;
};

static size_t output_bytes(struct run *r)
{
	struct stat st;

	if (r->cap)
		return atomic_load(&r->cap->got);
	return stat(r->uri, &st) ? 0 : (size_t)st.st_size;
}

static void record(struct __test_metadata *_metadata, struct run *r)
{
	const char *argv[20];
	char errpath[64];
	int i = 0, status, pfd[2], efd;
	size_t len;
	pid_t rec, wl;
	double t0;

	snprintf(errpath, sizeof(errpath), "/tmp/rec-%d.err", getpid());
	argv[i++] = "fxtprof";
	argv[i++] = "record";
	argv[i++] = "-d";
	argv[i++] = RECORD_SECS;
	for (int k = 0; r->extra[k]; k++)
		argv[i++] = r->extra[k];
	argv[i++] = r->uri;
	argv[i] = NULL;

	rec = fork();
	ASSERT_GE(rec, 0);
	if (!rec) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		execv(vm_test_path("fxtprof"), (char **)argv);
		_exit(127);
	}
	/*
	 * The first drain (after START) writes the first bytes.  60 s is a
	 * hang: the bpf source's programs take over 10 s to load in a TCG
	 * guest beside two CPU hogs.
	 */
	t0 = now();
	while (!output_bytes(r) && now() - t0 < 60) {
		ASSERT_EQ(0, waitpid(rec, &status, WNOHANG)) {
			TH_LOG("fxtprof exited early");
		}
		usleep(20000);
	}
	ASSERT_NE(0, output_bytes(r)) TH_LOG("fxtprof never wrote anything");
	if (r->stop_reader)
		kill(rec, SIGSTOP);

	ASSERT_EQ(0, pipe(pfd));
	wl = fork();
	ASSERT_GE(wl, 0);
	if (!wl) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execl(vm_test_path("rec_workload"), "rec_workload", "-t", "500",
		      (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	ASSERT_EQ(0, read_all(pfd[0], &r->wl_out, &len));
	close(pfd[0]);
	ASSERT_EQ(wl, waitpid(wl, &status, 0));
	r->wl_rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	if (r->stop_reader)
		kill(rec, SIGCONT);
	if (r->usr1) {
		char *err = NULL;

		/* The flush completes while the recording goes on. */
		ASSERT_EQ(0, kill(rec, SIGUSR1));
		t0 = now();
		while (now() - t0 < 10) {
			efd = open(errpath, O_RDONLY);
			free(err);
			err = NULL;
			if (efd >= 0) {
				read_all(efd, &err, &len);
				close(efd);
			}
			if (err && strstr(err, " complete after "))
				break;
			usleep(20000);
		}
		r->usr1_err = err;
		EXPECT_EQ(0, waitpid(rec, &status, WNOHANG))
			TH_LOG("the flush stopped the recording");
	}

	t0 = now();
	while (!waitpid(rec, &status, WNOHANG) && now() - t0 < 20)
		usleep(50000);
	if (now() - t0 >= 20) {
		kill(rec, SIGKILL);
		waitpid(rec, &status, 0);
	}
	r->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	efd = open(errpath, O_RDONLY);
	if (efd >= 0) {
		read_all(efd, &r->err, &len);
		close(efd);
		unlink(errpath);
	}
	if (r->cap) {
		pthread_join(r->cap->th, NULL);
		close(r->cap->lfd);
		r->out = r->cap->buf;
		r->out_len = r->cap->len;
		ASSERT_EQ(0, r->cap->err);
	} else {
		int fd = open(r->uri, O_RDONLY);

		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, read_all(fd, &r->out, &r->out_len));
		close(fd);
		unlink(r->uri);
	}
	TH_LOG("fxtprof rc %d, %zu bytes, stderr:\n%s", r->rc, r->out_len,
	       r->err ? r->err : "");
	ASSERT_EQ(0, r->rc);
	ASSERT_EQ(0, r->wl_rc);
}

/*
 * Loss in the output == the kernel's statistics == what fxtprof printed.
 * The output accounts for a loss in a LOST record, or, for drops after
 * the ring's last one (a ring still full when the session stops), in
 * the final statistics' lost_unreported (abi.md, GET_STATS).
 */
static void check_loss(struct __test_metadata *_metadata, const struct run *r,
		       const struct seen *s)
{
	unsigned long long printed = ~0ull;
	const char *p;

	ASSERT_TRUE(s->have_stats) TH_LOG("no final fxtprof:stats counter");
	EXPECT_EQ(s->st_lost,
		  (s->have_klost ? s->klost : 0) + s->st_unreported);
	if (r->err && (p = strstr(r->err, "kernel rings lost ")) &&
	    sscanf(p, "kernel rings lost %llu", &printed) != 1 &&
	    !strncmp(p, "kernel rings lost nothing", 25))
		printed = 0;
	EXPECT_EQ(s->st_lost, printed);
	/* Every LOST record comes with an overflow event. */
	if (s->st_lost)
		EXPECT_NE(0, s->overflow);
	TH_LOG("samples %" PRIu64 " (kernel %" PRIu64 "), kernel lost %" PRIu64
	       ", output counter %" PRIu64, s->samples, s->st_samples,
	       s->st_lost, s->klost);
}

static void check_trace(struct __test_metadata *_metadata, struct run *r,
			bool complete)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct fxt_error ferr = { 0 };
	struct seen *s = malloc(sizeof(*s));
	struct wl w;
	int i;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, fxt_check_buffer(r->out, r->out_len, &ferr)) {
		TH_LOG("checker: offset %" PRIu64 ": %s: %s", ferr.offset,
		       ferr.rule ? ferr.rule : "?", ferr.msg);
	}
	decode(r->out, r->out_len, s);
	ASSERT_EQ(0, s->err) TH_LOG("decoder: %s", s->errmsg);

	/* Samples on every CPU. */
	for (i = 0; i < ncpus && i < 64; i++)
		EXPECT_TRUE(s->cpus & (1ull << i)) TH_LOG("no samples on CPU %d", i);
	check_loss(_metadata, r, s);

	parse_workload(r->wl_out, &w);
	ASSERT_GE(w.nchild, 2);
	ASSERT_EQ(w.nchild * 3, w.nthr);
	if (!complete) {
		free(s);
		return;
	}
	for (i = 0; i < w.nchild; i++) {
		const int32_t *code = exit_of(s, (uint64_t)w.child[i].pid);

		EXPECT_TRUE(has_fork(s, (uint64_t)w.child[i].pid))
			TH_LOG("no fork of child %d", w.child[i].pid);
		EXPECT_NE(NULL, code) TH_LOG("no exit of child %d", w.child[i].pid);
		if (code)
			EXPECT_EQ(w.child[i].code, (*code >> 8) & 0xff)
				TH_LOG("child %d exit_code %#x", w.child[i].pid, *code);
	}
	for (i = 0; i < w.nthr; i++) {
		uint64_t tid = (uint64_t)w.thr[i].tid;

		EXPECT_TRUE(has_fork(s, tid)) TH_LOG("no fork of thread %" PRIu64, tid);
		EXPECT_NE(NULL, exit_of(s, tid)) TH_LOG("no exit of thread %" PRIu64, tid);
		EXPECT_TRUE(has_name(s, tid, w.thr[i].name))
			TH_LOG("no kernel object naming %" PRIu64 " '%s'", tid,
			       w.thr[i].name);
	}
	for (i = 0; i < w.nexec; i++)
		EXPECT_TRUE(has_exec(s, (uint64_t)w.exec_pid[i]))
			TH_LOG("no exec of %d", w.exec_pid[i]);
	TH_LOG("%d children, %d threads, %d execs: %d forks, %d exits, %d names "
	       "in the trace", w.nchild, w.nthr, w.nexec, s->nfork, s->nexit,
	       s->nname);
	free(s);
}

static void free_run(struct run *r)
{
	free(r->out);
	free(r->err);
	free(r->wl_out);
	free(r->usr1_err);
}

static void need_device(struct __test_metadata *_metadata)
{
	if (access("/dev/fxtprof", F_OK))
		SKIP(return, "no /dev/fxtprof (module not loaded)");
}

TEST(record_file)
{
	char path[64];
	struct run r = { 0 };

	need_device(_metadata);
	snprintf(path, sizeof(path), "/tmp/rec-%d.fxt", getpid());
	r.uri = path;
	record(_metadata, &r);
	check_trace(_metadata, &r, true);
	free_run(&r);
}

/*
 * SIGUSR1 flushes without stopping: the recorder says so when asked and
 * when every ring's marker is drained, and the recording then runs to its
 * end, complete.
 */
TEST(record_file_sigusr1_flush)
{
	char path[64];
	struct run r = { .extra = { "-d", "8" }, .usr1 = true };
	unsigned long long asked = 0, done = 0;
	const char *p;

	need_device(_metadata);
	snprintf(path, sizeof(path), "/tmp/rec-%d.fxt", getpid());
	r.uri = path;
	record(_metadata, &r);
	ASSERT_NE(NULL, r.usr1_err);
	p = strstr(r.usr1_err, "fxtprof: flush ");
	ASSERT_NE(NULL, p) TH_LOG("%s", r.usr1_err);
	EXPECT_EQ(1, sscanf(p, "fxtprof: flush %llu requested (SIGUSR1)", &asked));
	p = strstr(r.usr1_err, " complete after ");
	ASSERT_NE(NULL, p);
	while (p > r.usr1_err && p[-1] != ' ')
		p--;
	EXPECT_EQ(1, sscanf(p, "%llu", &done));
	EXPECT_LT(0, asked);
	EXPECT_EQ(asked, done);
	check_trace(_metadata, &r, true);
	free_run(&r);
}

TEST(record_tcp)
{
	struct capture cap;
	struct run r = { 0 };

	need_device(_metadata);
	ASSERT_EQ(0, capture_start(&cap, true));
	r.uri = cap.uri;
	r.cap = &cap;
	record(_metadata, &r);
	check_trace(_metadata, &r, true);
	free_run(&r);
}

TEST(record_unix)
{
	struct capture cap;
	struct run r = { 0 };

	need_device(_metadata);
	ASSERT_EQ(0, capture_start(&cap, false));
	r.uri = cap.uri;
	r.cap = &cap;
	record(_metadata, &r);
	unlink(cap.uri + strlen("unix://"));
	check_trace(_metadata, &r, true);
	free_run(&r);
}

/*
 * The same through the eBPF source (tests/bpf, Documentation/bpf-source.md):
 * it needs no module, only a kernel with BTF.  Where it cannot run, by the
 * environment (an fxtprof built without it, BPF_SOURCE=0; a kernel
 * without BTF, the debug kernel), record must refuse at once,
 * exit 1 and name the reason.
 */
TEST(record_file_bpf)
{
	char path[64];
	struct run r = { .extra = { "--source", "bpf" } };
	char probe[4200];
	const char *why = NULL;
	int st;

	/* A 10 ms recording: a build without the source says so at once. */
	snprintf(probe, sizeof(probe), "%s record --source bpf -q -d 0.01 "
		 "/tmp/rec-bpf-probe.fxt > /tmp/rec-bpf-probe.log 2>&1",
		 vm_test_path("fxtprof"));
	st = system(probe);
	unlink("/tmp/rec-bpf-probe.fxt");
	if (!system("grep -q 'built without the bpf source' "
		    "/tmp/rec-bpf-probe.log"))
		why = "built without the bpf source";
	else if (access("/sys/kernel/btf/vmlinux", F_OK))
		why = "BTF";
	if (why) {
		char grep[128];

		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1)
			TH_LOG("record --source bpf without %s: status %#x",
			       why, st);
		snprintf(grep, sizeof(grep), "grep -q '%s' "
			 "/tmp/rec-bpf-probe.log", why);
		EXPECT_EQ(0, system(grep))
			TH_LOG("record --source bpf does not say '%s'", why);
		unlink("/tmp/rec-bpf-probe.log");
		return;
	}
	unlink("/tmp/rec-bpf-probe.log");
	snprintf(path, sizeof(path), "/tmp/rec-bpf-%d.fxt", getpid());
	r.uri = path;
	record(_metadata, &r);
	check_trace(_metadata, &r, true);
	free_run(&r);
}

/* A 16 KiB ring at 5 kHz with the reader stopped for the workload's
 * second: the rings overflow; the output must account for every loss. */
TEST(record_loss_tcp)
{
	struct capture cap;
	struct run r = { .extra = { "-m", "16K", "-F", "5000" },
			 .stop_reader = true };

	need_device(_metadata);
	ASSERT_EQ(0, capture_start(&cap, true));
	r.uri = cap.uri;
	r.cap = &cap;
	record(_metadata, &r);
	check_trace(_metadata, &r, false);
	{
		struct seen *s = malloc(sizeof(*s));

		ASSERT_NE(NULL, s);
		decode(r.out, r.out_len, s);
		EXPECT_NE(0, s->st_lost) TH_LOG("no loss was forced");
		free(s);
	}
	free_run(&r);
}

TEST_HARNESS_MAIN

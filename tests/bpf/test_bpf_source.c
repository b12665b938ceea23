// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_bpf_source.c - the eBPF source natively on this host (root, kernel
 * with BTF): sampling rate on every CPU, -C, --skip-idle, frame-pointer
 * user stacks against a symbol table, task records of a spawned child,
 * exact loss accounting, sched.switch's records of a ping-pong, every
 * error path reachable here, and nothing left behind by kill -9.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"

#include "source/bpf_source.h"

/* Records copied out of the ring, in order. */
struct recs {
	struct fxtprof_rec_hdr **v;
	size_t n, cap;
};

static int collect(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct recs *r = ctx;
	void *copy;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		void *v = realloc(r->v, cap * sizeof(*r->v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	copy = malloc(rec->size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec, rec->size);
	r->v[r->n++] = copy;
	return 0;
}

static void recs_free(struct recs *r)
{
	while (r->n)
		free(r->v[--r->n]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000l };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int drain_all(struct bpf_source *src, struct recs *r)
{
	unsigned int cpu;

	return bpf_source__drain(src, collect, r, &cpu);
}

/* Open, configure and start with @cfg; 0 or -errno (message logged). */
static int run_source(struct __test_metadata *_metadata,
		      struct bpf_source *src, struct fxtprof_config *cfg)
{
	int ret;

	cfg->size = sizeof(*cfg);
	ret = bpf_source__open(src, NULL);
	if (!ret)
		ret = bpf_source__configure(src, cfg);
	if (!ret)
		ret = bpf_source__start(src);
	if (ret)
		TH_LOG("bpf source: %s (%s)", bpf_source__error(src),
		       strerror(-ret));
	return ret;
}

/* Record for @ms while draining every 50 ms; stop and drain to the end. */
static void record_for(struct __test_metadata *_metadata,
		       struct bpf_source *src, struct recs *r, long ms)
{
	long t;

	for (t = 0; t < ms; t += 50) {
		sleep_ms(50);
		ASSERT_EQ(0, drain_all(src, r));
	}
	ASSERT_EQ(0, bpf_source__stop(src));
	ASSERT_EQ(0, drain_all(src, r));
}

static uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long nr_online(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* ------------------------------------------------------------------ */
/* Sampling                                                            */
/* ------------------------------------------------------------------ */

/* Steal time of every CPU in ms (/proc/stat), -1 if unknown. */
static void steal_ms(long *ms, long n)
{
	char line[512];
	FILE *f = fopen("/proc/stat", "r");
	long cpu, hz = sysconf(_SC_CLK_TCK);

	for (cpu = 0; cpu < n; cpu++)
		ms[cpu] = -1;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v[8];

		if (sscanf(line, "cpu%ld %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]) == 9 && cpu >= 0 && cpu < n)
			ms[cpu] = (long)(v[7] * 1000 / (unsigned long long)hz);
	}
	if (f)
		fclose(f);
}

/* A nice 19 busy loop pinned to @cpu for @ms: the child's pid. */
static pid_t spin_on(long cpu, long ms)
{
	pid_t pid = fork();

	if (!pid) {
		struct timespec t0, t;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		if (nice(19) < 0)
			_exit(1);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000 +
		       (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
		_exit(0);
	}
	return pid;
}

TEST(rate_on_every_cpu)
{
	pid_t spinner[64];
	uint64_t t0, t1;
	long steal0[64], steal1[64];
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_SAMPLE |
					       FXTPROF_CFG_KSTACK |
					       FXTPROF_CFG_USTACK,
				      .freq_hz = 100 };
	unsigned long per_cpu[64] = { 0 };
	struct bpf_source src;
	struct recs r = { 0 };
	long cpu, n = nr_online();
	size_t i;

	ASSERT_LE(n, 64);
	ASSERT_EQ(0, run_source(_metadata, &src, &cfg));
	EXPECT_EQ(n, bpf_source__nr_sampling(&src));
	/*
	 * Every CPU busy, at the lowest priority: on a virtual machine an
	 * idle vCPU waits in the host for each timer, and on an overcommitted
	 * host that latency eats whole sampling periods, which would measure
	 * the host, not the source.
	 */
	for (cpu = 0; cpu < n; cpu++)
		ASSERT_LT(0, spinner[cpu] = spin_on(cpu, 2300));
	sleep_ms(100);
	steal_ms(steal0, n);
	t0 = boottime_ns();
	record_for(_metadata, &src, &r, 2000);
	t1 = boottime_ns();
	steal_ms(steal1, n);
	for (cpu = 0; cpu < n; cpu++)
		waitpid(spinner[cpu], NULL, 0);
	for (i = 0; i < r.n; i++) {
		const struct fxtprof_sample *s = (const void *)r.v[i];

		ASSERT_EQ(FXTPROF_REC_SAMPLE, s->hdr.type);
		ASSERT_LT(s->hdr.cpu, 64);
		ASSERT_TRUE(s->mode >= FXTPROF_MODE_KERNEL &&
			    s->mode <= FXTPROF_MODE_IDLE);
		/* The idle task has no user stack; kernel mode no user pc. */
		if (s->mode == FXTPROF_MODE_IDLE)
			ASSERT_EQ(0, s->nr_user);
		if (s->mode == FXTPROF_MODE_USER)
			ASSERT_EQ(0, s->nr_kernel);
		if (s->hdr.time_ns >= t0 && s->hdr.time_ns < t1)
			per_cpu[s->hdr.cpu]++;
	}
	/*
	 * 100 Hz over the 2 s window: 200 per CPU within 15 %, over the time
	 * the CPU ran.  A virtual CPU the hypervisor did not run (steal time) had no
	 * timer to fire: the kernel forwards the hrtimer past missed periods.
	 */
	for (cpu = 0; cpu < n; cpu++) {
		long stolen = steal0[cpu] >= 0 && steal1[cpu] >= steal0[cpu] ?
			      steal1[cpu] - steal0[cpu] : 0;
		double ran = (double)(t1 - t0) / 1e6 - (double)stolen;
		double want = 100.0 * (ran > 0 ? ran : 0) / 1000;

		TH_LOG("CPU %ld: %lu samples, %ld ms stolen: %.0f expected",
		       cpu, per_cpu[cpu], stolen, want);
		EXPECT_GE((double)per_cpu[cpu], want * 0.85);
		EXPECT_LE((double)per_cpu[cpu], want * 1.15 + 1);
	}
	recs_free(&r);
	bpf_source__close(&src);
}

TEST(cpu_list_and_skip_idle)
{
	uint64_t mask[1] = { 1 };	/* CPU 0 only */
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_SAMPLE |
					       FXTPROF_CFG_SKIP_IDLE,
				      .freq_hz = 500,
				      .cpumask_ptr = (uintptr_t)mask,
				      .cpumask_len = sizeof(mask) };
	struct fxtprof_stats st;
	struct bpf_source src;
	struct recs r = { 0 };
	size_t i;

	ASSERT_EQ(0, run_source(_metadata, &src, &cfg));
	EXPECT_EQ(1, bpf_source__nr_sampling(&src));
	record_for(_metadata, &src, &r, 1000);
	for (i = 0; i < r.n; i++) {
		const struct fxtprof_sample *s = (const void *)r.v[i];

		ASSERT_EQ(FXTPROF_REC_SAMPLE, s->hdr.type);
		ASSERT_EQ(0, s->hdr.cpu);
		ASSERT_NE(0, s->tid);
		ASSERT_NE(FXTPROF_MODE_IDLE, s->mode);
		/* no stacks asked for */
		ASSERT_EQ(0, s->nr_kernel + s->nr_user);
		ASSERT_EQ(sizeof(*s), s->hdr.size);
	}
	bpf_source__stats(&src, &st, NULL);
	EXPECT_EQ(r.n, st.samples);
	EXPECT_EQ(r.n, st.records);
	recs_free(&r);
	bpf_source__close(&src);
}

/* [value, value + size) of @name in @path's symbol table. */
static int elf_symbol(const char *path, const char *name, uint64_t *lo,
		      uint64_t *hi)
{
	int fd = open(path, O_RDONLY), ret = -ENOENT;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				*lo = sym.st_value;
				*hi = sym.st_value + sym.st_size;
				ret = 0;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

static void sibling(char *buf, size_t len, const char *name)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	buf[n > 0 ? n : 0] = 0;
	slash = strrchr(buf, '/');
	if (slash)
		slash[1] = 0;
	strncat(buf, name, len - strlen(buf) - 1);
}

static bool in(__u64 ip, const uint64_t *range)
{
	return ip >= range[0] && ip < range[1];
}

TEST(frame_pointer_user_stacks)
{
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_SAMPLE |
					       FXTPROF_CFG_USTACK,
				      .freq_hz = 997 };
	uint64_t leaf[2], middle[2], outer[2];
	unsigned long mine = 0, good = 0;
	struct rusage ru;
	double ran;
	struct bpf_source src;
	struct recs r = { 0 };
	char path[4096];
	pid_t child;
	int status;
	size_t i;

	sibling(path, sizeof(path), "fp_workload");
	ASSERT_EQ(0, elf_symbol(path, "fxtbpf_leaf", &leaf[0], &leaf[1]));
	ASSERT_EQ(0, elf_symbol(path, "fxtbpf_middle", &middle[0], &middle[1]));
	ASSERT_EQ(0, elf_symbol(path, "fxtbpf_outer", &outer[0], &outer[1]));
	ASSERT_EQ(0, run_source(_metadata, &src, &cfg));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		execl(path, path, "1.0", (char *)NULL);
		_exit(127);
	}
	record_for(_metadata, &src, &r, 1300);
	ASSERT_EQ(child, wait4(child, &status, 0, &ru));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ran = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	for (i = 0; i < r.n; i++) {
		const struct fxtprof_sample *s = (const void *)r.v[i];
		const __u64 *u = s->ips + s->nr_kernel;
		bool has_m = false, has_o = false;
		unsigned int k;

		if (s->pid != (uint32_t)child || s->mode != FXTPROF_MODE_USER)
			continue;
		mine++;
		if (!s->nr_user || !in(u[0], leaf))
			continue;
		for (k = 1; k < s->nr_user; k++) {
			has_m |= in(u[k], middle);
			has_o |= in(u[k], outer);
		}
		good += has_m && has_o;
	}
	TH_LOG("%lu user samples of the child, %lu in leaf<-middle<-outer, "
	       "%.2f s of CPU", mine, good, ran);
	/*
	 * It spins for a second of wall time, so it runs less on a loaded
	 * host: 997 Hz of the CPU time it had, less the last 10 ms of
	 * accounting slack, within 20 %; the loop is nearly all leaf.
	 */
	EXPECT_GE(mine, 50);
	EXPECT_GE((double)mine, 997 * (ran - 0.01) * 0.8);
	EXPECT_GE(good * 10, mine * 8);
	recs_free(&r);
	bpf_source__close(&src);
}

/* ------------------------------------------------------------------ */
/* Tasks                                                               */
/* ------------------------------------------------------------------ */

/*
 * The earliest record of @type for @pid.  Records come ring by ring, one
 * ring per CPU, so a task that moved between CPUs has its records out of
 * time order across rings: order by time, as the state does.
 */
static const struct fxtprof_rec_hdr *find(const struct recs *r, uint16_t type,
					  uint32_t pid)
{
	const struct fxtprof_rec_hdr *best = NULL;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct fxtprof_rec_hdr *h = r->v[i];
		/* pid is the first field of EXEC/EXIT/RENAME/SNAPSHOT,
		 * child_pid the third of FORK */
		const uint32_t *f = (const void *)(h + 1);

		if (h->type != type)
			continue;
		if (type == FXTPROF_REC_FORK ? f[2] != pid : f[0] != pid)
			continue;
		if (!best || h->time_ns < best->time_ns)
			best = h;
	}
	return best;
}

TEST(fork_exec_rename_exit_snapshot)
{
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_TASKS |
					       FXTPROF_CFG_SNAPSHOT };
	const struct fxtprof_snapshot *snap;
	const struct fxtprof_rename *ren;
	const struct fxtprof_fork *fk;
	const struct fxtprof_exec *ex;
	const struct fxtprof_exit *ext;
	struct bpf_source src;
	struct recs r = { 0 };
	pid_t child, me = getpid();
	int status;

	ASSERT_EQ(0, run_source(_metadata, &src, &cfg));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		prctl(PR_SET_NAME, "fxtbpf-child");
		execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(7, WEXITSTATUS(status));
	record_for(_metadata, &src, &r, 100);

	snap = (const void *)find(&r, FXTPROF_REC_SNAPSHOT, me);
	ASSERT_NE(NULL, snap);
	EXPECT_EQ(me, snap->tid);
	EXPECT_EQ(getppid(), snap->ppid);
	EXPECT_EQ(0, snap->flags);

	fk = (const void *)find(&r, FXTPROF_REC_FORK, child);
	ASSERT_NE(NULL, fk);
	EXPECT_EQ(sizeof(*fk), fk->hdr.size);
	EXPECT_EQ(me, fk->parent_pid);
	EXPECT_EQ(me, fk->parent_tid);
	EXPECT_EQ(child, fk->child_tid);
	/* fork(): nothing shared but nothing */
	EXPECT_EQ(0, fk->clone_flags);

	ren = (const void *)find(&r, FXTPROF_REC_RENAME, child);
	ASSERT_NE(NULL, ren);
	EXPECT_EQ(child, ren->tid);
	EXPECT_STREQ("fxtbpf-child", ren->comm);

	ex = (const void *)find(&r, FXTPROF_REC_EXEC, child);
	ASSERT_NE(NULL, ex);
	EXPECT_EQ(child, ex->tid);
	EXPECT_EQ(child, ex->old_tid);
	EXPECT_EQ(strlen("/bin/sh"), ex->filename_len);
	EXPECT_EQ(0, memcmp(ex->filename, "/bin/sh", 7));
	EXPECT_EQ(0, ex->filename[7]);	/* zero padded */
	EXPECT_EQ(sizeof(*ex) + 8, ex->hdr.size);
	EXPECT_STREQ("sh", ex->comm);

	ext = (const void *)find(&r, FXTPROF_REC_EXIT, child);
	ASSERT_NE(NULL, ext);
	EXPECT_EQ(child, ext->tid);
	EXPECT_EQ(7 << 8, ext->exit_code);
	EXPECT_EQ(FXTPROF_EXIT_GROUP_DEAD, ext->flags);
	EXPECT_STREQ("sh", ext->comm);

	/* in the order they happened */
	EXPECT_LE(fk->hdr.time_ns, ren->hdr.time_ns);
	EXPECT_LE(ren->hdr.time_ns, ex->hdr.time_ns);
	EXPECT_LE(ex->hdr.time_ns, ext->hdr.time_ns);
	recs_free(&r);
	bpf_source__close(&src);
}

/* ------------------------------------------------------------------ */
/* sched.switch                                                        */
/* ------------------------------------------------------------------ */

#define PP_ROUNDS	500

/* Two threads handing a byte back and forth over two pipes. */
struct pingpong {
	int ab[2], ba[2];
	pid_t tid[2];
};

static void *pong_main(void *arg)
{
	struct pingpong *p = arg;
	char c;

	p->tid[1] = gettid();
	for (int i = 0; i < PP_ROUNDS; i++)
		if (read(p->ab[0], &c, 1) != 1 || write(p->ba[1], &c, 1) != 1)
			break;
	return NULL;
}

static int pp_who(const struct pingpong *p, uint32_t tid)
{
	return tid == (uint32_t)p->tid[0] ? 0 : tid == (uint32_t)p->tid[1] ? 1 : -1;
}

static int by_time(const void *a, const void *b)
{
	const struct fxtprof_rec_hdr *x = *(const void *const *)a;
	const struct fxtprof_rec_hdr *y = *(const void *const *)b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/*
 * The ping-pong's switches and wakeups: each thread blocks in read() (or
 * is preempted), and a blocked thread is woken before it runs again.
 * Unlike tests/vm/test_sched.c, the switches of every other thread on a
 * CPU are not chained here: on this host some threads of the sandbox's
 * init switch in and never out, in the kernel's own sched_switch
 * tracepoint too (tracefs shows the same), so only the ping-pong's own
 * switches are held to the rules.
 */
TEST(sched_switch_ping_pong)
{
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_SCHED };
	struct pingpong p = { .tid = { gettid(), 0 } };
	unsigned int blocked = 0, woken = 0, runs[2] = { 0, 0 };
	bool need_wakeup[2] = { false, false };
	struct bpf_source src;
	struct recs r = { 0 };
	pthread_t th;
	char c = 'x';

	ASSERT_EQ(0, pipe(p.ab));
	ASSERT_EQ(0, pipe(p.ba));
	ASSERT_EQ(0, run_source(_metadata, &src, &cfg));
	ASSERT_EQ(0, pthread_create(&th, NULL, pong_main, &p));
	for (int i = 0; i < PP_ROUNDS; i++) {
		ASSERT_EQ(1, write(p.ab[1], &c, 1));
		ASSERT_EQ(1, read(p.ba[0], &c, 1));
		if (i % 100 == 0)
			ASSERT_EQ(0, drain_all(&src, &r));
	}
	ASSERT_EQ(0, pthread_join(th, NULL));
	record_for(_metadata, &src, &r, 50);
	qsort(r.v, r.n, sizeof(*r.v), by_time);
	for (size_t i = 0; i < r.n; i++) {
		const struct fxtprof_switch *sw = (const void *)r.v[i];
		const struct fxtprof_wakeup *wk = (const void *)r.v[i];
		int out, in;

		if (r.v[i]->type == FXTPROF_REC_WAKEUP) {
			int w = pp_who(&p, wk->tid);

			ASSERT_EQ(sizeof(*wk), wk->hdr.size);
			if (w < 0)
				continue;
			EXPECT_EQ((uint32_t)getpid(), wk->pid);
			EXPECT_LT(wk->target_cpu, (uint32_t)nr_online());
			need_wakeup[w] = false;
			woken++;
			continue;
		}
		ASSERT_EQ(FXTPROF_REC_SWITCH, r.v[i]->type);
		ASSERT_EQ(sizeof(*sw), sw->hdr.size);
		EXPECT_NE(sw->prev_tid, sw->next_tid);
		EXPECT_GE(sw->prev_state, FXTPROF_THREAD_RUNNING);
		EXPECT_LE(sw->prev_state, FXTPROF_THREAD_DEAD);
		out = pp_who(&p, sw->prev_tid);
		in = pp_who(&p, sw->next_tid);
		if (out >= 0) {
			EXPECT_EQ((uint32_t)getpid(), sw->prev_pid);
			/* The pong thread's last switch: it exited. */
			if (sw->prev_state == FXTPROF_THREAD_DEAD ||
			    sw->prev_state == FXTPROF_THREAD_DYING) {
				EXPECT_EQ(1, out);
			} else {
				EXPECT_TRUE(sw->prev_state ==
					    FXTPROF_THREAD_BLOCKED ||
					    sw->prev_state ==
					    FXTPROF_THREAD_RUNNING);
			}
			if (sw->prev_state == FXTPROF_THREAD_BLOCKED) {
				need_wakeup[out] = true;
				blocked++;
			}
		}
		if (in >= 0) {
			EXPECT_EQ((uint32_t)getpid(), sw->next_pid);
			EXPECT_FALSE(need_wakeup[in])
				TH_LOG("thread %d ran again without a wakeup",
				       in);
			runs[in]++;
		}
	}
	TH_LOG("%zu records: %u blocked switches, %u wakeups, runs %u and %u",
	       r.n, blocked, woken, runs[0], runs[1]);
	/*
	 * A read blocks unless the other thread, on the other CPU, answered
	 * first: more than half the rounds block one thread at least (537
	 * blocked switches in 500 rounds on an idle host).
	 */
	EXPECT_GE(blocked, PP_ROUNDS / 2);
	EXPECT_GE(woken, blocked - 2);
	EXPECT_GE(runs[0], PP_ROUNDS / 2);
	EXPECT_GE(runs[1], PP_ROUNDS / 2);
	recs_free(&r);
	bpf_source__close(&src);
	close(p.ab[0]);
	close(p.ab[1]);
	close(p.ba[0]);
	close(p.ba[1]);
}

static void *thread_fn(void *arg)
{
	*(pid_t *)arg = gettid();
	return NULL;
}

TEST(thread_clone_flags_and_exit)
{
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_TASKS };
	const struct fxtprof_fork *fk = NULL;
	const struct fxtprof_exit *ext = NULL;
	struct bpf_source src;
	struct recs r = { 0 };
	pid_t me = getpid(), tid = 0;
	pthread_t t;
	size_t i;

	ASSERT_EQ(0, run_source(_metadata, &src, &cfg));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_fn, &tid));
	ASSERT_EQ(0, pthread_join(t, NULL));
	record_for(_metadata, &src, &r, 100);
	for (i = 0; i < r.n; i++) {
		const struct fxtprof_fork *f = (const void *)r.v[i];
		const struct fxtprof_exit *e = (const void *)r.v[i];

		if (f->hdr.type == FXTPROF_REC_FORK && f->child_tid == (uint32_t)tid)
			fk = f;
		if (e->hdr.type == FXTPROF_REC_EXIT && e->tid == (uint32_t)tid)
			ext = e;
	}
	ASSERT_NE(NULL, fk);
	EXPECT_EQ(me, fk->parent_pid);
	EXPECT_EQ(me, fk->child_pid);
	/* what glibc's pthread_create passes, as far as it can be seen */
	EXPECT_EQ(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		  CLONE_THREAD, fk->clone_flags);
	ASSERT_NE(NULL, ext);
	EXPECT_EQ(me, ext->pid);
	EXPECT_EQ(0, ext->flags);	/* the process lives on */
	recs_free(&r);
	bpf_source__close(&src);
}

/* An exec through a path longer than the record keeps: cut, and flagged. */
TEST(exec_long_filename_truncated)
{
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_TASKS };
	const struct fxtprof_exec *ex;
	char dir[2048], path[2048 + 16];
	struct bpf_source src;
	struct recs r = { 0 };
	pid_t child;
	int status, i, len;

	len = snprintf(dir, sizeof(dir), "/tmp/fxtbpf-%d", getpid());
	ASSERT_EQ(0, mkdir(dir, 0700));
	for (i = 0; i < 5; i++) {	/* components are at most 255 bytes */
		dir[len++] = '/';
		memset(dir + len, 'd', 220);
		len += 220;
		dir[len] = 0;
		ASSERT_EQ(0, mkdir(dir, 0700));
	}
	snprintf(path, sizeof(path), "%s/true", dir);
	ASSERT_LT(FXTPROF_MAX_FILENAME, strlen(path));
	ASSERT_EQ(0, symlink("/bin/true", path));
	ASSERT_EQ(0, run_source(_metadata, &src, &cfg));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		execl(path, "true", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	record_for(_metadata, &src, &r, 100);
	ex = (const void *)find(&r, FXTPROF_REC_EXEC, child);
	ASSERT_NE(NULL, ex);
	EXPECT_EQ(FXTPROF_MAX_FILENAME, ex->filename_len);
	EXPECT_EQ(FXTPROF_EXEC_FILENAME_TRUNCATED, ex->flags);
	EXPECT_EQ(sizeof(*ex) + FXTPROF_MAX_FILENAME, ex->hdr.size);
	EXPECT_EQ(0, memcmp(ex->filename, path, FXTPROF_MAX_FILENAME));
	recs_free(&r);
	bpf_source__close(&src);
	unlink(path);
	snprintf(path, sizeof(path), "rm -rf /tmp/fxtbpf-%d", getpid());
	EXPECT_EQ(0, system(path));
}

/* ------------------------------------------------------------------ */
/* Loss                                                                */
/* ------------------------------------------------------------------ */

/* LOST records in r->v[from, to), adding what they count to the sums. */
static uint64_t count_lost(struct __test_metadata *_metadata,
			   const struct recs *r, size_t from, size_t to,
			   uint64_t *records, uint64_t *bytes)
{
	uint64_t n = 0;
	size_t i;

	for (i = from; i < to; i++) {
		const struct fxtprof_lost *l = (const void *)r->v[i];

		if (l->hdr.type != FXTPROF_REC_LOST)
			continue;
		n++;
		*records += l->records;
		*bytes += l->bytes;
		EXPECT_LE(l->first_ns, l->last_ns);
		EXPECT_EQ(sizeof(*l), l->hdr.size);
	}
	return n;
}

TEST(undrained_ring_loses_exactly)
{
	struct fxtprof_config cfg = { .flags = FXTPROF_CFG_SAMPLE |
					       FXTPROF_CFG_KSTACK |
					       FXTPROF_CFG_USTACK,
				      .freq_hz = 5000,
				      .ring_size = FXTPROF_MIN_RING_SIZE };
	uint64_t lost_r = 0, lost_b = 0, nlost1, nlost2, samples = 0;
	long cpu, n = nr_online();
	struct fxtprof_stats st;
	struct bpf_source src;
	struct recs r = { 0 };
	pid_t spinner[64];
	size_t i, mid;

	ASSERT_LE(n, 64);
	ASSERT_EQ(0, run_source(_metadata, &src, &cfg));
	/*
	 * Every CPU busy: an idle vCPU's timer may fire a few times a second
	 * rather than 5000, and a ring that never fills loses nothing.  Busy,
	 * each CPU fills its 16 KB in about 100 samples, so each of the two
	 * undrained stretches loses on every CPU.
	 */
	for (cpu = 0; cpu < n; cpu++)
		ASSERT_LT(0, spinner[cpu] = spin_on(cpu, 1200));
	sleep_ms(500);
	ASSERT_EQ(0, drain_all(&src, &r));
	mid = r.n;
	sleep_ms(500);
	ASSERT_EQ(0, bpf_source__stop(&src));
	ASSERT_EQ(0, drain_all(&src, &r));
	for (cpu = 0; cpu < n; cpu++)
		waitpid(spinner[cpu], NULL, 0);
	for (i = 0; i < r.n; i++)
		if (r.v[i]->type == FXTPROF_REC_SAMPLE)
			samples++;
	nlost1 = count_lost(_metadata, &r, 0, mid, &lost_r, &lost_b);
	nlost2 = count_lost(_metadata, &r, mid, r.n, &lost_r, &lost_b);
	bpf_source__stats(&src, &st, NULL);
	TH_LOG("%llu samples kept, %llu records lost in %llu + %llu LOST records",
	       (unsigned long long)samples, (unsigned long long)lost_r,
	       (unsigned long long)nlost1, (unsigned long long)nlost2);
	EXPECT_LT(0, st.lost_records);
	EXPECT_LE(n, nlost1);
	EXPECT_LE(n, nlost2);
	EXPECT_EQ(st.lost_records, lost_r);
	EXPECT_EQ(st.lost_bytes, lost_b);
	EXPECT_EQ(0, st.lost_unreported);
	EXPECT_EQ(0, st.lost_unreported_bytes);
	EXPECT_EQ(st.samples, samples);
	recs_free(&r);
	bpf_source__close(&src);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

TEST(error_no_btf)
{
	struct bpf_source_opts o = { .btf_path = "/nonexistent/vmlinux" };
	struct bpf_source src;

	EXPECT_EQ(-ENOENT, bpf_source__open(&src, &o));
	TH_LOG("%s", bpf_source__error(&src));
	EXPECT_NE(NULL, strstr(bpf_source__error(&src), "CONFIG_DEBUG_INFO_BTF"));
	EXPECT_NE(NULL, strstr(bpf_source__error(&src), "--source module"));
	bpf_source__close(&src);
}

TEST(error_kernel_too_old)
{
	struct bpf_source_opts o = { .kernel_release = "5.4.0-100-generic" };
	struct bpf_source src;

	EXPECT_EQ(-EOPNOTSUPP, bpf_source__open(&src, &o));
	TH_LOG("%s", bpf_source__error(&src));
	EXPECT_NE(NULL, strstr(bpf_source__error(&src), "too old"));
	EXPECT_NE(NULL, strstr(bpf_source__error(&src), "5.8"));
	bpf_source__close(&src);
}

static const char *read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = fd < 0 ? -1 : write(fd, s, strlen(s));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

#define MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"

TEST(error_frequency_above_max_rate)
{
	struct fxtprof_config cfg = { .size = sizeof(cfg),
				      .flags = FXTPROF_CFG_SAMPLE,
				      .freq_hz = 2000 };
	struct bpf_source src;
	char saved[64];
	int ret;

	/* The ABI's maximum (50 kHz) is below the default sysctl (100 kHz):
	 * lower the sysctl for the test, and put it back at once. */
	read_file(MAX_RATE, saved, sizeof(saved));
	ASSERT_LT(0, atoi(saved));
	ASSERT_EQ(0, bpf_source__open(&src, NULL));
	ASSERT_EQ(0, write_file(MAX_RATE, "1000"));
	ret = bpf_source__configure(&src, &cfg);
	ASSERT_EQ(0, write_file(MAX_RATE, saved));
	EXPECT_EQ(-EINVAL, ret);
	TH_LOG("%s", bpf_source__error(&src));
	EXPECT_NE(NULL, strstr(bpf_source__error(&src),
			       "above kernel.perf_event_max_sample_rate (1000)"));
	bpf_source__close(&src);
}

/*
 * sched.switch, app.annotations and stack copies are the module's: their
 * bits are refused with a sentence, not accepted and left without records.
 */
TEST(error_module_only_sources)
{
	static const struct {
		__u32 flag;
		const char *why;
	} cases[] = {
		{ FXTPROF_CFG_ANNOTATE, "app.annotations is a module-only" },
		{ FXTPROF_CFG_STACK_COPY, "are the module's alone" },
	};
	struct bpf_source src;

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fxtprof_config cfg = { .size = sizeof(cfg),
					      .flags = FXTPROF_CFG_SAMPLE |
						       cases[i].flag };

		ASSERT_EQ(0, bpf_source__open(&src, NULL));
		EXPECT_EQ(-EOPNOTSUPP, bpf_source__configure(&src, &cfg));
		EXPECT_NE(NULL, strstr(bpf_source__error(&src), cases[i].why))
			TH_LOG("%s", bpf_source__error(&src));
		bpf_source__close(&src);
	}
}

/* Keep only the capabilities in @keep (a 64-bit mask) effective. */
static int limit_caps(uint64_t keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= (uint32_t)keep;
	d[1].effective &= (uint32_t)(keep >> 32);
	return (int)syscall(SYS_capset, &h, d);
}

static int sys_perf_open_cpu0(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_period = 1000000, .disabled = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);

	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : -errno;
}

TEST(error_no_capabilities)
{
	struct bpf_source src;

	/* This process only: the harness runs each test in its own child. */
	ASSERT_EQ(0, limit_caps(0));
	EXPECT_EQ(-EPERM, bpf_source__open(&src, NULL));
	TH_LOG("%s", bpf_source__error(&src));
	EXPECT_NE(NULL, strstr(bpf_source__error(&src), "CAP_BPF"));
	/* The kernel agrees: without capabilities no BPF map at all. */
	EXPECT_GT(0, bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL));
	bpf_source__close(&src);
}

TEST(error_paranoid_without_perfmon)
{
	struct bpf_source src;
	char buf[32];

	if (atoi(read_file("/proc/sys/kernel/perf_event_paranoid", buf,
			   sizeof(buf))) < 0)
		SKIP(return, "perf_event_paranoid allows everything here");
	ASSERT_EQ(0, limit_caps(1ull << CAP_BPF));
	EXPECT_EQ(-EACCES, bpf_source__open(&src, NULL));
	TH_LOG("%s", bpf_source__error(&src));
	EXPECT_NE(NULL, strstr(bpf_source__error(&src), "perf_event_paranoid"));
	EXPECT_NE(NULL, strstr(bpf_source__error(&src), "CAP_PERFMON"));
	/* The kernel agrees: a CPU-wide perf event is refused. */
	EXPECT_EQ(-EACCES, sys_perf_open_cpu0());
	bpf_source__close(&src);
}

/* ------------------------------------------------------------------ */
/* Nothing left behind                                                 */
/* ------------------------------------------------------------------ */

/* How many loaded programs (or maps) are ours, by name, per bpftool. */
static int ours(const char *what, const char *name)
{
	char cmd[64], line[512];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "bpftool %s show 2>/dev/null", what);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, name) != NULL;
	return pclose(f) ? -1 : n;
}

static int our_programs(void)
{
	return ours("prog", " name fxtprof_");
}

/* The object's global data maps are named for it: fxtprof_.bss etc. */
static int our_maps(void)
{
	return ours("map", " name fxtprof_.");
}

/* The ring buffers (fxtprof_rb), one per possible CPU, and their array
 * (fxtprof_rings). */
static int our_rings(void)
{
	return ours("map", " name fxtprof_r");
}

/*
 * Wait until none of our programs and maps is loaded: ms waited, or -1.
 * Programs go once their last reference (an fd, a link) does; maps once
 * the programs using them are freed, after an RCU grace period and a
 * workqueue pass, which a loaded machine stretches to seconds.
 */
static long wait_none(void)
{
	long ms;

	for (ms = 0; ms < 30000; ms += 100) {
		if (!our_programs() && !our_maps() && !our_rings())
			return ms;
		sleep_ms(100);
	}
	return -1;
}

TEST(kill_9_leaves_nothing)
{
	int p[2], status;
	long ms;
	pid_t child;
	char c;

	/* Earlier tests' objects may still be on their way out. */
	ASSERT_LE(0, wait_none());
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		struct fxtprof_config cfg = { .size = sizeof(cfg),
					      .flags = FXTPROF_CFG_DEFAULT &
						 ~FXTPROF_CFG_ANNOTATE,
					      .freq_hz = 1000 };
		struct bpf_source src;

		if (bpf_source__open(&src, NULL) ||
		    bpf_source__configure(&src, &cfg) ||
		    bpf_source__start(&src))
			_exit(1);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	ASSERT_EQ(1, read(p[0], &c, 1));
	/* all six loaded while it runs, with their data */
	EXPECT_EQ(6, our_programs());
	EXPECT_EQ(2, our_maps());
	EXPECT_EQ(libbpf_num_possible_cpus() + 1, our_rings());
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ms = wait_none();
	TH_LOG("gone %ld ms after the kill", ms);
	EXPECT_EQ(0, our_programs());
	EXPECT_EQ(0, our_maps());
	EXPECT_EQ(0, our_rings());
	close(p[0]);
}

TEST_HARNESS_MAIN

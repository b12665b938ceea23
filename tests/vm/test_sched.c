// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sched.c - data sources and the sched.switch source, in the VM:
 *  - GET_SOURCE: the four sources, their flags, -ENOENT past the last,
 *    ENABLED following the configuration, sched.switch off by default;
 *  - each source alone and all together: only the records of the
 *    enabled sources appear, also once an earlier session has left the
 *    sched and task probes registered (kmod/probes.c keeps them);
 *  - a hundred sched sessions started and stopped while CPU 1 switches
 *    all the time: each start and stop returns (removing the sched probe
 *    each time once hung the VM) and the switches are recorded;
 *  - a two-thread ping-pong on CPU 1: its context switches are on CPU 1,
 *    chained (each switch's outgoing thread is the previous incoming
 *    one), alternate between the two threads, and every BLOCKED thread
 *    is woken (a WAKEUP onto CPU 1) before it runs again;
 *  - `fxtprof record --sources sched.switch,task.lifecycle` of the same
 *    program passes `fxtprof check` (its scheduling rules included), and
 *    an unknown or unavailable --sources name is refused with a sentence;
 *  - app.annotations is available and default; `--sources cpu.sampling`
 *    records none of an annotator's events, adding app.annotations does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "vm_util.h"
#include "vm_fixture.h"

#define PP_CPU		1
#define PP_ROUNDS	2000

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

TEST_F(dev, sources_listed)
{
	static const struct {
		const char *name;
		__u32 flags, cfg;
	} want[] = {
		{ "cpu.sampling", FXTPROF_SOURCE_AVAILABLE | FXTPROF_SOURCE_DEFAULT,
		  FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK | FXTPROF_CFG_USTACK |
		  FXTPROF_CFG_SKIP_IDLE | FXTPROF_CFG_UNWIND },
		{ "task.lifecycle", FXTPROF_SOURCE_AVAILABLE | FXTPROF_SOURCE_DEFAULT,
		  FXTPROF_CFG_TASKS | FXTPROF_CFG_SNAPSHOT },
		{ "sched.switch", FXTPROF_SOURCE_AVAILABLE, FXTPROF_CFG_SCHED },
		{ "app.annotations", FXTPROF_SOURCE_AVAILABLE | FXTPROF_SOURCE_DEFAULT,
		  FXTPROF_CFG_ANNOTATE },
	};
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SCHED, 0, 1 << 16);
	struct fxtprof_source src;

	ASSERT_EQ(4, self->info->nr_sources);
	for (unsigned int i = 0; i < 4; i++) {
		ASSERT_EQ(0, fxtprof_dev__source(self->dev, i, &src));
		EXPECT_EQ(i, src.index);
		EXPECT_STREQ(want[i].name, src.name);
		EXPECT_EQ(want[i].flags, src.flags);
		EXPECT_EQ(want[i].cfg, src.cfg_flags);
		EXPECT_NE(0, strlen(src.description));
	}
	ASSERT_EQ(-ENOENT, fxtprof_dev__source(self->dev, 4, &src));
	/* Smaller than the first version: refused. */
	memset(&src, 0, sizeof(src));
	src.size = FXTPROF_SOURCE_SIZE_VER0 - 8;
	ASSERT_EQ(-1, ioctl(fxtprof_dev__fd(self->dev), FXTPROF_IOC_GET_SOURCE,
			    &src));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__source(self->dev, 2, &src));
	EXPECT_EQ(FXTPROF_SOURCE_AVAILABLE | FXTPROF_SOURCE_ENABLED, src.flags);
	ASSERT_EQ(0, fxtprof_dev__source(self->dev, 0, &src));
	EXPECT_EQ(FXTPROF_SOURCE_AVAILABLE | FXTPROF_SOURCE_DEFAULT, src.flags);
	ASSERT_EQ(0, fxtprof_dev__source(self->dev, 3, &src));
	EXPECT_EQ(FXTPROF_SOURCE_AVAILABLE | FXTPROF_SOURCE_DEFAULT, src.flags);
	/* sched.switch is not a default: the default flags leave it off. */
	EXPECT_EQ(0, FXTPROF_CFG_DEFAULT & FXTPROF_CFG_SCHED);
	EXPECT_EQ(FXTPROF_CFG_ANNOTATE, FXTPROF_CFG_DEFAULT & FXTPROF_CFG_ANNOTATE);
}

/* Some of everything: a child that forks and exits, a ping-pong, spin. */
static void workload(void)
{
	char cmd[256];
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "%s 1 200 >/dev/null",
		 vm_test_path("fxt_pingpong"));
	if (system(cmd))
		fprintf(stderr, "fxt_pingpong failed\n");
	for (unsigned long long t = vm_boottime_ns() + 100000000ull;
	     vm_boottime_ns() < t;)
		;
}

/* The dev fixture again, with one variant per combination of sources. */
FIXTURE(alone) {
	struct fxtprof_dev *dev;
	struct vm_recs r;
	int complaints;
};

FIXTURE_SETUP(alone)
{
	memset(&self->r, 0, sizeof(self->r));
	self->complaints = vm_kernel_complaints(0);
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &self->dev));
}

FIXTURE_TEARDOWN(alone)
{
	fxtprof_dev__close(self->dev);
	vm_recs_free(&self->r);
	EXPECT_EQ(self->complaints, vm_kernel_complaints(1));
}

FIXTURE_VARIANT(alone) {
	__u32 flags;
	__u32 allowed;	/* record types the enabled sources write */
	__u32 required;	/* and of those, the ones the workload must give */
};

FIXTURE_VARIANT_ADD(alone, sampling) {
	.flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK,
	.allowed = 1u << FXTPROF_REC_SAMPLE,
	.required = 1u << FXTPROF_REC_SAMPLE,
};

FIXTURE_VARIANT_ADD(alone, tasks) {
	.flags = FXTPROF_CFG_TASKS | FXTPROF_CFG_SNAPSHOT,
	.allowed = 1u << FXTPROF_REC_FORK | 1u << FXTPROF_REC_EXEC |
		   1u << FXTPROF_REC_EXIT | 1u << FXTPROF_REC_RENAME |
		   1u << FXTPROF_REC_SNAPSHOT,
	.required = 1u << FXTPROF_REC_FORK | 1u << FXTPROF_REC_EXIT |
		    1u << FXTPROF_REC_SNAPSHOT,
};

FIXTURE_VARIANT_ADD(alone, sched) {
	.flags = FXTPROF_CFG_SCHED,
	.allowed = 1u << FXTPROF_REC_SWITCH | 1u << FXTPROF_REC_WAKEUP,
	.required = 1u << FXTPROF_REC_SWITCH | 1u << FXTPROF_REC_WAKEUP,
};

FIXTURE_VARIANT_ADD(alone, all) {
	.flags = FXTPROF_CFG_DEFAULT | FXTPROF_CFG_SCHED,
	.allowed = ~0u,
	.required = 1u << FXTPROF_REC_SAMPLE | 1u << FXTPROF_REC_FORK |
		    1u << FXTPROF_REC_EXIT | 1u << FXTPROF_REC_SNAPSHOT |
		    1u << FXTPROF_REC_SWITCH | 1u << FXTPROF_REC_WAKEUP,
};

/*
 * Declared after sched and all, so it runs after them: their probes stay
 * registered (kmod/probes.c) and must write nothing into a session that
 * did not ask for their source.
 */
FIXTURE_VARIANT_ADD(alone, sampling_after_sched) {
	.flags = FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK,
	.allowed = 1u << FXTPROF_REC_SAMPLE,
	.required = 1u << FXTPROF_REC_SAMPLE,
};

/* Only the records of the enabled sources; each of them present. */
TEST_F(alone, only_enabled_sources)
{
	struct fxtprof_config c = vm_config(variant->flags, 1000, 1 << 20);
	__u32 seen = 0;

	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	workload();
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_EQ(0, self->r.err);
	EXPECT_EQ(0, self->r.lost_records);
	for (int t = 1; t < FXTPROF_REC_MAX; t++)
		if (self->r.nr_by_type[t])
			seen |= 1u << t;
	/* LOST and FLUSH belong to every session. */
	seen &= ~(1u << FXTPROF_REC_LOST | 1u << FXTPROF_REC_FLUSH);
	EXPECT_EQ(0, seen & ~variant->allowed) {
		TH_LOG("records of disabled sources: types 0x%x", seen & ~variant->allowed);
	}
	EXPECT_EQ(variant->required, seen & variant->required) {
		TH_LOG("types seen 0x%x, required 0x%x", seen, variant->required);
	}
}

#define RESTARTS	100

/*
 * Start and stop a sched session over and over while another CPU context
 * switches without pause.  Registering a probe on sched_switch, or
 * removing the last one, rewrites the call inside __schedule(); done at
 * every start and stop, that once hung the VM about once in a hundred
 * sessions.  Now only the first start registers, and every cycle must
 * come back.
 */
TEST_F(dev, sched_restarts_while_switching)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SCHED, 0, 4 << 20);
	unsigned long long t0, ns;
	char rounds[32];
	pid_t pp;

	if (self->info->nr_online < 2)
		SKIP(return, "needs 2 CPUs");
	pin_to(0);
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	snprintf(rounds, sizeof(rounds), "%d", 1000000);
	pp = fork();
	ASSERT_LE(0, pp);
	if (pp == 0) {
		execl(vm_test_path("fxt_pingpong"), "fxt_pingpong", "1", rounds,
		      (char *)NULL);
		_exit(127);
	}
	t0 = vm_boottime_ns();
	for (int i = 0; i < RESTARTS; i++) {
		ASSERT_EQ(0, fxtprof_dev__start(self->dev)) TH_LOG("start %d", i);
		usleep(1000);
		ASSERT_EQ(0, fxtprof_dev__stop(self->dev)) TH_LOG("stop %d", i);
	}
	ns = vm_boottime_ns() - t0;
	kill(pp, SIGKILL);
	waitpid(pp, NULL, 0);
	TH_LOG("%d start/stop cycles in %llu ms", RESTARTS, ns / 1000000);
	ASSERT_LT(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_EQ(0, self->r.err);
	EXPECT_LT(RESTARTS, self->r.nr_by_type[FXTPROF_REC_SWITCH]);
}

/* ------------------------------------------------------------------ */
/* The ping-pong                                                       */
/* ------------------------------------------------------------------ */

struct pp {
	int ab[2], ba[2];
	pid_t tid[2];
};

static void pp_xfer(struct pp *p, int me)
{
	char c = 0;

	for (int i = 0; i < PP_ROUNDS; i++) {
		if (me == 1 && read(p->ab[0], &c, 1) != 1)
			return;
		if (write(me ? p->ba[1] : p->ab[1], &c, 1) != 1)
			return;
		if (me == 0 && read(p->ba[0], &c, 1) != 1)
			return;
	}
}

static void *pp_thread(void *arg)
{
	struct pp *p = arg;
	int me = p->tid[0] ? 1 : 0;

	p->tid[me] = (pid_t)syscall(SYS_gettid);
	pin_to(PP_CPU);
	if (me == 0) {
		pthread_t b;

		pthread_create(&b, NULL, pp_thread, p);
		/* B must exist (and have its tid stored) before A starts. */
		while (!__atomic_load_n(&p->tid[1], __ATOMIC_ACQUIRE))
			sched_yield();
		pp_xfer(p, 0);
		pthread_join(b, NULL);
	} else {
		pp_xfer(p, 1);
	}
	return NULL;
}

static int by_time(const void *a, const void *b)
{
	const struct fxtprof_rec_hdr *x = *(const void *const *)a;
	const struct fxtprof_rec_hdr *y = *(const void *const *)b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	/* Same time: keep ring order (the buffer's order). */
	return x < y ? -1 : x > y;
}

/*
 * The records of every ring merged by time: a wakeup sits in the waker's
 * CPU's ring, the switch it enables in another.
 */
static const struct fxtprof_rec_hdr **sorted_by_time(const struct vm_recs *r,
						     size_t *n)
{
	const struct fxtprof_rec_hdr **v = calloc(r->nr + 1, sizeof(*v));
	size_t i = 0;

	if (!v)
		return NULL;
	vm_recs_for_each(r, rec)
		if (i < r->nr)
			v[i++] = rec;
	qsort(v, i, sizeof(*v), by_time);
	*n = i;
	return v;
}

static int pp_who(const struct pp *p, __u32 tid)
{
	return tid == (__u32)p->tid[0] ? 0 : tid == (__u32)p->tid[1] ? 1 : -1;
}

/* Both threads' last switches, state dead, are among @r's records. */
static bool pp_both_gone(const struct vm_recs *r, const void *arg)
{
	const struct pp *p = arg;
	bool gone[2] = { false, false };

	vm_recs_for_each(r, rec) {
		const struct fxtprof_switch *sw = (const void *)rec;
		int who;

		if (rec->type != FXTPROF_REC_SWITCH ||
		    sw->prev_state != FXTPROF_THREAD_DEAD)
			continue;
		who = pp_who(p, sw->prev_tid);
		if (who >= 0)
			gone[who] = true;
	}
	return gone[0] && gone[1];
}

TEST_F(dev, ping_pong)
{
	struct fxtprof_config c = vm_config(FXTPROF_CFG_SCHED, 0, 4 << 20);
	struct pp p = { .tid = { 0, 0 } };
	unsigned int direct = 0, switches = 0, runs[2] = { 0, 0 };
	unsigned int blocked_out = 0, wakeups = 0;
	bool need_wakeup[2] = { false, false }, have_prev = false;
	bool dead[2] = { false, false }, pinned[2] = { false, false };
	unsigned int alternations = 0, elsewhere = 0;
	const struct fxtprof_rec_hdr **recs;
	__u32 prev_in = 0;
	int last_in_pp = -1;
	pthread_t a;
	size_t n;

	if (self->info->nr_online < 2)
		SKIP(return, "needs 2 CPUs");
	pin_to(0);
	ASSERT_EQ(0, pipe(p.ab));
	ASSERT_EQ(0, pipe(p.ba));
	ASSERT_EQ(0, fxtprof_dev__configure(self->dev, &c));
	ASSERT_EQ(0, fxtprof_dev__start(self->dev));
	ASSERT_EQ(0, pthread_create(&a, NULL, pp_thread, &p));
	ASSERT_EQ(0, pthread_join(a, NULL));
	/*
	 * pthread_join() returns once the kernel has cleared the thread's
	 * tid, in exit_mm(), before its last context switch: a thread
	 * preempted after that switches out for the last time later.  Drain
	 * while recording until both last switches are in (or 10 s pass and
	 * the checks below say which is missing), then stop.
	 */
	ASSERT_EQ(0, vm_recs_drain_until(self->dev, &self->r, pp_both_gone,
					 &p, 10000));
	ASSERT_EQ(0, fxtprof_dev__stop(self->dev));
	ASSERT_LE(0, vm_recs_drain_all(self->dev, &self->r));
	ASSERT_LT(0, self->r.nr);
	ASSERT_EQ(0, self->r.err);
	ASSERT_EQ(0, self->r.lost_records);

	recs = sorted_by_time(&self->r, &n);
	ASSERT_NE(NULL, recs);
	for (size_t i = 0; i < n; i++) {
		const struct fxtprof_rec_hdr *rec = recs[i];
		const struct fxtprof_switch *sw = (const void *)rec;
		const struct fxtprof_wakeup *wk = (const void *)rec;
		int out, in;

		if (rec->type == FXTPROF_REC_WAKEUP) {
			int w = pp_who(&p, wk->tid);

			if (w < 0)
				continue;
			/*
			 * Pinned, it can only run there; but thread A's first
			 * wakeup (NEW) is on its creator's CPU, before A pins
			 * itself.
			 */
			if (!(wk->flags & FXTPROF_WAKEUP_NEW))
				EXPECT_EQ(PP_CPU, wk->target_cpu);
			EXPECT_EQ((__u32)getpid(), wk->pid);
			need_wakeup[w] = false;
			wakeups++;
			continue;
		}
		if (rec->type != FXTPROF_REC_SWITCH)
			continue;
		out = pp_who(&p, sw->prev_tid);
		in = pp_who(&p, sw->next_tid);
		if (rec->cpu != PP_CPU) {
			/* Before pinning itself a thread may run anywhere. */
			if ((out >= 0 && pinned[out]) || (in >= 0 && pinned[in]))
				elsewhere++;
			continue;
		}
		if (in >= 0)
			pinned[in] = true;
		switches++;
		/* Per CPU, one switch leads to the next. */
		if (have_prev)
			EXPECT_EQ(prev_in, sw->prev_tid);
		have_prev = true;
		prev_in = sw->next_tid;
		EXPECT_NE(sw->prev_tid, sw->next_tid);
		EXPECT_GE(sw->prev_state, FXTPROF_THREAD_RUNNING);
		EXPECT_LE(sw->prev_state, FXTPROF_THREAD_DEAD);
		if (out >= 0 && sw->prev_state == FXTPROF_THREAD_DEAD) {
			/* A thread's last switch: it exited (autoreaped, so
			 * EXIT_DEAD: not the leader).  Nothing after it. */
			EXPECT_FALSE(dead[out]);
			dead[out] = true;
		} else if (out >= 0) {
			/* They only ever block in read() or get preempted. */
			EXPECT_FALSE(dead[out]);
			EXPECT_TRUE(sw->prev_state == FXTPROF_THREAD_BLOCKED ||
				    sw->prev_state == FXTPROF_THREAD_RUNNING) {
				TH_LOG("thread %d switched out in state %u",
				       out, sw->prev_state);
			}
			EXPECT_EQ((__u32)getpid(), sw->prev_pid);
			if (sw->prev_state == FXTPROF_THREAD_BLOCKED) {
				need_wakeup[out] = true;
				blocked_out++;
			}
		}
		if (in >= 0) {
			/* A blocked thread runs only once woken. */
			EXPECT_FALSE(need_wakeup[in]) {
				TH_LOG("thread %d ran again without a wakeup", in);
			}
			EXPECT_EQ((__u32)getpid(), sw->next_pid);
			runs[in]++;
			if (last_in_pp != -1 && last_in_pp != in)
				alternations++;
			last_in_pp = in;
		}
		if (out >= 0 && in >= 0 && out != in)
			direct++;
	}
	free(recs);
	TH_LOG("CPU %d: %u switches, %u direct A<->B, %u alternations, runs %u/%u, %u blocked, %u wakeups, %u elsewhere",
	       PP_CPU, switches, direct, alternations, runs[0], runs[1],
	       blocked_out, wakeups, elsewhere);
	/* Pinned: once on CPU 1, never elsewhere. */
	EXPECT_EQ(0, elsewhere);
	/* The two take turns: A, B, A, B... (at least once a round each). */
	EXPECT_LE(2 * PP_ROUNDS - 1, alternations);
	/* Each round runs each thread once at least. */
	EXPECT_LE(PP_ROUNDS, runs[0]);
	EXPECT_LE(PP_ROUNDS, runs[1]);
	/* Nearly every handoff is a direct switch: a byte wakes the other. */
	EXPECT_LE(PP_ROUNDS, direct);
	EXPECT_LE(PP_ROUNDS, blocked_out);
	EXPECT_LE(PP_ROUNDS, wakeups);
	/* Both threads ended, and the scheduler said so: state dead. */
	EXPECT_TRUE(dead[0]);
	EXPECT_TRUE(dead[1]);
}

/* ------------------------------------------------------------------ */
/* fxtprof record --sources                                            */
/* ------------------------------------------------------------------ */

static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];
	int st;

	if (snprintf(cmd, sizeof(cmd), fmt, a, b) >= (int)sizeof(cmd))
		return 127;	/* a cut command line would run something else */
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

#define ANNOT_NAME	"sched-test-annotation"

/* A child writing an EVENT annotation every 2 ms until it is killed. */
static pid_t annotator_start(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		union {
			struct fxtprof_annotation a;
			char bytes[sizeof(struct fxtprof_annotation) +
				   sizeof(ANNOT_NAME)];
		} u = { 0 };
		const size_t len = sizeof(ANNOT_NAME) - 1;
		int fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			_exit(1);
		u.a.size = (__u32)(sizeof(u.a) + len);
		u.a.kind = FXTPROF_ANNOT_EVENT;
		u.a.name_len = (__u16)len;
		memcpy(u.a.name, ANNOT_NAME, len);
		for (;;) {
			/* -ESRCH between and outside recordings: go on. */
			if (write(fd, &u, u.a.size) < 0 && errno != ESRCH)
				_exit(2);
			usleep(2000);
		}
	}
	return pid;
}

/*
 * fxtprof record --sources @sources while the annotator writes: 0 when
 * the file holds its events exactly when @want says so.
 */
static int record_annotated(const char *fxtprof, const char *sources,
			    int want)
{
	pid_t annotator = annotator_start();
	int status, rc;

	if (annotator < 0)
		return -1;
	unlink("/tmp/annot.fxt");
	/* Once it records (fxt-wait-ready), 1 s of the annotator: the workload. */
	rc = sh("rm -f /tmp/annot.ready; %s record -q --ready-file "
		"/tmp/annot.ready --sources %s /tmp/annot.fxt & pid=$!; "
		"fxt-wait-ready /tmp/annot.ready $pid || exit 1; sleep 1; "
		"kill -INT $pid; wait $pid", fxtprof, sources);
	kill(annotator, SIGKILL);
	if (waitpid(annotator, &status, 0) != annotator ||
	    !WIFSIGNALED(status))
		return -2;	/* it could not open the device, or write */
	if (rc)
		return rc;
	rc = sh(want ? "%s dump /tmp/annot.fxt | grep -q '%s'" :
		       "! %s dump /tmp/annot.fxt | grep -q '%s'",
		fxtprof, ANNOT_NAME);
	unlink("/tmp/annot.fxt");
	return rc;
}

TEST(record_sources_and_check)
{
	char fxtprof[512], pp[512];
	int rc;

	if (access("/dev/fxtprof", F_OK))
		SKIP(return, "no /dev/fxtprof (module not loaded)");
	/* vm_test_path() returns one static buffer: copy each. */
	snprintf(fxtprof, sizeof(fxtprof), "%s", vm_test_path("fxtprof"));
	snprintf(pp, sizeof(pp), "%s", vm_test_path("fxt_pingpong"));
	/*
	 * Stopped by SIGINT once the ping-pong is done, not after a fixed
	 * time: the debug kernel under TCG may need longer than any guess.
	 */
	unlink("/tmp/sched.fxt");
	rc = sh("rm -f /tmp/sched.ready; %s record -q --ready-file "
		"/tmp/sched.ready --sources sched.switch,task.lifecycle "
		"/tmp/sched.fxt & pid=$!; fxt-wait-ready /tmp/sched.ready $pid "
		"|| exit 1; %s 1 5000 >/dev/null; kill -INT $pid; wait $pid",
		fxtprof, pp);
	ASSERT_EQ(0, rc);
	/* Every scheduling rule of check, on a real recording. */
	ASSERT_EQ(0, sh("%s check /tmp/sched.fxt >/tmp/sched.check 2>&1 "
			"|| { cat /tmp/sched.check; exit 1; }%s", fxtprof, ""));
	/* Both kinds of scheduling record, and no sample (not enabled). */
	EXPECT_EQ(0, sh("test $(%s dump /tmp/sched.fxt | grep -c "
			"'^ContextSwitch(') -ge 10000%s", fxtprof, ""));
	EXPECT_EQ(0, sh("%s dump /tmp/sched.fxt | grep -q "
			"'^ThreadWakeup('%s", fxtprof, ""));
	EXPECT_EQ(0, sh("! %s dump /tmp/sched.fxt | grep -q "
			"'cpu.*name: \"sample\"'%s", fxtprof, ""));
	unlink("/tmp/sched.fxt");

	/* Unknown and unavailable names: refused, with a sentence. */
	EXPECT_EQ(0, sh("! %s record -q -d 1 --sources cpu.sampling,nosuch "
			"/tmp/x.fxt 2>/tmp/err && grep -q \"unknown data "
			"source 'nosuch'\" /tmp/err%s", fxtprof, ""));
	EXPECT_EQ(0, sh("! %s record -q -d 1 --source bpf --sources "
			"app.annotations /tmp/x.fxt 2>/tmp/err && grep -q "
			"\"data source 'app.annotations' is not available\" "
			"/tmp/err%s", fxtprof, ""));
	EXPECT_EQ(0, sh("%s sources | grep -q '^  sched.switch  *yes  *no'%s",
			fxtprof, ""));
	EXPECT_EQ(0, sh("%s sources | grep -q '^  app.annotations  *yes  *yes'%s",
			fxtprof, ""));

	/*
	 * app.annotations is a source like the others: left out of
	 * --sources, an annotator writing all along lands nothing; chosen,
	 * its events are in the file.
	 */
	EXPECT_EQ(0, record_annotated(fxtprof, "cpu.sampling", 0));
	EXPECT_EQ(0, record_annotated(fxtprof, "cpu.sampling,app.annotations",
				      1));
}

TEST_HARNESS_MAIN

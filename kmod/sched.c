// SPDX-License-Identifier: GPL-2.0-only
/*
 * sched.c - the sched.switch source: one SWITCH record per context switch,
 * from sched_switch on the switching CPU, and one WAKEUP record per
 * sched_wakeup and sched_wakeup_new, on the waker's CPU (or the woken
 * task's, for a wakeup queued there).  With FXTPROF_CFG_OFFCPU, the
 * switches and sched_waking also feed offcpu.c.
 *
 * The probes are registered by the first start with FXTPROF_CFG_SCHED
 * set, and stay until the module is unloaded (probes.c says why): a
 * machine that never records this source pays nothing on its context
 * switches, one that did pays a probe call that finds no session.
 *
 * Every probe here runs with the runqueue lock held (sched_switch with
 * interrupts off, the wakeups from try_to_wake_up() and
 * wake_up_new_task()).  Nothing below takes a lock or wakes anyone
 * directly: the ring defers its reader wakeup to irq_work (kring.c).
 */

#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

#include "compat.h"
#include "fxtprof_module.h"

/*
 * The outgoing task's state in FXT's terms.  A preempted task is runnable
 * whatever its __state says (the scheduler did not dequeue it), as
 * __trace_sched_switch_state() reasons; otherwise prev_state is the
 * __state schedule() acted on, and exit_state tells a dying task.
 */
static u32 fxtprof_switch_state(bool preempt, unsigned int prev_state,
				const struct task_struct *prev)
{
	unsigned int s;

	if (preempt)
		return FXTPROF_THREAD_RUNNING;
	s = prev_state | READ_ONCE(prev->exit_state);
	if (s & EXIT_DEAD)
		return FXTPROF_THREAD_DEAD;
	if (s & (EXIT_ZOMBIE | TASK_DEAD))
		return FXTPROF_THREAD_DYING;
	if (s & (__TASK_STOPPED | __TASK_TRACED))
		return FXTPROF_THREAD_SUSPENDED;
	/* TASK_RUNNING without preemption: a yield or cond_resched(). */
	if (!(s & TASK_ANY))
		return FXTPROF_THREAD_RUNNING;
	/* (UN)INTERRUPTIBLE, idle sleeps (TASK_NOLOAD), parked, RT lock waits. */
	return FXTPROF_THREAD_BLOCKED;
}

static void fxtprof_probe_switch(FXTPROF_SWITCH_PROTO)
{
	const u32 size = sizeof(struct fxtprof_switch);
	struct fxtprof_session *sess = fxtprof_running(FXTPROF_CFG_SCHED);
	struct fxtprof_rec_writer w;
	struct fxtprof_switch *rec;
	u32 state;

	if (!sess)
		return;
	state = fxtprof_switch_state(preempt, FXTPROF_SWITCH_PREV_STATE, prev);
	/* Interrupts are off already; saving them keeps the rule local. */
	rec = fxtprof_rec_begin(sess, &w, size, FXTPROF_REC_SWITCH);
	if (rec) {
		rec->prev_pid = prev->tgid;
		rec->prev_tid = prev->pid;
		rec->next_pid = next->tgid;
		rec->next_tid = next->pid;
		rec->prev_prio = prev->prio;
		rec->next_prio = next->prio;
		rec->prev_state = state;
		rec->reserved = 0;
	}
	fxtprof_rec_end(&w, rec);
	if (sess->flags & FXTPROF_CFG_OFFCPU)
		fxtprof_offcpu_switch(sess, state, FXTPROF_SWITCH_PREV_STATE,
				      prev, next);
}

FXTPROF_PROBE_CHECK(sched_switch, fxtprof_probe_switch);

static void fxtprof_write_wakeup(struct task_struct *p, u32 flags)
{
	const u32 size = sizeof(struct fxtprof_wakeup);
	struct fxtprof_session *sess = fxtprof_running(FXTPROF_CFG_SCHED);
	struct fxtprof_rec_writer w;
	struct fxtprof_wakeup *rec;

	if (!sess)
		return;
	rec = fxtprof_rec_begin(sess, &w, size, FXTPROF_REC_WAKEUP);
	if (rec) {
		rec->pid = p->tgid;
		rec->tid = p->pid;
		/* Set by select_task_rq() before the tracepoint fires. */
		rec->target_cpu = task_cpu(p);
		rec->prio = p->prio;
		/* An interrupt's waker is whoever it interrupted: say none. */
		rec->waker_tid = in_task() ? current->pid : 0;
		rec->flags = flags;
	}
	fxtprof_rec_end(&w, rec);
}

/* Runs in the waker's context: offcpu.c names a wait's waker here. */
static void fxtprof_probe_waking(void *data, struct task_struct *p)
{
	struct fxtprof_session *sess = fxtprof_running(FXTPROF_CFG_OFFCPU);

	if (sess)
		fxtprof_offcpu_waking(sess, p);
}

FXTPROF_PROBE_CHECK(sched_waking, fxtprof_probe_waking);

static void fxtprof_probe_wakeup(void *data, struct task_struct *p)
{
	fxtprof_write_wakeup(p, 0);
}

FXTPROF_PROBE_CHECK(sched_wakeup, fxtprof_probe_wakeup);

static void fxtprof_probe_wakeup_new(void *data, struct task_struct *p)
{
	fxtprof_write_wakeup(p, FXTPROF_WAKEUP_NEW);
}

FXTPROF_PROBE_CHECK(sched_wakeup_new, fxtprof_probe_wakeup_new);

static struct fxtprof_probe fxtprof_sched_probes[] = {
	{ "sched_switch", fxtprof_probe_switch },
	{ "sched_waking", fxtprof_probe_waking },
	{ "sched_wakeup", fxtprof_probe_wakeup },
	{ "sched_wakeup_new", fxtprof_probe_wakeup_new },
};

static struct fxtprof_probe_set fxtprof_sched_set = {
	.source = "sched.switch",
	.probes = fxtprof_sched_probes,
	.nr = ARRAY_SIZE(fxtprof_sched_probes),
};

/*
 * A kernel without these tracepoints still loads the module: the source
 * is then listed as not available and a configuration asking for it is
 * refused.
 */
void fxtprof_sched_init(void)
{
	fxtprof_probes_find(&fxtprof_sched_set);
}

bool fxtprof_sched_available(void)
{
	return fxtprof_sched_set.found;
}

/* The probes record once start publishes the session. */
int fxtprof_sched_start(void)
{
	return fxtprof_probes_register(&fxtprof_sched_set);
}

void fxtprof_sched_exit(void)
{
	fxtprof_probes_unregister(&fxtprof_sched_set);
}

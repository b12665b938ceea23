// SPDX-License-Identifier: GPL-2.0-only
/*
 * sched.c - the sched.switch source: one SWITCH record per context switch,
 * from sched_switch on the switching CPU, and one WAKEUP record per
 * sched_wakeup and sched_wakeup_new, on the waker's CPU.
 *
 * The probes are registered by start only when FXTPROF_CFG_SCHED is set:
 * sched_switch runs on every context switch of the machine, so a source
 * that is off must not even cost a probe call.  As in tasks.c the
 * tracepoints are not exported and are found by name.
 *
 * Every probe here runs with the runqueue lock held (sched_switch with
 * interrupts off, the wakeups from try_to_wake_up() and
 * wake_up_new_task()).  Nothing below takes a lock or wakes anyone
 * directly: the ring defers its reader wakeup to irq_work (kring.c).
 */

#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

#include "compat.h"
#include "fxtprof_module.h"

#define FXTPROF_SCHED_PROBE_CHECK(tp, fn)				\
	static_assert(__builtin_types_compatible_p(			\
		typeof(register_trace_##tp), int (typeof(&(fn)), void *)), \
		#fn " does not match tracepoint " #tp)

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
	struct fxtprof_session *sess = data;
	struct fxtprof_switch *rec;
	struct fxtprof_kring *ring;
	unsigned long irqflags;

	/* Interrupts are off already; saving them keeps the rule local. */
	local_irq_save(irqflags);
	ring = sess->rings[smp_processor_id()];
	rec = fxtprof_kring_reserve(ring, size, FXTPROF_REC_SWITCH,
				    ktime_get_boot_fast_ns());
	if (rec) {
		rec->prev_pid = prev->tgid;
		rec->prev_tid = prev->pid;
		rec->next_pid = next->tgid;
		rec->next_tid = next->pid;
		rec->prev_prio = prev->prio;
		rec->next_prio = next->prio;
		rec->prev_state = fxtprof_switch_state(preempt,
						       FXTPROF_SWITCH_PREV_STATE,
						       prev);
		rec->reserved = 0;
		fxtprof_kring_commit(ring, size);
	}
	local_irq_restore(irqflags);
}

FXTPROF_SCHED_PROBE_CHECK(sched_switch, fxtprof_probe_switch);

static void fxtprof_write_wakeup(struct fxtprof_session *sess,
				 struct task_struct *p, u32 flags)
{
	const u32 size = sizeof(struct fxtprof_wakeup);
	struct fxtprof_wakeup *rec;
	struct fxtprof_kring *ring;
	unsigned long irqflags;

	local_irq_save(irqflags);
	ring = sess->rings[smp_processor_id()];
	rec = fxtprof_kring_reserve(ring, size, FXTPROF_REC_WAKEUP,
				    ktime_get_boot_fast_ns());
	if (rec) {
		rec->pid = p->tgid;
		rec->tid = p->pid;
		/* Set by select_task_rq() before the tracepoint fires. */
		rec->target_cpu = task_cpu(p);
		rec->prio = p->prio;
		/* An interrupt's waker is whoever it interrupted: say none. */
		rec->waker_tid = in_task() ? current->pid : 0;
		rec->flags = flags;
		fxtprof_kring_commit(ring, size);
	}
	local_irq_restore(irqflags);
}

static void fxtprof_probe_wakeup(void *data, struct task_struct *p)
{
	fxtprof_write_wakeup(data, p, 0);
}

FXTPROF_SCHED_PROBE_CHECK(sched_wakeup, fxtprof_probe_wakeup);

static void fxtprof_probe_wakeup_new(void *data, struct task_struct *p)
{
	fxtprof_write_wakeup(data, p, FXTPROF_WAKEUP_NEW);
}

FXTPROF_SCHED_PROBE_CHECK(sched_wakeup_new, fxtprof_probe_wakeup_new);

struct fxtprof_sched_hook {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct fxtprof_sched_hook fxtprof_sched_hooks[] = {
	{ "sched_switch", fxtprof_probe_switch },
	{ "sched_wakeup", fxtprof_probe_wakeup },
	{ "sched_wakeup_new", fxtprof_probe_wakeup_new },
};

static bool fxtprof_sched_found;

static void fxtprof_sched_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fxtprof_sched_hooks); i++)
		if (!strcmp(tp->name, fxtprof_sched_hooks[i].name))
			fxtprof_sched_hooks[i].tp = tp;
}

/*
 * A kernel without these tracepoints still loads the module: the source
 * is then listed as not available and a configuration asking for it is
 * refused.
 */
void fxtprof_sched_init(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(fxtprof_sched_find, NULL);
	for (i = 0; i < ARRAY_SIZE(fxtprof_sched_hooks); i++) {
		if (!fxtprof_sched_hooks[i].tp) {
			pr_info("fxtprof: tracepoint %s not found: sched.switch unavailable\n",
				fxtprof_sched_hooks[i].name);
			return;
		}
	}
	fxtprof_sched_found = true;
}

bool fxtprof_sched_available(void)
{
	return fxtprof_sched_found;
}

static void fxtprof_sched_unregister(struct fxtprof_session *sess,
				     unsigned int n)
{
	while (n--)
		WARN_ON_ONCE(tracepoint_probe_unregister(fxtprof_sched_hooks[n].tp,
							 fxtprof_sched_hooks[n].probe,
							 sess));
	/* No probe may still be running, or run later, on this session. */
	tracepoint_synchronize_unregister();
}

int fxtprof_sched_start(struct fxtprof_session *sess)
{
	unsigned int i;
	int ret;

	if (!fxtprof_sched_found)
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(fxtprof_sched_hooks); i++) {
		ret = tracepoint_probe_register(fxtprof_sched_hooks[i].tp,
						fxtprof_sched_hooks[i].probe,
						sess);
		if (ret) {
			fxtprof_sched_unregister(sess, i);
			return ret;
		}
	}
	return 0;
}

void fxtprof_sched_stop(struct fxtprof_session *sess)
{
	fxtprof_sched_unregister(sess, ARRAY_SIZE(fxtprof_sched_hooks));
}

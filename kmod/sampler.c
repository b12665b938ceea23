// SPDX-License-Identifier: GPL-2.0-only
/*
 * sampler.c - one pinned hard hrtimer per CPU, as perf's cpu-clock event.
 *
 * Timers are started and cancelled by CPU hotplug callbacks of a
 * multi-instance AP state: those run on the CPU concerned, so a pinned
 * timer lands on the right CPU, and sampling follows CPUs going offline
 * and coming back without any code of our own watching them.
 */

#include <linux/cpuhotplug.h>
#include <linux/hardirq.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/timekeeping.h>
#include <asm/irq_regs.h>

#include "compat.h"
#include "fxtprof_module.h"
#include "unwind.h"

static enum cpuhp_state fxtprof_cpuhp_state;

/* The walk's counters into the ring's statistics (FXTPROF_IOC_GET_STATS). */
static void fxtprof_ustack_count(struct fxtprof_kring *ring,
				 const struct fxtprof_ustack *w)
{
	WRITE_ONCE(ring->unwind_table_frames,
		   ring->unwind_table_frames + w->table_frames);
	WRITE_ONCE(ring->unwind_fp_frames, ring->unwind_fp_frames + w->fp_frames);
	WRITE_ONCE(ring->unwind_rule_frames,
		   ring->unwind_rule_frames + w->rule_frames);
	WRITE_ONCE(ring->ustack_ends[w->end], ring->ustack_ends[w->end] + 1);
	if (w->end == FXTPROF_USTACK_END_FAULT)
		WRITE_ONCE(ring->ustack_faults, ring->ustack_faults + 1);
}

/*
 * The user stack of @task, current, from its user registers @uregs, into
 * @w (ips and end set by the caller), as the session says to walk it.
 */
void fxtprof_walk_user_stack(struct fxtprof_session *sess,
			     struct task_struct *task, struct pt_regs *uregs,
			     struct fxtprof_ustack *w)
{
	w->max = sess->ustack_depth;
	w->budget = sess->unwind_budget;
	/* The ranges stay valid until rcu_read_unlock() (unwind_table.c). */
	rcu_read_lock();
	if (sess->flags & FXTPROF_CFG_UNWIND)
		w->nr_ranges = fxtprof_unwind_ranges(sess->unwind, task->tgid,
						     &w->ranges);
	fxtprof_user_stack(uregs, w);
	rcu_read_unlock();
}

static void fxtprof_sample(struct fxtprof_session *sess,
			   struct fxtprof_kring *ring, struct fxtprof_cpu *pc,
			   struct pt_regs *regs, u64 now)
{
	struct task_struct *task = current;
	struct fxtprof_sample *rec;
	struct fxtprof_ustack w = { .end = FXTPROF_USTACK_END_NONE };
	struct pt_regs *uregs = NULL;
	unsigned int nr_k = 0;
	u32 size, copy_max = 0, copied = 0;
	u8 mode, flags = 0;

	if (is_idle_task(task)) {
		if (sess->flags & FXTPROF_CFG_SKIP_IDLE)
			return;
		mode = FXTPROF_MODE_IDLE;
	} else {
		mode = user_mode(regs) ? FXTPROF_MODE_USER : FXTPROF_MODE_KERNEL;
	}

	if ((sess->flags & FXTPROF_CFG_KSTACK) && !user_mode(regs))
		nr_k = fxtprof_kernel_stack(regs, pc->ips, sess->kstack_depth,
					    &flags);

	/*
	 * A user task interrupted in the kernel still has its user registers
	 * saved at kernel entry; kernel threads (even with a borrowed mm)
	 * have no user stack.
	 */
	if (task->mm && !(task->flags & PF_KTHREAD))
		uregs = user_mode(regs) ? regs : task_pt_regs(task);

	if ((sess->flags & FXTPROF_CFG_USTACK) && uregs) {
		w.ips = pc->ips + nr_k;
		fxtprof_walk_user_stack(sess, task, uregs, &w);
		flags |= w.flags;
		fxtprof_ustack_count(ring, &w);
	}

	size = sizeof(*rec) + (nr_k + w.nr) * sizeof(u64);
	/*
	 * Room for the largest copy; the record shrinks to what was
	 * readable before it is committed.
	 */
	if ((sess->flags & FXTPROF_CFG_STACK_COPY) && uregs)
		copy_max = fxtprof_stack_copy_max(sess->stack_copy_size);
	rec = fxtprof_kring_reserve(ring, size + copy_max, FXTPROF_REC_SAMPLE,
				    now);
	if (!rec)
		return;
	if (copy_max)
		copied = fxtprof_stack_copy(uregs, (void *)&rec->ips[nr_k + w.nr],
					    sess->stack_copy_size);
	if (copied)
		flags |= FXTPROF_SAMPLE_STACK_COPY;
	size += copied;
	rec->hdr.size = size;
	rec->pid = task->tgid;
	rec->tid = task->pid;
	rec->mode = mode;
	rec->flags = flags;
	rec->nr_kernel = nr_k;
	rec->nr_user = w.nr;
	rec->ustack_end = w.end;
	rec->reserved = 0;
	memcpy(rec->ips, pc->ips, (nr_k + w.nr) * sizeof(u64));
	fxtprof_kring_commit(ring, size);
	WRITE_ONCE(ring->samples, ring->samples + 1);
}

static enum hrtimer_restart fxtprof_timer_fn(struct hrtimer *timer)
{
	struct fxtprof_cpu *pc = container_of(timer, struct fxtprof_cpu, timer);
	struct fxtprof_session *sess = pc->sess;
	struct fxtprof_kring *ring = fxtprof_ring(sess, smp_processor_id());
	struct pt_regs *regs = get_irq_regs();
	u64 start = local_clock();
	u64 overruns;

	overruns = hrtimer_forward_now(timer, ns_to_ktime(sess->period_ns));
	if (overruns > 1)
		WRITE_ONCE(ring->timer_overruns,
			   ring->timer_overruns + overruns - 1);

	/* No interrupted context to sample, e.g. a timer run from softirq. */
	if (regs)
		fxtprof_sample(sess, ring, pc, regs, ktime_get_boot_fast_ns());

	/*
	 * The handler's own cost, on the cheap per-CPU clock: the boot clock
	 * may be an emulated device (HPET) and is read once, for the record.
	 */
	WRITE_ONCE(ring->handler_ns, ring->handler_ns + local_clock() - start);
	WRITE_ONCE(ring->handler_calls, ring->handler_calls + 1);
	return HRTIMER_RESTART;
}

static int fxtprof_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct fxtprof_session *sess = hlist_entry(node, struct fxtprof_session,
						   cpuhp_node);
	struct fxtprof_cpu *pc = per_cpu_ptr(sess->cpus, cpu);
	struct fxtprof_kring **rings;

	/*
	 * The instance lives from start to stop, both under sess->lock
	 * (held by the task waiting for us), which keeps configure out.
	 */
	rings = rcu_dereference_protected(sess->rings, true);
	if (!cpumask_test_cpu(cpu, sess->sample_mask) || !rings[cpu])
		return 0;
	pc->sess = sess;
	fxtprof_hrtimer_setup(&pc->timer, fxtprof_timer_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&pc->timer, ns_to_ktime(sess->period_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

static int fxtprof_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct fxtprof_session *sess = hlist_entry(node, struct fxtprof_session,
						   cpuhp_node);
	struct fxtprof_cpu *pc = per_cpu_ptr(sess->cpus, cpu);

	if (pc->sess)
		hrtimer_cancel(&pc->timer);
	pc->sess = NULL;
	return 0;
}

int fxtprof_sampler_start(struct fxtprof_session *sess)
{
	/* Runs fxtprof_cpu_online() on every online CPU, on that CPU. */
	return cpuhp_state_add_instance(fxtprof_cpuhp_state, &sess->cpuhp_node);
}

void fxtprof_sampler_stop(struct fxtprof_session *sess)
{
	/* Cancels every timer; hrtimer_cancel() waits for a running handler. */
	cpuhp_state_remove_instance(fxtprof_cpuhp_state, &sess->cpuhp_node);
}

int fxtprof_sampler_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "fxtprof:online",
				      fxtprof_cpu_online, fxtprof_cpu_offline);
	if (ret < 0)
		return ret;
	fxtprof_cpuhp_state = ret;
	return 0;
}

void fxtprof_sampler_exit(void)
{
	cpuhp_remove_multi_state(fxtprof_cpuhp_state);
}

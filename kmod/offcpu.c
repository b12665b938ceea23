// SPDX-License-Identifier: GPL-2.0-only
/*
 * offcpu.c - where threads wait (FXTPROF_CFG_OFFCPU): the stacks a thread
 * had when it left its CPU, kept until it runs again, and then written as
 * one OFFCPU record if it waited at least offcpu_min_ns.
 *
 * At switch-out, sched_switch runs in the outgoing thread's context, so
 * its user stack is readable: it is walked as a sample's (stack.c) into a
 * slot of the session's wait table, with the time and the state the
 * thread left in.  sched_waking runs in the waker's context: the first
 * one names the waker.  At switch-in, on the CPU the thread is about to
 * run on, its kernel stack is unwound from where it stopped (it has not
 * run since; stack.c), and the record is written there.  The threshold
 * is decided at the end of the wait, so a short wait costs neither ring
 * bytes nor a kernel unwind.  This is what the bpf source does with task
 * storage (user/source/bpf/fxtprof.bpf.c).
 *
 * The table has no task storage to hang on: it is an open-addressed hash
 * of tids, preallocated at configure (offcpu_threads slots, a module
 * parameter), so no probe allocates.  A thread's slot is found within
 * FXTPROF_OFFCPU_PROBES places of its hash; it is claimed by a cmpxchg of
 * its tid from 0 at switch-out and freed by storing 0 at switch-in.  A
 * lookup scans the whole window, so freeing needs no tombstone.  A
 * thread that finds no free place loses that wait, counted as a lost
 * record of this CPU's ring, as a full ring's are.
 *
 * Ordering: a thread's switch-out happens before its switch-in, on
 * whatever CPU (try_to_wake_up() waits for p->on_cpu to clear, with
 * acquire, after the switch away from it has finished), so the slot's
 * contents need no barrier of their own between the two.  A waker may
 * run at the same time as the switch-out when it wakes a thread that has
 * not left its CPU yet: the switch-out publishes start_ns last, with
 * release, and sched_waking names a waker only once it sees start_ns.
 * Such a waker comes too early to be named, and the wait has none.
 */

#include <linux/err.h>
#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/ptrace.h>

#include "compat.h"
#include "fxtprof_module.h"
#include "unwind.h"

/* Places from its hash at which a thread's slot may be. */
#define FXTPROF_OFFCPU_PROBES	16

static unsigned int offcpu_threads = 4096;
module_param(offcpu_threads, uint, 0444);
MODULE_PARM_DESC(offcpu_threads,
		 "threads whose waits FXTPROF_CFG_OFFCPU can keep at once (a power of two, 64 to 1048576; default 4096)");

struct fxtprof_offcpu_slot {
	u64 start_ns;		/* when it left; 0: no wait kept */
	u32 waker_tid;		/* the first waker, 0 if none yet */
	u32 pid;
	u8 state;		/* enum fxtprof_wait_state */
	u8 flags;		/* FXTPROF_SAMPLE_* of the user walk */
	u8 ustack_end;
	u8 nr_user;
	u32 reserved;
	u64 ips[];		/* the user stack, ustack_depth at most */
};

struct fxtprof_offcpu_table {
	u32 mask;		/* slots - 1, slots a power of two */
	u32 stride;		/* bytes of a slot */
	u32 *tids;		/* the slot's thread; 0: free */
	u8 *slots;
};

static struct fxtprof_offcpu_slot *
fxtprof_offcpu_slot(struct fxtprof_offcpu_table *t, u32 i)
{
	return (void *)(t->slots + (size_t)i * t->stride);
}

/* The place of @tid's slot, or -1. */
static int fxtprof_offcpu_find(struct fxtprof_offcpu_table *t, u32 tid)
{
	u32 h = hash_32(tid, 32), i;

	for (i = 0; i < FXTPROF_OFFCPU_PROBES; i++) {
		u32 at = (h + i) & t->mask;

		if (READ_ONCE(t->tids[at]) == tid)
			return at;
	}
	return -1;
}

/* A free place claimed for @tid, or -1 if its window is full. */
static int fxtprof_offcpu_claim(struct fxtprof_offcpu_table *t, u32 tid)
{
	u32 h = hash_32(tid, 32), i;

	for (i = 0; i < FXTPROF_OFFCPU_PROBES; i++) {
		u32 at = (h + i) & t->mask;

		if (!READ_ONCE(t->tids[at]) && !cmpxchg(&t->tids[at], 0, tid))
			return at;
	}
	return -1;
}

struct fxtprof_offcpu_table *fxtprof_offcpu_new(u16 ustack_depth)
{
	struct fxtprof_offcpu_table *t;
	u32 nr = offcpu_threads;

	if (!is_power_of_2(nr) || nr < 64 || nr > (1u << 20))
		return ERR_PTR(-EINVAL);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->mask = nr - 1;
	t->stride = sizeof(struct fxtprof_offcpu_slot) +
		    ustack_depth * sizeof(u64);
	t->tids = vzalloc(array_size(nr, sizeof(u32)));
	t->slots = vzalloc(array_size(nr, t->stride));
	if (!t->tids || !t->slots) {
		fxtprof_offcpu_free(t);
		return ERR_PTR(-ENOMEM);
	}
	return t;
}

void fxtprof_offcpu_free(struct fxtprof_offcpu_table *t)
{
	if (IS_ERR_OR_NULL(t))
		return;
	vfree(t->slots);
	vfree(t->tids);
	kfree(t);
}

/*
 * Before a start: the waits of threads that had not run again when the
 * last session stopped are not this one's.  No probe runs meanwhile.
 */
void fxtprof_offcpu_reset(struct fxtprof_offcpu_table *t)
{
	memset(t->tids, 0, (size_t)(t->mask + 1) * sizeof(u32));
}

/*
 * What a thread that leaves its CPU waits for, from the state sched.c
 * gave its switch (@switch_state, enum fxtprof_thread_state); 0 for one
 * that will not run again (dying), whose wait is no wait.  Only a blocked
 * thread needs more: uninterruptible (D), or sleeping.  As wait_state()
 * in the bpf source.
 */
static u8 fxtprof_wait_state(u32 switch_state, unsigned int prev_state)
{
	switch (switch_state) {
	case FXTPROF_THREAD_RUNNING:	/* preempted, or a yield */
		return FXTPROF_WAIT_PREEMPTED;
	case FXTPROF_THREAD_SUSPENDED:
		return FXTPROF_WAIT_STOPPED;
	case FXTPROF_THREAD_BLOCKED:
		/* TASK_IDLE is uninterruptible but no load: it sleeps. */
		if ((prev_state & TASK_UNINTERRUPTIBLE) &&
		    !(prev_state & TASK_NOLOAD))
			return FXTPROF_WAIT_BLOCKED;
		return FXTPROF_WAIT_SLEEPING;
	default:
		return 0;
	}
}

/* @prev, current, leaves this CPU: keep its user stack. */
static void fxtprof_offcpu_leave(struct fxtprof_session *sess,
				 struct task_struct *prev, u8 state, u64 now)
{
	struct fxtprof_offcpu_table *t = sess->offcpu;
	struct fxtprof_ustack w = { .end = FXTPROF_USTACK_END_NONE };
	struct fxtprof_offcpu_slot *slot;
	int at;

	at = fxtprof_offcpu_find(t, prev->pid);
	if (at < 0)
		at = fxtprof_offcpu_claim(t, prev->pid);
	if (at < 0) {
		fxtprof_kring_lose(fxtprof_ring(sess, smp_processor_id()),
				   sizeof(struct fxtprof_sample) +
				   sizeof(struct fxtprof_offcpu), now);
		return;
	}
	slot = fxtprof_offcpu_slot(t, at);
	WRITE_ONCE(slot->start_ns, 0);
	WRITE_ONCE(slot->waker_tid, 0);
	/* Kernel threads, even with a borrowed mm, have no user stack. */
	if ((sess->flags & FXTPROF_CFG_USTACK) && prev->mm &&
	    !(prev->flags & PF_KTHREAD)) {
		w.ips = slot->ips;
		fxtprof_walk_user_stack(sess, prev, task_pt_regs(prev), &w);
	}
	slot->pid = prev->tgid;
	slot->state = state;
	slot->flags = w.flags;
	slot->ustack_end = w.end;
	slot->nr_user = w.nr;
	/* Pairs with the acquire in fxtprof_offcpu_waking(). */
	smp_store_release(&slot->start_ns, now);
}

/* @next runs again on this CPU: its wait, if it waited long enough. */
static void fxtprof_offcpu_enter(struct fxtprof_session *sess,
				 struct task_struct *next, u64 now)
{
	struct fxtprof_offcpu_table *t = sess->offcpu;
	struct fxtprof_cpu *pc = this_cpu_ptr(sess->cpus);
	struct fxtprof_offcpu_slot *slot;
	struct fxtprof_sample *rec;
	struct fxtprof_offcpu *wait;
	unsigned int nk = 0, nu;
	u64 start;
	u8 flags;
	u32 size;
	int at;

	at = fxtprof_offcpu_find(t, next->pid);
	if (at < 0)
		return;
	slot = fxtprof_offcpu_slot(t, at);
	/*
	 * Another process's: a thread that exec()ed from a non-leader took
	 * its leader's tid while it waited, and left its old tid's slot
	 * behind for a later thread of that tid.
	 */
	if (!slot->start_ns || slot->pid != next->tgid)
		goto out_free_slot;
	/* Two CPUs' boot clocks may disagree by a little: never negative. */
	start = min(slot->start_ns, now);
	if (now - start < sess->offcpu_min_ns)
		goto out_free_slot;

	flags = slot->flags;
	nu = slot->nr_user;
	/* The scratch is the sampling timer's, which cannot run here. */
	if (sess->flags & FXTPROF_CFG_KSTACK)
		nk = fxtprof_task_kernel_stack(next, pc->ips,
					       sess->kstack_depth, &flags);
	size = sizeof(*rec) + (nk + nu) * sizeof(u64) + sizeof(*wait);
	rec = fxtprof_kring_reserve(fxtprof_ring(sess, smp_processor_id()),
				    size, FXTPROF_REC_OFFCPU, now);
	if (!rec)
		goto out_free_slot;
	rec->pid = slot->pid;
	rec->tid = next->pid;
	rec->mode = FXTPROF_MODE_KERNEL;
	rec->flags = flags;
	rec->nr_kernel = nk;
	rec->nr_user = nu;
	rec->ustack_end = slot->ustack_end;
	rec->reserved = 0;
	memcpy(rec->ips, pc->ips, nk * sizeof(u64));
	memcpy(rec->ips + nk, slot->ips, nu * sizeof(u64));
	wait = (void *)(rec->ips + nk + nu);
	wait->start_ns = start;
	wait->waker_tid = READ_ONCE(slot->waker_tid);
	wait->state = slot->state;
	memset(wait->reserved, 0, sizeof(wait->reserved));
	fxtprof_kring_commit(fxtprof_ring(sess, smp_processor_id()), size);

out_free_slot:
	WRITE_ONCE(slot->start_ns, 0);
	/* The slot is read and cleared before another thread can claim it. */
	smp_store_release(&t->tids[at], 0);
}

/*
 * From sched_switch, interrupts off, with the runqueue lock held.  The
 * idle tasks (tid 0) do not wait: they are what runs instead.
 */
void fxtprof_offcpu_switch(struct fxtprof_session *sess, u32 switch_state,
			   unsigned int prev_state, struct task_struct *prev,
			   struct task_struct *next)
{
	u64 now = ktime_get_boot_fast_ns();
	u8 state;

	if (prev->pid) {
		state = fxtprof_wait_state(switch_state, prev_state);
		if (state)
			fxtprof_offcpu_leave(sess, prev, state, now);
	}
	if (next->pid)
		fxtprof_offcpu_enter(sess, next, now);
}

/*
 * From sched_waking, in the waker's context (interrupts off, p->pi_lock
 * held): the first waker of @p's wait, if it is kept.  From an interrupt,
 * none: the interrupted task did not wake it.
 */
void fxtprof_offcpu_waking(struct fxtprof_session *sess, struct task_struct *p)
{
	struct fxtprof_offcpu_table *t = sess->offcpu;
	struct fxtprof_offcpu_slot *slot;
	int at;

	if (!in_task() || !p->pid)
		return;
	at = fxtprof_offcpu_find(t, p->pid);
	if (at < 0)
		return;
	slot = fxtprof_offcpu_slot(t, at);
	/* Pairs with the release in fxtprof_offcpu_leave(). */
	if (smp_load_acquire(&slot->start_ns))
		cmpxchg(&slot->waker_tid, 0, current->pid);
}

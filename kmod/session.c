// SPDX-License-Identifier: GPL-2.0-only
/*
 * session.c - configuration and state of one open of /dev/fxtprof:
 * validate a configuration, allocate its rings, start, stop and flush.
 *
 * States: new --configure--> configured --attach--> attached --start-->
 * running --stop--> attached; any --detach--> detached, for good.  A
 * configure (which needs the rings unmapped) drops the attachment with the
 * old rings.  Documentation/protocol.md has the whole table.  Every call
 * below runs under sess->lock, but poll, which takes no lock (see
 * fxtprof_session_poll()).
 */

#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/oom.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "fxtprof_module.h"

/*
 * A session's rings are kernel memory that stays pinned while the session
 * lives, as perf's mlocked buffers are (perf_event_mlock_kb), so their
 * total is capped.  The default, an eighth of RAM, leaves room for the old
 * rings while a reconfigure allocates the new ones: the old ones are only
 * freed once the new configuration stands, so a failed one changes nothing.
 */
static unsigned long max_rings_kb;
module_param(max_rings_kb, ulong, 0644);
MODULE_PARM_DESC(max_rings_kb,
		 "Cap on the total size of a session's rings, in KiB (0: an eighth of RAM)");

static u64 fxtprof_rings_limit(void)
{
	unsigned long kb = READ_ONCE(max_rings_kb);

	if (kb)
		return (u64)kb << 10;
	return ((u64)totalram_pages() << PAGE_SHIFT) / 8;
}

struct fxtprof_session *fxtprof_session_new(void)
{
	struct fxtprof_session *sess;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return NULL;
	sess->cpus = alloc_percpu(struct fxtprof_cpu);
	if (!sess->cpus)
		goto out_free_sess;
	if (!zalloc_cpumask_var(&sess->sample_mask, GFP_KERNEL))
		goto out_free_cpus;
	mutex_init(&sess->lock);
	init_waitqueue_head(&sess->wq);
	atomic_set(&sess->mapped, 0);
	atomic64_set(&sess->requests, 0);
	return sess;

out_free_cpus:
	free_percpu(sess->cpus);
out_free_sess:
	kfree(sess);
	return NULL;
}

static void fxtprof_free_rings(struct fxtprof_kring **rings)
{
	int cpu;

	if (!rings)
		return;
	for_each_possible_cpu(cpu)
		fxtprof_kring_free(rings[cpu]);
	kfree(rings);
}

void fxtprof_session_destroy(struct fxtprof_session *sess)
{
	/* As an ioctl would: stop reads the rings under the lock. */
	mutex_lock(&sess->lock);
	fxtprof_session_stop(sess);
	mutex_unlock(&sess->lock);
	/* The file's last reference: no reader, producer or configure left. */
	fxtprof_unwind_store_free(sess->unwind);
	fxtprof_offcpu_free(sess->offcpu);
	fxtprof_free_rings(rcu_dereference_protected(sess->rings, true));
	free_cpumask_var(sess->sample_mask);
	free_percpu(sess->cpus);
	kfree(sess);
}

static int fxtprof_read_cpumask(const struct fxtprof_config *cfg,
				struct cpumask *mask)
{
	unsigned int nwords = cfg->cpumask_len / sizeof(u64);
	unsigned int nbits = nwords * 64;
	unsigned long *bits;
	u64 *words;
	int ret;

	if (!cfg->cpumask_len) {
		cpumask_copy(mask, cpu_possible_mask);
		return 0;
	}
	if (cfg->cpumask_len % sizeof(u64) ||
	    cfg->cpumask_len > FXTPROF_MAX_CPUMASK_LEN)
		return -EINVAL;

	words = memdup_user(u64_to_user_ptr(cfg->cpumask_ptr),
			    cfg->cpumask_len);
	if (IS_ERR(words))
		return PTR_ERR(words);
	ret = -ENOMEM;
	bits = bitmap_alloc(nbits, GFP_KERNEL);
	if (!bits)
		goto out_free_words;
	bitmap_from_arr64(bits, words, nbits);

	/* A bit beyond the last possible CPU id is a caller error. */
	ret = -EINVAL;
	if (find_next_bit(bits, nbits, nr_cpu_ids) < nbits)
		goto out_free_bits;
	cpumask_clear(mask);
	bitmap_copy(cpumask_bits(mask), bits,
		    min_t(unsigned int, nbits, nr_cpu_ids));
	if (cpumask_intersects(mask, cpu_online_mask))
		ret = 0;

out_free_bits:
	bitmap_free(bits);
out_free_words:
	kfree(words);
	return ret;
}

/* The bytes of the largest sample record of @c, defaults filled in. */
static u64 fxtprof_sample_max(const struct fxtprof_config *c)
{
	u64 size = sizeof(struct fxtprof_sample) +
		   ((u64)c->kstack_depth + c->ustack_depth) * sizeof(u64);

	if (c->flags & FXTPROF_CFG_STACK_COPY)
		size += fxtprof_stack_copy_max(c->stack_copy_size);
	return size;
}

/*
 * Validate a configuration and fill in its defaults before anything touches
 * the session, so bad input changes nothing.  Reads the user's CPU list into
 * @mask; the caller must not hold sess->lock (see fxtprof_ioctl()).
 */
int fxtprof_config_check(struct fxtprof_config *c, struct cpumask *mask)
{
	if (c->flags & ~FXTPROF_CFG_ALL || c->reserved || c->reserved2 ||
	    c->reserved3)
		return -EINVAL;
	/* A wait is seen at the switches: it needs them. */
	if (c->flags & FXTPROF_CFG_OFFCPU && !(c->flags & FXTPROF_CFG_SCHED))
		return -EINVAL;
	/* Tables say how to walk a user stack: there must be one to walk. */
	if (c->flags & FXTPROF_CFG_UNWIND && !(c->flags & FXTPROF_CFG_USTACK))
		return -EINVAL;
	/* A source this kernel cannot provide (sources.c). */
	if (c->flags & fxtprof_sources_unavailable())
		return -EOPNOTSUPP;

	if (!c->freq_hz)
		c->freq_hz = FXTPROF_DEFAULT_FREQ;
	if (c->freq_hz < FXTPROF_MIN_FREQ || c->freq_hz > FXTPROF_MAX_FREQ)
		return -EINVAL;

	if (!c->kstack_depth)
		c->kstack_depth = FXTPROF_DEFAULT_STACK_DEPTH;
	if (!c->ustack_depth)
		c->ustack_depth = FXTPROF_DEFAULT_STACK_DEPTH;
	if (c->kstack_depth > FXTPROF_MAX_STACK_DEPTH ||
	    c->ustack_depth > FXTPROF_MAX_STACK_DEPTH)
		return -EINVAL;

	if (!c->ring_size)
		c->ring_size = FXTPROF_DEFAULT_RING_SIZE;
	if (!is_power_of_2(c->ring_size) ||
	    c->ring_size < max_t(u64, FXTPROF_MIN_RING_SIZE, PAGE_SIZE) ||
	    c->ring_size > FXTPROF_MAX_RING_SIZE)
		return -EINVAL;

	/* Every possible CPU gets a ring (see fxtprof_session_configure()). */
	if ((u64)num_possible_cpus() * c->ring_size > fxtprof_rings_limit())
		return -E2BIG;

	if (!c->watermark)
		c->watermark = c->ring_size / 4;
	if (c->watermark > c->ring_size)
		return -EINVAL;

	if (!c->unwind_memory)
		c->unwind_memory = FXTPROF_DEFAULT_UNWIND_MEMORY;
	if (!c->unwind_budget)
		c->unwind_budget = FXTPROF_DEFAULT_UNWIND_BUDGET;
	if (c->unwind_memory > FXTPROF_MAX_UNWIND_MEMORY ||
	    c->unwind_budget > FXTPROF_MAX_UNWIND_BUDGET)
		return -EINVAL;

	if (!c->stack_copy_size)
		c->stack_copy_size = FXTPROF_DEFAULT_STACK_COPY;
	if (c->stack_copy_size % 8 ||
	    c->stack_copy_size > FXTPROF_MAX_STACK_COPY)
		return -EINVAL;
	/*
	 * A sample is reserved at its largest: at most half the ring, so
	 * that one does not wait for the reader to empty the ring.
	 */
	if (c->flags & FXTPROF_CFG_STACK_COPY &&
	    fxtprof_sample_max(c) > c->ring_size / 2)
		return -EINVAL;

	return fxtprof_read_cpumask(c, mask);
}

/* @cfg and @mask come from fxtprof_config_check(). */
int fxtprof_session_configure(struct fxtprof_session *sess,
			      const struct fxtprof_config *cfg,
			      const struct cpumask *mask)
{
	struct fxtprof_unwind_store *unwind = NULL;
	struct fxtprof_offcpu_table *offcpu = NULL;
	struct fxtprof_kring **rings, **old;
	bool failed = false;
	int cpu, ret = -ENOMEM;

	if (sess->running || atomic_read(&sess->mapped))
		return -EBUSY;

	/*
	 * Check first, as the ftrace ring buffer does: memory that is not
	 * there would only be found by allocating until the OOM killer
	 * runs.  The pages are then asked for with __GFP_NORETRY, and as
	 * the OOM origin, so that if memory runs out anyway the allocation
	 * fails, or this caller is the one chosen, not a bystander.
	 */
	if ((u64)num_possible_cpus() * (cfg->ring_size >> PAGE_SHIFT) >
	    si_mem_available())
		return -ENOMEM;

	/* Every possible CPU gets a ring: task records come from anywhere. */
	rings = kcalloc(nr_cpu_ids, sizeof(*rings), GFP_KERNEL);
	if (!rings)
		return -ENOMEM;
	set_current_oom_origin();
	for_each_possible_cpu(cpu) {
		rings[cpu] = fxtprof_kring_alloc(cpu, cfg->ring_size,
						 cfg->watermark, &sess->wq);
		if (!rings[cpu]) {
			failed = true;
			break;
		}
	}
	clear_current_oom_origin();
	if (failed)
		goto out_free_rings;
	if (cfg->flags & FXTPROF_CFG_UNWIND) {
		unwind = fxtprof_unwind_store_new(cfg->unwind_memory);
		if (!unwind)
			goto out_free_rings;
	}
	if (cfg->flags & FXTPROF_CFG_OFFCPU) {
		offcpu = fxtprof_offcpu_new(cfg->ustack_depth);
		if (IS_ERR(offcpu)) {
			ret = PTR_ERR(offcpu);
			goto out_free_unwind;
		}
	}

	old = fxtprof_rings_locked(sess);
	rcu_assign_pointer(sess->rings, rings);
	if (old) {
		/* A concurrent poll() may still be reading the old rings. */
		synchronize_rcu();
		fxtprof_free_rings(old);
	}
	/*
	 * The old tables and ranges go with the old configuration.  No walk
	 * or probe reads them: configure refuses a running session, and the
	 * stop that ended it waited for them (fxtprof_session_stop()).
	 */
	fxtprof_unwind_store_free(sess->unwind);
	sess->unwind = unwind;
	fxtprof_offcpu_free(sess->offcpu);
	sess->offcpu = offcpu;
	sess->offcpu_min_ns = cfg->offcpu_min_ns;
	sess->unwind_budget = cfg->unwind_budget;
	sess->stack_copy_size = cfg->stack_copy_size;
	sess->flags = cfg->flags;
	sess->freq_hz = cfg->freq_hz;
	sess->period_ns = div_u64(NSEC_PER_SEC, cfg->freq_hz);
	sess->kstack_depth = cfg->kstack_depth;
	sess->ustack_depth = cfg->ustack_depth;
	sess->ring_size = cfg->ring_size;
	sess->watermark = cfg->watermark;
	sess->mmap_stride = 2 * PAGE_SIZE + 2 * cfg->ring_size;
	cpumask_copy(sess->sample_mask, mask);
	sess->configured = true;
	/* New rings, no reader yet: it attaches to these. */
	sess->attached = false;
	return 0;

out_free_unwind:
	fxtprof_unwind_store_free(unwind);
out_free_rings:
	fxtprof_free_rings(rings);
	return ret;
}

struct fxtprof_session __rcu *fxtprof_running_sess;

/*
 * One session runs at a time (main.c), so one pointer serves every
 * producer but the sampling timer, which start and stop arm and cancel.
 */
static void fxtprof_session_publish(struct fxtprof_session *sess)
{
	rcu_assign_pointer(fxtprof_running_sess, sess);
}

/*
 * After this returns no probe or annotation writes into the rings, or
 * touches the unwind store.  Probes run with preemption off (or under
 * rcu_read_lock()) from their fxtprof_running() to their last use of the
 * session: synchronize_rcu() pairs with those read-side sections, so a
 * probe that loaded the pointer before the store of NULL has finished.
 */
static void fxtprof_session_unpublish(void)
{
	RCU_INIT_POINTER(fxtprof_running_sess, NULL);
	synchronize_rcu();
}

int fxtprof_session_start(struct fxtprof_session *sess)
{
	int ret;

	if (!sess->configured)
		return -EINVAL;
	if (sess->running)
		return -EBUSY;
	/* Records for nobody would only fill the rings: a reader first. */
	if (!sess->attached)
		return -ENOTCONN;

	/*
	 * Registered probes record nothing until the session is published.
	 * The exec and exit probes also drop unwind ranges (tasks.c).
	 */
	if (sess->flags & (FXTPROF_CFG_TASKS | FXTPROF_CFG_UNWIND)) {
		ret = fxtprof_tasks_start();
		if (ret)
			return ret;
	}
	if (sess->flags & FXTPROF_CFG_SCHED) {
		ret = fxtprof_sched_start();
		if (ret)
			return ret;
	}
	if (sess->offcpu)
		fxtprof_offcpu_reset(sess->offcpu);
	fxtprof_session_publish(sess);
	/* After publishing, so no thread falls between snapshot and fork. */
	if (sess->flags & FXTPROF_CFG_SNAPSHOT)
		fxtprof_tasks_snapshot(sess);
	if (sess->flags & FXTPROF_CFG_SAMPLE) {
		ret = fxtprof_sampler_start(sess);
		if (ret)
			goto out_unpublish;
	}
	sess->running = true;
	return 0;

out_unpublish:
	fxtprof_session_unpublish();
	return ret;
}

/*
 * After this returns no producer touches the rings until the next start,
 * and poll() reports every ring readable until the reader has taken all
 * that was committed: the last bytes below the watermark too.
 */
void fxtprof_session_stop(struct fxtprof_session *sess)
{
	int cpu;

	if (!sess->running)
		return;
	/* The probes first: none drops unwind ranges after this... */
	fxtprof_session_unpublish();
	/*
	 * ...then the timers: hrtimer_cancel() waits for a handler that is
	 * running, and with it for a walk in the unwind store, whose
	 * rcu_read_lock() section lies within the handler.  Afterwards the
	 * store has no reader and configure or release may free it at once
	 * (fxtprof_unwind_store_free()).
	 */
	if (sess->flags & FXTPROF_CFG_SAMPLE)
		fxtprof_sampler_stop(sess);
	sess->running = false;
	/* The producers are stopped and synchronised: no one moves head. */
	for_each_possible_cpu(cpu)
		fxtprof_kring_mark_drain(fxtprof_ring(sess, cpu));
	wake_up_interruptible_poll(&sess->wq, EPOLLIN | EPOLLRDNORM);
}

static void fxtprof_write_flush(struct fxtprof_kring *ring, u64 seq)
{
	const u32 size = sizeof(struct fxtprof_flush_rec);
	struct fxtprof_flush_rec *rec;

	rec = fxtprof_kring_reserve(ring, size, FXTPROF_REC_FLUSH,
				    ktime_get_boot_fast_ns());
	if (rec) {
		rec->seq = seq;
		fxtprof_kring_commit(ring, size);
	}
	/* Even without the marker: what is committed must be drained. */
	fxtprof_kring_mark_drain(ring);
}

struct fxtprof_flush_arg {
	struct fxtprof_session *sess;
	u64 seq;
};

static void fxtprof_flush_on_cpu(void *info)
{
	struct fxtprof_flush_arg *arg = info;

	fxtprof_write_flush(fxtprof_ring(arg->sess, smp_processor_id()),
			    arg->seq);
}

u64 fxtprof_session_flush(struct fxtprof_session *sess)
{
	struct fxtprof_flush_arg arg = { .sess = sess, .seq = ++sess->flush_seq };
	unsigned long irqflags;
	int cpu;

	/* Online CPUs write their own ring; offline ones cannot race with us. */
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu)) {
			smp_call_function_single(cpu, fxtprof_flush_on_cpu,
						 &arg, 1);
		} else {
			local_irq_save(irqflags);
			fxtprof_write_flush(fxtprof_ring(sess, cpu), arg.seq);
			local_irq_restore(irqflags);
		}
	}
	cpus_read_unlock();

	wake_up_interruptible_poll(&sess->wq, EPOLLIN | EPOLLRDNORM);
	return arg.seq;
}

/*
 * DETACH: stop, leave a last FLUSH marker after everything committed, and
 * refuse all but GET_INFO and GET_STATS from now on.  The rings live on
 * with the session, until the last mapping and the file are gone; the
 * caller gives the device up for a new session.
 */
void fxtprof_session_detach(struct fxtprof_session *sess)
{
	fxtprof_session_stop(sess);
	if (sess->configured)
		fxtprof_session_flush(sess);
	sess->attached = false;
	WRITE_ONCE(sess->detached, true);
	wake_up_interruptible_poll(&sess->wq, EPOLLHUP);
}

/*
 * SYNC: every request before this one took and released sess->lock, which
 * the caller holds now, and did its synchronous part (stop waits for the
 * timers and the probes).  What can still be pending is a reader wakeup
 * queued as irq_work by a commit: wait for those too.
 */
u64 fxtprof_session_sync(struct fxtprof_session *sess)
{
	struct fxtprof_kring **rings = fxtprof_rings_locked(sess);
	int cpu;

	if (rings)
		for_each_possible_cpu(cpu)
			irq_work_sync(&rings[cpu]->wakeup);
	return atomic64_read(&sess->requests);
}

void fxtprof_session_info(struct fxtprof_session *sess,
			  struct fxtprof_info *info)
{
	info->abi_version = FXTPROF_ABI_VERSION;
	info->nr_cpus = nr_cpu_ids;
	info->nr_online = num_online_cpus();
	info->page_size = PAGE_SIZE;
	info->state = (sess->configured ? FXTPROF_STATE_CONFIGURED : 0) |
		      (sess->running ? FXTPROF_STATE_RUNNING : 0) |
		      (sess->attached ? FXTPROF_STATE_ATTACHED : 0) |
		      (sess->detached ? FXTPROF_STATE_DETACHED : 0);
	info->min_freq = FXTPROF_MIN_FREQ;
	info->max_freq = FXTPROF_MAX_FREQ;
	info->default_freq = FXTPROF_DEFAULT_FREQ;
	info->max_stack_depth = FXTPROF_MAX_STACK_DEPTH;
	info->min_ring_size = max_t(u64, FXTPROF_MIN_RING_SIZE, PAGE_SIZE);
	info->max_ring_size = FXTPROF_MAX_RING_SIZE;
	info->default_ring_size = FXTPROF_DEFAULT_RING_SIZE;
	info->ring_size = sess->configured ? sess->ring_size : 0;
	info->mmap_stride = sess->configured ? sess->mmap_stride : 0;
	info->nr_sources = fxtprof_nr_sources();
}

/*
 * Readable when a ring holds a watermark's worth, or when the reader has
 * not yet consumed what the last stop or flush committed: it then wants
 * every last byte.  A pure comparison of published positions
 * (fxtprof_kring_readable()): no lock but RCU, no state changed, so the
 * answer does not depend on who polled before.  A detached session adds
 * EPOLLHUP, as a pipe without writers: its reader drains what is left
 * (EPOLLIN until the last marker is consumed) and then closes.
 */
__poll_t fxtprof_session_poll(struct fxtprof_session *sess)
{
	struct fxtprof_kring **rings;
	__poll_t mask = READ_ONCE(sess->detached) ? EPOLLHUP : 0;
	int cpu;

	rcu_read_lock();
	rings = rcu_dereference(sess->rings);
	if (rings) {
		for_each_possible_cpu(cpu) {
			if (fxtprof_kring_readable(rings[cpu])) {
				mask |= EPOLLIN | EPOLLRDNORM;
				break;
			}
		}
	}
	rcu_read_unlock();
	return mask;
}

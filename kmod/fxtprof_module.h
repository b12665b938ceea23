/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fxtprof_module.h - internals shared by the files of fxtprof.ko.  The user
 * ABI lives in include/uapi/linux/fxtprof.h; nothing here is visible to
 * userspace.
 */
#ifndef _FXTPROF_MODULE_H
#define _FXTPROF_MODULE_H

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/fxtprof.h>

#include "kring.h"

/* Per-CPU sampling state. */
struct fxtprof_cpu {
	struct hrtimer timer;
	struct fxtprof_session *sess;
	u64 ips[2 * FXTPROF_MAX_STACK_DEPTH];	/* unwind scratch */
};

/*
 * A session is one open of /dev/fxtprof.  It outlives close() while any of
 * its rings is still mapped, because every mapping holds the file.
 */
struct fxtprof_session {
	struct mutex lock;		/* ioctls, mmap, configuration */
	wait_queue_head_t wq;		/* poll() */
	struct hlist_node cpuhp_node;	/* sampling instance, while running */

	/* Effective configuration, defaults filled in. */
	u32 flags;
	u32 freq_hz;
	u64 period_ns;
	u16 kstack_depth;
	u16 ustack_depth;
	u64 ring_size;
	u64 watermark;
	u64 mmap_stride;
	cpumask_var_t sample_mask;
	u32 unwind_budget;
	u32 stack_copy_size;		/* with FXTPROF_CFG_STACK_COPY */
	/*
	 * Tables and process ranges (kmod/unwind_table.c), with
	 * FXTPROF_CFG_UNWIND; replaced only by configure, like the rings.
	 */
	struct fxtprof_unwind_store *unwind;
	/* With FXTPROF_CFG_OFFCPU: waits kept until their thread runs again. */
	struct fxtprof_offcpu_table *offcpu;
	u64 offcpu_min_ns;

	/*
	 * nr_cpu_ids slots, one per possible CPU.  Replaced only by
	 * configure, under lock, which frees the old array after an RCU
	 * grace period: poll() reads it under rcu_read_lock() alone.
	 * Read it through fxtprof_ring() or fxtprof_rings_locked().
	 */
	struct fxtprof_kring * __rcu *rings;
	struct fxtprof_cpu __percpu *cpus;
	atomic_t mapped;		/* live VMAs of this session */
	bool configured;
	bool running;
	/* A reader passed ATTACH for the current rings (kmod/attach.c). */
	bool attached;
	/*
	 * DETACH gave the device up: the file answers GET_INFO and
	 * GET_STATS only.  Set once under lock; poll() reads it locklessly.
	 */
	bool detached;
	u64 flush_seq;
	atomic64_t requests;		/* ioctls processed, for SYNC */
};

static inline u32 fxtprof_rec_size(size_t bytes)
{
	return ALIGN(bytes, FXTPROF_REC_ALIGN);
}

/*
 * The running session, published by start and withdrawn by stop (NULL when
 * none runs).  Everything that writes records outside the sampling timer
 * finds the session here: tracepoint probes, which stay registered between
 * sessions (probes.c), and the annotate device.
 */
extern struct fxtprof_session __rcu *fxtprof_running_sess;

/*
 * The running session if it records every source in @flags
 * (FXTPROF_CFG_* bits; 0 for any session), else NULL.  Callers hold
 * rcu_read_lock() or run with preemption off, as tracepoint probes do:
 * stop's synchronize_rcu() waits for both, so the session and its rings
 * outlive every caller that saw it.  sess->flags is set by configure,
 * which a running session refuses.
 */
static inline struct fxtprof_session *fxtprof_running(u32 flags)
{
	struct fxtprof_session *sess;

	sess = rcu_dereference_check(fxtprof_running_sess,
				     rcu_read_lock_sched_held());
	if (sess && (sess->flags & flags) != flags)
		return NULL;
	return sess;
}

/*
 * The ring of @cpu, for a producer of the running session (a probe, the
 * sampling timer, an annotation, a flush IPI), which holds rcu_read_lock()
 * or runs with preemption off as for fxtprof_running(), or for a caller
 * holding sess->lock.  Configure, the only writer, refuses a running
 * session, so the array cannot change under a producer.
 */
static inline struct fxtprof_kring *fxtprof_ring(struct fxtprof_session *sess,
						 unsigned int cpu)
{
	struct fxtprof_kring **rings;

	rings = rcu_dereference_check(sess->rings,
				      rcu_read_lock_sched_held() ||
				      lockdep_is_held(&sess->lock));
	return rings[cpu];
}

/* The array (NULL before configure), under sess->lock: configure holds it. */
static inline struct fxtprof_kring **
fxtprof_rings_locked(struct fxtprof_session *sess)
{
	return rcu_dereference_protected(sess->rings,
					 lockdep_is_held(&sess->lock));
}

/*
 * One record into this CPU's ring of @sess, as every producer outside the
 * sampling timer writes it (the timer's handler runs with interrupts off
 * already): interrupts off from reserve to commit, so that the timer
 * cannot write into the middle of the record.  begin returns where to
 * fill it in, or NULL when the ring is full (the loss is counted); end
 * commits it if there was room and restores interrupts either way.
 */
struct fxtprof_rec_writer {
	struct fxtprof_kring *ring;
	unsigned long irqflags;
	u32 size;
};

static inline void *fxtprof_rec_begin(struct fxtprof_session *sess,
				      struct fxtprof_rec_writer *w, u32 size,
				      u16 type)
{
	local_irq_save(w->irqflags);
	w->ring = fxtprof_ring(sess, smp_processor_id());
	w->size = size;
	return fxtprof_kring_reserve(w->ring, size, type,
				     ktime_get_boot_fast_ns());
}

static inline void fxtprof_rec_end(struct fxtprof_rec_writer *w, void *rec)
{
	if (rec)
		fxtprof_kring_commit(w->ring, w->size);
	local_irq_restore(w->irqflags);
}

/* session.c */
struct fxtprof_session *fxtprof_session_new(void);
void fxtprof_session_destroy(struct fxtprof_session *sess);
int fxtprof_config_check(struct fxtprof_config *cfg, struct cpumask *mask);
int fxtprof_session_configure(struct fxtprof_session *sess,
			      const struct fxtprof_config *cfg,
			      const struct cpumask *mask);
int fxtprof_session_start(struct fxtprof_session *sess);
void fxtprof_session_stop(struct fxtprof_session *sess);
u64 fxtprof_session_flush(struct fxtprof_session *sess);
void fxtprof_session_detach(struct fxtprof_session *sess);
u64 fxtprof_session_sync(struct fxtprof_session *sess);
void fxtprof_session_info(struct fxtprof_session *sess,
			  struct fxtprof_info *info);
__poll_t fxtprof_session_poll(struct fxtprof_session *sess);

/* attach.c */
int fxtprof_attach(struct fxtprof_session *sess, struct file *file,
		   const struct fxtprof_attach *a);

struct fxtprof_ustack;

/* sampler.c */
int fxtprof_sampler_init(void);
void fxtprof_sampler_exit(void);
int fxtprof_sampler_start(struct fxtprof_session *sess);
void fxtprof_sampler_stop(struct fxtprof_session *sess);
void fxtprof_walk_user_stack(struct fxtprof_session *sess,
			     struct task_struct *task, struct pt_regs *uregs,
			     struct fxtprof_ustack *w);

/* stack.c: the kernel stack returns the number of addresses stored. */
unsigned int fxtprof_kernel_stack(struct pt_regs *regs, u64 *ips,
				  unsigned int max, u8 *flags);
unsigned int fxtprof_task_kernel_stack(struct task_struct *task, u64 *ips,
				       unsigned int max, u8 *flags);
void fxtprof_user_stack(struct pt_regs *regs, struct fxtprof_ustack *w);
bool fxtprof_user_64bit(struct pt_regs *regs);

/* stack_copy.c: a sample's user registers and stack bytes. */
u32 fxtprof_stack_copy_max(u32 stack_size);
u32 fxtprof_stack_copy(struct pt_regs *regs, struct fxtprof_stack_copy *dst,
		       u32 stack_size);

/* probes.c: tracepoint probes that live from first use to unload. */
struct fxtprof_probe {
	const char *name;		/* the tracepoint's */
	void *func;
	struct tracepoint *tp;		/* found by name at load */
};

struct fxtprof_probe_set {
	const char *source;		/* for the message when one is missing */
	struct fxtprof_probe *probes;
	unsigned int nr;
	bool found;			/* every tracepoint is there */
	bool registered;		/* under probes.c's lock */
};

/*
 * A probe's prototype, checked at compile time against the tracepoint's
 * register_trace_<name>() declaration, which typeof() can inspect without
 * referencing the unexported tracepoint.
 */
#define FXTPROF_PROBE_CHECK(tp, fn)					\
	static_assert(__builtin_types_compatible_p(			\
		typeof(register_trace_##tp), int (typeof(&(fn)), void *)), \
		#fn " does not match tracepoint " #tp)

int fxtprof_probes_find(struct fxtprof_probe_set *set);
int fxtprof_probes_register(struct fxtprof_probe_set *set);
void fxtprof_probes_unregister(struct fxtprof_probe_set *set);

/*
 * tasks.c: fork, exec, exit and rename (FXTPROF_CFG_TASKS), and the
 * snapshot of every thread (FXTPROF_CFG_SNAPSHOT).
 */
int fxtprof_tasks_init(void);
int fxtprof_tasks_start(void);
void fxtprof_tasks_exit(void);
void fxtprof_tasks_snapshot(struct fxtprof_session *sess);

/* sched.c: the sched.switch source (FXTPROF_CFG_SCHED). */
void fxtprof_sched_init(void);
bool fxtprof_sched_available(void);
int fxtprof_sched_start(void);
void fxtprof_sched_exit(void);

/* offcpu.c: where threads wait (FXTPROF_CFG_OFFCPU). */
struct fxtprof_offcpu_table *fxtprof_offcpu_new(u16 ustack_depth);
void fxtprof_offcpu_free(struct fxtprof_offcpu_table *t);
void fxtprof_offcpu_reset(struct fxtprof_offcpu_table *t);
void fxtprof_offcpu_switch(struct fxtprof_session *sess, u32 switch_state,
			   unsigned int prev_state, struct task_struct *prev,
			   struct task_struct *next);
void fxtprof_offcpu_waking(struct fxtprof_session *sess, struct task_struct *p);

/* ksym.c: FXTPROF_IOC_KSYM. */
int fxtprof_ksym_lookup(struct fxtprof_ksym_query *q);

/* sources.c: the data source table behind FXTPROF_IOC_GET_SOURCE. */
u32 fxtprof_nr_sources(void);
int fxtprof_source_get(struct fxtprof_source *src, bool configured, u32 flags);
u32 fxtprof_sources_unavailable(void);

/*
 * unwind_table.c: the session's unwind tables and process ranges.  The
 * sampler reads the ranges of a tgid under rcu_read_lock(); the ioctls
 * change them under sess->lock, the exec and exit probes drop them.
 */
struct fxtprof_unwind_store;
struct fxtprof_unwind_range;
struct fxtprof_unwind_store *fxtprof_unwind_store_new(u64 limit);
void fxtprof_unwind_store_free(struct fxtprof_unwind_store *store);
int fxtprof_unwind_load(struct fxtprof_session *sess,
			struct fxtprof_unwind_table *t);
int fxtprof_unwind_map(struct fxtprof_session *sess,
		       const struct fxtprof_unwind_map *m);
int fxtprof_unwind_unload(struct fxtprof_session *sess,
			  const struct fxtprof_unwind_unload *u);
void fxtprof_unwind_forget(pid_t tgid);
unsigned int fxtprof_unwind_ranges(struct fxtprof_unwind_store *store,
				   pid_t tgid,
				   const struct fxtprof_unwind_range **ranges);

/* annotate.c: /dev/fxtprof-annotate, into the running session. */
int fxtprof_annotate_init(void);
void fxtprof_annotate_exit(void);

#endif /* _FXTPROF_MODULE_H */

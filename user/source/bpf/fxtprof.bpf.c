// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxtprof.bpf.c - the eBPF source's programs: they write the same uapi
 * records as fxtprof.ko (include/uapi/linux/fxtprof.h) into a BPF ring
 * buffer per CPU, which user/source/bpf_source.c drains.
 *
 *   fxtprof_sample    perf_event: a cpu-clock event per sampled CPU; user
 *                     stacks by frame pointers, or from unwind tables
 *                     (unwind.bpf.h) with FXTPROF_CFG_UNWIND
 *   fxtprof_fork/exec/exit/rename
 *                     tp_btf: the module's four task tracepoints
 *   fxtprof_switch/waking/wakeup/wakeup_new
 *                     tp_btf: the sched.switch source, as kmod/sched.c;
 *                     with FXTPROF_CFG_OFFCPU the stacks of waits too
 *   fxtprof_snapshot  iter/task: one SNAPSHOT record per thread at start
 *
 * CO-RE: built once per architecture against a vmlinux.h generated at
 * build time; field offsets are relocated at load, so one object serves
 * every kernel of that architecture (Documentation/bpf-source.md).
 *
 * Drops are counted, never written: a record that does not fit is added to
 * this CPU's counters, and the reader turns the counters into LOST records
 * (so the counts are exact however full the ring is).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * The ABI header includes <linux/types.h> and <linux/ioctl.h>, which do
 * not exist for -target bpf and whose types vmlinux.h already has: stand
 * in for them.  The header's static asserts then check the record layout
 * in this build too.
 */
#define _LINUX_TYPES_H
#define _LINUX_IOCTL_H
#define _IO(a, b)		0
#define _IOW(a, b, c)		0
#define _IOWR(a, b, c)		0
#include <linux/fxtprof.h>
#include "fxtprof_bpf.h"

/* From include/uapi/linux/sched.h and linux/sched.h (macros, not in BTF). */
#define CLONE_VM	0x00000100
#define CLONE_FS	0x00000200
#define CLONE_FILES	0x00000400
#define CLONE_SIGHAND	0x00000800
#define CLONE_THREAD	0x00010000
#define PF_KTHREAD	0x00200000
/*
 * Task states (linux/sched.h), for the switch record's prev_state; the
 * bits below TASK_STATE_MAX (0x10000 from 5.14 to 6.18) are the states.
 */
#define __TASK_STOPPED	0x00000004
#define __TASK_TRACED	0x00000008
#define EXIT_DEAD	0x00000010
#define EXIT_ZOMBIE	0x00000020
#define TASK_DEAD	0x00000080
#define TASK_ANY	0x0000ffff
#define TASK_UNINTERRUPTIBLE	0x00000002
#define TASK_NOLOAD	0x00000400

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader between open and load: constants to the verifier. */
const volatile __u32 cfg_flags = 0;		/* FXTPROF_CFG_* */
const volatile __u32 kstack_depth = FXTPROF_DEFAULT_STACK_DEPTH;
const volatile __u32 ustack_depth = FXTPROF_DEFAULT_STACK_DEPTH;
const volatile __u64 watermark = 0;		/* wake the reader above */

/* The reader mmaps .bss: counters[cpu] is its view of each CPU. */
struct fxtprof_bpf_counters counters[FXTPROF_BPF_MAX_CPUS];

/*
 * One ring buffer per possible CPU, as the module's rings: a program
 * writes only to its own CPU's, so no two CPUs share a ring's spinlock or
 * producer page (one shared ring made them bounce at every sample).  The
 * loader creates the rings (all of one size, which the kernel requires of
 * inner maps), sizes this array to the possible CPUs and fills it before
 * attaching anything.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);			/* resized by the loader */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} fxtprof_rings SEC(".maps");

struct scratch {
	__u8 buf[FXTPROF_BPF_SCRATCH_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FXTPROF_BPF_SCRATCH_SLOTS);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/*
 * Wakeups: never per record (an irq_work per record costs more than the
 * record, bpf-notes.md 6.1), only once this ring's pending bytes pass the
 * watermark; below it the reader's periodic drain collects them.  The
 * query reads the ring's own positions, which only this CPU and the
 * reader write.
 */
static __always_inline __u64 wakeup_flag(void *rb)
{
	return bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >= watermark ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* Write @rec (its header filled here) to @cpu's ring or count it lost. */
static __always_inline int emit(void *rec, __u32 size, __u16 type, __u32 cpu,
				__u64 now)
{
	struct fxtprof_rec_hdr *hdr = rec;
	struct fxtprof_bpf_counters *c;
	long err = -1;
	void *rb;

	if (cpu >= FXTPROF_BPF_MAX_CPUS)
		return 0;
	hdr->size = size;
	hdr->type = type;
	hdr->cpu = cpu;
	hdr->time_ns = now;
	/* Every possible CPU has a ring; a missing one counts as a drop. */
	rb = bpf_map_lookup_elem(&fxtprof_rings, &cpu);
	if (rb)
		err = bpf_ringbuf_output(rb, rec, size, wakeup_flag(rb));
	/*
	 * The 6.1 verifier forgets the bound checked above once cpu has been
	 * spilled to the stack ("R2 unbounded memory access"): mask it where
	 * it indexes, and keep clang from dropping the mask as redundant.
	 */
	barrier_var(cpu);
	c = &counters[cpu & (FXTPROF_BPF_MAX_CPUS - 1)];
	if (err) {
		/* A new run of drops begins once the reader acked the last. */
		if (c->lost_records == c->ack_lost)
			c->lost_first_ns = now;
		c->lost_last_ns = now;
		/* bytes before records: a reader that sees a record's count
		 * sees its bytes (the reader tolerates the reverse too). */
		__sync_fetch_and_add(&c->lost_bytes, size);
		__sync_fetch_and_add(&c->lost_records, 1);
		return 0;
	}
	__sync_fetch_and_add(&c->records, 1);
	__sync_fetch_and_add(&c->bytes, size);
	return 1;
}

/* ------------------------------------------------------------------ */
/* Sampling                                                            */
/* ------------------------------------------------------------------ */

#include "unwind.bpf.h"

/*
 * The frame-pointer walk of bpf_get_stack() (--call-graph fp), into
 * s->ips[nk ..]: one frame more than the depth is asked for, and getting
 * it back means the stack was cut.  bpf_get_stack() does not say why a
 * walk stopped otherwise: it ended with the chain.
 */
static __always_inline __u32 fp_user(void *ctx,
				     struct fxtprof_sample *s, __u32 nk,
				     __u8 *flags, __u8 *end)
{
	__u32 nu = 0, want;
	long n;

	want = ustack_depth + 1;
	if (want > FXTPROF_MAX_STACK_DEPTH + 1)
		want = FXTPROF_MAX_STACK_DEPTH + 1;
	n = bpf_get_stack(ctx, (__u8 *)s->ips + nk * 8, want * 8,
			  BPF_F_USER_STACK);
	if (n > 0)
		nu = (__u32)n / 8;
	*end = nu ? FXTPROF_USTACK_END_FP_CHAIN : FXTPROF_USTACK_END_NONE;
	if (nu >= want && want > 1) {
		nu = want - 1;
		*flags |= FXTPROF_SAMPLE_USTACK_TRUNCATED;
		*end = FXTPROF_USTACK_END_DEPTH;
	}
	if (nu > FXTPROF_MAX_STACK_DEPTH)
		nu = FXTPROF_MAX_STACK_DEPTH;
	return nu;
}

/*
 * The current task's stacks into @s->ips, as a sample takes them: kernel
 * frames when it is in the kernel (@kernel) and @kframes, then user
 * frames by the unwind tables or frame pointers.  Fills the sample's
 * stack fields and returns the record's size.  @ctx is the program's: a
 * perf event's, or a tracepoint's, where the task is always in the
 * kernel and its user registers are those saved at its entry.
 */
/*
 * The frames to ask a kernel stack helper for: one more than the depth.
 * Getting it back means the stack was cut (the module's definition of
 * TRUNCATED), and the extra frame is then overwritten or left out.
 */
static __always_inline __u32 kstack_want(void)
{
	__u32 want = kstack_depth + 1;

	return want > FXTPROF_MAX_STACK_DEPTH + 1 ?
	       FXTPROF_MAX_STACK_DEPTH + 1 : want;
}

/* The frames a helper's return @n gave for @want asked, TRUNCATED said. */
static __always_inline __u32 kstack_frames(long n, __u32 want, __u8 *flags)
{
	__u32 nk = n > 0 ? (__u32)n / 8 : 0;

	if (nk >= want && want > 1) {
		nk = want - 1;
		*flags |= FXTPROF_SAMPLE_KSTACK_TRUNCATED;
	}
	return nk > FXTPROF_MAX_STACK_DEPTH ? FXTPROF_MAX_STACK_DEPTH : nk;
}

static __always_inline __u32 take_stacks(void *ctx, struct fxtprof_sample *s,
					 bool kernel, __u32 tid, bool kframes)
{
	__u32 nk = 0, nu = 0, want;
	__u8 flags = 0, end = FXTPROF_USTACK_END_NONE;
	long n;

	if ((cfg_flags & FXTPROF_CFG_KSTACK) && kernel && kframes) {
		want = kstack_want();
		n = bpf_get_stack(ctx, s->ips, want * 8, 0);
		nk = kstack_frames(n, want, &flags);
	}
	/* A user task interrupted in the kernel: the kernel takes its user
	 * registers from task_pt_regs(); kernel threads give nothing. */
	if ((cfg_flags & FXTPROF_CFG_USTACK) && tid) {
		if (cfg_flags & FXTPROF_CFG_UNWIND)
			nu = unwind_user(ctx, s, nk, kernel, &flags, &end);
		else
			nu = fp_user(ctx, s, nk, &flags, &end);
		if (nu > FXTPROF_MAX_STACK_DEPTH)
			nu = FXTPROF_MAX_STACK_DEPTH;
	}
	s->flags = flags;
	s->nr_kernel = nk;
	s->nr_user = nu;
	s->ustack_end = end;
	s->reserved = 0;
	return sizeof(*s) + (nk + nu) * 8;
}

SEC("perf_event")
int fxtprof_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, key = FXTPROF_BPF_SCRATCH_SAMPLE;
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 now = bpf_ktime_get_boot_ns();
	struct fxtprof_sample *s;
	__u32 size;
	bool kernel;

	/* Only the idle tasks have tid 0, one per CPU. */
	if (!tid && (cfg_flags & FXTPROF_CFG_SKIP_IDLE))
		return 0;
	s = bpf_map_lookup_elem(&scratch, &key);
	if (!s)
		return 0;
	/* Kernel text lives in the upper half on x86-64 and arm64. */
	kernel = (__s64)PT_REGS_IP(&ctx->regs) < 0;
	size = take_stacks(ctx, s, kernel, tid, true);
	s->pid = id >> 32;
	s->tid = tid;
	s->mode = !tid ? FXTPROF_MODE_IDLE :
		  kernel ? FXTPROF_MODE_KERNEL : FXTPROF_MODE_USER;
	/*
	 * clang can prove the bound from take_stacks()'s clamps and would
	 * drop the test; the 6.1 verifier cannot, and wants it.
	 */
	barrier_var(size);
	if (size > sizeof(*s) + 2 * FXTPROF_MAX_STACK_DEPTH * 8)
		return 0;
	if (emit(s, size, FXTPROF_REC_SAMPLE, cpu, now)) {
		barrier_var(cpu);	/* the mask stays: see emit() */
		__sync_fetch_and_add(&counters[cpu & (FXTPROF_BPF_MAX_CPUS - 1)].samples, 1);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tasks                                                               */
/* ------------------------------------------------------------------ */

/* Clone flags the child's shared resources reveal, as kmod/tasks.c. */
static __always_inline __u64 clone_flags(struct task_struct *parent,
					 struct task_struct *child)
{
	__u64 flags = 0;

	if (child->mm && child->mm == parent->mm)
		flags |= CLONE_VM;
	if (child->fs == parent->fs)
		flags |= CLONE_FS;
	if (child->files && child->files == parent->files)
		flags |= CLONE_FILES;
	if (child->sighand == parent->sighand)
		flags |= CLONE_SIGHAND;
	if (child->signal == parent->signal)
		flags |= CLONE_THREAD;
	return flags;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fxtprof_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	struct fxtprof_fork r;

	__builtin_memset(&r, 0, sizeof(r));
	r.parent_pid = parent->tgid;
	r.parent_tid = parent->pid;
	r.child_pid = child->tgid;
	r.child_tid = child->pid;
	r.clone_flags = clone_flags(parent, child);
	/* Zeroed above: the copy leaves the field NUL padded. */
	bpf_probe_read_kernel_str(r.comm, sizeof(r.comm), child->comm);
	emit(&r, sizeof(r), FXTPROF_REC_FORK, bpf_get_smp_processor_id(),
	     bpf_ktime_get_boot_ns());
	return 0;
}

/*
 * A process's unwind ranges describe its old image after an exec and
 * nothing after its exit: drop them, as the module does.  Loaded with
 * FXTPROF_CFG_UNWIND even without FXTPROF_CFG_TASKS, which only the
 * records need.
 */
static __always_inline void unwind_drop(struct task_struct *p)
{
	__u32 tgid = p->tgid;

	if (cfg_flags & FXTPROF_CFG_UNWIND)
		bpf_map_delete_elem(&unwind_procs, &tgid);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(fxtprof_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 key = FXTPROF_BPF_SCRATCH_EXEC, len, off, size;
	struct fxtprof_exec *r;
	__u64 *word;
	__u16 flags = 0;
	long n;

	unwind_drop(p);
	if (!(cfg_flags & FXTPROF_CFG_TASKS))
		return 0;
	r = bpf_map_lookup_elem(&scratch, &key);
	if (!r)
		return 0;
	/* Room for one byte more than kept: its presence means truncated. */
	n = bpf_probe_read_kernel_str(r->filename, FXTPROF_MAX_FILENAME + 2,
				      bprm->filename);
	len = n > 0 ? (__u32)n - 1 : 0;
	if (len > FXTPROF_MAX_FILENAME) {
		len = FXTPROF_MAX_FILENAME;
		flags |= FXTPROF_EXEC_FILENAME_TRUNCATED;
	}
	/* Zero the padding: keep the low len % 8 bytes of the last word
	 * (little endian on both targets), clear the word after a full one. */
	off = len & ~7u;
	if (off > FXTPROF_MAX_FILENAME)
		return 0;
	word = (__u64 *)(r->filename + off);
	*word &= (len & 7) ? ((1ull << ((len & 7) * 8)) - 1) : 0;

	r->pid = p->tgid;
	r->tid = p->pid;
	r->old_tid = old_pid;
	r->filename_len = len;
	r->flags = flags;
	__builtin_memset(r->comm, 0, sizeof(r->comm));
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), p->comm);
	size = sizeof(*r) + ((len + 7) & ~7u);
	if (size > sizeof(*r) + FXTPROF_MAX_FILENAME)
		return 0;
	emit(r, size, FXTPROF_REC_EXEC, bpf_get_smp_processor_id(),
	     bpf_ktime_get_boot_ns());
	return 0;
}

/*
 * 6.16 added a group_dead argument; reading only the first keeps one
 * program for every kernel.  do_exit() has decremented signal->live
 * before the tracepoint, as kmod/compat.h relies on before 6.16.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(fxtprof_exit, struct task_struct *p)
{
	struct fxtprof_exit r;
	bool group_dead = p->signal->live.counter == 0;

	if (group_dead)
		unwind_drop(p);
	if (!(cfg_flags & FXTPROF_CFG_TASKS))
		return 0;
	__builtin_memset(&r, 0, sizeof(r));
	r.pid = p->tgid;
	r.tid = p->pid;
	r.exit_code = p->exit_code;
	r.flags = group_dead ? FXTPROF_EXIT_GROUP_DEAD : 0;
	bpf_probe_read_kernel_str(r.comm, sizeof(r.comm), p->comm);
	emit(&r, sizeof(r), FXTPROF_REC_EXIT, bpf_get_smp_processor_id(),
	     bpf_ktime_get_boot_ns());
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(fxtprof_rename, struct task_struct *task, const char *comm)
{
	struct fxtprof_rename r;

	__builtin_memset(&r, 0, sizeof(r));
	r.pid = task->tgid;
	r.tid = task->pid;
	bpf_probe_read_kernel_str(r.old_comm, sizeof(r.old_comm), task->comm);
	bpf_probe_read_kernel_str(r.comm, sizeof(r.comm), comm);
	emit(&r, sizeof(r), FXTPROF_REC_RENAME, bpf_get_smp_processor_id(),
	     bpf_ktime_get_boot_ns());
	return 0;
}

/* ------------------------------------------------------------------ */
/* sched.switch                                                        */
/* ------------------------------------------------------------------ */

/*
 * The outgoing task's state in FXT's terms, as kmod/sched.c reasons: a
 * preempted task is runnable whatever its state says; otherwise
 * prev_state is the state schedule() acted on, and exit_state tells a
 * dying task.
 */
static __always_inline __u32 switch_state(bool preempt,
					  unsigned int prev_state,
					  struct task_struct *prev)
{
	unsigned int s;

	if (preempt)
		return FXTPROF_THREAD_RUNNING;
	s = prev_state | (unsigned int)prev->exit_state;
	if (s & EXIT_DEAD)
		return FXTPROF_THREAD_DEAD;
	if (s & (EXIT_ZOMBIE | TASK_DEAD))
		return FXTPROF_THREAD_DYING;
	if (s & (__TASK_STOPPED | __TASK_TRACED))
		return FXTPROF_THREAD_SUSPENDED;
	/* TASK_RUNNING without preemption: a yield or cond_resched(). */
	if (!(s & TASK_ANY))
		return FXTPROF_THREAD_RUNNING;
	return FXTPROF_THREAD_BLOCKED;
}

/* ------------------------------------------------------------------ */
/* Off-CPU: where threads wait (FXTPROF_CFG_OFFCPU)                    */
/* ------------------------------------------------------------------ */

const volatile __u64 offcpu_min_ns = 0;

/*
 * A thread's wait, kept with the thread from the moment it left its CPU
 * until it runs again: rec is a sample of its user stack, the stack that
 * must be read where it is current.  Its kernel stack does not change
 * while it waits, and is taken when it runs again, only if the wait was
 * long enough to be written: unwinding a kernel stack is most of what a
 * wait costs.  Task storage lives as long as the task, so an exited
 * thread's goes with it.  Each thread that ever left a CPU holds one:
 * about 2 KiB of kernel memory a thread.
 */
struct offcpu_slot {
	__u64 start_ns;		/* when it left; 0: no wait is kept */
	__u32 waker_tid;	/* the first wakeup's waker, 0 if none */
	__u32 state;		/* enum fxtprof_wait_state */
	__u8 rec[FXTPROF_BPF_SCRATCH_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_slot);
} offcpu_slots SEC(".maps");

/*
 * What a thread that leaves its CPU waits for, in the wait's terms; 0
 * for a thread that will not run again (dying), whose wait is no wait.
 */
static __always_inline __u32 wait_state(bool preempt, unsigned int prev_state,
					struct task_struct *prev)
{
	unsigned int s;

	if (preempt)
		return FXTPROF_WAIT_PREEMPTED;
	s = prev_state | (unsigned int)prev->exit_state;
	if (s & (EXIT_DEAD | EXIT_ZOMBIE | TASK_DEAD))
		return 0;
	if (s & (__TASK_STOPPED | __TASK_TRACED))
		return FXTPROF_WAIT_STOPPED;
	/* TASK_IDLE is uninterruptible but no load: an idle worker sleeps. */
	if ((s & TASK_UNINTERRUPTIBLE) && !(s & TASK_NOLOAD))
		return FXTPROF_WAIT_BLOCKED;
	if (s & TASK_ANY)
		return FXTPROF_WAIT_SLEEPING;
	/* Runnable without preemption: a yield, still wanting a CPU. */
	return FXTPROF_WAIT_PREEMPTED;
}

/*
 * @prev leaves its CPU: keep its user stack, taken here, where it is
 * still current.  It is built in the sample's scratch slot and its
 * unwind walk: a sample runs in a hard interrupt, and this tracepoint
 * runs with interrupts off, so the two never overlap on a CPU.
 */
static __always_inline void offcpu_leave(void *ctx, struct task_struct *prev,
					 __u32 state, __u64 now)
{
	__u32 key = FXTPROF_BPF_SCRATCH_SAMPLE, size;
	struct offcpu_slot *slot;
	struct fxtprof_sample *s;

	slot = bpf_task_storage_get(&offcpu_slots, prev, NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!slot)
		return;
	slot->start_ns = 0;
	if (!state)
		return;
	s = bpf_map_lookup_elem(&scratch, &key);
	if (!s)
		return;
	size = take_stacks(ctx, s, true, prev->pid, false);
	s->pid = prev->tgid;
	s->tid = prev->pid;
	s->mode = FXTPROF_MODE_KERNEL;
	barrier_var(size);	/* as in fxtprof_sample() */
	if (size > sizeof(*s) + 2 * FXTPROF_MAX_STACK_DEPTH * 8)
		return;
	if (bpf_probe_read_kernel(slot->rec, size, s))
		return;
	slot->waker_tid = 0;
	slot->state = state;
	slot->start_ns = now;
}

/*
 * @next's wait as an OFFCPU record, in the sample's scratch slot: its
 * kernel stack, unwound from where it left its CPU (it has not run
 * since), then the user stack @slot kept.
 */
static __always_inline void offcpu_write(struct task_struct *next,
					 struct offcpu_slot *slot, __u32 cpu,
					 __u64 now)
{
	const struct fxtprof_sample *u = (const void *)slot->rec;
	__u32 key = FXTPROF_BPF_SCRATCH_SAMPLE, nk = 0, nu, want;
	struct fxtprof_sample *s;
	struct fxtprof_offcpu *w;
	__u8 flags = u->flags;
	long n;

	s = bpf_map_lookup_elem(&scratch, &key);
	if (!s)
		return;
	if (cfg_flags & FXTPROF_CFG_KSTACK) {
		want = kstack_want();
		n = bpf_get_task_stack(next, s->ips, want * 8, 0);
		nk = kstack_frames(n, want, &flags);
	}
	nk &= FXTPROF_MAX_STACK_DEPTH;
	nu = u->nr_user & FXTPROF_MAX_STACK_DEPTH;
	if (nu && bpf_probe_read_kernel(&s->ips[nk], nu * 8, u->ips))
		return;
	s->pid = u->pid;
	s->tid = u->tid;
	s->mode = FXTPROF_MODE_KERNEL;
	s->flags = flags;
	s->nr_kernel = nk;
	s->nr_user = nu;
	s->ustack_end = u->ustack_end;
	s->reserved = 0;
	w = (struct fxtprof_offcpu *)&s->ips[nk + nu];
	/* Two CPUs' boot clocks may disagree by a little: never after now. */
	w->start_ns = slot->start_ns < now ? slot->start_ns : now;
	w->waker_tid = slot->waker_tid;
	w->state = slot->state;
	w->reserved[0] = w->reserved[1] = w->reserved[2] = 0;
	emit(s, sizeof(*s) + (nk + nu) * 8 + sizeof(*w), FXTPROF_REC_OFFCPU,
	     cpu, now);
}

/* @next runs again: its wait, if it waited long enough. */
static __always_inline void offcpu_enter(struct task_struct *next, __u32 cpu,
					 __u64 now)
{
	struct offcpu_slot *slot;
	__u64 start;

	slot = bpf_task_storage_get(&offcpu_slots, next, NULL, 0);
	if (!slot || !slot->start_ns)
		return;
	start = slot->start_ns < now ? slot->start_ns : now;
	if (now - start >= offcpu_min_ns)
		offcpu_write(next, slot, cpu, now);
	slot->start_ns = 0;
}

/* The prev_state argument is 5.18's; every kernel the source runs on has it. */
SEC("tp_btf/sched_switch")
int BPF_PROG(fxtprof_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 now = bpf_ktime_get_boot_ns();
	struct fxtprof_switch r;

	__builtin_memset(&r, 0, sizeof(r));
	r.prev_pid = prev->tgid;
	r.prev_tid = prev->pid;
	r.next_pid = next->tgid;
	r.next_tid = next->pid;
	r.prev_prio = prev->prio;
	r.next_prio = next->prio;
	r.prev_state = switch_state(preempt, prev_state, prev);
	emit(&r, sizeof(r), FXTPROF_REC_SWITCH, cpu, now);
	/* The idle tasks (tid 0) do not wait: they are what runs instead. */
	if (cfg_flags & FXTPROF_CFG_OFFCPU) {
		if (prev->pid)
			offcpu_leave(ctx, prev,
				     wait_state(preempt, prev_state, prev),
				     now);
		if (next->pid)
			offcpu_enter(next, cpu, now);
	}
	return 0;
}

/*
 * Who woke a task.  sched_waking fires in the waker's context, at the
 * start of try_to_wake_up(); sched_wakeup need not: a wakeup queued to
 * the wakee's CPU (ttwu_queue_wakelist(), when that CPU is idle or the
 * task is still leaving it) fires it there, in an interrupt or the idle
 * task.  So the waker is kept at sched_waking and taken at sched_wakeup.
 * Between the two the task is TASK_WAKING, which no other waker gets
 * past, so one waking pairs with one wakeup.  A few bytes of task
 * storage for each thread ever woken, freed with the thread.
 */
struct waker_slot {
	__u32 tid;		/* the waking task's; 0: none kept */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct waker_slot);
} wakers SEC(".maps");

/*
 * The waker is the task current at sched_waking.  The module says none
 * (0) for a wakeup from an interrupt, which a program cannot tell on
 * every kernel here: there it names the task the interrupt came in on.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(fxtprof_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct waker_slot *w;

	w = bpf_task_storage_get(&wakers, p, NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (w)
		w->tid = cur->pid;
	return 0;
}

/* The waker kept for @p's wakeup, once; 0 if none was. */
static __always_inline __u32 take_waker(struct task_struct *p)
{
	struct waker_slot *w;
	__u32 tid;

	w = bpf_task_storage_get(&wakers, p, NULL, 0);
	if (!w)
		return 0;
	tid = w->tid;
	w->tid = 0;
	return tid;
}

/* A new task is woken by its parent, in the parent's context. */
static __always_inline void wakeup(struct task_struct *p, __u32 waker,
				   __u32 flags)
{
	struct fxtprof_wakeup r;

	__builtin_memset(&r, 0, sizeof(r));
	r.pid = p->tgid;
	r.tid = p->pid;
	/* Set by select_task_rq() before the tracepoint fires. */
	r.target_cpu = p->thread_info.cpu;
	r.prio = p->prio;
	r.waker_tid = waker;
	r.flags = flags;
	emit(&r, sizeof(r), FXTPROF_REC_WAKEUP, bpf_get_smp_processor_id(),
	     bpf_ktime_get_boot_ns());
	if (cfg_flags & FXTPROF_CFG_OFFCPU) {
		struct offcpu_slot *slot;

		/*
		 * The first wakeup of a wait ends it: its waker is the one.
		 * A waking that came before the switch-out had its wakeup
		 * wait for it (try_to_wake_up() waits for p->on_cpu, or
		 * queues the wakeup to p's CPU), so the wait is kept by now.
		 */
		slot = bpf_task_storage_get(&offcpu_slots, p, NULL, 0);
		if (slot && slot->start_ns && !slot->waker_tid)
			slot->waker_tid = waker;
	}
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(fxtprof_wakeup, struct task_struct *p)
{
	wakeup(p, take_waker(p), 0);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(fxtprof_wakeup_new, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();

	wakeup(p, cur->pid, FXTPROF_WAKEUP_NEW);
	return 0;
}

/*
 * Run by reading an iterator created after the tracepoints are attached
 * (as the module does), so a thread created meanwhile has a FORK record,
 * a SNAPSHOT record or both; none is missed.
 */
SEC("iter/task")
int fxtprof_snapshot(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct fxtprof_snapshot r;

	if (!t)
		return 0;
	__builtin_memset(&r, 0, sizeof(r));
	r.pid = t->tgid;
	r.tid = t->pid;
	r.ppid = t->real_parent->tgid;
	r.flags = (t->flags & PF_KTHREAD) ? FXTPROF_SNAPSHOT_KTHREAD : 0;
	bpf_probe_read_kernel_str(r.comm, sizeof(r.comm), t->comm);
	bpf_probe_read_kernel_str(r.process_comm, sizeof(r.process_comm),
				  t->group_leader->comm);
	emit(&r, sizeof(r), FXTPROF_REC_SNAPSHOT, bpf_get_smp_processor_id(),
	     bpf_ktime_get_boot_ns());
	return 0;
}

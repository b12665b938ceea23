/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * linux/fxtprof.h - the user ABI of /dev/fxtprof, shared verbatim by the
 * kernel module and every userspace program.  Included as
 * <linux/fxtprof.h>: the tree puts include/uapi on the include path, and
 * `make install` puts this file in $(PREFIX)/include/linux/.
 *
 * Everything that crosses the kernel/user boundary is defined here and
 * nowhere else: ioctl numbers and structures, the mmap layout of the
 * per-CPU rings, and the records the module writes into them.
 *
 * Rules that keep the ABI stable:
 *  - Only fixed-width types; every record is a multiple of 8 bytes and
 *    8-byte aligned; the static asserts at the end pin sizes and offsets.
 *  - ioctl structures start with their own size.  The kernel accepts a
 *    larger structure from newer userspace if the extra bytes are zero,
 *    and a smaller one from older userspace down to the first published
 *    version's size (FXTPROF_*_SIZE_VER0; missing fields read as zero),
 *    as copy_struct_from_user() does.  The size encoded in the ioctl number
 *    is that of the first version and is not checked.
 *  - Records start with struct fxtprof_rec_hdr whose size lets a reader
 *    skip types it does not know.
 */
#ifndef _UAPI_LINUX_FXTPROF_H
#define _UAPI_LINUX_FXTPROF_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define FXTPROF_ABI_VERSION	8
#define FXTPROF_DEVICE		"/dev/fxtprof"
/* Since ABI 3: where applications fire triggers; since ABI 4, annotate. */
#define FXTPROF_ANNOTATE_DEVICE	"/dev/fxtprof-annotate"

/* ------------------------------------------------------------------ */
/* Limits and defaults                                                 */
/* ------------------------------------------------------------------ */

#define FXTPROF_MIN_FREQ		1
#define FXTPROF_MAX_FREQ		50000
#define FXTPROF_DEFAULT_FREQ		1000
#define FXTPROF_MAX_STACK_DEPTH		127	/* per kind, as perf */
#define FXTPROF_DEFAULT_STACK_DEPTH	64
#define FXTPROF_MIN_RING_SIZE		(16u << 10)
#define FXTPROF_MAX_RING_SIZE		(256u << 20)
#define FXTPROF_DEFAULT_RING_SIZE	(1u << 20)
#define FXTPROF_COMM_LEN		16
#define FXTPROF_MAX_FILENAME		1024	/* exec filenames are truncated */
#define FXTPROF_MAX_CPUMASK_LEN		1024	/* bytes: 8192 CPUs */
#define FXTPROF_BUILD_ID_MAX	20	/* bytes: a GNU build id, SHA-1 */
/* Since ABI 5: user stacks unwound from tables (FXTPROF_CFG_UNWIND). */
#define FXTPROF_DEFAULT_UNWIND_MEMORY	(8u << 20)	/* bytes of tables */
#define FXTPROF_MAX_UNWIND_MEMORY	(1u << 30)
#define FXTPROF_DEFAULT_UNWIND_BUDGET	512	/* user reads per sample */
#define FXTPROF_MAX_UNWIND_BUDGET	4096
#define FXTPROF_UNWIND_MAX_ROWS		(1u << 24)	/* per table */
/* Since ABI 6: user stack copies (FXTPROF_CFG_STACK_COPY). */
#define FXTPROF_DEFAULT_STACK_COPY	8192	/* bytes of stack per sample */
#define FXTPROF_MAX_STACK_COPY		16384

/* ------------------------------------------------------------------ */
/* ioctls                                                              */
/* ------------------------------------------------------------------ */

/*
 * FXTPROF_IOC_GET_INFO: static facts plus the current geometry.
 * In: size.  Out: everything else.
 */
struct fxtprof_info {
	__u32 size;
	__u32 abi_version;
	__u32 nr_cpus;		/* ring ids are 0 .. nr_cpus - 1 (nr_cpu_ids) */
	__u32 nr_online;
	__u32 page_size;
	__u32 state;		/* FXTPROF_STATE_* */
	__u32 min_freq;
	__u32 max_freq;
	__u32 default_freq;
	__u32 max_stack_depth;
	__u64 min_ring_size;
	__u64 max_ring_size;
	__u64 default_ring_size;
	__u64 ring_size;	/* configured data bytes per CPU, 0 if none */
	__u64 mmap_stride;	/* mmap offset distance between two CPUs */
	/* since ABI 3 */
	__u32 nr_sources;	/* data sources: FXTPROF_IOC_GET_SOURCE 0 .. n-1 */
	__u32 reserved;
};

#define FXTPROF_STATE_CONFIGURED	(1u << 0)
#define FXTPROF_STATE_RUNNING		(1u << 1)
#define FXTPROF_STATE_ATTACHED		(1u << 2)	/* since ABI 3 */
#define FXTPROF_STATE_DETACHED		(1u << 3)	/* for good: close it */

/* Feature flags for struct fxtprof_config.flags. */
#define FXTPROF_CFG_SAMPLE	(1u << 0)	/* per-CPU timer sampling */
#define FXTPROF_CFG_KSTACK	(1u << 1)	/* kernel call stacks */
#define FXTPROF_CFG_USTACK	(1u << 2)	/* user call stacks (frame pointers) */
#define FXTPROF_CFG_SKIP_IDLE	(1u << 3)	/* no samples of the idle task */
#define FXTPROF_CFG_TASKS	(1u << 4)	/* fork/exec/exit/rename records */
#define FXTPROF_CFG_SNAPSHOT	(1u << 5)	/* one record per thread at start */
#define FXTPROF_CFG_SCHED	(1u << 6)	/* context switches and wakeups (ABI 3) */
/*
 * ABI 4: take annotations written to FXTPROF_ANNOTATE_DEVICE.  Triggers
 * (FXTPROF_IOC_TRIGGER) are the recording protocol's, not a data source:
 * every running session takes them, whatever this bit.
 */
#define FXTPROF_CFG_ANNOTATE	(1u << 7)
/*
 * ABI 5: walk user stacks with the unwind tables loaded by
 * FXTPROF_IOC_UNWIND_LOAD and _MAP, and by frame pointers where a pc has
 * none.  Needs FXTPROF_CFG_USTACK.
 */
#define FXTPROF_CFG_UNWIND	(1u << 8)
/*
 * ABI 6: every sample taken in a task with a user context also carries
 * the user registers and up to stack_copy_size bytes of user stack from
 * the user SP (struct fxtprof_stack_copy), for the reader to unwind.
 * Independent of FXTPROF_CFG_USTACK and _UNWIND: with them, one sample
 * holds both the walked pcs and the copy.
 */
#define FXTPROF_CFG_STACK_COPY	(1u << 9)
/*
 * ABI 8: where threads wait.  Needs FXTPROF_CFG_SCHED.  A thread that
 * leaves its CPU, preempted or to sleep, keeps the stacks it had then
 * (kernel and user, as KSTACK, USTACK and UNWIND say for samples; its
 * kernel stack may be read when it runs again, from where it left);
 * when it runs again after at least offcpu_min_ns, an OFFCPU record
 * gives them with the wait.  Shorter waits write nothing.
 */
#define FXTPROF_CFG_OFFCPU	(1u << 10)
#define FXTPROF_CFG_ALL		((1u << 11) - 1)
#define FXTPROF_CFG_DEFAULT	(FXTPROF_CFG_SAMPLE | FXTPROF_CFG_KSTACK | \
				 FXTPROF_CFG_USTACK | FXTPROF_CFG_TASKS | \
				 FXTPROF_CFG_SNAPSHOT | FXTPROF_CFG_ANNOTATE)

/*
 * FXTPROF_IOC_CONFIGURE: set the session up and allocate its rings.
 * Zero in freq_hz, ring_size, kstack_depth, ustack_depth or watermark
 * selects the default.  cpumask_ptr/cpumask_len name a CPU bitmap of
 * little-endian u64 words (bit n = CPU n; cpumask_len a multiple of 8, at
 * most FXTPROF_MAX_CPUMASK_LEN) restricting sampling; bits beyond the
 * last CPU id must be zero, and a zero length samples every CPU.  Task
 * records come from every CPU whatever the mask.
 * stack_copy_size (ABI 6): 0 selects FXTPROF_DEFAULT_STACK_COPY; else a
 * multiple of 8, at most FXTPROF_MAX_STACK_COPY; with
 * FXTPROF_CFG_STACK_COPY, the largest sample it makes (both stack depths
 * and the copy) must fit half the ring (-EINVAL otherwise).
 * Returns -EBUSY while running or while rings of an earlier
 * configuration are still mapped.
 */
struct fxtprof_config {
	__u32 size;
	__u32 flags;		/* FXTPROF_CFG_* */
	__u32 freq_hz;
	__u16 kstack_depth;
	__u16 ustack_depth;
	__u64 ring_size;	/* data bytes per CPU: power of two, >= page */
	__u64 watermark;	/* wake the reader above this many bytes */
	__u64 cpumask_ptr;
	__u32 cpumask_len;	/* bytes */
	__u32 reserved;		/* must be zero */
	/* since ABI 5 */
	__u64 unwind_memory;	/* bytes of unwind tables and maps at most */
	__u32 unwind_budget;	/* user memory reads per sample's walk */
	__u32 reserved2;	/* must be zero */
	/* since ABI 6 */
	__u32 stack_copy_size;	/* bytes of user stack per sample */
	__u32 reserved3;	/* must be zero */
	/* since ABI 8 */
	__u64 offcpu_min_ns;	/* shortest wait an OFFCPU record gives */
};

/*
 * FXTPROF_IOC_FLUSH: on every CPU, write any pending LOST record and then a
 * FLUSH record carrying the returned sequence number, and wake the
 * reader.  Once the reader has consumed the FLUSH record of this sequence
 * on every ring, it has everything committed before the ioctl.  A ring
 * too full to take the marker counts it as lost; the reader sees that in
 * the statistics.
 */
struct fxtprof_flush {
	__u32 size;
	__u32 flags;		/* must be zero */
	__u64 seq;		/* out */
};

/*
 * How a sample's user stack ended (ABI 5; 0 from older modules).  The
 * stats count samples by it (struct fxtprof_stats.ustack_ends).
 */
enum fxtprof_ustack_end {
	FXTPROF_USTACK_END_NONE		= 0,	/* no user stack taken */
	FXTPROF_USTACK_END_COMPLETE	= 1,	/* an OUTERMOST row */
	FXTPROF_USTACK_END_FP_CHAIN	= 2,	/* the frame-pointer chain ended */
	FXTPROF_USTACK_END_DEPTH	= 3,	/* ustack_depth frames taken */
	FXTPROF_USTACK_END_FAULT	= 4,	/* a read of the stack failed */
	FXTPROF_USTACK_END_BUDGET	= 5,	/* unwind_budget reads done */
	FXTPROF_USTACK_END_BAD_FRAME	= 6,	/* sp going down, ra 0, a loop */
	FXTPROF_USTACK_END_RA_IN_LR	= 7,	/* RA_IN_LR above the leaf */
	FXTPROF_USTACK_END_COMPAT	= 8,	/* a 32-bit task: its pc only */
	FXTPROF_USTACK_END_MAX,
};
#define FXTPROF_USTACK_END_SLOTS	16	/* of fxtprof_stats.ustack_ends */

/* FXTPROF_IOC_GET_STATS: counters of one CPU's ring.  In: size, cpu. */
struct fxtprof_stats {
	__u32 size;
	__u32 cpu;
	__u64 records;		/* records committed, LOST/FLUSH included */
	__u64 bytes;		/* bytes committed */
	__u64 samples;		/* sample records committed */
	__u64 lost_records;	/* records dropped because the ring was full */
	__u64 lost_bytes;
	__u64 lost_unreported;	/* of lost_records, not yet in a LOST record */
	__u64 timer_overruns;	/* sampling periods skipped by a late timer */
	__u64 handler_ns;	/* total time spent in the sampling handler */
	__u64 handler_calls;
	__u64 ustack_faults;	/* user walks stopped by an unreadable frame */
	__u64 lost_unreported_bytes;	/* bytes of lost_unreported */
	/* since ABI 5: user frames by how they were found */
	__u64 unwind_table_frames;	/* from a table row */
	__u64 unwind_fp_frames;		/* frame pointer: no table for the pc */
	__u64 unwind_rule_frames;	/* frame pointer: the row has no rule */
	/* samples by how their user stack ended (enum fxtprof_ustack_end) */
	__u64 ustack_ends[FXTPROF_USTACK_END_SLOTS];
};

/*
 * FXTPROF_IOC_ATTACH (ABI 3): the reader attaches to the rings it has
 * mapped, stating the layout it expects.  After CONFIGURE and the mmaps,
 * before START (which needs an attached reader: -ENOTCONN without one;
 * a CONFIGURE drops the attachment with the old rings).  The module checks every
 * field and every mapping (its VMA in the caller's mm: this session's
 * file, the CPU's offset, long enough) and keeps no reference to them.
 *   -EPROTO    version is not FXTPROF_ABI_VERSION
 *   -EINVAL    geometry (ring_size, mmap_stride, page_size, nr_rings) is
 *              not the configured one, flags or reserved are not zero, or
 *              the session is not configured
 *   -ENXIO     a ring's mapping is missing, is not this session's, is at
 *              the wrong offset or is smaller than the ring
 *   -EBUSY     a reader is already attached
 *   -ESTALE    the rings are not new: a reader consumed from them before
 * A rejected attach changes nothing; the caller may retry.
 */
struct fxtprof_attach_ring {
	__u64 consumer_addr;	/* the consumer page, page_size bytes, RW */
	__u64 ctrl_addr;	/* the control page, then the data twice, RO */
	__u64 ctrl_len;		/* bytes mapped at ctrl_addr */
};

struct fxtprof_attach {
	__u32 size;
	__u32 version;		/* FXTPROF_ABI_VERSION the reader speaks */
	__u64 ring_size;	/* as GET_INFO reported */
	__u64 mmap_stride;
	__u32 page_size;
	__u32 nr_rings;		/* entries at rings_ptr: nr_cpus */
	__u64 rings_ptr;	/* struct fxtprof_attach_ring[nr_rings]; CPUs
				 * that are not possible have all-zero entries */
	__u32 flags;		/* must be zero */
	__u32 reserved;		/* must be zero */
};

/*
 * FXTPROF_IOC_DETACH (ABI 3, the seed's Disconnect): stop as STOP does,
 * write a last FLUSH marker, and give the device up: a new open() gets a
 * fresh session while this one's mappings stay valid until unmapped.  The
 * detached file only answers GET_INFO (FXTPROF_STATE_DETACHED) and
 * GET_STATS; everything else is -ESHUTDOWN.
 *
 * FXTPROF_IOC_SYNC (ABI 3): a barrier.  When it returns, the module has
 * processed every request this session made before it, including their
 * deferred work (probes unregistered, timers cancelled, wakeups sent).
 */
struct fxtprof_sync {
	__u32 size;
	__u32 flags;		/* must be zero */
	__u64 requests;		/* out: ioctls this session has processed */
};

/*
 * FXTPROF_IOC_GET_SOURCE (ABI 3): data source number index (0 ..
 * info.nr_sources - 1; -ENOENT past it).  A source owns some
 * FXTPROF_CFG_* bits; a source that is off costs nothing: its probes are
 * not registered and its timers are not armed.
 */
#define FXTPROF_SOURCE_NAME_LEN		32
#define FXTPROF_SOURCE_DESC_LEN		64

#define FXTPROF_SOURCE_AVAILABLE	(1u << 0)	/* can be enabled */
#define FXTPROF_SOURCE_DEFAULT		(1u << 1)	/* on unless chosen */
#define FXTPROF_SOURCE_ENABLED		(1u << 2)	/* in the configuration */

struct fxtprof_source {
	__u32 size;
	__u32 index;		/* in */
	__u32 flags;		/* FXTPROF_SOURCE_* */
	__u32 cfg_flags;	/* the FXTPROF_CFG_* bits it owns */
	char name[FXTPROF_SOURCE_NAME_LEN];	/* "cpu.sampling", NUL ended */
	char description[FXTPROF_SOURCE_DESC_LEN];	/* one line */
};

/*
 * FXTPROF_IOC_TRIGGER (ABI 3), on FXTPROF_ANNOTATE_DEVICE only: write a
 * TRIGGER record into the calling CPU's ring of the running session.
 * name is 1 .. FXTPROF_TRIGGER_NAME_MAX bytes of [A-Za-z0-9._-] then NUL
 * padding (-EINVAL otherwise); -ESRCH when no session is running; a ring
 * too full counts it as lost, as any record.
 */
#define FXTPROF_TRIGGER_NAME_MAX	63

struct fxtprof_trigger {
	__u32 size;
	__u32 flags;		/* must be zero */
	char name[FXTPROF_TRIGGER_NAME_MAX + 1];
};

/*
 * write(2) on FXTPROF_ANNOTATE_DEVICE (ABI 4): one annotation per write,
 * of exactly size bytes, becomes an ANNOTATION record in the calling
 * CPU's ring of the running session (struct fxtprof_annotation_rec).
 * The module refuses with -EINVAL a write whose count is not size, a
 * size that is not offsetof(name) + name_len, an unknown kind, flags or
 * reserved not zero, a name_len of 0 or above FXTPROF_ANNOTATION_NAME_MAX,
 * a name holding a NUL byte, and a key that breaks the kind's rule
 * (zero for regions and events, non-zero for sections and kernels).
 * -ESRCH when no session is running or the running one was configured
 * without FXTPROF_CFG_ANNOTATE: to the writer both mean that nobody
 * records its annotations, and the record is not written.  A ring too
 * full counts it as lost, as any record.  The write returns size.
 *
 * Every end carries its begin's name, so that a reader needs no state to
 * name it; the annotating library keeps the per-thread region stack and
 * the names of sections and kernels.
 */
enum fxtprof_annotation_kind {
	FXTPROF_ANNOT_REGION_BEGIN	= 1,	/* key 0: nested per thread */
	FXTPROF_ANNOT_REGION_END	= 2,	/* key 0: the innermost region */
	FXTPROF_ANNOT_SECTION_BEGIN	= 3,	/* key: the section, may overlap */
	FXTPROF_ANNOT_SECTION_END	= 4,
	FXTPROF_ANNOT_KERNEL_BEGIN	= 5,	/* key: the Kokkos kernel id */
	FXTPROF_ANNOT_KERNEL_END	= 6,
	FXTPROF_ANNOT_EVENT		= 7,	/* key 0: an instant */
	FXTPROF_ANNOT_KIND_MAX,
};

#define FXTPROF_ANNOTATION_NAME_MAX	512	/* bytes; the library clips */

struct fxtprof_annotation {
	__u32 size;		/* offsetof(name) + name_len */
	__u16 kind;		/* enum fxtprof_annotation_kind */
	__u16 name_len;		/* 1 .. FXTPROF_ANNOTATION_NAME_MAX */
	__u32 flags;		/* must be zero */
	__u32 reserved;		/* must be zero */
	__u64 key;
	char name[];		/* name_len bytes of UTF-8, no NUL */
};

/*
 * Unwind tables (ABI 5).  The user stacks of code built without frame
 * pointers are walked from each ELF file's call frame information, which
 * the reader compiles into one table per file (Documentation/unwinding.md):
 * rows sorted by pc, each covering [pc, next row's pc), that say how to
 * find the caller's frame from this one's registers, as the kernel's ORC
 * table does.
 *
 * For a row of cfa_reg SP or FP, in the frame being unwound:
 *	CFA	= (cfa_reg == SP ? sp : fp) + cfa_offset
 *	ra	= RA_IN_LR ? the link register (arm64, the interrupted frame
 *		  only) : the word at CFA + ra_offset
 *	fp	= FP_SAVED ? the word at CFA + fp_offset : fp unchanged
 *	sp	= CFA
 * and the caller's pc is ra.  "fp" is rbp on x86_64 and x29 on arm64.
 * A row of cfa_reg NONE has no rule: the walker steps that frame by the
 * frame pointer (and counts it).  The reader writes one where the file
 * has no CFI for a range (flags 0) and where the CFI's rule is more than
 * a row can say (FXTPROF_UNWIND_ROW_NO_RULE: DWARF expressions, the PLT,
 * a register-based CFA other than sp and fp, offsets beyond 16 bits).
 * An OUTERMOST row ends the stack: the CFI leaves the return address
 * undefined there (_start, thread entry).
 */
enum fxtprof_unwind_cfa_reg {
	FXTPROF_UNWIND_CFA_NONE	= 0,
	FXTPROF_UNWIND_CFA_SP	= 1,
	FXTPROF_UNWIND_CFA_FP	= 2,
	FXTPROF_UNWIND_CFA_MAX,
};

#define FXTPROF_UNWIND_ROW_RA_IN_LR	(1u << 0)
#define FXTPROF_UNWIND_ROW_FP_SAVED	(1u << 1)
#define FXTPROF_UNWIND_ROW_OUTERMOST	(1u << 2)
#define FXTPROF_UNWIND_ROW_NO_RULE	(1u << 3)	/* with CFA_NONE only */
#define FXTPROF_UNWIND_ROW_FLAGS	((1u << 4) - 1)

struct fxtprof_unwind_row {
	__u32 pc;		/* the file's virtual address */
	__s16 cfa_offset;
	__s16 ra_offset;	/* from the CFA, unless RA_IN_LR */
	__s16 fp_offset;	/* from the CFA, if FP_SAVED */
	__u8 cfa_reg;		/* enum fxtprof_unwind_cfa_reg */
	__u8 flags;		/* FXTPROF_UNWIND_ROW_* */
};

/*
 * FXTPROF_IOC_UNWIND_LOAD (ABI 5): give the configured session the table
 * of the file whose GNU build id is build_id.  The rows are copied and
 * checked: pcs strictly increasing and below pc_end, which the last row
 * covers up to; registers and flags known; saved-register offsets
 * nonzero and multiples of 8.  On success id is the table's (> 0);
 * tables live until FXTPROF_IOC_UNWIND_UNLOAD (ABI 7), or until the
 * session is configured again or closed.
 * Errors:
 *   -EINVAL	a bad row (nothing is kept), nr_rows 0 or above
 *		FXTPROF_UNWIND_MAX_ROWS, flags or reserved not zero, no
 *		build id
 *   -EEXIST	this build id has a table already: id is set to it
 *   -ENOSPC	the table does not fit the session's unwind_memory
 *   -EBUSY	the session is not configured, or has no FXTPROF_CFG_UNWIND
 */
struct fxtprof_unwind_table {
	__u32 size;
	__u32 flags;		/* must be zero */
	__u64 rows_ptr;		/* nr_rows struct fxtprof_unwind_row */
	__u32 nr_rows;
	__u32 pc_end;
	__u32 id;		/* out */
	__u8 build_id_size;	/* 1 .. FXTPROF_BUILD_ID_MAX */
	__u8 reserved[3];	/* must be zero */
	__u8 build_id[FXTPROF_BUILD_ID_MAX];
	__u32 reserved2;	/* must be zero */
};

/*
 * FXTPROF_IOC_UNWIND_MAP (ABI 5): addresses [start, end) of process pid
 * run the file of table id, loaded so that a pc there is the file's
 * virtual address pc - bias.  A range replaces whatever of pid's it
 * overlaps; id 0 removes pid's ranges within [start, end).  The module
 * drops a process's ranges at its exec and exit.
 * Errors: -EINVAL (start >= end, reserved not zero, an unknown id),
 * -ENOSPC (unwind_memory is full), -EBUSY (as for UNWIND_LOAD).
 */
struct fxtprof_unwind_map {
	__u32 size;
	__u32 pid;		/* tgid */
	__u32 id;		/* table, or 0 to remove */
	__u32 reserved;		/* must be zero */
	__u64 start;
	__u64 end;
	__u64 bias;
};

/*
 * FXTPROF_IOC_UNWIND_UNLOAD (ABI 7): drop table id from the configured
 * session and give its memory back to unwind_memory, so that a reader
 * can make room for the tables of the processes that run now.  The
 * caller first removes every range that runs it (FXTPROF_IOC_UNWIND_MAP
 * with id 0); a sample being walked at that moment may still read it,
 * and its memory is freed only after such walks.  A later
 * FXTPROF_IOC_UNWIND_LOAD may give the id to another table.
 * Errors:
 *   -EINVAL	id 0, or reserved not zero
 *   -ENOENT	no table has this id
 *   -ENOTEMPTY	a range of some process still runs the table
 *   -EBUSY	as for UNWIND_LOAD
 */
struct fxtprof_unwind_unload {
	__u32 size;
	__u32 id;
	__u64 reserved;		/* must be zero */
};

/*
 * FXTPROF_IOC_KSYM (ABI 8): the kernel text symbol that holds addr, named
 * as /proc/kallsyms names it, so that a reader can name the kernel frames
 * of its samples as they come without holding a copy of kallsyms (about
 * 2 MiB on a distribution kernel).  It answers for the kernel image,
 * modules and the kernel's other text (BPF programs, trampolines) as
 * they are at the call.  On success start and len give the symbol's
 * range, and name is "function", or "function [module]" for a module's,
 * NUL terminated (truncated to FXTPROF_KSYM_NAME_MAX - 1 bytes).  No
 * session is needed.
 * Errors:
 *   -ENOENT	no symbol holds addr
 *   -EPERM	the caller lacks CAP_SYSLOG, as /proc/kallsyms shows it
 *		no addresses then
 *   -EINVAL	flags not zero
 */
#define FXTPROF_KSYM_NAME_MAX	512

struct fxtprof_ksym_query {
	__u32 size;
	__u32 flags;		/* must be zero */
	__u64 addr;
	__u64 start;		/* out */
	__u64 len;		/* out: bytes */
	char name[FXTPROF_KSYM_NAME_MAX];	/* out */
};

/* The first published size of each structure: smaller ones are refused. */
#define FXTPROF_INFO_SIZE_VER0		80
#define FXTPROF_CONFIG_SIZE_VER0	48
#define FXTPROF_FLUSH_SIZE_VER0		16
#define FXTPROF_STATS_SIZE_VER0		96
#define FXTPROF_ATTACH_SIZE_VER0	48
#define FXTPROF_SYNC_SIZE_VER0		16
#define FXTPROF_SOURCE_SIZE_VER0	112
#define FXTPROF_TRIGGER_SIZE_VER0	72
#define FXTPROF_UNWIND_TABLE_SIZE_VER0	56
#define FXTPROF_UNWIND_MAP_SIZE_VER0	40
#define FXTPROF_UNWIND_UNLOAD_SIZE_VER0	16
#define FXTPROF_KSYM_QUERY_SIZE_VER0	544

#define FXTPROF_IOC_MAGIC	0xB7
#define FXTPROF_IOC_GET_INFO	_IOWR(FXTPROF_IOC_MAGIC, 1, struct fxtprof_info)
#define FXTPROF_IOC_CONFIGURE	_IOW(FXTPROF_IOC_MAGIC, 2, struct fxtprof_config)
#define FXTPROF_IOC_START	_IO(FXTPROF_IOC_MAGIC, 3)
#define FXTPROF_IOC_STOP	_IO(FXTPROF_IOC_MAGIC, 4)
#define FXTPROF_IOC_FLUSH	_IOWR(FXTPROF_IOC_MAGIC, 5, struct fxtprof_flush)
#define FXTPROF_IOC_GET_STATS	_IOWR(FXTPROF_IOC_MAGIC, 6, struct fxtprof_stats)
#define FXTPROF_IOC_ATTACH	_IOW(FXTPROF_IOC_MAGIC, 7, struct fxtprof_attach)
#define FXTPROF_IOC_DETACH	_IO(FXTPROF_IOC_MAGIC, 8)
#define FXTPROF_IOC_SYNC	_IOWR(FXTPROF_IOC_MAGIC, 9, struct fxtprof_sync)
#define FXTPROF_IOC_GET_SOURCE	_IOWR(FXTPROF_IOC_MAGIC, 10, struct fxtprof_source)
#define FXTPROF_IOC_TRIGGER	_IOW(FXTPROF_IOC_MAGIC, 11, struct fxtprof_trigger)
#define FXTPROF_IOC_UNWIND_LOAD	_IOWR(FXTPROF_IOC_MAGIC, 12, struct fxtprof_unwind_table)
#define FXTPROF_IOC_UNWIND_MAP	_IOW(FXTPROF_IOC_MAGIC, 13, struct fxtprof_unwind_map)
#define FXTPROF_IOC_UNWIND_UNLOAD _IOW(FXTPROF_IOC_MAGIC, 14, struct fxtprof_unwind_unload)
#define FXTPROF_IOC_KSYM	_IOWR(FXTPROF_IOC_MAGIC, 15, struct fxtprof_ksym_query)

/* ------------------------------------------------------------------ */
/* mmap layout                                                         */
/* ------------------------------------------------------------------ */

/*
 * Each CPU's ring occupies mmap_stride bytes of the device's offset
 * space, starting at cpu * mmap_stride:
 *
 *   +0            consumer page   struct fxtprof_ring_consumer   RW
 *   +page         control page    struct fxtprof_ring_ctrl       RO
 *   +2*page       data            ring_size bytes                RO
 *   +2*page+size  data again      the same pages mapped twice    RO
 *
 * The data pages are mapped twice back to back (as the BPF ring buffer
 * does), so every record and every pending span is contiguous in memory
 * even when it wraps.  Only the consumer page may be mapped writable; it
 * is mapped on its own.  The module never trusts what it reads there
 * beyond deciding whether a record fits.
 *
 * Positions are free-running byte counts; offset = pos & (ring_size - 1).
 * Pending bytes are [consumer_pos, producer_pos).
 */
#define FXTPROF_RING_MAGIC	0x46585450u	/* "PTXF" little endian */

struct fxtprof_ring_consumer {
	__u64 consumer_pos;	/* written by the reader, release */
};

struct fxtprof_ring_ctrl {
	__u32 magic;		/* FXTPROF_RING_MAGIC */
	__u32 version;		/* FXTPROF_ABI_VERSION */
	__u32 cpu;
	__u32 page_size;
	__u64 data_size;	/* ring_size, a power of two */
	__u64 data_offset;	/* from the start of the CPU's region */
	__u64 lost_records;	/* cumulative, see struct fxtprof_stats */
	__u64 lost_bytes;
	__u64 reserved[2];
	/* own cache line: the only field the producer writes per record */
	__u64 producer_pos __attribute__((aligned(64)));	/* release */
};

static inline __u64 fxtprof_mmap_offset(__u32 cpu, __u64 mmap_stride)
{
	return (__u64)cpu * mmap_stride;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

enum fxtprof_rec_type {
	FXTPROF_REC_SAMPLE	= 1,
	FXTPROF_REC_FORK	= 2,
	FXTPROF_REC_EXEC	= 3,
	FXTPROF_REC_EXIT	= 4,
	FXTPROF_REC_RENAME	= 5,
	FXTPROF_REC_SNAPSHOT	= 6,
	FXTPROF_REC_LOST	= 7,
	FXTPROF_REC_FLUSH	= 8,
	/* since ABI 2: what symbolization needs, written by userspace sources */
	FXTPROF_REC_MMAP	= 9,
	FXTPROF_REC_KMOD	= 10,
	FXTPROF_REC_KSYM	= 11,
	/* since ABI 3 */
	FXTPROF_REC_SWITCH	= 12,
	FXTPROF_REC_WAKEUP	= 13,
	FXTPROF_REC_TRIGGER	= 14,
	/* since ABI 4 */
	FXTPROF_REC_ANNOTATION	= 15,
	/* since ABI 8 */
	FXTPROF_REC_OFFCPU	= 16,
	FXTPROF_REC_MAX,
};

#define FXTPROF_REC_ALIGN	8

struct fxtprof_rec_hdr {
	__u32 size;		/* bytes, this header included, multiple of 8 */
	__u16 type;		/* enum fxtprof_rec_type */
	__u16 cpu;		/* CPU whose ring holds the record */
	__u64 time_ns;		/* CLOCK_BOOTTIME */
};

enum fxtprof_sample_mode {
	FXTPROF_MODE_KERNEL	= 1,
	FXTPROF_MODE_USER	= 2,
	FXTPROF_MODE_IDLE	= 3,
};

#define FXTPROF_SAMPLE_KSTACK_TRUNCATED	(1u << 0)	/* depth limit hit */
#define FXTPROF_SAMPLE_USTACK_TRUNCATED	(1u << 1)
#define FXTPROF_SAMPLE_USTACK_FAULT	(1u << 2)	/* unreadable frame */
#define FXTPROF_SAMPLE_STACK_COPY	(1u << 3)	/* ABI 6: a copy follows */


/*
 * A timer sample.  ips[] holds nr_kernel kernel addresses, leaf (the
 * interrupted pc) first, then nr_user user addresses, leaf first.  With
 * FXTPROF_SAMPLE_STACK_COPY in flags, a struct fxtprof_stack_copy follows
 * ips[nr_kernel + nr_user] and the record ends with it.
 */
struct fxtprof_sample {
	struct fxtprof_rec_hdr hdr;
	__u32 pid;		/* tgid */
	__u32 tid;
	__u8 mode;		/* enum fxtprof_sample_mode */
	__u8 flags;		/* FXTPROF_SAMPLE_* */
	__u16 nr_kernel;
	__u16 nr_user;
	__u8 ustack_end;	/* enum fxtprof_ustack_end, since ABI 5 */
	__u8 reserved;
	__u64 ips[];
};

/*
 * The user registers and user stack of a sample (ABI 6), for a reader to
 * unwind with its own CFI, as perf's PERF_SAMPLE_REGS_USER and _STACK_USER.
 * regs[] is indexed by DWARF register number: on x86_64 rax, rdx, rcx,
 * rbx, rsi, rdi, rbp, rsp, r8 .. r15, then rip (16); on arm64 x0 .. x30,
 * sp (31), pc (32).  The pc is where the task was interrupted (not moved
 * back a byte); arm64 pointer authentication bits are left in place.
 * size bytes of stack, from regs[SP] upwards, follow regs[] and are zero
 * padded to 8; size is below the configured size where the stack's top
 * or an unreadable page came first (a read that faults ends the copy,
 * never the sample).
 */
#define FXTPROF_STACK_COPY_REGS_X86_64	17
#define FXTPROF_STACK_COPY_REGS_ARM64	33
#define FXTPROF_STACK_COPY_SP_X86_64	7
#define FXTPROF_STACK_COPY_PC_X86_64	16
#define FXTPROF_STACK_COPY_SP_ARM64	31
#define FXTPROF_STACK_COPY_PC_ARM64	32

struct fxtprof_stack_copy {
	__u16 machine;		/* EM_X86_64 (62) or EM_AARCH64 (183) */
	__u16 nr_regs;		/* FXTPROF_STACK_COPY_REGS_* */
	__u32 size;		/* stack bytes after regs[] */
	__u64 regs[];
	/* then size bytes of stack, zero padded to 8 */
};

/*
 * A wait (ABI 8, FXTPROF_CFG_OFFCPU): thread tid of pid ran again at
 * hdr.time_ns, on hdr.cpu, after at least offcpu_min_ns off a CPU.  The
 * record is laid out as a struct fxtprof_sample (mode KERNEL, never a
 * stack copy) of the stacks the thread had when it left, and a struct
 * fxtprof_offcpu follows its ips[nr_kernel + nr_user] and ends it.
 */
enum fxtprof_wait_state {
	FXTPROF_WAIT_PREEMPTED	= 1,	/* runnable: it wanted a CPU */
	FXTPROF_WAIT_SLEEPING	= 2,	/* interruptible sleep (S) */
	FXTPROF_WAIT_BLOCKED	= 3,	/* uninterruptible (D): I/O, ... */
	FXTPROF_WAIT_STOPPED	= 4,	/* stopped or traced */
	FXTPROF_WAIT_MAX,
};

struct fxtprof_offcpu {
	__u64 start_ns;		/* when it left its CPU (CLOCK_BOOTTIME) */
	__u32 waker_tid;	/* the thread that woke it; 0: none known */
	__u8 state;		/* enum fxtprof_wait_state */
	__u8 reserved[3];
};

/*
 * A new task, from sched_process_fork.  clone_flags is reconstructed from
 * what parent and child share (CLONE_VM, _FS, _FILES, _SIGHAND, _THREAD),
 * since the tracepoint does not carry the flags themselves; CLONE_VFORK
 * cannot be seen there (vfork_done is set after the tracepoint).
 */
struct fxtprof_fork {
	struct fxtprof_rec_hdr hdr;
	__u32 parent_pid;
	__u32 parent_tid;
	__u32 child_pid;
	__u32 child_tid;
	__u64 clone_flags;
	char comm[FXTPROF_COMM_LEN];	/* the child's, NUL padded */
};

#define FXTPROF_EXEC_FILENAME_TRUNCATED	(1u << 0)

/* A successful exec, from sched_process_exec.  filename is not NUL terminated. */
struct fxtprof_exec {
	struct fxtprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u32 old_tid;		/* differs when a non-leader thread exec'd */
	__u16 filename_len;
	__u16 flags;		/* FXTPROF_EXEC_* */
	char comm[FXTPROF_COMM_LEN];	/* the new comm */
	char filename[];	/* filename_len bytes, zero padded to 8 */
};

#define FXTPROF_EXIT_GROUP_DEAD	(1u << 0)	/* last thread: process ended */

/* A thread exit, from sched_process_exit.  exit_code is the wait status. */
struct fxtprof_exit {
	struct fxtprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__s32 exit_code;
	__u32 flags;		/* FXTPROF_EXIT_* */
	char comm[FXTPROF_COMM_LEN];
};

/* A comm change, from task_rename.  The task need not be current. */
struct fxtprof_rename {
	struct fxtprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	char old_comm[FXTPROF_COMM_LEN];
	char comm[FXTPROF_COMM_LEN];
};

#define FXTPROF_SNAPSHOT_KTHREAD	(1u << 0)

/* One thread that existed when the session started. */
struct fxtprof_snapshot {
	struct fxtprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u32 ppid;		/* tgid of the real parent */
	__u32 flags;		/* FXTPROF_SNAPSHOT_* */
	char comm[FXTPROF_COMM_LEN];
	char process_comm[FXTPROF_COMM_LEN];	/* the group leader's */
};

/*
 * Records dropped on this ring because it was full, written at the next
 * reserve that succeeds (or by FXTPROF_IOC_FLUSH).  The counts are exact:
 * summed over all LOST records plus lost_unreported (lost_unreported_bytes)
 * they equal the ring's lost_records (lost_bytes).
 */
struct fxtprof_lost {
	struct fxtprof_rec_hdr hdr;
	__u64 records;
	__u64 bytes;
	__u64 first_ns;		/* time of the first and last dropped record */
	__u64 last_ns;
};

/* Written by FXTPROF_IOC_FLUSH on every ring. */
struct fxtprof_flush_rec {
	struct fxtprof_rec_hdr hdr;
	__u64 seq;
};


/*
 * Records of ABI 2: the address spaces and the kernel's images, which a
 * symbolizer needs to name a sample's frames later and elsewhere.  The
 * module never writes them: the reader's side-band sources do (perf
 * MMAP2 records with build ids, /proc/PID/maps at start, /proc/kallsyms,
 * /sys/kernel/notes and /proc/modules), and they travel through the same
 * record stream as the ring's records.  See Documentation/symbols.md.
 */
#define FXTPROF_MAX_PATH	4096	/* mapping and module names are truncated */

#define FXTPROF_MMAP_INITIAL	(1u << 0)	/* existed when recording began */
#define FXTPROF_MMAP_BUILD_ID	(1u << 1)	/* build_id[] is valid */
#define FXTPROF_MMAP_TRUNCATED	(1u << 2)	/* filename was cut */

/*
 * An executable mapping of process pid: [start, start + len) maps the file
 * filename at file offset pgoff.  filename is not NUL terminated; it is
 * "//anon" for anonymous executable memory and "[vdso]" for the vDSO.
 */
struct fxtprof_mmap {
	struct fxtprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u64 start;
	__u64 len;
	__u64 pgoff;		/* bytes */
	__u16 flags;		/* FXTPROF_MMAP_* */
	__u8 build_id_size;	/* bytes used of build_id, 0 if unknown */
	__u8 reserved;
	__u16 filename_len;
	__u16 reserved2;
	__u8 build_id[FXTPROF_BUILD_ID_MAX];
	__u32 reserved3;
	char filename[];	/* filename_len bytes, zero padded to 8 */
};

#define FXTPROF_KMOD_KERNEL	(1u << 0)	/* the kernel image, not a module */
#define FXTPROF_KMOD_BUILD_ID	(1u << 1)	/* build_id[] is valid */

/*
 * A kernel text range: the kernel image ("[kernel.kallsyms]", from _stext
 * to _etext) or a loaded module, by its name, with its build id.
 */
struct fxtprof_kmod {
	struct fxtprof_rec_hdr hdr;
	__u64 start;
	__u64 end;
	__u16 flags;		/* FXTPROF_KMOD_* */
	__u8 build_id_size;
	__u8 reserved;
	__u16 name_len;
	__u16 reserved2;
	__u8 build_id[FXTPROF_BUILD_ID_MAX];
	__u32 reserved3;
	char name[];		/* name_len bytes, zero padded to 8 */
};

/*
 * A kernel function, [addr, addr + size), written before the first sample
 * that hit it and again at the start of every segment.  Names come from
 * /proc/kallsyms, whose text symbols have no size: size runs to the next
 * symbol.  A module's symbol lies inside that module's KMOD range.
 */
struct fxtprof_ksym {
	struct fxtprof_rec_hdr hdr;
	__u64 addr;
	__u32 size;
	__u16 name_len;
	__u16 reserved;
	char name[];		/* name_len bytes, zero padded to 8 */
};

/*
 * Records of ABI 3.  The sched.switch source (FXTPROF_CFG_SCHED): one
 * SWITCH per context switch, from sched_switch on the switching CPU, and
 * one WAKEUP per sched_wakeup or sched_wakeup_new.  Thread states use
 * FXT's numbering, so they pass through unchanged.
 */
enum fxtprof_thread_state {
	FXTPROF_THREAD_RUNNING		= 1,	/* preempted, still runnable */
	FXTPROF_THREAD_SUSPENDED	= 2,	/* stopped or traced */
	FXTPROF_THREAD_BLOCKED		= 3,	/* sleeping, in any sleep state */
	FXTPROF_THREAD_DYING		= 4,	/* exiting: zombie */
	FXTPROF_THREAD_DEAD		= 5,
};

struct fxtprof_switch {
	struct fxtprof_rec_hdr hdr;
	__u32 prev_pid;		/* the idle task is pid 0, tid 0 */
	__u32 prev_tid;
	__u32 next_pid;
	__u32 next_tid;
	__s32 prev_prio;	/* the kernel's prio, 0 .. 139 */
	__s32 next_prio;
	__u32 prev_state;	/* enum fxtprof_thread_state */
	__u32 reserved;
};

#define FXTPROF_WAKEUP_NEW	(1u << 0)	/* sched_wakeup_new: first run */

/*
 * hdr.cpu is the CPU the wakeup probe ran on: the waker's, or, for a
 * wakeup queued to the target CPU (ttwu_queue_wakelist), the target's.
 * The module then says no waker (0); the bpf source kept it at
 * sched_waking, in the waker's context.
 */
struct fxtprof_wakeup {
	struct fxtprof_rec_hdr hdr;	/* cpu: where the probe ran */
	__u32 pid;		/* the woken thread */
	__u32 tid;
	__u32 target_cpu;	/* where it will run */
	__s32 prio;
	__u32 waker_tid;	/* the waking task; 0: none known (idle, irq) */
	__u32 flags;		/* FXTPROF_WAKEUP_* */
};

/* A trigger fired through FXTPROF_IOC_TRIGGER, by thread tid of pid. */
struct fxtprof_trigger_rec {
	struct fxtprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u16 name_len;
	__u16 reserved;
	__u32 reserved2;
	char name[];		/* name_len bytes, zero padded to 8 */
};

/*
 * An annotation written to FXTPROF_ANNOTATE_DEVICE by thread tid of pid;
 * kind, key and name as the application gave them, validated.
 */
struct fxtprof_annotation_rec {
	struct fxtprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u16 kind;		/* enum fxtprof_annotation_kind */
	__u16 name_len;
	__u32 reserved;
	__u64 key;
	char name[];		/* name_len bytes, zero padded to 8 */
};

/* ------------------------------------------------------------------ */
/* Layout checks                                                       */
/* ------------------------------------------------------------------ */

#ifdef __cplusplus
#define FXTPROF_ASSERT(c, m) static_assert(c, m)
#else
#define FXTPROF_ASSERT(c, m) _Static_assert(c, m)
#endif

#define FXTPROF_ASSERT_REC(t, sz) \
	FXTPROF_ASSERT(sizeof(struct t) == (sz) && sizeof(struct t) % 8 == 0, \
		       #t " size")

FXTPROF_ASSERT(sizeof(struct fxtprof_info) == 88, "fxtprof_info size");
FXTPROF_ASSERT(sizeof(struct fxtprof_attach_ring) == 24, "attach_ring size");
FXTPROF_ASSERT(sizeof(struct fxtprof_attach) == 48, "fxtprof_attach size");
FXTPROF_ASSERT(sizeof(struct fxtprof_sync) == 16, "fxtprof_sync size");
FXTPROF_ASSERT(sizeof(struct fxtprof_source) == 112, "fxtprof_source size");
FXTPROF_ASSERT(sizeof(struct fxtprof_trigger) == 72, "fxtprof_trigger size");
FXTPROF_ASSERT(sizeof(struct fxtprof_config) == 80, "fxtprof_config size");
FXTPROF_ASSERT(sizeof(struct fxtprof_offcpu) == 16, "fxtprof_offcpu size");
FXTPROF_ASSERT(sizeof(struct fxtprof_flush) == 16, "fxtprof_flush size");
FXTPROF_ASSERT(sizeof(struct fxtprof_stats) == 248, "fxtprof_stats size");
FXTPROF_ASSERT(sizeof(struct fxtprof_unwind_row) == 12, "unwind_row size");
FXTPROF_ASSERT(sizeof(struct fxtprof_unwind_table) == 56, "unwind_table size");
FXTPROF_ASSERT(sizeof(struct fxtprof_unwind_map) == 40, "unwind_map size");
FXTPROF_ASSERT(sizeof(struct fxtprof_unwind_unload) == 16, "unwind_unload size");
FXTPROF_ASSERT(sizeof(struct fxtprof_ksym_query) == FXTPROF_KSYM_QUERY_SIZE_VER0,
	       "ksym_query size");
FXTPROF_ASSERT(sizeof(struct fxtprof_ring_consumer) == 8, "consumer size");
FXTPROF_ASSERT(sizeof(struct fxtprof_ring_ctrl) == 128, "ring_ctrl size");
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_ring_ctrl, producer_pos) == 64,
	       "producer_pos on its own cache line");
FXTPROF_ASSERT_REC(fxtprof_rec_hdr, 16);
FXTPROF_ASSERT_REC(fxtprof_sample, 32);
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_sample, ips) == 32, "ips");
FXTPROF_ASSERT(sizeof(struct fxtprof_stack_copy) == 8, "stack_copy size");
FXTPROF_ASSERT_REC(fxtprof_fork, 56);
FXTPROF_ASSERT_REC(fxtprof_exec, 48);
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_exec, filename) == 48, "filename");
FXTPROF_ASSERT_REC(fxtprof_exit, 48);
FXTPROF_ASSERT_REC(fxtprof_rename, 56);
FXTPROF_ASSERT_REC(fxtprof_snapshot, 64);
FXTPROF_ASSERT_REC(fxtprof_lost, 48);
FXTPROF_ASSERT_REC(fxtprof_flush_rec, 24);
FXTPROF_ASSERT_REC(fxtprof_mmap, 80);
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_mmap, filename) == 80, "filename");
FXTPROF_ASSERT_REC(fxtprof_kmod, 64);
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_kmod, name) == 64, "name");
FXTPROF_ASSERT_REC(fxtprof_ksym, 32);
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_ksym, name) == 32, "name");
FXTPROF_ASSERT_REC(fxtprof_switch, 48);
FXTPROF_ASSERT_REC(fxtprof_wakeup, 40);
FXTPROF_ASSERT_REC(fxtprof_trigger_rec, 32);
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_trigger_rec, name) == 32, "name");
FXTPROF_ASSERT(sizeof(struct fxtprof_annotation) == 24, "fxtprof_annotation size");
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_annotation, name) == 24, "name");
FXTPROF_ASSERT_REC(fxtprof_annotation_rec, 40);
FXTPROF_ASSERT(__builtin_offsetof(struct fxtprof_annotation_rec, name) == 40, "name");

#undef FXTPROF_ASSERT_REC
#undef FXTPROF_ASSERT

#endif /* _UAPI_LINUX_FXTPROF_H */

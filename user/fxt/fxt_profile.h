/* SPDX-License-Identifier: MIT */
/*
 * fxt_profile.h - fxtprof's vocabulary on top of FXT: every category,
 * event and argument name fxtprof writes, the shape of a sample as the
 * encoder writes it (user/encode/fxt_encoder.c), the annotations', and the
 * readers that find them in a decoded record (below and fxt_profile.c).
 * Writers and readers take the names from here, so that a rename is one
 * edit.
 * Documentation/fxt-mapping.md is the reference.
 *
 * Events (category / name: arguments):
 *   cpu / sample                   cpu u32, mode str, kframes u32,
 *                                  [ustack_end str: a partial user stack],
 *                                  [stack u32: its frames by reference]
 *   cpu / off-cpu                  duration complete, from leaving the
 *                                  CPU to running again: cpu u32 (where
 *                                  it ran again), state str, kframes u32,
 *                                  [waker_tid u32], [ustack_end str],
 *                                  stack u32 (the stacks it left with)
 *   task / fork                    child_pid u32, child_tid u32,
 *                                  clone_flags u64
 *   task / exec                    filename str, [old_tid u32]
 *   task / exit                    exit_code i32, group_dead bool
 *   fxtprof / fxtprof:kernel_lost  (counter) records u64, bytes u64
 *   fxtprof / fxtprof:output_dropped (counter) records u64, bytes u64
 *   fxtprof / fxtprof:stats        (counter) samples, records,
 *                                  lost_records, lost_unreported
 *   fxtprof / fxtprof:encode_errors (counter) errno ...
 *   fxtprof / fxtprof:unwind       (counter) table_frames, fp_frames,
 *                                  rule_frames, ustack_NAME ...
 *   fxtprof / trigger              name str
 *   region | kernel / NAME         duration begin/end; kernel: kernel_id
 *   section / NAME                 async begin/end, id = the key
 *   event / NAME                   instant
 * A thread's kernel object carries a koid "process" argument.
 *
 * Symbolization travels as kernel object records (type 7) of object
 * types outside Zircon's range (its ZX_OBJ_TYPE_UPPER_BOUND is 64), so
 * that Perfetto's importer and Fuchsia's tools skip them as objects of a
 * type they do not know, and every FXT reader can still print them with
 * their arguments.  Kernel objects carry no timestamp: a mapping's
 * creation time is its "time" argument.
 *
 *   type  koid            name             arguments
 *   0x80  mapping serial  file path        pid u32, tid u32, start u64,
 *         (1, 2, ...)     (inline)         end u64, pgoff u64, time u64
 *                                          (ticks), [build_id str, hex],
 *                                          [initial bool: existed at start]
 *   0x81  start address   "[kernel.kallsyms]" end u64, [build_id str],
 *                         or module name   [kernel bool: the image]
 *   0x82  address         symbol (inline)  size u32
 *   0x83  0               "CLOCK_REALTIME" boot_ns u64, realtime_ns u64:
 *                                          the two clocks read together
 *                                          (timestamps are boot_ns's);
 *                                          [host str, kernel_release str,
 *                                          arch str: uname's nodename,
 *                                          release and machine]
 *   0x84  start address   JIT function     pid u32, size u64: a line of
 *                         (inline)         the process's /tmp/perf-PID.map
 *
 * A process's kernel object (type 1) may carry its container: cgroup str
 * (its cgroup v2 path) and nspid i32 (its pid in its own pid namespace).
 */
#ifndef FXT_PROFILE_H
#define FXT_PROFILE_H

#include <stdint.h>
#include <stddef.h>

#define FXT_KOBJ_MAPPING	0x80
#define FXT_KOBJ_KMOD		0x81
#define FXT_KOBJ_KSYM		0x82
#define FXT_KOBJ_CLOCK		0x83
#define FXT_KOBJ_JIT_SYMBOL	0x84

#define FXT_PROFILE_ARG_PID		"pid"
#define FXT_PROFILE_ARG_TID		"tid"
#define FXT_PROFILE_ARG_START		"start"
#define FXT_PROFILE_ARG_END		"end"
#define FXT_PROFILE_ARG_PGOFF		"pgoff"
#define FXT_PROFILE_ARG_TIME		"time"
#define FXT_PROFILE_ARG_BUILD_ID	"build_id"
#define FXT_PROFILE_ARG_INITIAL		"initial"
#define FXT_PROFILE_ARG_KERNEL		"kernel"
#define FXT_PROFILE_ARG_SIZE		"size"
#define FXT_PROFILE_ARG_BOOT_NS		"boot_ns"
#define FXT_PROFILE_ARG_REALTIME_NS	"realtime_ns"
/* The clock object's optional strings: the recording machine (uname). */
#define FXT_PROFILE_ARG_HOST		"host"
#define FXT_PROFILE_ARG_KERNEL_RELEASE	"kernel_release"
#define FXT_PROFILE_ARG_ARCH		"arch"
/* A process object's container. */
#define FXT_PROFILE_ARG_CGROUP		"cgroup"
#define FXT_PROFILE_ARG_NSPID		"nspid"

/* The clock object's name: the clock its realtime_ns is read from. */
#define FXT_PROFILE_CLOCK_NAME		"CLOCK_REALTIME"

/* The kernel image's name, as perf names it. */
#define FXT_PROFILE_KERNEL_NAME		"[kernel.kallsyms]"

/* ---- events ---------------------------------------------------------- */

#define FXT_PROFILE_CAT_CPU		"cpu"
#define FXT_PROFILE_EV_SAMPLE		"sample"
#define FXT_PROFILE_ARG_CPU		"cpu"
#define FXT_PROFILE_ARG_MODE		"mode"
#define FXT_PROFILE_ARG_KFRAMES		"kframes"
/* The mode argument's values, by FXTPROF_MODE_* (<linux/fxtprof.h>). */
#define FXT_PROFILE_MODE_UNKNOWN	"unknown"
#define FXT_PROFILE_MODE_KERNEL		"kernel"
#define FXT_PROFILE_MODE_USER		"user"
#define FXT_PROFILE_MODE_IDLE		"idle"
#define FXT_PROFILE_NR_MODES		4
/*
 * A wait (cpu / off-cpu): its state argument's values, by enum
 * fxtprof_wait_state, and the thread that woke it.
 */
#define FXT_PROFILE_EV_OFFCPU		"off-cpu"
#define FXT_PROFILE_ARG_STATE		"state"
#define FXT_PROFILE_ARG_WAKER_TID	"waker_tid"
#define FXT_PROFILE_WAIT_PREEMPTED	"preempted"
#define FXT_PROFILE_WAIT_SLEEPING	"sleeping"
#define FXT_PROFILE_WAIT_BLOCKED	"blocked"
#define FXT_PROFILE_WAIT_STOPPED	"stopped"
/*
 * A sample whose user stack stopped short (enum fxtprof_ustack_end in
 * <linux/fxtprof.h>: the depth, a fault, the budget, a bad frame, the
 * link register above the leaf, a 32-bit task) carries why as a fourth
 * argument, a string; every other sample keeps three.
 */
#define FXT_PROFILE_ARG_USTACK_END	"ustack_end"
/*
 * The unwinder's totals at the end of a recording, if it walked any user
 * stack (fxtprof / fxtprof:unwind, a counter): frames by how they were
 * found, and "ustack_NAME" for each end a stack had, NAME as
 * fxt_profile__ustack_end_name() spells it.
 */
#define FXT_PROFILE_EV_UNWIND		"fxtprof:unwind"
#define FXT_PROFILE_ARG_TABLE_FRAMES	"table_frames"
#define FXT_PROFILE_ARG_FP_FRAMES	"fp_frames"
#define FXT_PROFILE_ARG_RULE_FRAMES	"rule_frames"
#define FXT_PROFILE_USTACK_PREFIX	"ustack_"

#define FXT_PROFILE_CAT_TASK		"task"
#define FXT_PROFILE_EV_FORK		"fork"
#define FXT_PROFILE_EV_EXEC		"exec"
#define FXT_PROFILE_EV_EXIT		"exit"
#define FXT_PROFILE_ARG_CHILD_PID	"child_pid"
#define FXT_PROFILE_ARG_CHILD_TID	"child_tid"
#define FXT_PROFILE_ARG_CLONE_FLAGS	"clone_flags"
#define FXT_PROFILE_ARG_FILENAME	"filename"
#define FXT_PROFILE_ARG_OLD_TID		"old_tid"
#define FXT_PROFILE_ARG_EXIT_CODE	"exit_code"
#define FXT_PROFILE_ARG_GROUP_DEAD	"group_dead"
/* A thread object's process (koid). */
#define FXT_PROFILE_ARG_PROCESS		"process"

/* fxtprof's own notices: the provider's name is the category. */
#define FXT_PROFILE_CAT_META		"fxtprof"
#define FXT_PROFILE_EV_KERNEL_LOST	"fxtprof:kernel_lost"
#define FXT_PROFILE_EV_OUTPUT_DROPPED	"fxtprof:output_dropped"
#define FXT_PROFILE_EV_STATS		"fxtprof:stats"
#define FXT_PROFILE_EV_ENCODE_ERRORS	"fxtprof:encode_errors"
#define FXT_PROFILE_EV_TRIGGER		"trigger"
#define FXT_PROFILE_ARG_RECORDS		"records"
#define FXT_PROFILE_ARG_BYTES		"bytes"
#define FXT_PROFILE_ARG_SAMPLES		"samples"
#define FXT_PROFILE_ARG_LOST_RECORDS	"lost_records"
#define FXT_PROFILE_ARG_LOST_UNREPORTED	"lost_unreported"
#define FXT_PROFILE_ARG_ERRNO		"errno"
#define FXT_PROFILE_ARG_NAME		"name"

/* Scheduling records' (type 8) arguments. */
#define FXT_PROFILE_ARG_IN_WEIGHT	"incoming_weight"
#define FXT_PROFILE_ARG_OUT_WEIGHT	"outgoing_weight"
#define FXT_PROFILE_ARG_WEIGHT		"weight"
#define FXT_PROFILE_ARG_WAKER		"waker"

/* Annotations: the category names the kind, the event name the user's. */
#define FXT_PROFILE_CAT_REGION		"region"
#define FXT_PROFILE_CAT_KERNEL		"kernel"
#define FXT_PROFILE_CAT_SECTION		"section"
#define FXT_PROFILE_CAT_EVENT		"event"
#define FXT_PROFILE_ARG_KERNEL_ID	"kernel_id"

/* ---- the sample's shape ---------------------------------------------- */

/*
 * A sample is two records.  The event, 7 words, its three arguments in
 * this order, each one word (32-bit values and string refs in the
 * header):
 */
enum fxt_sample_word {
	FXT_SAMPLE_HDR,			/* instant, 3 args, cpu / sample */
	FXT_SAMPLE_TS,
	FXT_SAMPLE_PID,			/* inline thread */
	FXT_SAMPLE_TID,
	FXT_SAMPLE_CPU,			/* u32 arg, value in bits 32..63 */
	FXT_SAMPLE_MODE,		/* string arg, value a ref */
	FXT_SAMPLE_KFRAMES,		/* u32 arg: the kernel frames */
	FXT_SAMPLE_EVENT_WORDS,
	/* A partial user stack's sample: 4 args, the last a string ref. */
	FXT_SAMPLE_USTACK_END = FXT_SAMPLE_EVENT_WORDS,
	FXT_SAMPLE_PARTIAL_WORDS,
};

/*
 * Then its stack, if it has frames, as a large blob record (type 15,
 * format 0) in the Fuchsia kernel sampler's convention: empty category
 * and name, inline thread, the kernel frames then the user frames, each
 * leaf first (kframes tells where the user frames begin); at most
 * FXT_MAX_FRAMES, the leaf end kept.
 */
enum fxt_sample_stack_word {
	FXT_STACK_HDR,
	FXT_STACK_FORMAT,
	FXT_STACK_TS,
	FXT_STACK_PID,
	FXT_STACK_TID,
	FXT_STACK_SIZE,			/* bytes: 8 per frame */
	FXT_STACK_FRAMES,		/* the first frame's word */
};

/*
 * Stack references.  A stream whose writer shares stacks between samples
 * (fxt_encoder__share_stacks()) writes each distinct stack once per
 * segment, as a blob record (type 5) of FXT_BLOB_DATA named
 * FXT_PROFILE_STACK_DEF, before the first sample that needs it; that
 * sample and every later one of the same stack carry its id as a last
 * argument, FXT_PROFILE_ARG_STACK (u32), and no large blob.  Ids are below
 * FXT_STACK_REFS_MAX; a definition of an id replaces its earlier one, and
 * a segment (the magic record) starts with none.  The payload, in
 * little-endian u64 words:
 */
#define FXT_PROFILE_STACK_DEF		"fxtprof:stack"
#define FXT_PROFILE_ARG_STACK		"stack"
#define FXT_STACK_REFS_MAX		4096u
enum fxt_stack_def_word {
	/* bits 0..31 the id, 32..47 the kernel frames, 48..63 all frames */
	FXT_STACK_DEF_HEAD,
	FXT_STACK_DEF_FRAMES,		/* then the frames, as a stack blob's */
};

static inline uint64_t fxt_stack_def_head(uint32_t id, unsigned int kframes,
					  unsigned int frames)
{
	return id | (uint64_t)(kframes & 0xffff) << 32 |
	       (uint64_t)(frames & 0xffff) << 48;
}

/*
 * Files by build id (`record --collect stream`, `receive --collect DIR`):
 * a mapped file of the board, cut in chunks, each a blob record (type 5)
 * of FXT_BLOB_DATA whose name is FXT_PROFILE_FILE written inline, so that
 * a receiver that keeps no string table knows it from its first words.
 * A file's chunks come once per build id, in order, each at most
 * FXT_FILE_CHUNK bytes of the file.  The payload, little-endian u64 words:
 */
#define FXT_PROFILE_FILE		"fxtprof:file"
#define FXT_FILE_CHUNK			24576u
#define FXT_FILE_ID_MAX			64u	/* build id bytes, at most */
enum fxt_file_word {
	FXT_FILE_SIZE,			/* the whole file's bytes */
	FXT_FILE_OFFSET,		/* where this chunk's bytes go */
	FXT_FILE_ID_LEN,		/* bits 0..7: the build id's bytes */
	FXT_FILE_ID,			/* the build id, padded to 8 bytes */
};
/* Then the chunk's bytes, up to the payload's (unpadded) size. */
static inline size_t fxt_file_head_len(unsigned int id_len)
{
	return 8 * FXT_FILE_ID + ((id_len + 7u) & ~7u);
}

/*
 * A sample with a stack copy (FXTPROF_SAMPLE_STACK_COPY, ABI 6) has, right
 * after its stack (or its event, if it has no frames), a second large blob
 * with metadata: category FXT_PROFILE_CAT_META, this name, the sample's
 * timestamp and inline thread, no arguments, and as payload the struct
 * fxtprof_stack_copy verbatim (8 + 8 * nr_regs + size bytes).
 */
#define FXT_PROFILE_EV_USTACK_COPY	"ustack_copy"

/* ---- readers --------------------------------------------------------- */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fxt_reader.h"

/* Whether the decoded string @s reads @lit. */
static inline bool fxt_str__is(const struct fxt_str *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len == n && !memcmp(s->data, lit, n);
}

/*
 * The argument readers are inline: loaders call them per record with
 * literal names, whose comparisons then compile to a few instructions.
 */

/* @rec's argument named @name, NULL if it has none. */
static inline const struct fxt_argv *
fxt_record__arg(const struct fxt_record *rec, const char *name)
{
	unsigned int i;

	for (i = 0; i < rec->nargs; i++)
		if (fxt_str__is(&rec->args[i].name, name))
			return &rec->args[i];
	return NULL;
}

/*
 * @rec's integer argument @name in *@v: any of the integer types (signed
 * ones sign-extended), a koid, a pointer or a bool.  false, *@v
 * untouched, if it is absent or of another type.
 */
static inline bool fxt_record__arg_uint(const struct fxt_record *rec,
					const char *name, uint64_t *v)
{
	const struct fxt_argv *a = fxt_record__arg(rec, name);

	if (!a)
		return false;
	switch (a->type) {
	case FXT_ARG_INT32:
		*v = (uint64_t)(int64_t)a->v.i32;
		return true;
	case FXT_ARG_UINT32:
		*v = a->v.u32;
		return true;
	case FXT_ARG_INT64:
		*v = (uint64_t)a->v.i64;
		return true;
	case FXT_ARG_UINT64:
		*v = a->v.u64;
		return true;
	case FXT_ARG_POINTER:
		*v = a->v.ptr;
		return true;
	case FXT_ARG_KOID:
		*v = a->v.koid;
		return true;
	case FXT_ARG_BOOL:
		*v = a->v.b;
		return true;
	}
	return false;
}

/* The same, 0 when absent. */
uint64_t fxt_record__arg_uint_or0(const struct fxt_record *rec,
				  const char *name);
/* @rec's string argument @name in *@s: false if absent or not a string. */
static inline bool fxt_record__arg_str(const struct fxt_record *rec,
				       const char *name, struct fxt_str *s)
{
	const struct fxt_argv *a = fxt_record__arg(rec, name);

	if (!a || a->type != FXT_ARG_STRING)
		return false;
	*s = a->v.str;
	return true;
}
/* Whether @rec is an event of category @cat and name @name. */
bool fxt_record__is_event(const struct fxt_record *rec, const char *cat,
			  const char *name);
/* Whether @rec is a sample's event (cpu / sample, instant). */
bool fxt_record__is_sample(const struct fxt_record *rec);
/*
 * The name of enum fxtprof_ustack_end @end ("complete", "depth", ...),
 * as the ustack_end argument and the unwind counters spell it; NULL for
 * a value this reader does not know.
 */
const char *fxt_profile__ustack_end_name(unsigned int end);
/*
 * Whether a sample whose user stack ended with @end carries it: the ends
 * that say the stack is partial, not none, complete or the end of a
 * frame-pointer chain (where a sample cannot know), nor unknown ones.
 */
bool fxt_profile__ustack_end_is_partial(unsigned int end);
unsigned int fxt_profile__ustack_end(const struct fxt_str *s);
/*
 * The FXTPROF_MODE_* a sample's mode value @s names (0, unknown, for a
 * value it does not know).
 */
unsigned int fxt_profile__mode(const struct fxt_str *s);
/* A wait's state argument: its name, NULL if out of range; and back, 0. */
const char *fxt_profile__wait_state_name(unsigned int state);
unsigned int fxt_profile__wait_state(const struct fxt_str *s);

#endif /* FXT_PROFILE_H */

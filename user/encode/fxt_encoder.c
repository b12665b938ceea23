// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxt_encoder.c - see fxt_encoder.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "fxt_encoder.h"
#include "stack_refs.h"
#include "fxt/fxt_profile.h"

/*
 * The fixed strings, pinned in the string table at the start of every
 * segment in this order (the order is on the wire: the prologue's string
 * records come out in it).
 */
enum fxt_enc_str {
	S_CPU, S_SAMPLE, S_TASK, S_FORK, S_EXEC, S_EXIT,
	S_MODE_UNKNOWN, S_MODE_KERNEL, S_MODE_USER, S_MODE_IDLE,
	S_KFRAMES, S_CHILD_PID, S_CHILD_TID, S_CLONE_FLAGS, S_FILENAME,
	S_OLD_TID, S_EXIT_CODE, S_GROUP_DEAD, S_META, S_KERNEL_LOST,
	S_RECORDS, S_BYTES, S_OUTPUT_DROPPED, S_STATS, S_SAMPLES,
	S_LOST_UNREPORTED, S_MODE_KEY, S_LOST_RECORDS,
	S_NR
};

static const char *const fxt_enc_strings[S_NR] = {
	[S_CPU] = FXT_PROFILE_CAT_CPU, [S_SAMPLE] = FXT_PROFILE_EV_SAMPLE,
	[S_TASK] = FXT_PROFILE_CAT_TASK, [S_FORK] = FXT_PROFILE_EV_FORK,
	[S_EXEC] = FXT_PROFILE_EV_EXEC, [S_EXIT] = FXT_PROFILE_EV_EXIT,
	[S_MODE_UNKNOWN] = FXT_PROFILE_MODE_UNKNOWN,
	[S_MODE_KERNEL] = FXT_PROFILE_MODE_KERNEL,
	[S_MODE_USER] = FXT_PROFILE_MODE_USER,
	[S_MODE_IDLE] = FXT_PROFILE_MODE_IDLE,
	[S_KFRAMES] = FXT_PROFILE_ARG_KFRAMES,
	[S_CHILD_PID] = FXT_PROFILE_ARG_CHILD_PID,
	[S_CHILD_TID] = FXT_PROFILE_ARG_CHILD_TID,
	[S_CLONE_FLAGS] = FXT_PROFILE_ARG_CLONE_FLAGS,
	[S_FILENAME] = FXT_PROFILE_ARG_FILENAME,
	[S_OLD_TID] = FXT_PROFILE_ARG_OLD_TID,
	[S_EXIT_CODE] = FXT_PROFILE_ARG_EXIT_CODE,
	[S_GROUP_DEAD] = FXT_PROFILE_ARG_GROUP_DEAD,
	[S_META] = FXT_PROFILE_CAT_META,
	[S_KERNEL_LOST] = FXT_PROFILE_EV_KERNEL_LOST,
	[S_RECORDS] = FXT_PROFILE_ARG_RECORDS,
	[S_BYTES] = FXT_PROFILE_ARG_BYTES,
	[S_OUTPUT_DROPPED] = FXT_PROFILE_EV_OUTPUT_DROPPED,
	[S_STATS] = FXT_PROFILE_EV_STATS,
	[S_SAMPLES] = FXT_PROFILE_ARG_SAMPLES,
	[S_LOST_UNREPORTED] = FXT_PROFILE_ARG_LOST_UNREPORTED,
	[S_MODE_KEY] = FXT_PROFILE_ARG_MODE,
	[S_LOST_RECORDS] = FXT_PROFILE_ARG_LOST_RECORDS,
};

struct fxt_encoder {
	struct fxt_writer *w;
	bool pinned;			/* ref[] and the words below hold */
	struct fxt_sref ref[S_NR];
	/* A sample's constant words for this segment (the refs in them). */
	uint64_t sample_hdr, arg_cpu, arg_mode[FXT_PROFILE_NR_MODES], arg_kframes;
	uint64_t self_pid;		/* counters live on the reader */
	uint64_t self_tid;
	uint64_t mapping_koid;		/* the last mapping's serial */
	/*
	 * The scheduling records' argument names, pinned at the first such
	 * record of a segment, so that a recording without sched.switch
	 * stays byte for byte what it was.
	 */
	bool sched_pinned;
	uint64_t arg_in_weight, arg_out_weight, arg_weight, arg_waker;
	/*
	 * A partial user stack's words, pinned as the scheduling records'
	 * names are: the four-argument header, and by enum
	 * fxtprof_ustack_end the ustack_end argument (0 for the ends a
	 * sample does not carry).
	 */
	bool ustack_end_pinned;
	uint64_t partial_hdr, arg_ustack_end[FXTPROF_USTACK_END_MAX];
	/* The stack copies' blob name, pinned at a segment's first copy. */
	bool stack_copy_pinned;
	struct fxt_sref stack_copy_name;
	/*
	 * Stack references (fxt_profile.h), when shared: the stacks this
	 * segment defined, and the definitions' name and the samples'
	 * argument word, pinned at a segment's first definition.
	 */
	struct stack_refs *stacks;
	bool stack_refs_pinned;
	struct fxt_sref stack_def_name;
	uint64_t arg_stack;
};

/* The sink's interface in the writer's callback types. */
static void *sink_reserve_cb(void *ctx, size_t len, unsigned int type)
{
	return sink__reserve(ctx, len, type);
}

static void sink_commit_cb(void *ctx)
{
	sink__commit(ctx);
}

int fxt_encoder__new_opts(struct fxt_encoder **ep,
			  const struct fxt_writer_opts *wo)
{
	struct fxt_encoder *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return -ENOMEM;
	ret = fxt_writer__new(wo, &e->w);
	if (ret) {
		free(e);
		return ret;
	}
	e->self_pid = (uint64_t)getpid();
	e->self_tid = (uint64_t)gettid();
	*ep = e;
	return 0;
}

int fxt_encoder__new(struct fxt_encoder **ep, struct sink *sink)
{
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = sink_reserve_cb,
		.commit = sink_commit_cb, .ctx = sink,
	};

	return fxt_encoder__new_opts(ep, &wo);
}

void fxt_encoder__free(struct fxt_encoder *e)
{
	if (!e)
		return;
	fxt_writer__free(e->w);
	stack_refs__free(e->stacks);
	free(e);
}

int fxt_encoder__share_stacks(struct fxt_encoder *e, bool on)
{
	int ret;

	if (!on) {
		stack_refs__free(e->stacks);
		e->stacks = NULL;
		return 0;
	}
	if (e->stacks)
		return 0;
	ret = stack_refs__new(&e->stacks);
	e->stack_refs_pinned = false;
	return ret;
}

/* Pin the fixed strings; retried on the next record if one was dropped. */
static int fxt_enc_pin(struct fxt_encoder *e)
{
	int i, ret;

	for (i = 0; i < S_NR; i++) {
		ret = fxt_writer__string_pin(e->w, fxt_enc_strings[i],
					     strlen(fxt_enc_strings[i]),
					     &e->ref[i]);
		if (ret)
			return ret;
	}
	e->sample_hdr = fxt_event_hdr(FXT_SAMPLE_EVENT_WORDS, FXT_EVENT_INSTANT, 3,
				      0, e->ref[S_CPU].ref,
				      e->ref[S_SAMPLE].ref);
	e->arg_cpu = fxt_arg_hdr32(FXT_ARG_UINT32, e->ref[S_CPU].ref, 0);
	for (i = 0; i < FXT_PROFILE_NR_MODES; i++)
		e->arg_mode[i] = fxt_arg_hdr32(FXT_ARG_STRING,
					       e->ref[S_MODE_KEY].ref,
					       e->ref[S_MODE_UNKNOWN + i].ref);
	e->arg_kframes = fxt_arg_hdr32(FXT_ARG_UINT32, e->ref[S_KFRAMES].ref, 0);
	e->pinned = true;
	return 0;
}

static size_t comm_len(const char *comm)
{
	return strnlen(comm, FXTPROF_COMM_LEN);
}

static struct fxt_arg arg_u32(struct fxt_sref name, uint32_t v)
{
	struct fxt_arg a = { .name = name, .type = FXT_ARG_UINT32 };

	a.v.u32 = v;
	return a;
}

static struct fxt_arg arg_u64(struct fxt_sref name, uint64_t v)
{
	struct fxt_arg a = { .name = name, .type = FXT_ARG_UINT64 };

	a.v.u64 = v;
	return a;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

static int ustack_end_pin(struct fxt_encoder *e)
{
	struct fxt_sref key, val;
	const char *name;
	unsigned int i;
	int ret;

	ret = fxt_writer__string_pin(e->w, FXT_PROFILE_ARG_USTACK_END,
				     strlen(FXT_PROFILE_ARG_USTACK_END), &key);
	for (i = 0; !ret && i < FXTPROF_USTACK_END_MAX; i++) {
		e->arg_ustack_end[i] = 0;
		if (!fxt_profile__ustack_end_is_partial(i))
			continue;
		name = fxt_profile__ustack_end_name(i);
		ret = fxt_writer__string_pin(e->w, name, strlen(name), &val);
		e->arg_ustack_end[i] = fxt_arg_hdr32(FXT_ARG_STRING, key.ref,
						     val.ref);
	}
	if (ret)
		return ret;
	e->partial_hdr = fxt_event_hdr(FXT_SAMPLE_PARTIAL_WORDS,
				       FXT_EVENT_INSTANT, 4, 0,
				       e->ref[S_CPU].ref, e->ref[S_SAMPLE].ref);
	e->ustack_end_pinned = true;
	return 0;
}

/*
 * A sample's ustack_end argument word, 0 when its stack ended as a whole
 * stack does (or as a frame-pointer chain does: the sample cannot know).
 */
static int ustack_end_arg(struct fxt_encoder *e, unsigned int end,
			  uint64_t *arg)
{
	int ret;

	*arg = 0;
	if (!fxt_profile__ustack_end_is_partial(end))
		return 0;
	if (!e->ustack_end_pinned && (ret = ustack_end_pin(e)))
		return ret;
	*arg = e->arg_ustack_end[end];
	return 0;
}

/*
 * A sample's stack copy (fxt_profile.h, FXT_PROFILE_EV_USTACK_COPY), the
 * uapi struct as it is: the host unwinder reads it where it reads a live
 * copy.  fxtprof_rec__validate() checked that it lies inside the record.
 */
static int on_stack_copy(struct fxt_encoder *e, const struct fxtprof_sample *s)
{
	const struct fxtprof_stack_copy *c = fxtprof_sample__stack_copy(s);
	struct fxt_tref thread = fxt_tref_inline(s->pid, s->tid);
	int ret;

	if (!e->stack_copy_pinned) {
		ret = fxt_writer__string_pin(e->w, FXT_PROFILE_EV_USTACK_COPY,
					     strlen(FXT_PROFILE_EV_USTACK_COPY),
					     &e->stack_copy_name);
		if (ret)
			return ret;
		e->stack_copy_pinned = true;
	}
	return fxt_writer__large_blob(e->w, s->hdr.time_ns, &thread,
				      e->ref[S_META], e->stack_copy_name,
				      NULL, 0, c, sizeof(*c) +
				      c->nr_regs * sizeof(c->regs[0]) + c->size);
}

/*
 * The hot record, built word by word in the sink's memory from the words
 * fxt_enc_pin() precomputed: the same bytes fxt_writer__instant() and
 * fxt_writer__stack_sample() would write, without their validation (every
 * input here is a number or a pinned ref) or their argument walks.
 */
/*
 * A sample's stack blob.  The Fuchsia kernel-sampler convention: empty
 * category and name, inline thread, leaf first; the leaf end is kept past
 * FXT_MAX_FRAMES.
 */
static int on_sample_stack(struct fxt_encoder *e,
			   const struct fxtprof_sample *s, size_t frames)
{
	size_t words, i;
	uint64_t *p;
	int ret;

	if (frames > FXT_MAX_FRAMES)
		frames = FXT_MAX_FRAMES;
	words = FXT_STACK_FRAMES + frames;
	p = fxt_writer__begin(e->w, words, FXT_REC_LARGE, &ret);
	if (!p)
		return ret;
	p[FXT_STACK_HDR] = fxt_large_blob_hdr(words);
	p[FXT_STACK_FORMAT] = fxt_large_blob_format(0, 0, 0, 0);
	p[FXT_STACK_TS] = s->hdr.time_ns;
	p[FXT_STACK_PID] = s->pid;
	p[FXT_STACK_TID] = s->tid;
	p[FXT_STACK_SIZE] = frames * 8;
	/* Word by word: a short copy, where a string move starts slow. */
	for (i = 0; i < frames; i++)
		p[FXT_STACK_FRAMES + i] = s->ips[i];
	return fxt_writer__end(e->w, words);
}

static int stack_refs_pin(struct fxt_encoder *e)
{
	struct fxt_sref key;
	int ret;

	ret = fxt_writer__string_pin(e->w, FXT_PROFILE_STACK_DEF,
				     strlen(FXT_PROFILE_STACK_DEF),
				     &e->stack_def_name);
	if (!ret)
		ret = fxt_writer__string_pin(e->w, FXT_PROFILE_ARG_STACK,
					     strlen(FXT_PROFILE_ARG_STACK),
					     &key);
	if (ret)
		return ret;
	e->arg_stack = fxt_arg_hdr32(FXT_ARG_UINT32, key.ref, 0);
	e->stack_refs_pinned = true;
	return 0;
}

/*
 * The stack argument word of a sample whose stack is shared: its id, the
 * stack defined first if this segment has not seen it.  0 when the
 * definition could not be written: the sample then carries its frames.
 */
static uint64_t stack_ref_arg(struct fxt_encoder *e,
			      const struct fxtprof_sample *s, size_t frames)
{
	size_t words = 1 + FXT_STACK_DEF_FRAMES + frames, i;
	struct stack_key key;
	uint32_t id;
	uint64_t *p;
	int ret;

	if (!e->stack_refs_pinned && stack_refs_pin(e))
		return 0;
	if (stack_refs__find(e->stacks, s->ips, (unsigned int)frames,
			     s->nr_kernel, &id, &key))
		return e->arg_stack | (uint64_t)id << 32;
	p = fxt_writer__begin(e->w, words, FXT_REC_BLOB, &ret);
	if (!p)
		return 0;
	p[0] = fxt_hdr(FXT_REC_BLOB, words) |
	       (uint64_t)e->stack_def_name.ref << 16 |
	       (uint64_t)((words - 1) * 8) << 32 |
	       (uint64_t)FXT_BLOB_DATA << 48;
	p[1 + FXT_STACK_DEF_HEAD] = fxt_stack_def_head(id, s->nr_kernel,
						       (unsigned int)frames);
	for (i = 0; i < frames; i++)
		p[1 + FXT_STACK_DEF_FRAMES + i] = s->ips[i];
	if (fxt_writer__end(e->w, words))
		return 0;
	stack_refs__defined(e->stacks, id, &key);
	return e->arg_stack | (uint64_t)id << 32;
}

/* One more argument, one word, on a sample event's header. */
static uint64_t plus_one_arg(uint64_t hdr)
{
	return hdr + ((uint64_t)1 << 4) + ((uint64_t)1 << 20);
}

static int on_sample(struct fxt_encoder *e, const struct fxtprof_sample *s)
{
	size_t frames = (size_t)s->nr_kernel + s->nr_user;
	size_t event_words = FXT_SAMPLE_EVENT_WORDS;
	uint64_t *p, ustack_end = 0, stack_arg = 0, hdr;
	int ret, ret2 = 0, ret3 = 0;

	if (s->ustack_end > FXTPROF_USTACK_END_FP_CHAIN) {	/* rare */
		ret = ustack_end_arg(e, s->ustack_end, &ustack_end);
		if (ret)
			return ret;
		if (ustack_end)
			event_words = FXT_SAMPLE_PARTIAL_WORDS;
	}
	if (frames > FXT_MAX_FRAMES)
		frames = FXT_MAX_FRAMES;
	hdr = ustack_end ? e->partial_hdr : e->sample_hdr;
	if (e->stacks && frames) {
		stack_arg = stack_ref_arg(e, s, frames);
		if (stack_arg) {
			hdr = plus_one_arg(hdr);
			event_words++;
		}
	}
	p = fxt_writer__begin(e->w, event_words, FXT_REC_EVENT, &ret);
	if (p) {
		p[FXT_SAMPLE_HDR] = hdr;
		p[FXT_SAMPLE_TS] = s->hdr.time_ns;
		p[FXT_SAMPLE_PID] = s->pid;
		p[FXT_SAMPLE_TID] = s->tid;
		p[FXT_SAMPLE_CPU] = e->arg_cpu | (uint64_t)s->hdr.cpu << 32;
		p[FXT_SAMPLE_MODE] = e->arg_mode[s->mode < FXT_PROFILE_NR_MODES ?
						 s->mode : 0];
		p[FXT_SAMPLE_KFRAMES] = e->arg_kframes |
					(uint64_t)s->nr_kernel << 32;
		if (ustack_end)
			p[FXT_SAMPLE_USTACK_END] = ustack_end;
		if (stack_arg)
			p[event_words - 1] = stack_arg;
		ret = fxt_writer__end(e->w, event_words);
	}
	/*
	 * Offer the stack and the copy even when the event was dropped: the
	 * sink counts every record it refuses, and a blob stands on its own.
	 */
	if (frames && !stack_arg)
		ret2 = on_sample_stack(e, s, frames);
	if (s->flags & FXTPROF_SAMPLE_STACK_COPY)
		ret3 = on_stack_copy(e, s);
	return ret ? ret : ret2 ? ret2 : ret3;
}

/* A string of the wait events, looked up (not pinned: they are rare). */
static int str_ref(struct fxt_encoder *e, const char *str,
		   struct fxt_sref *ref)
{
	return fxt_writer__string_ref(e->w, str, strlen(str), ref);
}

/*
 * A wait: a complete event on the thread from when it left its CPU to
 * when it ran again, its stacks by reference (fxt_profile.h).  A wait
 * always shares its stack: a frames blob of its own would read as a
 * sample of the Fuchsia kind.
 */
static int on_offcpu(struct fxt_encoder *e, const struct fxtprof_sample *s)
{
	const struct fxtprof_offcpu *w = fxtprof_sample__offcpu(s);
	size_t frames = (size_t)s->nr_kernel + s->nr_user;
	const char *state = fxt_profile__wait_state_name(w->state);
	struct fxt_sref name, key, val;
	struct fxt_arg args[6];
	struct fxt_event ev = {
		.type = FXT_EVENT_DURATION_COMPLETE,
		.ts = w->start_ns,
		.thread = fxt_tref_inline(s->pid, s->tid),
		.category = e->ref[S_CPU],
		.args = args,
		.payload = s->hdr.time_ns,
	};
	uint64_t stack;
	int ret;

	/* record refuses --off-cpu with --no-shared-stacks. */
	if (!e->stacks)
		return -EOPNOTSUPP;
	if (frames > FXT_MAX_FRAMES)
		frames = FXT_MAX_FRAMES;
	ret = str_ref(e, FXT_PROFILE_EV_OFFCPU, &name);
	if (ret)
		return ret;
	ev.name = name;
	args[ev.nargs++] = arg_u32(e->ref[S_CPU], s->hdr.cpu);
	ret = str_ref(e, FXT_PROFILE_ARG_STATE, &key) ?:
	      str_ref(e, state ? state : "?", &val);
	if (ret)
		return ret;
	args[ev.nargs].name = key;
	args[ev.nargs].type = FXT_ARG_STRING;
	args[ev.nargs++].v.str = val;
	args[ev.nargs++] = arg_u32(e->ref[S_KFRAMES], s->nr_kernel);
	if (w->waker_tid) {
		ret = str_ref(e, FXT_PROFILE_ARG_WAKER_TID, &key);
		if (ret)
			return ret;
		args[ev.nargs++] = arg_u32(key, w->waker_tid);
	}
	if (fxt_profile__ustack_end_is_partial(s->ustack_end)) {
		ret = str_ref(e, FXT_PROFILE_ARG_USTACK_END, &key) ?:
		      str_ref(e, fxt_profile__ustack_end_name(s->ustack_end),
			      &val);
		if (ret)
			return ret;
		args[ev.nargs].name = key;
		args[ev.nargs].type = FXT_ARG_STRING;
		args[ev.nargs++].v.str = val;
	}
	if (frames) {
		/* Its name is pinned with the first definition. */
		stack = stack_ref_arg(e, s, frames);
		if (!stack)
			return -ENOBUFS;
		ret = str_ref(e, FXT_PROFILE_ARG_STACK, &key);
		if (ret)
			return ret;
		args[ev.nargs++] = arg_u32(key, (uint32_t)(stack >> 32));
	}
	return fxt_writer__event(e->w, &ev);
}

static int on_fork(struct fxt_encoder *e, const struct fxtprof_fork *f)
{
	struct fxt_tref parent = fxt_tref_inline(f->parent_pid, f->parent_tid);
	struct fxt_arg args[3];

	args[0] = arg_u32(e->ref[S_CHILD_PID], f->child_pid);
	args[1] = arg_u32(e->ref[S_CHILD_TID], f->child_tid);
	args[2] = arg_u64(e->ref[S_CLONE_FLAGS], f->clone_flags);
	return fxt_writer__instant(e->w, f->hdr.time_ns, &parent,
				   e->ref[S_TASK], e->ref[S_FORK], args, 3);
}

static int on_exec(struct fxt_encoder *e, const struct fxtprof_exec *x)
{
	struct fxt_tref thr = fxt_tref_inline(x->pid, x->tid);
	char fname[FXTPROF_MAX_FILENAME * 3];
	struct fxt_arg args[2];
	size_t flen;

	/* Paths are bytes; FXT strings must be UTF-8. */
	flen = fxt_utf8_sanitize(fname, sizeof(fname), x->filename,
				 x->filename_len);
	args[0].name = e->ref[S_FILENAME];
	args[0].type = FXT_ARG_STRING;
	args[0].v.str = fxt_sref_inline(fname, flen);
	args[1] = arg_u32(e->ref[S_OLD_TID], x->old_tid);
	return fxt_writer__instant(e->w, x->hdr.time_ns, &thr, e->ref[S_TASK],
				   e->ref[S_EXEC], args, 2);
}

static int on_task_exit(struct fxt_encoder *e, const struct fxtprof_exit *x)
{
	struct fxt_tref thr = fxt_tref_inline(x->pid, x->tid);
	struct fxt_arg args[2];

	args[0].name = e->ref[S_EXIT_CODE];
	args[0].type = FXT_ARG_INT32;
	args[0].v.i32 = x->exit_code;
	args[1].name = e->ref[S_GROUP_DEAD];
	args[1].type = FXT_ARG_BOOL;
	args[1].v.b = x->flags & FXTPROF_EXIT_GROUP_DEAD;
	return fxt_writer__instant(e->w, x->hdr.time_ns, &thr, e->ref[S_TASK],
				   e->ref[S_EXIT], args, 2);
}

/*
 * The argument names of the symbol objects, interned when first used (a
 * recording without them stays byte for byte what it was).  A ref lasts
 * for the 63 strings that follow it: one record's worth at least.
 */
static int arg_name(struct fxt_encoder *e, const char *name,
		    struct fxt_arg *a)
{
	return fxt_writer__string_ref(e->w, name, strlen(name), &a->name);
}

static int arg_u32_named(struct fxt_encoder *e, const char *name,
			 uint32_t v, struct fxt_arg *a)
{
	a->type = FXT_ARG_UINT32;
	a->v.u32 = v;
	return arg_name(e, name, a);
}

static int arg_u64_named(struct fxt_encoder *e, const char *name,
			 uint64_t v, struct fxt_arg *a)
{
	a->type = FXT_ARG_UINT64;
	a->v.u64 = v;
	return arg_name(e, name, a);
}

/* The build id as lowercase hex, inline: build ids rarely repeat. */
static int arg_build_id(struct fxt_encoder *e, const uint8_t *id, size_t n,
			char *hex, struct fxt_arg *a)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	a->type = FXT_ARG_STRING;
	a->v.str = fxt_sref_inline(hex, 2 * n);
	return arg_name(e, FXT_PROFILE_ARG_BUILD_ID, a);
}

static int arg_bool_named(struct fxt_encoder *e, const char *name,
			  struct fxt_arg *a)
{
	a->type = FXT_ARG_BOOL;
	a->v.b = true;
	return arg_name(e, name, a);
}

/* A mapping: kernel object 0x80, koid = serial, name = path (inline). */
static int on_mmap(struct fxt_encoder *e, const struct fxtprof_mmap *m)
{
	char name[FXTPROF_MAX_PATH * 3], hex[2 * FXTPROF_BUILD_ID_MAX];
	struct fxt_arg args[8];
	unsigned int n = 0;
	size_t len;
	int ret;

	len = fxt_utf8_sanitize(name, sizeof(name), m->filename,
				m->filename_len);
	if (!len) {
		/* The kernel names anonymous memory; an empty name is ours. */
		memcpy(name, "//anon", 6);
		len = 6;
	}
	ret = arg_u32_named(e, FXT_PROFILE_ARG_PID, m->pid, &args[n++]);
	if (!ret)
		ret = arg_u32_named(e, FXT_PROFILE_ARG_TID, m->tid, &args[n++]);
	if (!ret)
		ret = arg_u64_named(e, FXT_PROFILE_ARG_START, m->start,
				    &args[n++]);
	if (!ret)
		ret = arg_u64_named(e, FXT_PROFILE_ARG_END, m->start + m->len,
				    &args[n++]);
	if (!ret)
		ret = arg_u64_named(e, FXT_PROFILE_ARG_PGOFF, m->pgoff,
				    &args[n++]);
	if (!ret)
		ret = arg_u64_named(e, FXT_PROFILE_ARG_TIME, m->hdr.time_ns,
				    &args[n++]);
	if (!ret && (m->flags & FXTPROF_MMAP_BUILD_ID) && m->build_id_size &&
	    m->build_id_size <= FXTPROF_BUILD_ID_MAX)
		ret = arg_build_id(e, m->build_id, m->build_id_size, hex,
				   &args[n++]);
	if (!ret && (m->flags & FXTPROF_MMAP_INITIAL))
		ret = arg_bool_named(e, FXT_PROFILE_ARG_INITIAL, &args[n++]);
	if (ret)
		return ret;
	return fxt_writer__kobj(e->w, FXT_KOBJ_MAPPING, ++e->mapping_koid,
				fxt_sref_inline(name, len), args, n);
}

/* A kernel image: kernel object 0x81, koid = start, name = its name. */
static int on_kmod(struct fxt_encoder *e, const struct fxtprof_kmod *k)
{
	char name[FXTPROF_MAX_PATH * 3], hex[2 * FXTPROF_BUILD_ID_MAX];
	struct fxt_arg args[3];
	unsigned int n = 0;
	size_t len;
	int ret;

	len = fxt_utf8_sanitize(name, sizeof(name), k->name, k->name_len);
	ret = arg_u64_named(e, FXT_PROFILE_ARG_END, k->end, &args[n++]);
	if (!ret && (k->flags & FXTPROF_KMOD_BUILD_ID) && k->build_id_size &&
	    k->build_id_size <= FXTPROF_BUILD_ID_MAX)
		ret = arg_build_id(e, k->build_id, k->build_id_size, hex,
				   &args[n++]);
	if (!ret && (k->flags & FXTPROF_KMOD_KERNEL))
		ret = arg_bool_named(e, FXT_PROFILE_ARG_KERNEL, &args[n++]);
	if (ret)
		return ret;
	return fxt_writer__kobj(e->w, FXT_KOBJ_KMOD, k->start,
				fxt_sref_inline(name, len), args, n);
}

/* A kernel symbol: kernel object 0x82, koid = address, name inline. */
static int on_ksym(struct fxt_encoder *e, const struct fxtprof_ksym *k)
{
	char name[1024 * 3];
	struct fxt_arg arg;
	size_t len;
	int ret;

	len = fxt_utf8_sanitize(name, sizeof(name), k->name,
				k->name_len < 1024 ? k->name_len : 1024);
	ret = arg_u32_named(e, FXT_PROFILE_ARG_SIZE, k->size, &arg);
	if (ret)
		return ret;
	return fxt_writer__kobj(e->w, FXT_KOBJ_KSYM, k->addr,
				fxt_sref_inline(name, len), &arg, 1);
}

/*
 * A string argument, inline (the machine's names and a cgroup rarely
 * repeat), made valid UTF-8 in @buf when it is not.
 */
static int arg_str_named(struct fxt_encoder *e, const char *name,
			 const char *v, size_t len, char *buf, size_t cap,
			 struct fxt_arg *a)
{
	if (len > FXT_MAX_STRING_LEN)
		len = FXT_MAX_STRING_LEN;
	if (!fxt_utf8_valid(v, len)) {
		len = fxt_utf8_sanitize(buf, cap, v, len);
		v = buf;
	}
	a->type = FXT_ARG_STRING;
	a->v.str = fxt_sref_inline(v, len);
	return arg_name(e, name, a);
}

/*
 * The wall-clock anchor: kernel object 0x83, koid 0, with the machine the
 * recording is made on (uname: host, kernel release, arch), which a host
 * that receives many boards' streams labels their profiles with
 * (Documentation/receive.md, "Fleet").
 */
static int fxt_enc_wall_clock(void *ctx, uint64_t boot_ns,
			      uint64_t realtime_ns)
{
	static const char name[] = FXT_PROFILE_CLOCK_NAME;
	char host[sizeof(((struct utsname *)0)->nodename) * 3];
	char rel[sizeof(((struct utsname *)0)->release) * 3];
	char arch[sizeof(((struct utsname *)0)->machine) * 3];
	struct fxt_encoder *e = ctx;
	struct fxt_arg args[5];
	struct utsname u;
	unsigned int n = 2;
	int ret;

	ret = arg_u64_named(e, FXT_PROFILE_ARG_BOOT_NS, boot_ns, &args[0]);
	if (!ret)
		ret = arg_u64_named(e, FXT_PROFILE_ARG_REALTIME_NS, realtime_ns,
				    &args[1]);
	/* Without uname the anchor still holds: the names are optional. */
	if (!ret && !uname(&u)) {
		ret = arg_str_named(e, FXT_PROFILE_ARG_HOST, u.nodename,
				    strnlen(u.nodename, sizeof(u.nodename)),
				    host, sizeof(host), &args[n++]);
		if (!ret)
			ret = arg_str_named(e, FXT_PROFILE_ARG_KERNEL_RELEASE,
					    u.release,
					    strnlen(u.release, sizeof(u.release)),
					    rel, sizeof(rel), &args[n++]);
		if (!ret)
			ret = arg_str_named(e, FXT_PROFILE_ARG_ARCH, u.machine,
					    strnlen(u.machine, sizeof(u.machine)),
					    arch, sizeof(arch), &args[n++]);
	}
	if (ret)
		return ret;
	return fxt_writer__kobj(e->w, FXT_KOBJ_CLOCK, 0,
				fxt_sref_inline(name, sizeof(name) - 1), args, n);
}

/* ------------------------------------------------------------------ */
/* Scheduling records (FXT record type 8)                              */
/* ------------------------------------------------------------------ */

static int sched_pin(struct fxt_encoder *e)
{
	static const char *const names[] = {
		FXT_PROFILE_ARG_IN_WEIGHT, FXT_PROFILE_ARG_OUT_WEIGHT,
		FXT_PROFILE_ARG_WEIGHT, FXT_PROFILE_ARG_WAKER,
	};
	struct fxt_sref ref[4];
	int ret;

	for (unsigned int i = 0; i < 4; i++) {
		ret = fxt_writer__string_pin(e->w, names[i], strlen(names[i]),
					     &ref[i]);
		if (ret)
			return ret;
	}
	e->arg_in_weight = fxt_arg_hdr32(FXT_ARG_INT32, ref[0].ref, 0);
	e->arg_out_weight = fxt_arg_hdr32(FXT_ARG_INT32, ref[1].ref, 0);
	e->arg_weight = fxt_arg_hdr32(FXT_ARG_INT32, ref[2].ref, 0);
	e->arg_waker = fxt_arg_hdr_koid(ref[3].ref);
	e->sched_pinned = true;
	return 0;
}

/*
 * Perfetto's FXT import skips a thread whose weight is INT32_MIN, Zircon's
 * idle weight: the idle task (tid 0) gets it.  Every other thread carries
 * the kernel's prio (0 .. 139, lower runs first), which is what Perfetto's
 * Linux sched table calls priority; it is not a Zircon fair-share weight.
 */
static uint32_t sched_weight(uint32_t tid, int32_t prio)
{
	return tid ? (uint32_t)prio : (uint32_t)INT32_MIN;
}

/* Context switch: header, ts, outgoing koid, incoming koid, two weights. */
#define SWITCH_WORDS	6

static int on_switch(struct fxt_encoder *e, const struct fxtprof_switch *sw)
{
	uint64_t *p;
	int ret;

	if (!e->sched_pinned && (ret = sched_pin(e)))
		return ret;
	p = fxt_writer__begin(e->w, SWITCH_WORDS, FXT_REC_SCHED, &ret);
	if (!p)
		return ret;
	p[0] = fxt_sched_switch_hdr(SWITCH_WORDS, 2, sw->hdr.cpu,
				    sw->prev_state);
	p[1] = sw->hdr.time_ns;
	p[2] = sw->prev_tid;
	p[3] = sw->next_tid;
	p[4] = e->arg_in_weight |
	       (uint64_t)sched_weight(sw->next_tid, sw->next_prio) << 32;
	p[5] = e->arg_out_weight |
	       (uint64_t)sched_weight(sw->prev_tid, sw->prev_prio) << 32;
	return fxt_writer__end(e->w, SWITCH_WORDS);
}

/* Wakeup: header, ts, woken koid, weight, then the waker koid if known. */
static int on_wakeup(struct fxt_encoder *e, const struct fxtprof_wakeup *wk)
{
	size_t words = wk->waker_tid ? 6 : 4;
	uint64_t *p;
	int ret;

	if (!e->sched_pinned && (ret = sched_pin(e)))
		return ret;
	p = fxt_writer__begin(e->w, words, FXT_REC_SCHED, &ret);
	if (!p)
		return ret;
	p[0] = fxt_sched_wakeup_hdr(words, wk->waker_tid ? 2 : 1,
				    wk->target_cpu);
	p[1] = wk->hdr.time_ns;
	p[2] = wk->tid;
	p[3] = e->arg_weight | (uint64_t)sched_weight(wk->tid, wk->prio) << 32;
	if (wk->waker_tid) {
		p[4] = e->arg_waker;
		p[5] = wk->waker_tid;
	}
	return fxt_writer__end(e->w, words);
}

/*
 * A trigger: an instant event "fxtprof" / "trigger" on the thread that
 * fired it, its name an inline string argument "name".  The two strings
 * are interned when first used, as the symbol objects' are.
 */
static int on_trigger(struct fxt_encoder *e,
		      const struct fxtprof_trigger_rec *t)
{
	static const char trigger_s[] = FXT_PROFILE_EV_TRIGGER,
			  name_s[] = FXT_PROFILE_ARG_NAME;
	struct fxt_tref thr = fxt_tref_inline(t->pid, t->tid);
	char tname[FXTPROF_TRIGGER_NAME_MAX * 3];
	struct fxt_sref name;
	struct fxt_arg arg;
	size_t len;
	int ret;

	ret = fxt_writer__string_ref(e->w, trigger_s, sizeof(trigger_s) - 1,
				     &name);
	if (!ret)
		ret = fxt_writer__string_ref(e->w, name_s, sizeof(name_s) - 1,
					     &arg.name);
	if (ret)
		return ret;
	/* The module allows [A-Za-z0-9._-]; a record is still input. */
	len = fxt_utf8_sanitize(tname, sizeof(tname), t->name,
				t->name_len < FXTPROF_TRIGGER_NAME_MAX ?
				t->name_len : FXTPROF_TRIGGER_NAME_MAX);
	arg.type = FXT_ARG_STRING;
	arg.v.str = fxt_sref_inline(tname, len);
	return fxt_writer__instant(e->w, t->hdr.time_ns, &thr, e->ref[S_META],
				   name, &arg, 1);
}

/*
 * An application's annotation (Documentation/fxt-mapping.md): an event
 * on the thread that wrote it, its category the kind's family, its name
 * the application's.  Region and kernel ends carry their begin's name, so
 * each record stands alone; a section is an async pair keyed by its key,
 * a kernel a duration that carries the Kokkos kernel id.  Names and
 * categories are interned: a region is entered many times.
 */
static int on_annotation(struct fxt_encoder *e,
			 const struct fxtprof_annotation_rec *a)
{
	static const char *const cat_s[FXTPROF_ANNOT_KIND_MAX] = {
		[FXTPROF_ANNOT_REGION_BEGIN] = FXT_PROFILE_CAT_REGION,
		[FXTPROF_ANNOT_REGION_END] = FXT_PROFILE_CAT_REGION,
		[FXTPROF_ANNOT_SECTION_BEGIN] = FXT_PROFILE_CAT_SECTION,
		[FXTPROF_ANNOT_SECTION_END] = FXT_PROFILE_CAT_SECTION,
		[FXTPROF_ANNOT_KERNEL_BEGIN] = FXT_PROFILE_CAT_KERNEL,
		[FXTPROF_ANNOT_KERNEL_END] = FXT_PROFILE_CAT_KERNEL,
		[FXTPROF_ANNOT_EVENT] = FXT_PROFILE_CAT_EVENT,
	};
	static const uint8_t ev_type[FXTPROF_ANNOT_KIND_MAX] = {
		[FXTPROF_ANNOT_REGION_BEGIN] = FXT_EVENT_DURATION_BEGIN,
		[FXTPROF_ANNOT_REGION_END] = FXT_EVENT_DURATION_END,
		[FXTPROF_ANNOT_SECTION_BEGIN] = FXT_EVENT_ASYNC_BEGIN,
		[FXTPROF_ANNOT_SECTION_END] = FXT_EVENT_ASYNC_END,
		[FXTPROF_ANNOT_KERNEL_BEGIN] = FXT_EVENT_DURATION_BEGIN,
		[FXTPROF_ANNOT_KERNEL_END] = FXT_EVENT_DURATION_END,
		[FXTPROF_ANNOT_EVENT] = FXT_EVENT_INSTANT,
	};
	static const char kernel_id_s[] = FXT_PROFILE_ARG_KERNEL_ID;
	struct fxt_event ev = {
		.ts = a->hdr.time_ns,
		.thread = fxt_tref_inline(a->pid, a->tid),
	};
	struct fxt_arg arg;
	int ret;

	/* Validated by libfxtprof; an encoder must not index out of it. */
	if (!a->kind || a->kind >= FXTPROF_ANNOT_KIND_MAX ||
	    a->name_len > FXTPROF_ANNOTATION_NAME_MAX)
		return -EINVAL;
	ev.type = ev_type[a->kind];
	ret = fxt_writer__string_ref(e->w, cat_s[a->kind],
				     strlen(cat_s[a->kind]), &ev.category);
	if (!ret)
		ret = fxt_writer__string_ref(e->w, a->name, a->name_len,
					     &ev.name);
	if (ret)
		return ret;
	switch (a->kind) {
	case FXTPROF_ANNOT_SECTION_BEGIN:
	case FXTPROF_ANNOT_SECTION_END:
		ev.payload = a->key;
		break;
	case FXTPROF_ANNOT_KERNEL_BEGIN:
	case FXTPROF_ANNOT_KERNEL_END:
		ret = fxt_writer__string_ref(e->w, kernel_id_s,
					     sizeof(kernel_id_s) - 1,
					     &arg.name);
		if (ret)
			return ret;
		arg.type = FXT_ARG_UINT64;
		arg.v.u64 = a->key;
		ev.args = &arg;
		ev.nargs = 1;
		break;
	}
	return fxt_writer__event(e->w, &ev);
}

static int counter(struct fxt_encoder *e, uint64_t ts, struct fxt_sref name,
		   const struct fxt_arg *args, unsigned int nargs)
{
	struct fxt_tref self = fxt_tref_inline(e->self_pid, e->self_tid);

	return fxt_writer__counter(e->w, ts, &self, e->ref[S_META], name, args,
				   nargs, 0);
}

/* ------------------------------------------------------------------ */
/* The encoder operations                                              */
/* ------------------------------------------------------------------ */

static int fxt_enc_begin_segment(void *ctx)
{
	struct fxt_encoder *e = ctx;
	int ret;

	fxt_writer__reset_state(e->w);
	e->pinned = false;
	e->sched_pinned = false;
	e->ustack_end_pinned = false;
	e->stack_copy_pinned = false;
	e->stack_refs_pinned = false;
	if (e->stacks)
		stack_refs__reset(e->stacks);
	ret = fxt_writer__prologue(e->w, FXT_ENCODER_PROVIDER_ID,
				   FXT_ENCODER_PROVIDER_NAME, FXT_NS_PER_SEC);
	return ret ? ret : fxt_enc_pin(e);
}

/* Everything but a sample in a pinned segment: rare, kept out of line. */
static __attribute__((noinline)) int
fxt_enc_record_slow(struct fxt_encoder *e, const struct fxtprof_rec_hdr *rec)
{
	int ret;

	if (!e->pinned && (ret = fxt_enc_pin(e)))
		return ret;
	switch (rec->type) {
	case FXTPROF_REC_SAMPLE:
		return on_sample(e, (const void *)rec);
	case FXTPROF_REC_FORK:
		return on_fork(e, (const void *)rec);
	case FXTPROF_REC_EXEC:
		return on_exec(e, (const void *)rec);
	case FXTPROF_REC_EXIT:
		return on_task_exit(e, (const void *)rec);
	case FXTPROF_REC_MMAP:
		return on_mmap(e, (const void *)rec);
	case FXTPROF_REC_KMOD:
		return on_kmod(e, (const void *)rec);
	case FXTPROF_REC_KSYM:
		return on_ksym(e, (const void *)rec);
	case FXTPROF_REC_SWITCH:
		return on_switch(e, (const void *)rec);
	case FXTPROF_REC_WAKEUP:
		return on_wakeup(e, (const void *)rec);
	case FXTPROF_REC_TRIGGER:
		return on_trigger(e, (const void *)rec);
	case FXTPROF_REC_ANNOTATION:
		return on_annotation(e, (const void *)rec);
	case FXTPROF_REC_OFFCPU:
		return on_offcpu(e, (const void *)rec);
	default:
		/* rename, snapshot: only names; flush: nothing. */
		return 0;
	}
}

static int fxt_enc_record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct fxt_encoder *e = ctx;

	if (rec->type == FXTPROF_REC_SAMPLE && e->pinned)
		return on_sample(e, (const void *)rec);
	return fxt_enc_record_slow(e, rec);
}

static int fxt_enc_process_name(void *ctx, uint32_t pid, const char *comm)
{
	struct fxt_encoder *e = ctx;

	return fxt_writer__process_name(e->w, pid, comm, comm_len(comm));
}

/* The process object with its container: cgroup str, nspid i32. */
static int fxt_enc_process_info(void *ctx, uint32_t pid, const char *comm,
				int64_t nspid, const char *cgroup)
{
	struct fxt_encoder *e = ctx;
	char buf[3 * 512];
	struct fxt_arg args[2];
	unsigned int n = 0;
	int ret = 0;

	if (cgroup)
		ret = arg_str_named(e, FXT_PROFILE_ARG_CGROUP, cgroup,
				    strnlen(cgroup, 512), buf, sizeof(buf),
				    &args[n++]);
	if (!ret && nspid >= 0 && nspid <= INT32_MAX) {
		args[n].type = FXT_ARG_INT32;
		args[n].v.i32 = (int32_t)nspid;
		ret = arg_name(e, FXT_PROFILE_ARG_NSPID, &args[n++]);
	}
	if (ret)
		return ret;
	return fxt_writer__process_name_args(e->w, pid, comm, comm_len(comm),
					     args, n);
}

/*
 * A chunk of a collected file (fxt_profile.h, FXT_PROFILE_FILE): a blob
 * record with its name inline, the payload as the caller laid it out.
 */
static int fxt_enc_file_chunk(void *ctx, const void *payload, size_t len)
{
	struct fxt_encoder *e = ctx;
	struct fxt_sref name = fxt_sref_inline(FXT_PROFILE_FILE,
					       strlen(FXT_PROFILE_FILE));
	size_t words = 1 + (name.len + 7) / 8 + (len + 7) / 8;
	uint64_t *p;
	int ret;

	if (len > FXT_MAX_BLOB_LEN)
		return -E2BIG;
	p = fxt_writer__begin(e->w, words, FXT_REC_BLOB, &ret);
	if (!p)
		return ret;
	/* Cannot fail: the name is valid, the length checked above. */
	fxt_enc_blob(p, words, name, FXT_BLOB_DATA, payload, len);
	return fxt_writer__end(e->w, words);
}

/* A JIT function: kernel object 0x84, koid = start, name inline. */
static int fxt_enc_jit_symbol(void *ctx, uint32_t pid, uint64_t start,
			      uint64_t size, const char *name, size_t len)
{
	struct fxt_encoder *e = ctx;
	char buf[3 * 1024];
	struct fxt_arg args[2];
	int ret;

	if (len > 1024)
		len = 1024;
	if (!fxt_utf8_valid(name, len)) {
		len = fxt_utf8_sanitize(buf, sizeof(buf), name, len);
		name = buf;
	}
	ret = arg_u32_named(e, FXT_PROFILE_ARG_PID, pid, &args[0]);
	if (!ret)
		ret = arg_u64_named(e, FXT_PROFILE_ARG_SIZE, size, &args[1]);
	if (ret)
		return ret;
	return fxt_writer__kobj(e->w, FXT_KOBJ_JIT_SYMBOL, start,
				fxt_sref_inline(name, len), args, 2);
}

static int fxt_enc_thread_name(void *ctx, uint32_t pid, uint32_t tid,
			       const char *comm)
{
	struct fxt_encoder *e = ctx;

	return fxt_writer__thread_name(e->w, pid, tid, comm, comm_len(comm));
}

/* A provider buffer-overflow event, then a counter with two totals. */
static int overflow_notice(struct fxt_encoder *e, uint64_t ts,
			   enum fxt_enc_str name, uint64_t records,
			   uint64_t bytes)
{
	struct fxt_arg args[2];
	int ret;

	if (!e->pinned && (ret = fxt_enc_pin(e)))
		return ret;
	ret = fxt_writer__provider_event(e->w, FXT_ENCODER_PROVIDER_ID,
					 FXT_PROVIDER_EVENT_BUFFER_OVERFLOW);
	if (ret)
		return ret;
	args[0] = arg_u64(e->ref[S_RECORDS], records);
	args[1] = arg_u64(e->ref[S_BYTES], bytes);
	return counter(e, ts, e->ref[name], args, 2);
}

static int fxt_enc_kernel_lost(void *ctx, uint64_t ts, uint64_t records,
			       uint64_t bytes)
{
	return overflow_notice(ctx, ts, S_KERNEL_LOST, records, bytes);
}

static int fxt_enc_output_gap(void *ctx, uint64_t ts, uint64_t records,
			      uint64_t bytes)
{
	return overflow_notice(ctx, ts, S_OUTPUT_DROPPED, records, bytes);
}

static int fxt_enc_encode_errors(void *ctx, uint64_t ts, uint64_t records,
				 int last_error)
{
	static const char name_s[] = FXT_PROFILE_EV_ENCODE_ERRORS,
			  err_s[] = FXT_PROFILE_ARG_ERRNO;
	struct fxt_encoder *e = ctx;
	struct fxt_sref name, err_key;
	struct fxt_arg args[2];
	int ret = 0;

	if (!e->pinned)
		ret = fxt_enc_pin(e);
	/* Interned only now: a stream without errors stays byte for byte
	 * what it was. */
	if (!ret)
		ret = fxt_writer__string_ref(e->w, name_s, sizeof(name_s) - 1,
					     &name);
	if (!ret)
		ret = fxt_writer__string_ref(e->w, err_s, sizeof(err_s) - 1,
					     &err_key);
	if (ret)
		return ret;
	args[0] = arg_u64(e->ref[S_RECORDS], records);
	args[1] = arg_u32(err_key, (uint32_t)-last_error);
	return counter(e, ts, name, args, 2);
}

/*
 * The unwinder's totals (fxt_profile.h's fxtprof:unwind), when a user
 * stack was walked with tables: the frames by how they were found, then
 * the samples by how their user stack ended, the ends that had any.
 */
static int unwind_totals(struct fxt_encoder *e, uint64_t ts,
			 const struct fxtprof_stats *total)
{
	const uint64_t frames[] = {
		total->unwind_table_frames, total->unwind_fp_frames,
		total->unwind_rule_frames,
	};
	static const char *const frame_names[] = {
		FXT_PROFILE_ARG_TABLE_FRAMES, FXT_PROFILE_ARG_FP_FRAMES,
		FXT_PROFILE_ARG_RULE_FRAMES,
	};
	char name[32];
	struct fxt_arg args[3 + FXTPROF_USTACK_END_MAX];
	struct fxt_sref ev;
	unsigned int n = 0, i;
	int ret;

	if (!frames[0] && !frames[1] && !frames[2])
		return 0;		/* frame pointers only: nothing to say */
	for (i = 0; i < 3; i++)
		if ((ret = arg_u64_named(e, frame_names[i], frames[i],
					 &args[n++])))
			return ret;
	for (i = 0; i < FXTPROF_USTACK_END_MAX; i++) {
		if (!total->ustack_ends[i])
			continue;
		snprintf(name, sizeof(name), "%s%s", FXT_PROFILE_USTACK_PREFIX,
			 fxt_profile__ustack_end_name(i));
		if ((ret = arg_u64_named(e, name, total->ustack_ends[i],
					 &args[n++])))
			return ret;
	}
	ret = fxt_writer__string_ref(e->w, FXT_PROFILE_EV_UNWIND,
				     strlen(FXT_PROFILE_EV_UNWIND), &ev);
	return ret ? ret : counter(e, ts, ev, args, n);
}

static int fxt_enc_final_stats(void *ctx, uint64_t ts,
			       const struct fxtprof_stats *total)
{
	struct fxt_encoder *e = ctx;
	struct fxt_arg args[4];
	int ret;

	if (!e->pinned && (ret = fxt_enc_pin(e)))
		return ret;
	args[0] = arg_u64(e->ref[S_SAMPLES], total->samples);
	args[1] = arg_u64(e->ref[S_RECORDS], total->records);
	args[2] = arg_u64(e->ref[S_LOST_RECORDS], total->lost_records);
	args[3] = arg_u64(e->ref[S_LOST_UNREPORTED], total->lost_unreported);
	ret = counter(e, ts, e->ref[S_STATS], args, 4);
	return ret ? ret : unwind_totals(e, ts, total);
}

static const struct encoder_ops fxt_encoder_ops = {
	.begin_segment = fxt_enc_begin_segment,
	.wall_clock = fxt_enc_wall_clock,
	.record = fxt_enc_record,
	.process_name = fxt_enc_process_name,
	.thread_name = fxt_enc_thread_name,
	.process_info = fxt_enc_process_info,
	.jit_symbol = fxt_enc_jit_symbol,
	.file_chunk = fxt_enc_file_chunk,
	.kernel_lost = fxt_enc_kernel_lost,
	.output_gap = fxt_enc_output_gap,
	.encode_errors = fxt_enc_encode_errors,
	.final_stats = fxt_enc_final_stats,
};

struct encoder fxt_encoder__encoder(struct fxt_encoder *e)
{
	struct encoder enc = { .ops = &fxt_encoder_ops, .ctx = e };

	return enc;
}

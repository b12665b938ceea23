// SPDX-License-Identifier: GPL-2.0-only
/*
 * translate.c - see translate.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "translate.h"

static size_t comm_len(const char *comm)
{
	return strnlen(comm, FXTPROF_COMM_LEN);
}

/*
 * Fixed names are pinned in the string table once per stream; a new stream
 * (reset_state after a reconnect) bumps the generation and re-pins them.
 */
static int translator_refs(struct translator *t)
{
	static const char *const modes[4] = { "unknown", "kernel", "user",
					       "idle" };
	struct {
		struct fxt_sref *ref;
		const char *s;
	} pins[] = {
		{ &t->s_cpu, "cpu" }, { &t->s_sample, "sample" },
		{ &t->s_task, "task" }, { &t->s_fork, "fork" },
		{ &t->s_exec, "exec" }, { &t->s_exit, "exit" },
		{ &t->s_mode[0], modes[0] }, { &t->s_mode[1], modes[1] },
		{ &t->s_mode[2], modes[2] }, { &t->s_mode[3], modes[3] },
		{ &t->s_kframes, "kframes" }, { &t->s_child_pid, "child_pid" },
		{ &t->s_child_tid, "child_tid" },
		{ &t->s_clone_flags, "clone_flags" },
		{ &t->s_filename, "filename" }, { &t->s_old_tid, "old_tid" },
		{ &t->s_exit_code, "exit_code" },
		{ &t->s_group_dead, "group_dead" }, { &t->s_meta, "fxtprof" },
		{ &t->s_kernel_lost, "fxtprof:kernel_lost" },
		{ &t->s_records, "records" }, { &t->s_bytes, "bytes" },
		{ &t->s_out_dropped, "fxtprof:output_dropped" },
		{ &t->s_stats, "fxtprof:stats" }, { &t->s_samples, "samples" },
		{ &t->s_lost_unreported, "lost_unreported" },
		{ &t->s_mode_key, "mode" }, { &t->s_lost_records, "lost_records" },
	};
	size_t i;
	int ret;

	if (t->generation == fxt_writer__generation(t->w) + 1)
		return 0;
	for (i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		ret = fxt_writer__string_pin(t->w, pins[i].s, strlen(pins[i].s),
					     pins[i].ref);
		if (ret)
			return ret;
	}
	/* +1 so that a zeroed translator never looks up to date. */
	t->generation = fxt_writer__generation(t->w) + 1;
	return 0;
}

int translator__init(struct translator *t, struct fxt_writer *w)
{
	memset(t, 0, sizeof(*t));
	t->w = w;
	t->self_pid = (uint64_t)getpid();
	t->self_tid = (uint64_t)gettid();
	name_table__init(&t->names);
	return 0;
}

void translator__fini(struct translator *t)
{
	name_table__fini(&t->names);
}

int translator__prologue(struct translator *t)
{
	int ret = fxt_writer__prologue(t->w, TRANSLATE_PROVIDER_ID,
				       TRANSLATE_PROVIDER_NAME, FXT_NS_PER_SEC);

	return ret ? ret : translator_refs(t);
}

static int replay_process(void *ctx, uint32_t pid, uint32_t tid,
			  const char *comm)
{
	struct translator *t = ctx;

	(void)tid;
	return fxt_writer__process_name(t->w, pid, comm, comm_len(comm));
}

static int replay_thread(void *ctx, uint32_t pid, uint32_t tid,
			 const char *comm)
{
	struct translator *t = ctx;

	return fxt_writer__thread_name(t->w, pid, tid, comm, comm_len(comm));
}

int translator__new_stream(void *ctx)
{
	struct translator *t = ctx;
	int ret;

	fxt_writer__reset_state(t->w);
	ret = translator__prologue(t);
	/* Processes first: thread records refer to their process. */
	if (!ret)
		ret = name_table__for_each_process(&t->names, replay_process, t);
	if (!ret)
		ret = name_table__for_each_thread(&t->names, replay_thread, t);
	return ret;
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

static int names(struct translator *t, uint32_t pid, uint32_t tid,
		 const char *process_comm, const char *comm)
{
	int ret = 0;

	/* Remembered even if the output drops the record: a new stream
	 * replays the latest names (an allocation failure only loses that). */
	if (process_comm)
		name_table__set_process(&t->names, pid, process_comm);
	name_table__set_thread(&t->names, pid, tid, comm);
	if (process_comm)
		ret = fxt_writer__process_name(t->w, pid, process_comm,
					       comm_len(process_comm));
	if (!ret)
		ret = fxt_writer__thread_name(t->w, pid, tid, comm,
					      comm_len(comm));
	return ret;
}

static int on_sample(struct translator *t, const struct fxtprof_sample *s)
{
	struct fxt_tref thr = fxt_tref_inline(s->pid, s->tid);
	struct fxt_arg args[3];
	int ret, ret2;

	args[0] = arg_u32(t->s_cpu, s->hdr.cpu);
	args[1].name = t->s_mode_key;
	args[1].type = FXT_ARG_STRING;
	args[1].v.str = t->s_mode[s->mode < 4 ? s->mode : 0];
	args[2] = arg_u32(t->s_kframes, s->nr_kernel);
	ret = fxt_writer__instant(t->w, s->hdr.time_ns, &thr, t->s_cpu,
				  t->s_sample, args, 3);
	if (!(s->nr_kernel + s->nr_user))
		return ret;
	/*
	 * Offer the stack even when the event was dropped: the output counts
	 * every record it refuses, and a stack blob stands on its own.
	 * __u64 and uint64_t have the same width but not always the same type.
	 */
	ret2 = fxt_writer__stack_sample(t->w, s->hdr.time_ns, s->pid, s->tid,
					(const uint64_t *)s->ips,
					s->nr_kernel + s->nr_user);
	return ret ? ret : ret2;
}

static int on_fork(struct translator *t, const struct fxtprof_fork *f)
{
	struct fxt_tref parent = fxt_tref_inline(f->parent_pid, f->parent_tid);
	bool new_process = f->child_pid == f->child_tid;
	struct fxt_arg args[3];
	int ret;

	ret = names(t, f->child_pid, f->child_tid,
		    new_process ? f->comm : NULL, f->comm);
	if (ret)
		return ret;
	args[0] = arg_u32(t->s_child_pid, f->child_pid);
	args[1] = arg_u32(t->s_child_tid, f->child_tid);
	args[2] = arg_u64(t->s_clone_flags, f->clone_flags);
	return fxt_writer__instant(t->w, f->hdr.time_ns, &parent, t->s_task,
				   t->s_fork, args, 3);
}

static int on_exec(struct translator *t, const struct fxtprof_exec *e)
{
	struct fxt_tref thr = fxt_tref_inline(e->pid, e->tid);
	char fname[FXTPROF_MAX_FILENAME * 3];
	struct fxt_arg args[2];
	size_t flen;
	int ret;

	ret = names(t, e->pid, e->tid, e->comm, e->comm);
	if (ret)
		return ret;
	/* Paths are bytes; FXT strings must be UTF-8. */
	flen = fxt_utf8_sanitize(fname, sizeof(fname), e->filename,
				 e->filename_len);
	args[0].name = t->s_filename;
	args[0].type = FXT_ARG_STRING;
	args[0].v.str = fxt_sref_inline(fname, flen);
	args[1] = arg_u32(t->s_old_tid, e->old_tid);
	return fxt_writer__instant(t->w, e->hdr.time_ns, &thr, t->s_task,
				   t->s_exec, args, 2);
}

static int on_exit(struct translator *t, const struct fxtprof_exit *x)
{
	struct fxt_tref thr = fxt_tref_inline(x->pid, x->tid);
	struct fxt_arg args[2];

	name_table__remove_thread(&t->names, x->tid);
	if (x->flags & FXTPROF_EXIT_GROUP_DEAD)
		name_table__remove_process(&t->names, x->pid);
	args[0].name = t->s_exit_code;
	args[0].type = FXT_ARG_INT32;
	args[0].v.i32 = x->exit_code;
	args[1].name = t->s_group_dead;
	args[1].type = FXT_ARG_BOOL;
	args[1].v.b = x->flags & FXTPROF_EXIT_GROUP_DEAD;
	return fxt_writer__instant(t->w, x->hdr.time_ns, &thr, t->s_task,
				   t->s_exit, args, 2);
}

static int counter(struct translator *t, uint64_t ts, struct fxt_sref name,
		   const struct fxt_arg *args, unsigned int nargs)
{
	struct fxt_tref self = fxt_tref_inline(t->self_pid, t->self_tid);

	return fxt_writer__counter(t->w, ts, &self, t->s_meta, name, args,
				   nargs, 0);
}

static int on_lost(struct translator *t, const struct fxtprof_lost *l)
{
	struct fxt_arg args[2];
	int ret;

	t->st.kernel_lost_records += l->records;
	t->st.kernel_lost_bytes += l->bytes;
	ret = fxt_writer__provider_event(t->w, TRANSLATE_PROVIDER_ID,
					 FXT_PROVIDER_EVENT_BUFFER_OVERFLOW);
	if (ret)
		return ret;
	args[0] = arg_u64(t->s_records, t->st.kernel_lost_records);
	args[1] = arg_u64(t->s_bytes, t->st.kernel_lost_bytes);
	return counter(t, l->hdr.time_ns, t->s_kernel_lost, args, 2);
}

int translator__record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct translator *t = ctx;
	int ret = translator_refs(t);

	/* Newer record types are skipped: the ABI lets them be added. */
	if (rec->type >= FXTPROF_REC_MAX)
		return 0;
	t->st.records[rec->type]++;
	if (ret)
		goto out;
	switch (rec->type) {
	case FXTPROF_REC_SAMPLE:
		ret = on_sample(t, (const void *)rec);
		break;
	case FXTPROF_REC_FORK:
		ret = on_fork(t, (const void *)rec);
		break;
	case FXTPROF_REC_EXEC:
		ret = on_exec(t, (const void *)rec);
		break;
	case FXTPROF_REC_EXIT:
		ret = on_exit(t, (const void *)rec);
		break;
	case FXTPROF_REC_RENAME: {
		const struct fxtprof_rename *r = (const void *)rec;

		ret = names(t, r->pid, r->tid, r->pid == r->tid ? r->comm : NULL,
			    r->comm);
		break;
	}
	case FXTPROF_REC_SNAPSHOT: {
		const struct fxtprof_snapshot *s = (const void *)rec;

		ret = names(t, s->pid, s->tid,
			    s->pid == s->tid ? s->process_comm : NULL, s->comm);
		break;
	}
	case FXTPROF_REC_LOST:
		ret = on_lost(t, (const void *)rec);
		break;
	case FXTPROF_REC_FLUSH:
		break;
	}
out:
	/*
	 * An output that drops a record has counted it (-ENOBUFS); anything
	 * else is the encoder's failure, counted apart so that the summary,
	 * the exit status and the stream can tell.  Keep draining either way.
	 */
	if (ret && ret != -ENOBUFS) {
		t->st.encode_errors++;
		t->st.last_encode_error = ret;
	}
	return 0;
}

int translator__encode_errors_notice(struct translator *t, uint64_t ts)
{
	static const char name_s[] = "fxtprof:encode_errors", err_s[] = "errno";
	struct fxt_sref name, err_key;
	struct fxt_arg args[2];
	int ret;

	if (t->st.encode_errors == t->st.encode_errors_announced)
		return 0;
	ret = translator_refs(t);
	/* Interned only now: a stream without errors stays byte for byte
	 * what it was. */
	if (!ret)
		ret = fxt_writer__string_ref(t->w, name_s, sizeof(name_s) - 1,
					     &name);
	if (!ret)
		ret = fxt_writer__string_ref(t->w, err_s, sizeof(err_s) - 1,
					     &err_key);
	if (ret)
		return ret;
	args[0] = arg_u64(t->s_records, t->st.encode_errors);
	args[1] = arg_u32(err_key, (uint32_t)-t->st.last_encode_error);
	ret = counter(t, ts, name, args, 2);
	if (!ret)
		t->st.encode_errors_announced = t->st.encode_errors;
	return ret;
}

int translator__output_gap(struct translator *t, uint64_t ts,
			   uint64_t dropped_records, uint64_t dropped_bytes)
{
	struct fxt_arg args[2];
	int ret = translator_refs(t);

	if (!ret)
		ret = fxt_writer__provider_event(t->w, TRANSLATE_PROVIDER_ID,
					FXT_PROVIDER_EVENT_BUFFER_OVERFLOW);
	if (ret)
		return ret;
	args[0] = arg_u64(t->s_records, dropped_records);
	args[1] = arg_u64(t->s_bytes, dropped_bytes);
	return counter(t, ts, t->s_out_dropped, args, 2);
}

int translator__final_stats(struct translator *t, uint64_t ts,
			    const struct fxtprof_stats *total)
{
	struct fxt_arg args[4];
	int ret = translator_refs(t);

	if (ret)
		return ret;
	args[0] = arg_u64(t->s_samples, total->samples);
	args[1] = arg_u64(t->s_records, total->records);
	args[2] = arg_u64(t->s_lost_records, total->lost_records);
	args[3] = arg_u64(t->s_lost_unreported, total->lost_unreported);
	return counter(t, ts, t->s_stats, args, 4);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * stream_state.c - see stream_state.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "stream_state.h"
#include "transport/clock.h"

void stream_state__init(struct stream_state *s, struct encoder enc,
			struct sink *sink)
{
	memset(s, 0, sizeof(*s));
	s->enc = enc;
	s->sink = sink;
	name_table__init(&s->names);
	symbol_tables__init(&s->syms);
}

void stream_state__fini(struct stream_state *s)
{
	name_table__fini(&s->names);
	symbol_tables__fini(&s->syms);
	recent_exits__fini(&s->exits);
}

void stream_state__set_ksym_lookup(struct stream_state *s,
				   stream_ksym_lookup_fn fn, void *ctx)
{
	s->ksym_lookup = fn;
	s->ksym_ctx = ctx;
}

void stream_state__set_proc_lookup(struct stream_state *s,
				   stream_proc_lookup_fn fn, void *ctx)
{
	s->proc_lookup = fn;
	s->proc_ctx = ctx;
}

void stream_state__set_exit_observer(struct stream_state *s,
				     stream_exit_fn fn, void *ctx)
{
	s->on_exit = fn;
	s->exit_ctx = ctx;
}

void stream_state__set_trigger_observer(struct stream_state *s,
					stream_trigger_fn fn, void *ctx)
{
	s->on_trigger = fn;
	s->trigger_ctx = ctx;
}

/* -ENOBUFS is the sink's drop, already counted there; the rest is ours. */
static int count_error(struct stream_state *s, int ret)
{
	if (ret && ret != -ENOBUFS) {
		s->st.encode_errors++;
		s->st.last_encode_error = ret;
	}
	return ret;
}

/* The process's name, with its container when it is known. */
static int write_process(struct stream_state *s, uint32_t pid,
			 const char *comm)
{
	const struct name_entry *e = name_table__process(&s->names, pid);

	if (e && e->has_info && s->enc.ops->process_info)
		return s->enc.ops->process_info(s->enc.ctx, pid, comm,
						e->nspid, e->cgroup);
	return s->enc.ops->process_name(s->enc.ctx, pid, comm);
}

static int replay_process(void *ctx, uint32_t pid, uint32_t tid,
			  const char *comm)
{
	(void)tid;
	return write_process(ctx, pid, comm);
}

/*
 * Read process @pid's container if it has none yet (or @again, at its
 * exec).  A process that exited first is counted, not an error: its
 * records still name it.
 */
static void look_up_process(struct stream_state *s, uint32_t pid, bool again)
{
	const struct name_entry *e = name_table__process(&s->names, pid);
	char cgroup[512];
	int64_t nspid = -1;
	int ret;

	if (!s->proc_lookup || !e || (e->has_info && !again) || !pid)
		return;
	cgroup[0] = '\0';
	ret = s->proc_lookup(s->proc_ctx, pid, &nspid, cgroup, sizeof(cgroup));
	if (ret == -ESRCH) {
		/* Gone before its exec was read: it keeps what it had. */
		if (!e->has_info)
			s->st.proc_gone++;
	} else if (ret) {
		s->st.proc_unreadable++;
	} else {
		s->st.proc_infos++;
		count_error(s, name_table__set_process_info(&s->names, pid,
				nspid, cgroup[0] ? cgroup : NULL));
	}
}

static int replay_thread(void *ctx, uint32_t pid, uint32_t tid,
			 const char *comm)
{
	struct stream_state *s = ctx;

	return s->enc.ops->thread_name(s->enc.ctx, pid, tid, comm);
}

static int replay_symbols(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct stream_state *s = ctx;

	return s->enc.ops->record(s->enc.ctx, rec);
}

/*
 * The realtime read between two boot-time reads, paired with their
 * midpoint: off by at most half the time between them, a few hundred
 * nanoseconds.
 */
void stream_state__anchor_wall_clock(struct stream_state *s)
{
	uint64_t before = clock_ns(CLOCK_BOOTTIME);
	uint64_t real = clock_ns(CLOCK_REALTIME);
	uint64_t after = clock_ns(CLOCK_BOOTTIME);

	s->wall_clock.boot_ns = before + (after - before) / 2;
	s->wall_clock.realtime_ns = real;
	s->wall_clock.set = true;
}

/* The idle task's name, as Perfetto's convention has it. */
static const char idle_comm[FXTPROF_COMM_LEN] = "swapper";

int stream_state__sync(struct stream_state *s)
{
	int ret;

	if (s->sink ? !sink__segment_wanted(s->sink) : s->st.segments)
		return 0;
	/*
	 * Begun even if part of it fails: the segment is whatever follows,
	 * and asking again for every record would not make it better.
	 */
	if (s->sink)
		sink__segment_begun(s->sink);
	s->st.segments++;
	symbol_tables__begin_segment(&s->syms);
	ret = s->enc.ops->begin_segment(s->enc.ctx);
	if (!ret && s->wall_clock.set)
		ret = s->enc.ops->wall_clock(s->enc.ctx, s->wall_clock.boot_ns,
					     s->wall_clock.realtime_ns);
	if (!ret)
		ret = s->enc.ops->process_name(s->enc.ctx, 0, idle_comm);
	if (!ret)
		ret = s->enc.ops->thread_name(s->enc.ctx, 0, 0, idle_comm);
	/* Processes first: thread records refer to their process. */
	if (!ret)
		ret = name_table__for_each_process(&s->names, replay_process, s);
	if (!ret)
		ret = name_table__for_each_thread(&s->names, replay_thread, s);
	/*
	 * Then what names their addresses, before any sample needs it.  Not
	 * the kernel symbols: each sample brings the ones it needs.
	 */
	if (!ret)
		ret = symbol_tables__for_each(&s->syms, replay_symbols, s);
	return count_error(s, ret);
}

static int names(struct stream_state *s, uint64_t ts, uint32_t pid,
		 uint32_t tid, const char *process_comm, const char *comm,
		 bool exec)
{
	bool stale_process = false, stale_thread = false;
	int ret = 0;

	/*
	 * Remembered even if the output drops the record: a new segment
	 * replays the latest names (an allocation failure only loses that).
	 * Not for a thread or process whose exit came first (out of order,
	 * recent_exits.h): its names would never be forgotten.  A name older
	 * than the one in effect (a fork drained after its child's rename)
	 * is not written: it would read as the newer.
	 */
	if (process_comm && !recent_exits__process_gone(&s->exits, pid, ts))
		stale_process = name_table__set_process(&s->names, pid,
							process_comm, ts) == 1;
	if (!recent_exits__thread_gone(&s->exits, tid, ts))
		stale_thread = name_table__set_thread(&s->names, pid, tid,
						      comm, ts) == 1;
	if (process_comm && !stale_process) {
		look_up_process(s, pid, exec);
		ret = write_process(s, pid, process_comm);
	}
	if (!ret && !stale_thread)
		ret = s->enc.ops->thread_name(s->enc.ctx, pid, tid, comm);
	return ret;
}

/* The KSYM record of a function the lookup found, kept in the table. */
static int add_ksym(struct stream_state *s, const struct stream_ksym *k,
		    struct table_ksym **out)
{
	union {
		struct fxtprof_ksym r;
		uint64_t w[(sizeof(struct fxtprof_ksym) + 512) / 8];
	} b;
	size_t len = strnlen(k->name, 511);
	size_t nsyms = s->syms.nksyms;
	int ret;

	memset(&b.r, 0, sizeof(b.r));
	b.r.hdr.size = (uint32_t)(sizeof(b.r) + ((len + 7) & ~(size_t)7));
	b.r.hdr.type = FXTPROF_REC_KSYM;
	b.r.addr = k->addr;
	b.r.size = k->size;
	b.r.name_len = (uint16_t)len;
	memcpy(b.r.name, k->name, len);
	memset(b.r.name + len, 0, ((len + 7) & ~(size_t)7) - len);
	ret = symbol_tables__add_ksym(&s->syms, &b.r, out);
	if (!ret && s->syms.nksyms > nsyms)
		s->st.ksyms++;
	return ret;
}

/*
 * Every function the sample's kernel frames hit that this segment has not
 * written yet, named before it.  The table answers for the functions seen
 * before; the source's lookup only for new ones.
 */
static void name_kernel_frames(struct stream_state *s,
			       const struct fxtprof_sample *smp)
{
	struct table_ksym *e;
	struct stream_ksym k;

	for (unsigned int i = 0; i < smp->nr_kernel; i++) {
		e = symbol_tables__find_ksym(&s->syms, smp->ips[i]);
		if (!e) {
			if (!s->ksym_lookup)
				continue;
			if (!s->ksym_lookup(s->ksym_ctx, smp->ips[i], &k)) {
				s->st.ksym_misses++;
				continue;
			}
			if (count_error(s, add_ksym(s, &k, &e)))
				continue;
		}
		if (e->written == s->syms.segment)
			continue;
		/*
		 * Marked even if the output drops it, as names are: it is
		 * then missing from this segment only, as the sample that
		 * needed it.
		 */
		e->written = s->syms.segment;
		s->st.records[FXTPROF_REC_KSYM]++;
		count_error(s, s->enc.ops->record(s->enc.ctx, &e->rec->hdr));
	}
}

static int state_record(struct stream_state *s,
			const struct fxtprof_rec_hdr *rec)
{
	void *enc = s->enc.ctx;
	int ret = 0;

	switch (rec->type) {
	case FXTPROF_REC_SAMPLE:
	case FXTPROF_REC_OFFCPU: {	/* laid out as a sample */
		const struct fxtprof_sample *smp = (const void *)rec;

		if (smp->nr_kernel && (s->ksym_lookup || s->syms.nksyms))
			name_kernel_frames(s, smp);
		break;
	}
	case FXTPROF_REC_MMAP: {
		const struct fxtprof_mmap *m = (const void *)rec;

		/* A table failure only loses the replay of this mapping. */
		if (!recent_exits__process_gone(&s->exits, m->pid,
						rec->time_ns))
			symbol_tables__add_mapping(&s->syms, m);
		break;
	}
	case FXTPROF_REC_KMOD:
		symbol_tables__add_kmod(&s->syms, (const void *)rec);
		break;
	case FXTPROF_REC_KSYM: {
		struct table_ksym *e;

		/* Written below, so this segment has it. */
		if (!symbol_tables__add_ksym(&s->syms, (const void *)rec, &e))
			e->written = s->syms.segment;
		break;
	}
	case FXTPROF_REC_FORK: {
		const struct fxtprof_fork *f = (const void *)rec;

		if (f->child_pid == f->child_tid &&
		    !recent_exits__process_gone(&s->exits, f->child_pid,
						rec->time_ns))
			symbol_tables__fork(&s->syms, f->parent_pid,
					    f->child_pid);
		ret = names(s, rec->time_ns, f->child_pid, f->child_tid,
			    f->child_pid == f->child_tid ? f->comm : NULL,
			    f->comm, false);
		break;
	}
	case FXTPROF_REC_EXEC: {
		const struct fxtprof_exec *e = (const void *)rec;

		/*
		 * The old image's mappings are not dropped here: the new
		 * image was mapped before this record's time, and the point
		 * where the old one went is not in the record.  New mappings
		 * replace the old ones they overlap.
		 */
		ret = names(s, rec->time_ns, e->pid, e->tid, e->comm, e->comm,
			    true);
		break;
	}
	case FXTPROF_REC_EXIT: {
		const struct fxtprof_exit *x = (const void *)rec;

		name_table__remove_thread(&s->names, x->tid);
		count_error(s, recent_exits__add_thread(&s->exits, x->tid,
							rec->time_ns));
		if (x->flags & FXTPROF_EXIT_GROUP_DEAD) {
			name_table__remove_process(&s->names, x->pid);
			symbol_tables__drop_mappings(&s->syms, x->pid,
						     UINT64_MAX);
			count_error(s, recent_exits__add_process(&s->exits,
								 x->pid,
								 rec->time_ns));
		}
		break;
	}
	case FXTPROF_REC_RENAME: {
		const struct fxtprof_rename *r = (const void *)rec;

		return names(s, rec->time_ns, r->pid, r->tid,
			     r->pid == r->tid ? r->comm : NULL, r->comm,
			     false);
	}
	case FXTPROF_REC_SNAPSHOT: {
		const struct fxtprof_snapshot *n = (const void *)rec;

		return names(s, rec->time_ns, n->pid, n->tid,
			     n->pid == n->tid ? n->process_comm : NULL,
			     n->comm, false);
	}
	case FXTPROF_REC_LOST: {
		const struct fxtprof_lost *l = (const void *)rec;

		s->st.kernel_lost_records += l->records;
		s->st.kernel_lost_bytes += l->bytes;
		return s->enc.ops->kernel_lost(enc, l->hdr.time_ns,
					       s->st.kernel_lost_records,
					       s->st.kernel_lost_bytes);
	}
	case FXTPROF_REC_FLUSH:
		return 0;
	}
	if (ret)
		return ret;
	return s->enc.ops->record(enc, rec);
}

int stream_state__record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct stream_state *s = ctx;
	uint32_t exit_pid = 0;
	int64_t exit_nspid = -1;

	/* Newer record types are skipped: the ABI lets them be added. */
	if (rec->type >= FXTPROF_REC_MAX)
		return 0;
	s->st.records[rec->type]++;
	stream_state__sync(s);
	if (rec->type == FXTPROF_REC_EXIT && s->on_exit &&
	    (((const struct fxtprof_exit *)rec)->flags &
	     FXTPROF_EXIT_GROUP_DEAD)) {
		const struct fxtprof_exit *x = (const void *)rec;
		const struct name_entry *e = name_table__process(&s->names,
								 x->pid);

		exit_pid = x->pid;
		exit_nspid = e && e->has_info ? e->nspid : -1;
	}
	/*
	 * An output that drops a record has counted it; anything else is
	 * the encoder's failure, counted apart so that the summary, the exit
	 * status and the stream can tell.  Keep draining either way.
	 */
	count_error(s, state_record(s, rec));
	if (rec->type == FXTPROF_REC_TRIGGER && s->on_trigger)
		s->on_trigger(s->trigger_ctx, (const void *)rec);
	if (exit_pid)
		s->on_exit(s->exit_ctx, exit_pid, exit_nspid);
	return 0;
}

int stream_state__jit_symbol(struct stream_state *s, uint32_t pid,
			     uint64_t start, uint64_t size, const char *name,
			     size_t len)
{
	int ret;

	if (!s->enc.ops->jit_symbol)
		return -EOPNOTSUPP;
	stream_state__sync(s);
	ret = s->enc.ops->jit_symbol(s->enc.ctx, pid, start, size, name, len);
	if (!ret)
		s->st.jit_symbols++;
	return count_error(s, ret);
}

int stream_state__file_chunk(struct stream_state *s, const void *payload,
			     size_t len)
{
	if (!s->enc.ops->file_chunk)
		return -EOPNOTSUPP;
	stream_state__sync(s);
	return count_error(s, s->enc.ops->file_chunk(s->enc.ctx, payload, len));
}

int stream_state__announce_gap(struct stream_state *s, uint64_t ts)
{
	const struct sink_stats *st;
	int ret;

	stream_state__sync(s);
	if (!s->sink || !sink__gap_pending(s->sink))
		return 0;
	st = sink__stats(s->sink);
	ret = s->enc.ops->output_gap(s->enc.ctx, ts, st->dropped_records,
				     st->dropped_bytes);
	if (ret)
		return count_error(s, ret);
	sink__gap_announced(s->sink);
	return 1;
}

int stream_state__announce_errors(struct stream_state *s, uint64_t ts)
{
	int ret;

	stream_state__sync(s);
	if (s->st.encode_errors == s->st.encode_errors_announced)
		return 0;
	ret = s->enc.ops->encode_errors(s->enc.ctx, ts, s->st.encode_errors,
					s->st.last_encode_error);
	if (!ret)
		s->st.encode_errors_announced = s->st.encode_errors;
	/* Not counted again: it would announce itself forever. */
	return ret;
}

int stream_state__final_stats(struct stream_state *s, uint64_t ts,
			      const struct fxtprof_stats *total)
{
	stream_state__sync(s);
	return count_error(s, s->enc.ops->final_stats(s->enc.ctx, ts, total));
}

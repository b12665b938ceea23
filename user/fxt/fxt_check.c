// SPDX-License-Identifier: MIT
/*
 * fxt_check.c - validation rules for FXT streams we produce.
 *
 * The strict reader already enforces framing and table rules (zero-size
 * records, overruns, unregistered string/thread indices, UTF-8, provider
 * section without info, init value 0).  This file adds the ordering and
 * "what Perfetto and the Fuchsia readers actually import" rules of
 * fxt-format.md §3 and §5.  Errors stop at the first violation; warnings
 * (constructs importers survive but we never emit) go to a callback.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_internal.h"
#include "fxt_profile.h"
#include "fxt_reader.h"
#include "fxt_spans.h"
#include "util/hmap.h"

#define MAX_SEEN_PROVIDERS	64

struct fxt_checker {
	struct fxt_reader *reader;
	fxt_warn_fn warn;
	void *warn_ctx;
	int err;
	struct fxt_error error;
	struct fxt_check_stats stats;
	uint32_t seen_ids[MAX_SEEN_PROVIDERS];
	unsigned int nseen;
	uint8_t head[8];		/* first bytes, for magic-first */
	size_t nhead;
	/* tid -> pid declared by thread kernel objects */
	struct hmap tids;
	/*
	 * Per CPU, the thread the last context switch put on it, for the
	 * chain rule; forgotten at a buffer-overflow notice (records were
	 * lost) and at a new segment's magic.
	 */
	struct sched_cpu {
		uint64_t in_tid;
		int64_t ns;
		bool valid;
	} *cpus;
	size_t ncpus;
	/* Duration and async begin/end pairs, judged per segment. */
	struct fxt_spans *spans;
	uint64_t spans_skipped;		/* events not kept this segment */
};

/* The pid thread objects gave @tid, false if none did. */
static bool tid_find(const struct fxt_checker *c, uint64_t tid, uint64_t *pid)
{
	uint64_t *v = hmap__get(&c->tids, tid);

	if (v)
		*pid = *v;
	return v;
}

/*
 * Remember the latest pid of tid; memory failure only loses the hint.
 * tid 0 is the idle thread's, in every process: not remembered.
 */
static void tid_set(struct fxt_checker *c, uint64_t tid, uint64_t pid)
{
	if (tid)
		hmap__put(&c->tids, tid, pid);
}

int fxt_checker__new(fxt_warn_fn warn, void *ctx, struct fxt_checker **out)
{
	struct fxt_checker *c;
	int err;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = fxt_reader__new(0, &c->reader);
	if (err)
		goto free_checker;
	err = fxt_spans__new(&c->spans);
	if (err)
		goto free_reader;
	c->warn = warn;
	c->warn_ctx = ctx;
	*out = c;
	return 0;

free_reader:
	fxt_reader__free(c->reader);
free_checker:
	free(c);
	return err;
}

void fxt_checker__free(struct fxt_checker *c)
{
	if (!c)
		return;
	fxt_reader__free(c->reader);
	fxt_spans__free(c->spans);
	hmap__free(&c->tids);
	free(c->cpus);
	free(c);
}

const struct fxt_error *fxt_checker__error(const struct fxt_checker *c)
{
	return &c->error;
}

const struct fxt_check_stats *fxt_checker__stats(const struct fxt_checker *c)
{
	return &c->stats;
}

__attribute__((format(printf, 4, 5)))
static int violation(struct fxt_checker *c, uint64_t offset, const char *rule,
		     const char *fmt, ...)
{
	va_list ap;

	c->error.offset = offset;
	c->error.rule = rule;
	va_start(ap, fmt);
	vsnprintf(c->error.msg, sizeof(c->error.msg), fmt, ap);
	va_end(ap);
	c->err = -EPROTO;
	return c->err;
}

__attribute__((format(printf, 4, 5)))
static void warning(struct fxt_checker *c, uint64_t offset, const char *rule,
		    const char *fmt, ...)
{
	struct fxt_error w = { .offset = offset, .rule = rule };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w.msg, sizeof(w.msg), fmt, ap);
	va_end(ap);
	c->stats.warnings++;
	if (c->warn)
		c->warn(c->warn_ctx, &w);
}

static bool is_magic(const struct fxt_record *rec)
{
	return rec->type == FXT_REC_METADATA &&
	       rec->subtype == FXT_META_TRACE_INFO &&
	       rec->meta.trace_info_type == 0;
}

static bool is_numeric(uint8_t type)
{
	return type >= FXT_ARG_INT32 && type <= FXT_ARG_DOUBLE;
}

static int check_args(struct fxt_checker *c, const struct fxt_record *rec)
{
	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_argv *a = &rec->args[i];

		if (a->type == FXT_ARG_BLOB)
			return violation(c, rec->offset, "arg-blob",
					 "argument %u is a blob (type 10), which Perfetto and independent readers do not import",
					 i + 1);
		if (a->type > FXT_ARG_BLOB)
			warning(c, rec->offset, "arg-type-unknown",
				"argument %u has unknown type %u (skipped)",
				i + 1, a->type);
		if (a->name.len == 0)
			warning(c, rec->offset, "arg-name-empty",
				"argument %u has an empty name", i + 1);
	}
	return 0;
}

static int check_ts(struct fxt_checker *c, const struct fxt_record *rec,
		    uint64_t ticks, const char *what, int64_t *ns)
{
	if (fxt_reader__ticks_per_sec(c->reader) == 0)
		return violation(c, rec->offset, "init-missing",
				 "%s record with a timestamp before any initialization record of provider %u",
				 fxt_record_type__name(rec->type),
				 fxt_reader__provider_id(c->reader));
	if (fxt_reader__ticks_to_ns(c->reader, ticks, ns))
		return violation(c, rec->offset, "timestamp-range",
				 "%s %" PRIu64
				 " ticks does not convert to a non-negative int64 ns",
				 what, ticks);
	return 0;
}

static const struct fxt_argv *find_arg(const struct fxt_record *rec,
				       const char *name)
{
	size_t len = strlen(name);

	for (unsigned int i = 0; i < rec->nargs; i++)
		if (rec->args[i].name.len == len &&
		    !memcmp(rec->args[i].name.data, name, len))
			return &rec->args[i];
	return NULL;
}

static const char *kobj_profile_name(uint8_t type)
{
	return type == FXT_KOBJ_MAPPING ? "mapping" :
	       type == FXT_KOBJ_KMOD ? "kernel image" :
	       type == FXT_KOBJ_KSYM ? "kernel symbol" :
	       type == FXT_KOBJ_JIT_SYMBOL ? "JIT function" :
	       type == FXT_KOBJ_PROCESS ? "process" : "clock";
}

/* A required argument of the given type: the rule "profile-arg". */
static int want_arg(struct fxt_checker *c, const struct fxt_record *rec,
		    const char *name, uint8_t type,
		    const struct fxt_argv **out)
{
	const struct fxt_argv *a = find_arg(rec, name);

	if (!a)
		return violation(c, rec->offset, "profile-arg-missing",
				 "%s object (type 0x%x, koid %" PRIu64
				 ") has no \"%s\" argument",
				 kobj_profile_name(rec->subtype), rec->subtype,
				 rec->kobj.koid, name);
	if (a->type != type)
		return violation(c, rec->offset, "profile-arg-type",
				 "%s object (type 0x%x, koid %" PRIu64
				 ") argument \"%s\" has type %u, not %u",
				 kobj_profile_name(rec->subtype), rec->subtype,
				 rec->kobj.koid, name, a->type, type);
	if (out)
		*out = a;
	return 0;
}

/* An optional argument: absent, or of this type. */
static int may_arg(struct fxt_checker *c, const struct fxt_record *rec,
		   const char *name, uint8_t type,
		   const struct fxt_argv **out)
{
	*out = NULL;
	if (!find_arg(rec, name))
		return 0;
	return want_arg(c, rec, name, type, out);
}

static int check_build_id(struct fxt_checker *c, const struct fxt_record *rec,
			  const struct fxt_argv *a)
{
	const char *s = a->v.str.data;
	uint32_t len = a->v.str.len;

	if (!len || len % 2 || len > 2 * 20)
		return violation(c, rec->offset, "profile-build-id",
				 "%s object (koid %" PRIu64
				 ") build_id has %u hex digits: want an even number from 2 to 40",
				 kobj_profile_name(rec->subtype),
				 rec->kobj.koid, len);
	for (uint32_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return violation(c, rec->offset, "profile-build-id",
					 "%s object (koid %" PRIu64
					 ") build_id has '%c' at %u: want lowercase hex",
					 kobj_profile_name(rec->subtype),
					 rec->kobj.koid, s[i], i);
	return 0;
}

/*
 * fxtprof's symbol and clock objects (fxt_profile.h): required arguments
 * with their types, a non-empty range, a well-formed build id.
 */
static int check_profile_kobj(struct fxt_checker *c,
			      const struct fxt_record *rec)
{
	const struct fxt_argv *start = NULL, *end = NULL, *bid = NULL,
			      *flag = NULL;
	uint64_t lo;
	int err;

	if (!rec->kobj.name.len)
		return violation(c, rec->offset, "profile-name-empty",
				 "%s object (type 0x%x, koid %" PRIu64
				 ") has no name",
				 kobj_profile_name(rec->subtype), rec->subtype,
				 rec->kobj.koid);
	switch (rec->subtype) {
	case FXT_KOBJ_MAPPING:
		if ((err = want_arg(c, rec, FXT_PROFILE_ARG_PID,
				    FXT_ARG_UINT32, NULL)) ||
		    (err = want_arg(c, rec, FXT_PROFILE_ARG_TID,
				    FXT_ARG_UINT32, NULL)) ||
		    (err = want_arg(c, rec, FXT_PROFILE_ARG_START,
				    FXT_ARG_UINT64, &start)) ||
		    (err = want_arg(c, rec, FXT_PROFILE_ARG_END,
				    FXT_ARG_UINT64, &end)) ||
		    (err = want_arg(c, rec, FXT_PROFILE_ARG_PGOFF,
				    FXT_ARG_UINT64, NULL)) ||
		    (err = want_arg(c, rec, FXT_PROFILE_ARG_TIME,
				    FXT_ARG_UINT64, NULL)) ||
		    (err = may_arg(c, rec, FXT_PROFILE_ARG_BUILD_ID,
				   FXT_ARG_STRING, &bid)) ||
		    (err = may_arg(c, rec, FXT_PROFILE_ARG_INITIAL,
				   FXT_ARG_BOOL, &flag)))
			return err;
		lo = start->v.u64;
		break;
	case FXT_KOBJ_KMOD:
		if ((err = want_arg(c, rec, FXT_PROFILE_ARG_END,
				    FXT_ARG_UINT64, &end)) ||
		    (err = may_arg(c, rec, FXT_PROFILE_ARG_BUILD_ID,
				   FXT_ARG_STRING, &bid)) ||
		    (err = may_arg(c, rec, FXT_PROFILE_ARG_KERNEL,
				   FXT_ARG_BOOL, &flag)))
			return err;
		lo = rec->kobj.koid;
		break;
	case FXT_KOBJ_CLOCK:
		if ((err = want_arg(c, rec, FXT_PROFILE_ARG_BOOT_NS,
				    FXT_ARG_UINT64, NULL)) ||
		    (err = want_arg(c, rec, FXT_PROFILE_ARG_REALTIME_NS,
				    FXT_ARG_UINT64, NULL)) ||
		    (err = may_arg(c, rec, FXT_PROFILE_ARG_HOST,
				   FXT_ARG_STRING, &bid)) ||
		    (err = may_arg(c, rec, FXT_PROFILE_ARG_KERNEL_RELEASE,
				   FXT_ARG_STRING, &bid)) ||
		    (err = may_arg(c, rec, FXT_PROFILE_ARG_ARCH,
				   FXT_ARG_STRING, &bid)))
			return err;
		return 0;
	case FXT_KOBJ_JIT_SYMBOL:
		if ((err = want_arg(c, rec, FXT_PROFILE_ARG_PID,
				    FXT_ARG_UINT32, NULL)) ||
		    (err = want_arg(c, rec, FXT_PROFILE_ARG_SIZE,
				    FXT_ARG_UINT64, &end)))
			return err;
		if (!end->v.u64 || rec->kobj.koid + end->v.u64 < rec->kobj.koid)
			return violation(c, rec->offset, "profile-range",
					 "JIT function at 0x%" PRIx64 " has "
					 "size 0 or runs past the address "
					 "space", rec->kobj.koid);
		return 0;
	default:
		err = want_arg(c, rec, FXT_PROFILE_ARG_SIZE, FXT_ARG_UINT32,
			       &start);
		if (err)
			return err;
		if (!start->v.u32)
			return violation(c, rec->offset, "profile-range",
					 "kernel symbol at 0x%" PRIx64
					 " has size 0", rec->kobj.koid);
		return 0;
	}
	if (end->v.u64 <= lo)
		return violation(c, rec->offset, "profile-range",
				 "%s object (koid %" PRIu64 ") ends at 0x%" PRIx64
				 ", not after its start 0x%" PRIx64,
				 kobj_profile_name(rec->subtype),
				 rec->kobj.koid, end->v.u64, lo);
	return bid ? check_build_id(c, rec, bid) : 0;
}

static int check_kobj(struct fxt_checker *c, const struct fxt_record *rec)
{
	bool has_process = false;

	if (rec->subtype >= FXT_KOBJ_MAPPING &&
	    rec->subtype <= FXT_KOBJ_JIT_SYMBOL)
		return check_profile_kobj(c, rec);
	if (rec->subtype == FXT_KOBJ_PROCESS) {
		const struct fxt_argv *a;
		int err;

		/* The container's arguments, optional, with their types. */
		if ((err = may_arg(c, rec, FXT_PROFILE_ARG_CGROUP,
				   FXT_ARG_STRING, &a)) ||
		    (err = may_arg(c, rec, FXT_PROFILE_ARG_NSPID,
				   FXT_ARG_INT32, &a)))
			return err;
		return 0;
	}
	if (rec->subtype != FXT_KOBJ_THREAD)
		return 0;
	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_argv *a = &rec->args[i];

		if (!fxt_str__is(&a->name, FXT_PROFILE_ARG_PROCESS))
			continue;
		if (a->type != FXT_ARG_KOID)
			return violation(c, rec->offset, "kobj-process-koid",
					 "thread kernel object's \"process\" argument has type %u, not koid (8): Perfetto drops the record",
					 a->type);
		has_process = true;
		tid_set(c, rec->kobj.koid, a->v.koid);
	}
	if (!has_process)
		warning(c, rec->offset, "kobj-thread-no-process",
			"thread kernel object %" PRIu64
			" without a \"process\" argument (pid 0 in Perfetto)",
			rec->kobj.koid);
	return 0;
}

static void sched_forget(struct fxt_checker *c)
{
	for (size_t i = 0; i < c->ncpus; i++)
		c->cpus[i].valid = false;
}

static struct sched_cpu *sched_cpu(struct fxt_checker *c, uint16_t cpu)
{
	if (cpu >= c->ncpus) {
		size_t n = (size_t)cpu + 1 > 2 * c->ncpus ? (size_t)cpu + 1 :
							    2 * c->ncpus;
		struct sched_cpu *nc = realloc(c->cpus, n * sizeof(*nc));

		/* Memory failure only loses the chain rule on this CPU. */
		if (!nc)
			return NULL;
		memset(nc + c->ncpus, 0, (n - c->ncpus) * sizeof(*nc));
		c->cpus = nc;
		c->ncpus = n;
	}
	return &c->cpus[cpu];
}

/* A scheduling argument Perfetto reads: absent, or of exactly this type. */
static int sched_arg(struct fxt_checker *c, const struct fxt_record *rec,
		     const char *name, uint8_t type)
{
	const struct fxt_argv *a = find_arg(rec, name);

	if (a && a->type != type)
		return violation(c, rec->offset, "sched-arg-type",
				 "scheduling record argument \"%s\" has type %u, not %u: Perfetto ignores it",
				 name, a->type, type);
	return 0;
}

static void sched_idle_weight(struct fxt_checker *c,
			      const struct fxt_record *rec, uint64_t tid,
			      const char *name)
{
	const struct fxt_argv *a = find_arg(rec, name);

	if (a && a->type == FXT_ARG_INT32 && !tid && a->v.i32 != INT32_MIN)
		warning(c, rec->offset, "sched-idle-weight",
			"thread koid 0 (idle) has %s %d, not INT32_MIN: Perfetto shows it as a thread",
			name, a->v.i32);
}

/*
 * Scheduling records (fxt-format.md 1.11): a known outgoing state, the
 * argument types Perfetto reads, no switch from a thread to itself, and
 * per CPU a chain: each switch's outgoing thread is the previous switch's
 * incoming one, at a time no earlier.
 */
static int check_sched(struct fxt_checker *c, const struct fxt_record *rec,
		       int64_t ns)
{
	struct sched_cpu *cpu;
	int err;

	if (rec->subtype == 2) {
		err = sched_arg(c, rec, "weight", FXT_ARG_INT32);
		return err ? err : sched_arg(c, rec, "waker", FXT_ARG_KOID);
	}
	if (rec->subtype > 2) {
		warning(c, rec->offset, "sched-type-unknown",
			"scheduling record type %u", rec->subtype);
		return 0;
	}
	if (rec->sched.out_state > 5)
		return violation(c, rec->offset, "sched-state",
				 "context switch on CPU %u has outgoing state %u: FXT defines 0 to 5",
				 rec->sched.cpu, rec->sched.out_state);
	if (rec->subtype == 1) {
		err = sched_arg(c, rec, "incoming_weight", FXT_ARG_INT32);
		if (!err)
			err = sched_arg(c, rec, "outgoing_weight",
					FXT_ARG_INT32);
		if (err)
			return err;
		sched_idle_weight(c, rec, rec->sched.in_tid,
				  "incoming_weight");
		sched_idle_weight(c, rec, rec->sched.out_tid,
				  "outgoing_weight");
	}
	if (rec->sched.out_tid && rec->sched.out_tid == rec->sched.in_tid)
		return violation(c, rec->offset, "sched-self-switch",
				 "context switch on CPU %u from thread %" PRIu64
				 " to itself", rec->sched.cpu,
				 rec->sched.out_tid);
	cpu = sched_cpu(c, rec->sched.cpu);
	if (!cpu)
		return 0;
	if (cpu->valid && cpu->in_tid != rec->sched.out_tid)
		return violation(c, rec->offset, "sched-cpu-chain",
				 "context switch on CPU %u switches out thread %"
				 PRIu64 ", but the previous one switched in %"
				 PRIu64, rec->sched.cpu, rec->sched.out_tid,
				 cpu->in_tid);
	if (cpu->valid && ns < cpu->ns)
		return violation(c, rec->offset, "sched-cpu-time",
				 "context switch on CPU %u at %" PRId64
				 " ns is before the previous one there (%" PRId64
				 " ns)", rec->sched.cpu, ns, cpu->ns);
	cpu->in_tid = rec->sched.in_tid;
	cpu->ns = ns;
	cpu->valid = true;
	return 0;
}

static void span_issue(void *ctx, const struct fxt_span_issue *is)
{
	struct fxt_checker *c = ctx;

	if (!is->error)
		warning(c, is->offset, is->rule, "%s", is->msg);
	else if (!c->err)
		violation(c, is->offset, is->rule, "%s", is->msg);
}

/* The segment's duration and async pairs (fxt_spans.c): errors stop. */
static int check_spans(struct fxt_checker *c)
{
	fxt_spans__end_segment(c->spans, span_issue, c);
	c->spans_skipped = 0;
	return c->err;
}

static bool is_span_event(uint8_t type)
{
	return type == FXT_EVENT_DURATION_BEGIN ||
	       type == FXT_EVENT_DURATION_END ||
	       type == FXT_EVENT_ASYNC_BEGIN || type == FXT_EVENT_ASYNC_END;
}

static int check_record(struct fxt_checker *c, const struct fxt_record *rec)
{
	int64_t ns = 0, end_ns;
	int err;

	if (c->stats.records == 1 && !is_magic(rec))
		return violation(c, rec->offset, "magic-first",
				 "stream does not start with the magic record 0x%016llx",
				 (unsigned long long)FXT_MAGIC);
	if (rec->type == FXT_REC_LARGE && rec->size >= 4096)
		return violation(c, rec->offset, "large-record-size",
				 "large record of %u words: Perfetto reads 12 size bits and desyncs at >= 4096",
				 rec->size);
	if (rec->has_ts) {
		err = check_ts(c, rec, rec->ts, "timestamp", &ns);
		if (err)
			return err;
	}
	err = check_args(c, rec);
	if (err)
		return err;
	if ((rec->type == FXT_REC_EVENT || rec->type == FXT_REC_LARGE) &&
	    rec->has_ts) {
		uint64_t pid;

		if (tid_find(c, rec->thread.tid, &pid) &&
		    pid != rec->thread.pid)
			warning(c, rec->offset, "thread-pid-mismatch",
				"tid %" PRIu64 " is in pid %" PRIu64
				" per its kernel object, but this record says pid %"
				PRIu64 " (Perfetto makes two threads)",
				rec->thread.tid, pid, rec->thread.pid);
	}

	switch (rec->type) {
	case FXT_REC_METADATA:
		/* Lost records or a new segment break every CPU's chain. */
		if (rec->subtype == FXT_META_PROVIDER_EVENT || is_magic(rec))
			sched_forget(c);
		if (rec->subtype == FXT_META_PROVIDER_EVENT)
			fxt_spans__records_lost(c->spans);
		if (is_magic(rec) && c->stats.records > 1) {
			err = check_spans(c);
			if (err)
				return err;
		}
		if (rec->subtype == FXT_META_PROVIDER_INFO) {
			uint32_t id = rec->meta.provider_id;

			for (unsigned int i = 0; i < c->nseen; i++)
				if (c->seen_ids[i] == id)
					return violation(c, rec->offset,
							 "provider-info-duplicate",
							 "provider info for id %u repeated",
							 id);
			if (c->nseen < MAX_SEEN_PROVIDERS)
				c->seen_ids[c->nseen++] = id;
		} else if (rec->subtype == 0 ||
			   rec->subtype > FXT_META_TRACE_INFO) {
			warning(c, rec->offset, "metadata-type-unknown",
				"metadata type %u", rec->subtype);
		}
		break;
	case FXT_REC_STRING:
		if (rec->string.index == 0)
			warning(c, rec->offset, "string-index-zero",
				"string record for index 0 is ignored");
		break;
	case FXT_REC_THREAD:
		if (rec->thread_rec.index == 0)
			warning(c, rec->offset, "thread-index-zero",
				"thread record for index 0 is ignored");
		break;
	case FXT_REC_EVENT:
		if (rec->subtype > FXT_EVENT_FLOW_END) {
			warning(c, rec->offset, "event-type-unknown",
				"event type %u", rec->subtype);
			break;
		}
		if (rec->subtype == FXT_EVENT_DURATION_COMPLETE) {
			err = check_ts(c, rec, rec->event.payload, "end time",
				       &end_ns);
			if (err)
				return err;
			if (end_ns < ns)
				return violation(c, rec->offset,
						 "duration-end-before-begin",
						 "duration complete ends before it begins");
		}
		if (is_span_event(rec->subtype) &&
		    fxt_spans__add(c->spans, rec->subtype, (uint64_t)ns,
				   rec->thread.pid, rec->thread.tid,
				   rec->event.category.data,
				   rec->event.category.len,
				   rec->event.name.data, rec->event.name.len,
				   rec->event.payload, rec->offset) &&
		    !c->spans_skipped++) {
			/* What is judged after a hole is judged as after loss. */
			fxt_spans__records_lost(c->spans);
			warning(c, rec->offset, "span-check-limit",
				"duration and async pairs not all judged in this segment (memory, or over 2M begin/end events)");
		}
		if (rec->subtype == FXT_EVENT_COUNTER) {
			for (unsigned int i = 0; i < rec->nargs; i++)
				if (!is_numeric(rec->args[i].type))
					warning(c, rec->offset,
						"counter-non-numeric",
						"counter argument %u is not numeric",
						i + 1);
		}
		break;
	case FXT_REC_USERSPACE_OBJ:
		warning(c, rec->offset, "record-userspace-object",
			"userspace object records are ignored by Perfetto");
		break;
	case FXT_REC_KERNEL_OBJ:
		return check_kobj(c, rec);
	case FXT_REC_SCHED:
		return check_sched(c, rec, ns);
	case FXT_REC_LOG:
		warning(c, rec->offset, "record-log",
			"log records are ignored by Perfetto");
		break;
	case FXT_REC_LARGE:
		if (rec->subtype != FXT_LARGE_BLOB ||
		    rec->large.format > FXT_BLOB_FORMAT_NO_METADATA)
			warning(c, rec->offset, "large-type-unknown",
				"large record type %u format %u", rec->subtype,
				rec->large.format);
		break;
	case FXT_REC_INIT:
	case FXT_REC_BLOB:
		break;
	default:
		warning(c, rec->offset, "record-type-unknown",
			"reserved record type %u skipped", rec->type);
		break;
	}
	return 0;
}

static int drain(struct fxt_checker *c)
{
	struct fxt_record *rec = malloc(sizeof(*rec));
	int ret;

	if (!rec)
		return -ENOMEM;
	for (;;) {
		ret = fxt_reader__next(c->reader, rec);
		if (ret <= 0)
			break;
		c->stats.records++;
		c->stats.bytes += (uint64_t)rec->size * 8;
		c->stats.by_type[rec->type & 0xf]++;
		ret = check_record(c, rec);
		if (ret)
			break;
	}
	free(rec);
	if (ret < 0 && !c->err) {
		c->error = *fxt_reader__error(c->reader);
		c->err = ret;
	}
	return ret < 0 ? ret : 0;
}

int fxt_checker__feed(struct fxt_checker *c, const void *data, size_t len)
{
	int err;

	if (c->err)
		return c->err;
	/*
	 * Perfetto only recognises FXT by its first 8 bytes, so judge them
	 * before the reader can complain about anything else.
	 */
	if (c->nhead < 8) {
		size_t n = len < 8 - c->nhead ? len : 8 - c->nhead;
		uint64_t first = FXT_MAGIC;

		memcpy(c->head + c->nhead, data, n);
		c->nhead += n;
		if (c->nhead == 8 && memcmp(c->head, &first, 8))
			return violation(c, 0, "magic-first",
					 "stream does not start with the magic record 0x%016llx",
					 (unsigned long long)FXT_MAGIC);
	}
	err = fxt_reader__feed(c->reader, data, len);
	if (err)
		return err;
	return drain(c);
}

int fxt_checker__finish(struct fxt_checker *c)
{
	int err;

	if (c->err)
		return c->err;
	err = fxt_reader__finish(c->reader);
	if (err) {
		c->error = *fxt_reader__error(c->reader);
		c->err = err;
		return err;
	}
	if (c->stats.records == 0)
		return violation(c, 0, "magic-first",
				 "empty stream: no magic record");
	return check_spans(c);
}

int fxt_check_buffer(const void *data, size_t len, struct fxt_error *err)
{
	struct fxt_checker *c;
	int ret = fxt_checker__new(NULL, NULL, &c);

	if (ret)
		return ret;
	ret = fxt_checker__feed(c, data, len);
	if (!ret)
		ret = fxt_checker__finish(c);
	if (ret && err)
		*err = c->error;
	fxt_checker__free(c);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * fxt_dump.c - one-line text form of a decoded record, modelled on the
 * Fuchsia trace-reader's ToString() (as printed by its tests and
 * trace2json), e.g.
 *   KernelObject(koid: 2, type: thread, name: "t", {process: koid(1)})
 * so output can be compared with Fuchsia tooling by eye.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "fxt_internal.h"
#include "fxt_profile.h"
#include "fxt_reader.h"

struct out {
	char *buf;
	size_t cap, len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->cap ? o->buf + o->len : NULL,
		      o->len < o->cap ? o->cap - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* Quoted, with control characters and quotes escaped. */
static void put_str(struct out *o, const struct fxt_str *s)
{
	put(o, "\"");
	for (uint32_t i = 0; i < s->len; i++) {
		unsigned char ch = (unsigned char)s->data[i];

		if (ch == '"' || ch == '\\')
			put(o, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			put(o, "\\x%02x", ch);
		else
			put(o, "%c", ch);
	}
	put(o, "\"");
}

/* Fuchsia's names of the argument types: "name(value)" in the dump. */
static const char *const arg_type_names[] = {
	[FXT_ARG_INT32] = "int32",	[FXT_ARG_UINT32] = "uint32",
	[FXT_ARG_INT64] = "int64",	[FXT_ARG_UINT64] = "uint64",
	[FXT_ARG_DOUBLE] = "double",	[FXT_ARG_STRING] = "string",
	[FXT_ARG_POINTER] = "pointer",	[FXT_ARG_KOID] = "koid",
	[FXT_ARG_BOOL] = "bool",	[FXT_ARG_BLOB] = "blob",
};

/* What stands between the parentheses: each type's own union member. */
static void put_arg_value(struct out *o, const struct fxt_argv *a)
{
	switch (a->type) {
	case FXT_ARG_INT32:	put(o, "%" PRId32, a->v.i32); break;
	case FXT_ARG_UINT32:	put(o, "%" PRIu32, a->v.u32); break;
	case FXT_ARG_INT64:	put(o, "%" PRId64, a->v.i64); break;
	case FXT_ARG_UINT64:	put(o, "%" PRIu64, a->v.u64); break;
	case FXT_ARG_DOUBLE:	put(o, "%.17g", a->v.dbl); break;
	case FXT_ARG_STRING:	put_str(o, &a->v.str); break;
	case FXT_ARG_POINTER:	put(o, "0x%" PRIx64, a->v.ptr); break;
	case FXT_ARG_KOID:	put(o, "%" PRIu64, a->v.koid); break;
	case FXT_ARG_BOOL:	put(o, "%s", a->v.b ? "true" : "false"); break;
	case FXT_ARG_BLOB:
		put(o, "%" PRIu32 " bytes", a->v.blob.len);
		break;
	default:		break;	/* put_args() named it unknown */
	}
}

static void put_args(struct out *o, const struct fxt_record *rec)
{
	if (!rec->nargs)
		return;
	put(o, ", {");
	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct fxt_argv *a = &rec->args[i];
		const char *type = a->type < sizeof(arg_type_names) /
					     sizeof(arg_type_names[0]) ?
				   arg_type_names[a->type] : NULL;

		if (i)
			put(o, ", ");
		put(o, "%.*s: ", (int)a->name.len, a->name.data);
		if (a->type == FXT_ARG_NULL) {
			put(o, "null");
		} else if (type) {
			put(o, "%s(", type);
			put_arg_value(o, a);
			put(o, ")");
		} else {
			put(o, "unknown(type %u, %u words)", a->type, a->size);
		}
	}
	put(o, "}");
}

static void put_thread(struct out *o, const struct fxt_thr *t)
{
	put(o, "pt: %" PRIu64 "/%" PRIu64, t->pid, t->tid);
	if (t->index)
		put(o, " (#%u)", t->index);
}

static const char *const event_names[] = {
	"Instant", "Counter", "DurationBegin", "DurationEnd",
	"DurationComplete", "AsyncBegin", "AsyncInstant", "AsyncEnd",
	"FlowBegin", "FlowStep", "FlowEnd",
};

static void put_event(struct out *o, const struct fxt_record *rec)
{
	put(o, "Event(ts: %" PRIu64 ", ", rec->ts);
	put_thread(o, &rec->thread);
	put(o, ", category: ");
	put_str(o, &rec->event.category);
	put(o, ", name: ");
	put_str(o, &rec->event.name);
	if (rec->subtype <= FXT_EVENT_FLOW_END)
		put(o, ", %s", event_names[rec->subtype]);
	else
		put(o, ", Unknown(%u)", rec->subtype);
	switch (rec->subtype) {
	case FXT_EVENT_COUNTER:
		put(o, "(id: %" PRIu64 ")", rec->event.payload);
		break;
	case FXT_EVENT_DURATION_COMPLETE:
		put(o, "(end_ts: %" PRIu64 ")", rec->event.payload);
		break;
	default:
		if (rec->event.has_payload)
			put(o, "(id: %" PRIu64 ")", rec->event.payload);
		break;
	}
	put_args(o, rec);
	put(o, ")");
}

static void put_metadata(struct out *o, const struct fxt_record *rec)
{
	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO:
		put(o, "ProviderInfo(id: %" PRIu32 ", name: ",
		    rec->meta.provider_id);
		put_str(o, &rec->meta.name);
		put(o, ")");
		break;
	case FXT_META_PROVIDER_SECTION:
		put(o, "ProviderSection(id: %" PRIu32 ")",
		    rec->meta.provider_id);
		break;
	case FXT_META_PROVIDER_EVENT:
		put(o, "ProviderEvent(id: %" PRIu32 ", event: %s)",
		    rec->meta.provider_id,
		    rec->meta.event_id == FXT_PROVIDER_EVENT_BUFFER_OVERFLOW ?
		    "buffer_overflow" : "unknown");
		break;
	case FXT_META_TRACE_INFO:
		if (rec->meta.trace_info_type == 0)
			put(o, "Magic(0x%016" PRIx64 ")", rec->words[0]);
		else
			put(o, "TraceInfo(type: %u)", rec->meta.trace_info_type);
		break;
	default:
		put(o, "Metadata(type: %u)", rec->subtype);
		break;
	}
}

static void put_u64_payload(struct out *o, const void *data, uint64_t len)
{
	const uint64_t *w = data;

	if (len % 8) {
		put(o, "%" PRIu64 " bytes", len);
		return;
	}
	put(o, "[");
	for (uint64_t i = 0; i < len / 8; i++)
		put(o, "%s0x%" PRIx64, i ? ", " : "", w[i]);
	put(o, "]");
}

/* FXT's thread states (fxt-format.md 1.11). */
static const char *thread_state_name(unsigned int state)
{
	static const char *const names[] = {
		"new", "running", "suspended", "blocked", "dying", "dead",
	};

	return state < 6 ? names[state] : "unknown";
}

/* The kernel object types fxtprof writes, or NULL. */
static const char *kobj_type_name(unsigned int type)
{
	switch (type) {
	case FXT_KOBJ_PROCESS:	return "process";
	case FXT_KOBJ_THREAD:	return "thread";
	case FXT_KOBJ_MAPPING:	return "mapping";
	case FXT_KOBJ_KMOD:	return "kmod";
	case FXT_KOBJ_KSYM:	return "ksym";
	case FXT_KOBJ_CLOCK:	return "clock";
	case FXT_KOBJ_JIT_SYMBOL: return "jit";
	default:		return NULL;
	}
}

static void put_large(struct out *o, const struct fxt_record *rec)
{
	if (rec->subtype != FXT_LARGE_BLOB ||
	    rec->large.format > FXT_BLOB_FORMAT_NO_METADATA) {
		put(o, "LargeRecord(type: %u, format: %u, %u words)",
		    rec->subtype, rec->large.format, rec->size);
		return;
	}
	put(o, "LargeBlob(");
	if (rec->large.format == FXT_BLOB_FORMAT_METADATA) {
		put(o, "ts: %" PRIu64 ", ", rec->ts);
		put_thread(o, &rec->thread);
		put(o, ", ");
	}
	put(o, "category: ");
	put_str(o, &rec->large.category);
	put(o, ", name: ");
	put_str(o, &rec->large.name);
	put_args(o, rec);
	put(o, ", size: %" PRIu64 ", data: ", rec->large.len);
	put_u64_payload(o, rec->large.data, rec->large.len);
	put(o, ")");
}

size_t fxt_record__format(const struct fxt_record *rec, char *buf, size_t cap)
{
	struct out o = { buf, cap, 0 };

	if (cap)
		buf[0] = '\0';
	switch (rec->type) {
	case FXT_REC_METADATA:
		put_metadata(&o, rec);
		break;
	case FXT_REC_INIT:
		put(&o, "Initialization(ticks_per_second: %" PRIu64 ")",
		    rec->init.ticks_per_sec);
		break;
	case FXT_REC_STRING:
		put(&o, "String(index: %u, ", rec->string.index);
		put_str(&o, &rec->string.str);
		put(&o, ")");
		break;
	case FXT_REC_THREAD:
		put(&o, "Thread(index: %u, %" PRIu64 "/%" PRIu64 ")",
		    rec->thread_rec.index, rec->thread_rec.pid,
		    rec->thread_rec.tid);
		break;
	case FXT_REC_EVENT:
		put_event(&o, rec);
		break;
	case FXT_REC_BLOB:
		put(&o, "Blob(name: ");
		put_str(&o, &rec->blob.name);
		put(&o, ", type: %u, size: %" PRIu32 ")", rec->blob.blob_type,
		    rec->blob.len);
		break;
	case FXT_REC_USERSPACE_OBJ:
		put(&o, "UserspaceObject(pointer: 0x%" PRIx64
		    ", pid: %" PRIu64 ", name: ",
		    rec->uobj.ptr, rec->uobj.process.pid);
		put_str(&o, &rec->uobj.name);
		put_args(&o, rec);
		put(&o, ")");
		break;
	case FXT_REC_KERNEL_OBJ:
		/* A kernel image's or symbol's koid is its address. */
		if (rec->subtype == FXT_KOBJ_KMOD ||
		    rec->subtype == FXT_KOBJ_KSYM ||
		    rec->subtype == FXT_KOBJ_JIT_SYMBOL)
			put(&o, "KernelObject(koid: 0x%" PRIx64 ", type: ",
			    rec->kobj.koid);
		else
			put(&o, "KernelObject(koid: %" PRIu64 ", type: ",
			    rec->kobj.koid);
		if (kobj_type_name(rec->subtype))
			put(&o, "%s", kobj_type_name(rec->subtype));
		else
			put(&o, "%u", rec->subtype);
		put(&o, ", name: ");
		put_str(&o, &rec->kobj.name);
		put_args(&o, rec);
		put(&o, ")");
		break;
	case FXT_REC_SCHED:
		if (rec->subtype == 2)
			put(&o, "ThreadWakeup(ts: %" PRIu64 ", cpu: %u, tid: %"
			    PRIu64, rec->ts, rec->sched.cpu, rec->sched.tid);
		else if (rec->subtype <= 1)
			put(&o, "ContextSwitch%s(ts: %" PRIu64 ", cpu: %u, "
			    "out_state: %u (%s), out: %" PRIu64 ", in: %"
			    PRIu64, rec->subtype ? "" : "Legacy", rec->ts,
			    rec->sched.cpu, rec->sched.out_state,
			    thread_state_name(rec->sched.out_state),
			    rec->sched.out_tid, rec->sched.in_tid);
		else
			put(&o, "Scheduling(type: %u", rec->subtype);
		put_args(&o, rec);
		put(&o, ")");
		break;
	case FXT_REC_LOG:
		put(&o, "Log(ts: %" PRIu64 ", ", rec->ts);
		put_thread(&o, &rec->thread);
		put(&o, ", message: ");
		put_str(&o, &rec->log.message);
		put(&o, ")");
		break;
	case FXT_REC_LARGE:
		put_large(&o, rec);
		break;
	default:
		put(&o, "Unknown(type: %u, %u words)", rec->type, rec->size);
		break;
	}
	return o.len < cap ? o.len : (cap ? cap - 1 : 0);
}

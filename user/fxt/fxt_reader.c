// SPDX-License-Identifier: MIT
/*
 * fxt_reader.c - record framing and decoding.
 *
 * Framing: a record is complete once size*8 bytes are buffered; its size
 * comes from bits 4..15 (bits 4..35 for large records).  Every field read
 * goes through a cursor bounded by the record's size, so no input can make
 * us read outside the record, and every loop advances by at least one word,
 * so no input can make us spin.
 *
 * State follows Perfetto's importer: provider info (re)creates a provider
 * and makes it current, provider section switches, and string and thread
 * records bind indices of the current provider in file order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fxt_internal.h"
#include "fxt_reader.h"

/* trace-engine's inline large-record limit; bigger would be hostile. */
#define MAX_RECORD_BYTES	(1u << 18)
#define MAX_PROVIDERS		64

struct str_slot {
	char *s;
	uint32_t len;
	bool set;
};

struct thr_slot {
	uint64_t pid, tid;
	bool set;
};

/*
 * The string table is allocated in chunks on first use: most streams use
 * a few hundred indices, and a fully allocated 32768-entry table per
 * provider would dominate the cost of reading small inputs.
 */
#define STR_CHUNK	256
#define STR_CHUNKS	((FXT_MAX_STRING_INDEX + 1) / STR_CHUNK)

struct provider {
	uint32_t id;
	uint64_t ticks_per_sec;		/* 0: no init record yet */
	struct str_slot *strings[STR_CHUNKS];
	struct thr_slot threads[FXT_MAX_THREAD_INDEX + 1];
};

static struct str_slot *str_slot(struct provider *p, unsigned int index,
				 bool create)
{
	struct str_slot **chunk = &p->strings[index / STR_CHUNK];

	if (!*chunk && create)
		*chunk = calloc(STR_CHUNK, sizeof(**chunk));
	return *chunk ? &(*chunk)[index % STR_CHUNK] : NULL;
}

struct fxt_reader {
	unsigned int flags;
	uint8_t *buf;			/* 8-byte aligned (malloc) */
	size_t cap, start, end;		/* pending bytes: buf[start, end) */
	uint64_t offset;		/* stream offset of buf[start] */
	struct provider *providers[MAX_PROVIDERS];
	unsigned int nproviders;
	struct provider *cur;		/* NULL after an unknown section */
	int err;
	struct fxt_error error;
	struct fxt_error warning;
};

struct cursor {
	const uint64_t *w;
	uint32_t n;			/* words available */
	uint32_t pos;
};

static const char *const type_names[16] = {
	"metadata", "initialization", "string", "thread", "event", "blob",
	"userspace-object", "kernel-object", "scheduling", "log",
	"reserved-10", "reserved-11", "reserved-12", "reserved-13",
	"reserved-14", "large",
};

const char *fxt_record_type__name(unsigned int type)
{
	return type < 16 ? type_names[type] : "?";
}

static void provider_free(struct provider *p)
{
	if (!p)
		return;
	for (unsigned int c = 0; c < STR_CHUNKS; c++) {
		if (!p->strings[c])
			continue;
		for (unsigned int i = 0; i < STR_CHUNK; i++)
			free(p->strings[c][i].s);
		free(p->strings[c]);
	}
	free(p);
}

int fxt_reader__new(unsigned int flags, struct fxt_reader **out)
{
	struct fxt_reader *r;

	*out = NULL;
	if (flags & ~FXT_READER_LENIENT)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* Provider 0 "" is implicit, as in Perfetto. */
	r->providers[0] = calloc(1, sizeof(struct provider));
	if (!r->providers[0]) {
		free(r);
		return -ENOMEM;
	}
	r->nproviders = 1;
	r->cur = r->providers[0];
	r->flags = flags;
	*out = r;
	return 0;
}

void fxt_reader__free(struct fxt_reader *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->nproviders; i++)
		provider_free(r->providers[i]);
	free(r->buf);
	free(r);
}

const struct fxt_error *fxt_reader__error(const struct fxt_reader *r)
{
	return &r->error;
}

uint32_t fxt_reader__provider_id(const struct fxt_reader *r)
{
	return r->cur ? r->cur->id : 0;
}

uint64_t fxt_reader__ticks_per_sec(const struct fxt_reader *r)
{
	return r->cur ? r->cur->ticks_per_sec : 0;
}

int fxt_reader__ticks_to_ns(const struct fxt_reader *r, uint64_t ticks,
			    int64_t *ns)
{
	uint64_t tps = fxt_reader__ticks_per_sec(r);
	/* 64x64->128 bit product: exact for every ticks/tps pair */
	__extension__ typedef unsigned __int128 u128;
	u128 v;

	if (!tps)
		tps = FXT_NS_PER_SEC;	/* Perfetto's default */
	v = (u128)ticks * FXT_NS_PER_SEC / tps;
	if (v > INT64_MAX)
		return -ERANGE;
	*ns = (int64_t)v;
	return 0;
}

int fxt_reader__feed(struct fxt_reader *r, const void *data, size_t len)
{
	size_t pending = r->end - r->start;

	if (!len)
		return 0;
	if (r->cap - r->end < len) {
		/* Compact first: records start at multiples of 8 of buf. */
		if (r->start) {
			memmove(r->buf, r->buf + r->start, pending);
			r->start = 0;
			r->end = pending;
		}
		if (r->cap - r->end < len) {
			size_t ncap = r->cap ? r->cap : 65536;
			uint8_t *nb;

			while (ncap - r->end < len) {
				if (ncap > SIZE_MAX / 2)
					return -ENOMEM;
				ncap *= 2;
			}
			nb = realloc(r->buf, ncap);
			if (!nb)
				return -ENOMEM;
			r->buf = nb;
			r->cap = ncap;
		}
	}
	memcpy(r->buf + r->end, data, len);
	r->end += len;
	return 0;
}

__attribute__((format(printf, 4, 5)))
static int fail(struct fxt_reader *r, uint64_t offset, const char *rule,
		const char *fmt, ...)
{
	va_list ap;

	r->error.offset = offset;
	r->error.rule = rule;
	va_start(ap, fmt);
	vsnprintf(r->error.msg, sizeof(r->error.msg), fmt, ap);
	va_end(ap);
	r->err = -EPROTO;
	return -EPROTO;
}

/*
 * A semantic rule: fatal in strict mode, a record warning when lenient.
 * Only the first warning of a record is kept.
 */
__attribute__((format(printf, 4, 5)))
static int semantic(struct fxt_reader *r, struct fxt_record *rec,
		    const char *rule, const char *fmt, ...)
{
	struct fxt_error *e = (r->flags & FXT_READER_LENIENT) ? &r->warning
							       : &r->error;
	va_list ap;

	if ((r->flags & FXT_READER_LENIENT) && rec->warn_rule)
		return 0;
	e->offset = rec->offset;
	e->rule = rule;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (r->flags & FXT_READER_LENIENT) {
		rec->warn_rule = rule;
		return 0;
	}
	r->err = -EPROTO;
	return -EPROTO;
}

/*
 * The cursor helpers below run for every field of every record: their
 * checks are inline, and what they do on bad input (format a message)
 * is out of line, so that the common path stays a few instructions.
 */
static __attribute__((noinline, cold)) int
overrun(struct fxt_reader *r, struct fxt_record *rec, const struct cursor *c,
	uint64_t k, const char *what)
{
	return fail(r, rec->offset + (uint64_t)(c->w - rec->words) * 8,
		    "record-overrun",
		    "%s needs %" PRIu64 " words but only %u of %u are left",
		    what, k, c->n - c->pos, c->n);
}

/* Take k words from the cursor, or fail with "record-overrun". */
static inline int take(struct fxt_reader *r, struct fxt_record *rec,
		       struct cursor *c, uint64_t k, const char *what,
		       const uint64_t **out)
{
	*out = c->w + c->pos;	/* never read on failure; quiets -Wmaybe-uninit */
	if (k > c->n - c->pos)
		return overrun(r, rec, c, k, what);
	c->pos += (uint32_t)k;
	return 0;
}

static inline int take_word(struct fxt_reader *r, struct fxt_record *rec,
			    struct cursor *c, const char *what, uint64_t *v)
{
	const uint64_t *p;
	int err = take(r, rec, c, 1, what, &p);

	if (!err)
		*v = *p;
	return err;
}

static struct provider *cur_provider(struct fxt_reader *r)
{
	return r->cur;
}

/* An inline string of read_str(): its bytes come from the cursor. */
static int read_inline_str(struct fxt_reader *r, struct fxt_record *rec,
			   struct cursor *c, uint16_t ref, const char *what,
			   struct fxt_str *out)
{
	uint32_t len = ref & 0x7fffu;
	const uint64_t *w;
	int err;

	if (len > FXT_MAX_STRING_LEN)
		return fail(r, rec->offset, "string-too-long",
			    "inline %s is %u bytes, limit %u", what, len,
			    FXT_MAX_STRING_LEN);
	err = take(r, rec, c, FXT_WORDS(len), what, &w);
	if (err)
		return err;
	out->data = (const char *)w;
	out->len = len;
	if (!fxt_utf8_valid(out->data, len))
		return semantic(r, rec, "string-utf8",
				"inline %s is not valid UTF-8", what);
	return 0;
}

static __attribute__((noinline, cold)) int
unknown_str(struct fxt_reader *r, struct fxt_record *rec, uint16_t ref,
	    const char *what)
{
	return semantic(r, rec, "string-ref-unknown",
			"%s refers to string index %u, not registered", what,
			ref);
}

/* Resolve a string ref: empty, inline, or an index of the table. */
static inline int read_str(struct fxt_reader *r, struct fxt_record *rec,
			   struct cursor *c, uint16_t ref, const char *what,
			   struct fxt_str *out)
{
	struct provider *p = cur_provider(r);
	struct str_slot *slot;

	out->ref = ref;
	out->data = "";
	out->len = 0;
	if (ref == 0)
		return 0;
	if (ref & 0x8000u)
		return read_inline_str(r, rec, c, ref, what, out);
	slot = p ? str_slot(p, ref, false) : NULL;
	if (!slot || !slot->set)
		return unknown_str(r, rec, ref, what);
	out->data = slot->s ? slot->s : "";
	out->len = slot->len;
	return 0;
}

static inline int read_thread(struct fxt_reader *r, struct fxt_record *rec,
			      struct cursor *c, uint8_t ref,
			      struct fxt_thr *out)
{
	struct provider *p = cur_provider(r);
	const uint64_t *w;
	int err;

	out->index = ref;
	out->pid = out->tid = 0;
	if (ref == 0) {
		err = take(r, rec, c, 2, "inline thread", &w);
		if (!err) {
			out->pid = w[0];
			out->tid = w[1];
		}
		return err;
	}
	if (!p || !p->threads[ref].set)
		return semantic(r, rec, "thread-ref-unknown",
				"thread index %u not registered", ref);
	out->pid = p->threads[ref].pid;
	out->tid = p->threads[ref].tid;
	return 0;
}

static int read_args(struct fxt_reader *r, struct fxt_record *rec,
		     struct cursor *c, unsigned int nargs)
{
	rec->nargs = nargs;
	for (unsigned int i = 0; i < nargs; i++) {
		struct fxt_argv *a = &rec->args[i];
		uint64_t off = rec->offset + (uint64_t)c->pos * 8;
		struct cursor ac;
		uint64_t h, size;
		const uint64_t *w;
		int err;

		memset(a, 0, sizeof(*a));
		if (c->pos >= c->n)
			return fail(r, off, "arg-overrun",
				    "argument %u of %u starts past the record end",
				    i + 1, nargs);
		h = c->w[c->pos];
		size = fxt_get(h, 4, 15);
		a->type = (uint8_t)fxt_get(h, 0, 3);
		a->size = (uint16_t)size;
		if (size == 0)
			return fail(r, off, "arg-size-zero",
				    "argument %u has size 0", i + 1);
		if (size > c->n - c->pos)
			return fail(r, off, "arg-overrun",
				    "argument %u size %" PRIu64
				    " words overruns the record (%u left)",
				    i + 1, size, c->n - c->pos);
		ac.w = c->w + c->pos;
		ac.n = (uint32_t)size;
		ac.pos = 1;
		c->pos += (uint32_t)size;	/* skip by size, whatever we parse */

		err = read_str(r, rec, &ac, (uint16_t)fxt_get(h, 16, 31),
			       "argument name", &a->name);
		if (err)
			return err;
		switch (a->type) {
		case FXT_ARG_NULL:
			break;
		case FXT_ARG_INT32:
			a->v.i32 = (int32_t)(uint32_t)(h >> 32);
			break;
		case FXT_ARG_UINT32:
			a->v.u32 = (uint32_t)(h >> 32);
			break;
		case FXT_ARG_BOOL:
			a->v.b = (h >> 32) & 1;
			break;
		case FXT_ARG_INT64:
		case FXT_ARG_UINT64:
		case FXT_ARG_DOUBLE:
		case FXT_ARG_POINTER:
		case FXT_ARG_KOID:
			err = take(r, rec, &ac, 1, "argument value", &w);
			if (err)
				return err;
			if (a->type == FXT_ARG_DOUBLE)
				memcpy(&a->v.dbl, w, sizeof(a->v.dbl));
			else
				a->v.u64 = *w;
			break;
		case FXT_ARG_STRING:
			err = read_str(r, rec, &ac,
				       (uint16_t)fxt_get(h, 32, 47),
				       "string argument", &a->v.str);
			if (err)
				return err;
			break;
		case FXT_ARG_BLOB: {
			uint64_t len = fxt_get(h, 32, 63);

			err = take(r, rec, &ac, FXT_WORDS(len), "blob argument",
				   &w);
			if (err)
				return err;
			a->v.blob.data = w;
			a->v.blob.len = (uint32_t)len;
			break;
		}
		default:
			break;	/* unknown type: skipped by its size */
		}
	}
	return 0;
}

static struct provider *find_provider(struct fxt_reader *r, uint32_t id)
{
	for (unsigned int i = 0; i < r->nproviders; i++)
		if (r->providers[i]->id == id)
			return r->providers[i];
	return NULL;
}

/* Perfetto replaces a re-registered provider's state wholesale. */
static int register_provider(struct fxt_reader *r, struct fxt_record *rec,
			     uint32_t id)
{
	struct provider *p = calloc(1, sizeof(*p));
	unsigned int i;

	if (!p)
		return fail(r, rec->offset, "out-of-memory", "provider");
	p->id = id;
	for (i = 0; i < r->nproviders; i++) {
		if (r->providers[i]->id == id) {
			provider_free(r->providers[i]);
			r->providers[i] = p;
			r->cur = p;
			return 0;
		}
	}
	if (r->nproviders == MAX_PROVIDERS) {
		free(p);
		return fail(r, rec->offset, "provider-too-many",
			    "more than %d providers", MAX_PROVIDERS);
	}
	r->providers[r->nproviders++] = p;
	r->cur = p;
	return 0;
}

static int decode_metadata(struct fxt_reader *r, struct fxt_record *rec,
			   struct cursor *c)
{
	uint64_t h = rec->words[0];
	uint32_t id = (uint32_t)fxt_get(h, 20, 51);
	const uint64_t *w;
	int err;

	rec->subtype = (uint8_t)fxt_get(h, 16, 19);
	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO: {
		uint32_t len = (uint32_t)fxt_get(h, 52, 59);

		rec->meta.provider_id = id;
		err = take(r, rec, c, FXT_WORDS(len), "provider name", &w);
		if (err)
			return err;
		rec->meta.name.data = (const char *)w;
		rec->meta.name.len = len;
		rec->meta.name.ref = (uint16_t)(0x8000u | len);
		err = register_provider(r, rec, id);
		if (err)
			return err;
		if (!fxt_utf8_valid(rec->meta.name.data, len))
			return semantic(r, rec, "string-utf8",
					"provider name is not valid UTF-8");
		return 0;
	}
	case FXT_META_PROVIDER_SECTION:
		rec->meta.provider_id = id;
		r->cur = find_provider(r, id);
		if (!r->cur) {
			/* Perfetto drops everything after this; keep going
			 * in lenient mode with a fresh table for the id. */
			if (r->flags & FXT_READER_LENIENT) {
				err = register_provider(r, rec, id);
				if (err)
					return err;
			}
			return semantic(r, rec, "provider-section-unknown",
					"section for provider %u without provider info",
					id);
		}
		return 0;
	case FXT_META_PROVIDER_EVENT:
		rec->meta.provider_id = id;
		rec->meta.event_id = (uint8_t)fxt_get(h, 52, 55);
		return 0;
	case FXT_META_TRACE_INFO:
		rec->meta.trace_info_type = (uint8_t)fxt_get(h, 20, 23);
		rec->meta.trace_info = fxt_get(h, 24, 63);
		if (rec->meta.trace_info_type == 0 &&
		    (h != FXT_MAGIC || rec->size != 1))
			return semantic(r, rec, "magic-value",
					"trace info/magic record 0x%016" PRIx64
					" (size %u) is not the magic word",
					h, rec->size);
		return 0;
	default:
		return 0;
	}
}

static int decode_string(struct fxt_reader *r, struct fxt_record *rec,
			 struct cursor *c)
{
	uint64_t h = rec->words[0];
	uint16_t index = (uint16_t)fxt_get(h, 16, 30);
	uint32_t len = (uint32_t)fxt_get(h, 32, 46);
	struct provider *p = cur_provider(r);
	struct str_slot *s;
	const uint64_t *w;
	int err;

	rec->string.index = index;
	if (len > FXT_MAX_STRING_LEN)
		return fail(r, rec->offset, "string-too-long",
			    "string record of %u bytes, limit %u", len,
			    FXT_MAX_STRING_LEN);
	err = take(r, rec, c, FXT_WORDS(len), "string bytes", &w);
	if (err)
		return err;
	rec->string.str.data = (const char *)w;
	rec->string.str.len = len;
	rec->string.str.ref = index;
	if (!fxt_utf8_valid((const char *)w, len)) {
		err = semantic(r, rec, "string-utf8",
			       "string %u is not valid UTF-8", index);
		if (err)
			return err;
	}
	if (index == 0 || !p)
		return 0;	/* "must be ignored" (spec); Perfetto too */
	s = str_slot(p, index, true);
	if (!s)
		return fail(r, rec->offset, "out-of-memory", "string table");
	free(s->s);
	s->s = NULL;
	if (len) {
		s->s = malloc(len);
		if (!s->s)
			return fail(r, rec->offset, "out-of-memory", "string");
		memcpy(s->s, w, len);
	}
	s->len = len;
	s->set = true;
	return 0;
}

static bool event_has_payload(uint8_t type)
{
	return type >= FXT_EVENT_COUNTER && type <= FXT_EVENT_FLOW_END &&
	       type != FXT_EVENT_DURATION_BEGIN &&
	       type != FXT_EVENT_DURATION_END;
}

static int decode_event(struct fxt_reader *r, struct fxt_record *rec,
			struct cursor *c)
{
	uint64_t h = rec->words[0];
	int err;

	rec->subtype = (uint8_t)fxt_get(h, 16, 19);
	rec->has_ts = true;
	err = take_word(r, rec, c, "timestamp", &rec->ts);
	if (!err)
		err = read_thread(r, rec, c, (uint8_t)fxt_get(h, 24, 31),
				  &rec->thread);
	if (!err)
		err = read_str(r, rec, c, (uint16_t)fxt_get(h, 32, 47),
			       "category", &rec->event.category);
	if (!err)
		err = read_str(r, rec, c, (uint16_t)fxt_get(h, 48, 63),
			       "name", &rec->event.name);
	if (!err)
		err = read_args(r, rec, c, (unsigned int)fxt_get(h, 20, 23));
	if (!err && event_has_payload(rec->subtype)) {
		rec->event.has_payload = true;
		err = take_word(r, rec, c, "event payload",
				&rec->event.payload);
	}
	return err;
}

static int decode_large(struct fxt_reader *r, struct fxt_record *rec,
			struct cursor *c)
{
	uint64_t h = rec->words[0], fh, len;
	const uint64_t *w;
	int err;

	rec->subtype = (uint8_t)fxt_get(h, 36, 39);
	rec->large.format = (uint8_t)fxt_get(h, 40, 43);
	if (rec->subtype != FXT_LARGE_BLOB ||
	    rec->large.format > FXT_BLOB_FORMAT_NO_METADATA)
		return 0;	/* unknown: skipped by size */
	err = take_word(r, rec, c, "blob format header", &fh);
	if (!err)
		err = read_str(r, rec, c, (uint16_t)fxt_get(fh, 0, 15),
			       "category", &rec->large.category);
	if (!err)
		err = read_str(r, rec, c, (uint16_t)fxt_get(fh, 16, 31),
			       "name", &rec->large.name);
	if (!err && rec->large.format == FXT_BLOB_FORMAT_METADATA) {
		rec->has_ts = true;
		err = take_word(r, rec, c, "timestamp", &rec->ts);
		if (!err)
			err = read_thread(r, rec, c,
					  (uint8_t)fxt_get(fh, 36, 43),
					  &rec->thread);
		if (!err)
			err = read_args(r, rec, c,
					(unsigned int)fxt_get(fh, 32, 35));
	}
	if (!err)
		err = take_word(r, rec, c, "blob size", &len);
	if (err)
		return err;
	if (len > (uint64_t)(c->n - c->pos) * 8)
		return fail(r, rec->offset, "record-overrun",
			    "blob of %" PRIu64 " bytes overruns the record",
			    len);
	err = take(r, rec, c, FXT_WORDS(len), "blob payload", &w);
	if (err)
		return err;
	rec->large.data = w;
	rec->large.len = len;
	return 0;
}

static int decode_sched(struct fxt_reader *r, struct fxt_record *rec,
			struct cursor *c)
{
	uint64_t h = rec->words[0];
	int err;

	rec->subtype = (uint8_t)fxt_get(h, 60, 63);
	switch (rec->subtype) {
	case 0: {	/* legacy context switch */
		struct fxt_thr out, in;

		rec->sched.cpu = (uint16_t)fxt_get(h, 16, 23);
		rec->sched.out_state = (uint8_t)fxt_get(h, 24, 27);
		rec->sched.out_prio = (uint8_t)fxt_get(h, 44, 51);
		rec->sched.in_prio = (uint8_t)fxt_get(h, 52, 59);
		rec->has_ts = true;
		err = take_word(r, rec, c, "timestamp", &rec->ts);
		if (!err)
			err = read_thread(r, rec, c,
					  (uint8_t)fxt_get(h, 28, 35), &out);
		if (!err)
			err = read_thread(r, rec, c,
					  (uint8_t)fxt_get(h, 36, 43), &in);
		if (err)
			return err;
		rec->sched.out_pid = out.pid;
		rec->sched.out_tid = out.tid;
		rec->sched.in_pid = in.pid;
		rec->sched.in_tid = in.tid;
		return 0;
	}
	case 1:
		rec->sched.cpu = (uint16_t)fxt_get(h, 20, 35);
		rec->sched.out_state = (uint8_t)fxt_get(h, 36, 39);
		rec->has_ts = true;
		err = take_word(r, rec, c, "timestamp", &rec->ts);
		if (!err)
			err = take_word(r, rec, c, "outgoing thread",
					&rec->sched.out_tid);
		if (!err)
			err = take_word(r, rec, c, "incoming thread",
					&rec->sched.in_tid);
		if (!err)
			err = read_args(r, rec, c,
					(unsigned int)fxt_get(h, 16, 19));
		return err;
	case 2:
		rec->sched.cpu = (uint16_t)fxt_get(h, 20, 35);
		rec->has_ts = true;
		err = take_word(r, rec, c, "timestamp", &rec->ts);
		if (!err)
			err = take_word(r, rec, c, "waking thread",
					&rec->sched.tid);
		if (!err)
			err = read_args(r, rec, c,
					(unsigned int)fxt_get(h, 16, 19));
		return err;
	default:
		return 0;
	}
}

static int decode(struct fxt_reader *r, struct fxt_record *rec)
{
	struct cursor c = { rec->words, rec->size, 1 };
	uint64_t h = rec->words[0];
	struct provider *p = cur_provider(r);
	const uint64_t *w;
	int err;

	switch (rec->type) {
	case FXT_REC_METADATA:
		return decode_metadata(r, rec, &c);
	case FXT_REC_INIT:
		err = take_word(r, rec, &c, "ticks per second",
				&rec->init.ticks_per_sec);
		if (err)
			return err;
		if (p)
			p->ticks_per_sec = rec->init.ticks_per_sec;
		if (!rec->init.ticks_per_sec)
			return semantic(r, rec, "init-zero",
					"ticks per second is 0");
		return 0;
	case FXT_REC_STRING:
		return decode_string(r, rec, &c);
	case FXT_REC_THREAD:
		rec->thread_rec.index = (uint8_t)fxt_get(h, 16, 23);
		err = take(r, rec, &c, 2, "thread koids", &w);
		if (err)
			return err;
		rec->thread_rec.pid = w[0];
		rec->thread_rec.tid = w[1];
		if (rec->thread_rec.index && p) {
			p->threads[rec->thread_rec.index].pid = w[0];
			p->threads[rec->thread_rec.index].tid = w[1];
			p->threads[rec->thread_rec.index].set = true;
		}
		return 0;
	case FXT_REC_EVENT:
		return decode_event(r, rec, &c);
	case FXT_REC_BLOB: {
		uint32_t len = (uint32_t)fxt_get(h, 32, 46);

		rec->blob.blob_type = (uint8_t)fxt_get(h, 48, 55);
		err = read_str(r, rec, &c, (uint16_t)fxt_get(h, 16, 31),
			       "blob name", &rec->blob.name);
		if (!err)
			err = take(r, rec, &c, FXT_WORDS(len), "blob payload",
				   &w);
		if (err)
			return err;
		rec->blob.data = w;
		rec->blob.len = len;
		return 0;
	}
	case FXT_REC_USERSPACE_OBJ:
		err = take_word(r, rec, &c, "pointer", &rec->uobj.ptr);
		if (!err) {
			uint8_t ref = (uint8_t)fxt_get(h, 16, 23);

			rec->uobj.process.index = ref;
			if (ref == 0)
				err = take_word(r, rec, &c, "process koid",
						&rec->uobj.process.pid);
			else if (p && p->threads[ref].set)
				rec->uobj.process.pid = p->threads[ref].pid;
			else
				err = semantic(r, rec, "thread-ref-unknown",
					       "thread index %u not registered",
					       ref);
		}
		if (!err)
			err = read_str(r, rec, &c, (uint16_t)fxt_get(h, 24, 39),
				       "name", &rec->uobj.name);
		if (!err)
			err = read_args(r, rec, &c,
					(unsigned int)fxt_get(h, 40, 43));
		return err;
	case FXT_REC_KERNEL_OBJ:
		rec->subtype = (uint8_t)fxt_get(h, 16, 23);
		err = take_word(r, rec, &c, "koid", &rec->kobj.koid);
		if (!err)
			err = read_str(r, rec, &c, (uint16_t)fxt_get(h, 24, 39),
				       "name", &rec->kobj.name);
		if (!err)
			err = read_args(r, rec, &c,
					(unsigned int)fxt_get(h, 40, 43));
		return err;
	case FXT_REC_SCHED:
		return decode_sched(r, rec, &c);
	case FXT_REC_LOG: {
		uint32_t len = (uint32_t)fxt_get(h, 16, 30);

		rec->has_ts = true;
		err = take_word(r, rec, &c, "timestamp", &rec->ts);
		if (!err)
			err = read_thread(r, rec, &c,
					  (uint8_t)fxt_get(h, 32, 39),
					  &rec->thread);
		if (!err)
			err = take(r, rec, &c, FXT_WORDS(len), "log message",
				   &w);
		if (err)
			return err;
		rec->log.message.data = (const char *)w;
		rec->log.message.len = len;
		rec->log.message.ref = (uint16_t)(0x8000u | len);
		if (!fxt_utf8_valid((const char *)w, len))
			return semantic(r, rec, "string-utf8",
					"log message is not valid UTF-8");
		return 0;
	}
	case FXT_REC_LARGE:
		return decode_large(r, rec, &c);
	default:
		return 0;	/* reserved 10..14: skipped by size */
	}
}

int fxt_reader__next(struct fxt_reader *r, struct fxt_record *rec)
{
	size_t avail = r->end - r->start;
	uint64_t h, size;
	int err;

	if (r->err)
		return r->err;
	if (avail < 8)
		return 0;
	memcpy(&h, r->buf + r->start, 8);
	size = (h & 0xf) == FXT_REC_LARGE ? fxt_get(h, 4, 35)
					   : fxt_get(h, 4, 15);
	if (size == 0)
		return fail(r, r->offset, "record-size-zero",
			    "record header 0x%016" PRIx64 " has size 0%s", h,
			    h == 0 ? " (a zero word)" : "");
	if (size > MAX_RECORD_BYTES / 8)
		return fail(r, r->offset, "record-too-large",
			    "large record of %" PRIu64
			    " words exceeds the %u-byte limit",
			    size, MAX_RECORD_BYTES);
	if (avail < size * 8)
		return 0;
	/* args[] are cleared one by one as they are decoded */
	memset(rec, 0, offsetof(struct fxt_record, args));
	rec->warn_rule = NULL;
	memset(&rec->meta, 0, sizeof(*rec) - offsetof(struct fxt_record, meta));
	rec->offset = r->offset;
	rec->words = (const uint64_t *)(void *)(r->buf + r->start);
	rec->size = (uint32_t)size;
	rec->type = (uint8_t)(h & 0xf);
	err = decode(r, rec);
	if (err)
		return err;
	r->start += size * 8;
	r->offset += size * 8;
	return 1;
}

int fxt_reader__finish(struct fxt_reader *r)
{
	size_t avail = r->end - r->start;

	if (r->err)
		return r->err;
	if (avail)
		return fail(r, r->offset, "record-truncated",
			    "stream ends inside a record (%zu trailing bytes)",
			    avail);
	return 0;
}

const struct fxt_error *fxt_reader__warning(const struct fxt_reader *r)
{
	return &r->warning;
}

// SPDX-License-Identifier: MIT
/*
 * fxt_encode.c - stateless FXT record encoders.
 *
 * Every encoder first computes the exact record size from its inputs,
 * validates all of them, and only then writes (a size and a put function
 * per record type, below), so a failing call leaves nothing half-built
 * behind and a successful one always produces a record whose size field
 * matches the words written.  Bit positions follow Fuchsia's
 * lib/fxt/fields.h; Documentation/fxt-mapping.md says what we write.
 */
#include <errno.h>

#include "fxt_golden.h"
#include "fxt_internal.h"

#define HDR(type, words)	((uint64_t)(type) | ((uint64_t)(words) << 4))

/* Words of the inline stream a ref needs (0 for empty and indexed refs). */
static int sref_words(const struct fxt_sref *r, size_t *words)
{
	*words = 0;
	if (!(r->ref & 0x8000u))
		return 0;
	if (r->len > FXT_MAX_STRING_LEN)
		return -E2BIG;
	if (r->len != (r->ref & 0x7fffu) || r->len == 0 || !r->str)
		return -EINVAL;
	if (!fxt_utf8_valid(r->str, r->len))
		return -EILSEQ;
	*words = FXT_WORDS(r->len);
	return 0;
}

static uint64_t *put_sref(uint64_t *p, const struct fxt_sref *r)
{
	if (r->ref & 0x8000u)
		p = fxt_put_stream(p, r->str, r->len);
	return p;
}

static int arg_words(const struct fxt_arg *a, size_t *words)
{
	size_t name_w, val_w = 0;
	int err;

	/* Perfetto keys args by name; an unnamed arg is useless. */
	if (a->name.ref == 0)
		return -EINVAL;
	err = sref_words(&a->name, &name_w);
	if (err)
		return err;
	switch (a->type) {
	case FXT_ARG_NULL:
	case FXT_ARG_INT32:
	case FXT_ARG_UINT32:
	case FXT_ARG_BOOL:
		break;
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_DOUBLE:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
		val_w = 1;
		break;
	case FXT_ARG_STRING:
		err = sref_words(&a->v.str, &val_w);
		if (err)
			return err;
		break;
	default:
		/* including FXT_ARG_BLOB: independent readers fail on it */
		return -EINVAL;
	}
	*words = 1 + name_w + val_w;
	return 0;
}

static int args_words(const struct fxt_arg *args, unsigned int nargs,
		      size_t *words)
{
	size_t total = 0;

	if (nargs > FXT_MAX_ARGS)
		return -E2BIG;
	if (nargs && !args)
		return -EINVAL;
	for (unsigned int i = 0; i < nargs; i++) {
		size_t w;
		int err = arg_words(&args[i], &w);

		if (err)
			return err;
		total += w;
	}
	*words = total;
	return 0;
}

static uint64_t *put_arg(uint64_t *p, const struct fxt_arg *a)
{
	size_t name_w = (a->name.ref & 0x8000u) ? FXT_WORDS(a->name.len) : 0;
	uint64_t hdr, spec = 0;
	size_t words = 1 + name_w;
	uint64_t *h = p;

	switch (a->type) {
	case FXT_ARG_INT32:
		spec = (uint32_t)a->v.i32;
		break;
	case FXT_ARG_UINT32:
		spec = a->v.u32;
		break;
	case FXT_ARG_BOOL:
		spec = a->v.b ? 1 : 0;
		break;
	case FXT_ARG_STRING:
		spec = a->v.str.ref;
		if (a->v.str.ref & 0x8000u)
			words += FXT_WORDS(a->v.str.len);
		break;
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_DOUBLE:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
		words += 1;
		break;
	default:
		break;
	}
	hdr = fxt_field(a->type, 0, 3) | fxt_field(words, 4, 15) |
	      fxt_field(a->name.ref, 16, 31) | fxt_field(spec, 32, 63);
	p++;
	p = put_sref(p, &a->name);
	switch (a->type) {
	case FXT_ARG_STRING:
		p = put_sref(p, &a->v.str);
		break;
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
		/* i64/u64/ptr/koid share the same 64-bit union storage */
		*p++ = a->v.u64;
		break;
	case FXT_ARG_DOUBLE: {
		uint64_t bits;

		memcpy(&bits, &a->v.dbl, sizeof(bits));
		*p++ = bits;
		break;
	}
	default:
		break;
	}
	*h = hdr;
	return p;
}

static uint64_t *put_args(uint64_t *p, const struct fxt_arg *args,
			  unsigned int nargs)
{
	for (unsigned int i = 0; i < nargs; i++)
		p = put_arg(p, &args[i]);
	return p;
}

/*
 * Each record type has a size function, which validates every input and
 * returns the record's words or -errno, and a put function, which cannot
 * fail and writes exactly that many words.  fxt_enc_*() chain the two; the
 * writer calls them apart so that it can reserve the exact room in its
 * sink's buffer between them and encode in place (fxt_writer.c).
 */

int fxt_size_magic(void)
{
	return 1;
}

void fxt_put_magic(uint64_t *buf)
{
	buf[0] = FXT_MAGIC;
}

int fxt_size_provider_info(const char *name, size_t len)
{
	if (len > FXT_MAX_PROVIDER_NAME)
		return -E2BIG;
	if ((len && !name) || !fxt_utf8_valid(name, len))
		return len && !name ? -EINVAL : -EILSEQ;
	return (int)(1 + FXT_WORDS(len));
}

void fxt_put_provider_info(uint64_t *buf, size_t words, uint32_t provider_id,
			   const char *name, size_t len)
{
	buf[0] = HDR(FXT_REC_METADATA, words) |
		 fxt_field(FXT_META_PROVIDER_INFO, 16, 19) |
		 fxt_field(provider_id, 20, 51) | fxt_field(len, 52, 59);
	fxt_put_stream(buf + 1, name, len);
}

int fxt_size_provider_section(void)
{
	return 1;
}

void fxt_put_provider_section(uint64_t *buf, uint32_t provider_id)
{
	buf[0] = HDR(FXT_REC_METADATA, 1) |
		 fxt_field(FXT_META_PROVIDER_SECTION, 16, 19) |
		 fxt_field(provider_id, 20, 51);
}

int fxt_size_provider_event(unsigned int event_id)
{
	return event_id > 15 ? -EINVAL : 1;
}

void fxt_put_provider_event(uint64_t *buf, uint32_t provider_id,
			    unsigned int event_id)
{
	buf[0] = HDR(FXT_REC_METADATA, 1) |
		 fxt_field(FXT_META_PROVIDER_EVENT, 16, 19) |
		 fxt_field(provider_id, 20, 51) | fxt_field(event_id, 52, 55);
}

int fxt_size_init(uint64_t ticks_per_sec)
{
	/* 0 makes Perfetto drop every timestamp and Fuchsia's reader fail */
	return ticks_per_sec ? 2 : -EINVAL;
}

void fxt_put_init(uint64_t *buf, uint64_t ticks_per_sec)
{
	buf[0] = HDR(FXT_REC_INIT, 2);
	buf[1] = ticks_per_sec;
}

int fxt_size_string(uint16_t index, const char *str, size_t len)
{
	if (index == 0 || index > FXT_MAX_STRING_INDEX)
		return -EINVAL;
	if (len > FXT_MAX_STRING_LEN)
		return -E2BIG;
	if (len && !str)
		return -EINVAL;
	if (!fxt_utf8_valid(str, len))
		return -EILSEQ;
	return (int)(1 + FXT_WORDS(len));
}

void fxt_put_string(uint64_t *buf, size_t words, uint16_t index,
		    const char *str, size_t len)
{
	buf[0] = HDR(FXT_REC_STRING, words) | fxt_field(index, 16, 30) |
		 fxt_field(len, 32, 46);
	fxt_put_stream(buf + 1, str, len);
}

int fxt_size_thread(uint8_t index)
{
	return index ? 3 : -EINVAL;
}

void fxt_put_thread(uint64_t *buf, uint8_t index, uint64_t pid, uint64_t tid)
{
	buf[0] = HDR(FXT_REC_THREAD, 3) | fxt_field(index, 16, 23);
	buf[1] = pid;
	buf[2] = tid;
}

static unsigned int event_payload_words(uint8_t type)
{
	switch (type) {
	case FXT_EVENT_COUNTER:
	case FXT_EVENT_DURATION_COMPLETE:
	case FXT_EVENT_ASYNC_BEGIN:
	case FXT_EVENT_ASYNC_INSTANT:
	case FXT_EVENT_ASYNC_END:
	case FXT_EVENT_FLOW_BEGIN:
	case FXT_EVENT_FLOW_STEP:
	case FXT_EVENT_FLOW_END:
		return 1;
	default:
		return 0;
	}
}

int fxt_size_event(const struct fxt_event *ev)
{
	size_t cat_w, name_w, args_w, words;
	int err;

	if (ev->type > FXT_EVENT_FLOW_END)
		return -EINVAL;
	err = sref_words(&ev->category, &cat_w);
	if (!err)
		err = sref_words(&ev->name, &name_w);
	if (!err)
		err = args_words(ev->args, ev->nargs, &args_w);
	if (err)
		return err;
	words = 2 + (ev->thread.index ? 0 : 2) + cat_w + name_w + args_w +
		event_payload_words(ev->type);
	if (words > FXT_MAX_RECORD_WORDS)
		return -E2BIG;
	return (int)words;
}

void fxt_put_event(uint64_t *buf, size_t words, const struct fxt_event *ev)
{
	uint64_t *p;

	buf[0] = HDR(FXT_REC_EVENT, words) | fxt_field(ev->type, 16, 19) |
		 fxt_field(ev->nargs, 20, 23) |
		 fxt_field(ev->thread.index, 24, 31) |
		 fxt_field(ev->category.ref, 32, 47) |
		 fxt_field(ev->name.ref, 48, 63);
	buf[1] = ev->ts;
	p = buf + 2;
	if (!ev->thread.index) {
		*p++ = ev->thread.pid;
		*p++ = ev->thread.tid;
	}
	p = put_sref(p, &ev->category);
	p = put_sref(p, &ev->name);
	p = put_args(p, ev->args, ev->nargs);
	if (event_payload_words(ev->type))
		*p++ = ev->payload;
}

int fxt_size_kobj(struct fxt_sref name, const struct fxt_arg *args,
		  unsigned int nargs)
{
	size_t name_w, args_w, words;
	int err;

	err = sref_words(&name, &name_w);
	if (!err)
		err = args_words(args, nargs, &args_w);
	if (err)
		return err;
	words = 2 + name_w + args_w;
	if (words > FXT_MAX_RECORD_WORDS)
		return -E2BIG;
	return (int)words;
}

void fxt_put_kobj(uint64_t *buf, size_t words, uint8_t obj_type,
		  uint64_t koid, struct fxt_sref name,
		  const struct fxt_arg *args, unsigned int nargs)
{
	uint64_t *p;

	buf[0] = HDR(FXT_REC_KERNEL_OBJ, words) | fxt_field(obj_type, 16, 23) |
		 fxt_field(name.ref, 24, 39) | fxt_field(nargs, 40, 43);
	buf[1] = koid;
	p = put_sref(buf + 2, &name);
	put_args(p, args, nargs);
}

int fxt_size_large_blob(const struct fxt_tref *thread,
			struct fxt_sref category, struct fxt_sref name,
			const struct fxt_arg *args, unsigned int nargs,
			const void *data, size_t len)
{
	size_t cat_w, name_w, args_w, words;
	int err;

	if (!thread || (len && !data))
		return -EINVAL;
	err = sref_words(&category, &cat_w);
	if (!err)
		err = sref_words(&name, &name_w);
	if (!err)
		err = args_words(args, nargs, &args_w);
	if (err)
		return err;
	if (len > (size_t)FXT_MAX_LARGE_RECORD_WORDS * 8)
		return -E2BIG;
	/* header, format header, strings, ts, [pid tid], args, size, data */
	words = 2 + cat_w + name_w + 1 + (thread->index ? 0 : 2) + args_w +
		1 + FXT_WORDS(len);
	if (words > FXT_MAX_LARGE_RECORD_WORDS)
		return -E2BIG;
	return (int)words;
}

void fxt_put_large_blob(uint64_t *buf, size_t words, uint64_t ts,
			const struct fxt_tref *thread,
			struct fxt_sref category, struct fxt_sref name,
			const struct fxt_arg *args, unsigned int nargs,
			const void *data, size_t len)
{
	uint64_t *p;

	buf[0] = HDR(FXT_REC_LARGE, words) |
		 fxt_field(FXT_LARGE_BLOB, 36, 39) |
		 fxt_field(FXT_BLOB_FORMAT_METADATA, 40, 43);
	buf[1] = fxt_field(category.ref, 0, 15) | fxt_field(name.ref, 16, 31) |
		 fxt_field(nargs, 32, 35) | fxt_field(thread->index, 36, 43);
	p = put_sref(buf + 2, &category);
	p = put_sref(p, &name);
	*p++ = ts;
	if (!thread->index) {
		*p++ = thread->pid;
		*p++ = thread->tid;
	}
	p = put_args(p, args, nargs);
	*p++ = len;
	fxt_put_stream(p, data, len);
}

/* ------------------------------------------------------------------ */
/* The public one-call encoders: size, room check, put                 */
/* ------------------------------------------------------------------ */

/* n: a size function's result. */
static int room(size_t cap, int n)
{
	if (n < 0)
		return n;
	return cap < (size_t)n ? -ENOSPC : 0;
}

int fxt_enc_magic(uint64_t *buf, size_t cap)
{
	int n = fxt_size_magic(), err = room(cap, n);

	if (err)
		return err;
	fxt_put_magic(buf);
	return n;
}

int fxt_enc_provider_info(uint64_t *buf, size_t cap, uint32_t provider_id,
			  const char *name, size_t len)
{
	int n = fxt_size_provider_info(name, len), err = room(cap, n);

	if (err)
		return err;
	fxt_put_provider_info(buf, (size_t)n, provider_id, name, len);
	return n;
}

int fxt_enc_provider_section(uint64_t *buf, size_t cap, uint32_t provider_id)
{
	int n = fxt_size_provider_section(), err = room(cap, n);

	if (err)
		return err;
	fxt_put_provider_section(buf, provider_id);
	return n;
}

int fxt_enc_provider_event(uint64_t *buf, size_t cap, uint32_t provider_id,
			   unsigned int event_id)
{
	int n = fxt_size_provider_event(event_id), err = room(cap, n);

	if (err)
		return err;
	fxt_put_provider_event(buf, provider_id, event_id);
	return n;
}

int fxt_enc_init(uint64_t *buf, size_t cap, uint64_t ticks_per_sec)
{
	int n = fxt_size_init(ticks_per_sec), err = room(cap, n);

	if (err)
		return err;
	fxt_put_init(buf, ticks_per_sec);
	return n;
}

int fxt_enc_string(uint64_t *buf, size_t cap, uint16_t index,
		   const char *str, size_t len)
{
	int n = fxt_size_string(index, str, len), err = room(cap, n);

	if (err)
		return err;
	fxt_put_string(buf, (size_t)n, index, str, len);
	return n;
}

int fxt_enc_thread(uint64_t *buf, size_t cap, uint8_t index, uint64_t pid,
		   uint64_t tid)
{
	int n = fxt_size_thread(index), err = room(cap, n);

	if (err)
		return err;
	fxt_put_thread(buf, index, pid, tid);
	return n;
}

int fxt_enc_event(uint64_t *buf, size_t cap, const struct fxt_event *ev)
{
	int n = fxt_size_event(ev), err = room(cap, n);

	if (err)
		return err;
	fxt_put_event(buf, (size_t)n, ev);
	return n;
}

int fxt_enc_kobj(uint64_t *buf, size_t cap, uint8_t obj_type, uint64_t koid,
		 struct fxt_sref name, const struct fxt_arg *args,
		 unsigned int nargs)
{
	int n = fxt_size_kobj(name, args, nargs), err = room(cap, n);

	if (err)
		return err;
	fxt_put_kobj(buf, (size_t)n, obj_type, koid, name, args, nargs);
	return n;
}

int fxt_enc_large_blob(uint64_t *buf, size_t cap, uint64_t ts,
		       const struct fxt_tref *thread, struct fxt_sref category,
		       struct fxt_sref name, const struct fxt_arg *args,
		       unsigned int nargs, const void *data, size_t len)
{
	int n = fxt_size_large_blob(thread, category, name, args, nargs, data,
				    len), err = room(cap, n);

	if (err)
		return err;
	fxt_put_large_blob(buf, (size_t)n, ts, thread, category, name, args,
			   nargs, data, len);
	return n;
}

// SPDX-License-Identifier: MIT
/*
 * fxt_writer.c - struct fxt_writer: encodes each record in place into
 * room its sink reserves (or, for a copying sink, into one fixed scratch
 * buffer that is then handed over; no allocation per record either way);
 * owns string interning so that a string record always precedes the first
 * record using its index.
 *
 * Every record is built in three steps: the size function validates the
 * inputs and gives the exact size, begin() gets that much room, the put
 * function fills it, and end() commits it.  A failure can only happen
 * before the room is taken, so a sink never sees half a record.
 */
#include <errno.h>
#include <stdlib.h>

#include "fxt_internal.h"

struct fxt_writer {
	fxt_sink_fn write;
	fxt_reserve_fn reserve;
	fxt_commit_fn commit;
	void *ctx;
	uint64_t generation;
	struct fxt_strtab strtab;
	char text[FXT_MAX_STRING_LEN];		/* sanitized strings */
	uint64_t scratch[FXT_MAX_RECORD_WORDS];	/* copying sinks only */
};

int fxt_writer__new(const struct fxt_writer_opts *opts,
		    struct fxt_writer **out)
{
	struct fxt_writer *w;
	uint32_t size;
	int err;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts))
		return -EINVAL;
	/* Exactly one kind of sink. */
	if (!opts->write == !(opts->reserve && opts->commit) ||
	    !opts->reserve != !opts->commit)
		return -EINVAL;
	size = opts->strtab_size ? opts->strtab_size : FXT_MAX_STRING_INDEX;
	if (size < 64 || size > FXT_MAX_STRING_INDEX)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	err = fxt_strtab__init(&w->strtab, size);
	if (err) {
		free(w);
		return err;
	}
	w->write = opts->write;
	w->reserve = opts->reserve;
	w->commit = opts->commit;
	w->ctx = opts->ctx;
	*out = w;
	return 0;
}

void fxt_writer__free(struct fxt_writer *w)
{
	if (!w)
		return;
	fxt_strtab__fini(&w->strtab);
	free(w);
}

void fxt_writer__reset_state(struct fxt_writer *w)
{
	fxt_strtab__clear(&w->strtab);
	w->generation++;
}

uint64_t fxt_writer__generation(const struct fxt_writer *w)
{
	return w->generation;
}

/*
 * Room for a record of @n words (a size function's result: a word count
 * or -errno) of FXT type @type, or NULL with the reason in *err.
 */
static uint64_t *begin(struct fxt_writer *w, int n, unsigned int type,
		       int *err)
{
	uint64_t *p;

	if (n < 0) {
		*err = n;
		return NULL;
	}
	if (!w->reserve)
		return w->scratch;
	p = w->reserve(w->ctx, (size_t)n * 8, type);
	if (!p)
		*err = -ENOBUFS;	/* refused whole; the sink counted it */
	return p;
}

/* The record begun with @n words is complete: hand it over. */
static int end(struct fxt_writer *w, int n)
{
	int err;

	if (w->reserve) {
		w->commit(w->ctx);
		return 0;
	}
	err = w->write(w->ctx, w->scratch, (size_t)n * 8);
	return err < 0 ? err : 0;
}

static int intern(struct fxt_writer *w, const char *str, size_t len,
		  bool pin, struct fxt_sref *ref)
{
	struct fxt_strtab *t = &w->strtab;
	const char *out = str;
	size_t out_len = len;
	uint32_t hash;
	uint64_t *p;
	int idx, n, err;

	*ref = fxt_sref_empty();
	if (len == 0)
		return 0;
	if (!str)
		return -EINVAL;
	if (len > FXT_MAX_STRING_LEN)
		len = out_len = FXT_MAX_STRING_LEN;
	hash = fxt_strtab__hash(str, len);
	idx = (int)fxt_strtab__lookup(t, str, len, hash);
	if (idx) {
		if (pin)
			fxt_strtab__pin(t, (unsigned int)idx);
		*ref = fxt_sref_index((uint16_t)idx);
		return 0;
	}
	idx = fxt_strtab__victim(t);
	if (idx < 0)
		return idx;
	if (!fxt_utf8_valid(str, len)) {
		out = w->text;
		out_len = fxt_utf8_sanitize(w->text, sizeof(w->text), str, len);
	}
	/*
	 * Allocate before emitting: once the sink has taken the record the
	 * stream binds idx to this string, and the table must follow.
	 */
	err = fxt_strtab__reserve(t, (unsigned int)idx, len);
	if (err)
		return err;
	n = fxt_size_string((uint16_t)idx, out, out_len);
	p = begin(w, n, FXT_REC_STRING, &err);
	if (!p)
		return err;
	fxt_put_string(p, (size_t)n, (uint16_t)idx, out, out_len);
	err = end(w, n);
	if (err)
		return err;
	fxt_strtab__assign(t, (unsigned int)idx, str, len, hash, pin);
	*ref = fxt_sref_index((uint16_t)idx);
	return 0;
}

int fxt_writer__string_ref(struct fxt_writer *w, const char *str, size_t len,
			   struct fxt_sref *ref)
{
	return intern(w, str, len, false, ref);
}

int fxt_writer__string_pin(struct fxt_writer *w, const char *str, size_t len,
			   struct fxt_sref *ref)
{
	return intern(w, str, len, true, ref);
}

uint64_t *fxt_writer__begin(struct fxt_writer *w, size_t words,
			    unsigned int type, int *err)
{
	if (!words || words > FXT_MAX_RECORD_WORDS) {
		*err = -EINVAL;
		return NULL;
	}
	return begin(w, (int)words, type, err);
}

int fxt_writer__end(struct fxt_writer *w, size_t words)
{
	return end(w, (int)words);
}

int fxt_writer__raw(struct fxt_writer *w, const uint64_t *words, size_t n)
{
	uint64_t size, *p;
	int err;

	if (!words || n == 0)
		return -EINVAL;
	size = (words[0] & 0xf) == FXT_REC_LARGE ? fxt_get(words[0], 4, 35)
						   : fxt_get(words[0], 4, 15);
	if (size != n || n > FXT_MAX_RECORD_WORDS)
		return -EINVAL;
	p = begin(w, (int)n, words[0] & 0xf, &err);
	if (!p)
		return err;
	memcpy(p, words, n * 8);
	return end(w, (int)n);
}

int fxt_writer__magic(struct fxt_writer *w)
{
	int n = fxt_size_magic(), err;
	uint64_t *p = begin(w, n, FXT_REC_METADATA, &err);

	if (!p)
		return err;
	fxt_put_magic(p);
	return end(w, n);
}

int fxt_writer__provider_info(struct fxt_writer *w, uint32_t id,
			      const char *name, size_t len)
{
	uint64_t *p;
	int n, err;

	if (len > FXT_MAX_PROVIDER_NAME)
		len = FXT_MAX_PROVIDER_NAME;
	if (len && !fxt_utf8_valid(name, len)) {
		len = fxt_utf8_sanitize(w->text, FXT_MAX_PROVIDER_NAME, name,
					len);
		name = w->text;
	}
	n = fxt_size_provider_info(name, len);
	p = begin(w, n, FXT_REC_METADATA, &err);
	if (!p)
		return err;
	fxt_put_provider_info(p, (size_t)n, id, name, len);
	return end(w, n);
}

int fxt_writer__provider_section(struct fxt_writer *w, uint32_t id)
{
	int n = fxt_size_provider_section(), err;
	uint64_t *p = begin(w, n, FXT_REC_METADATA, &err);

	if (!p)
		return err;
	fxt_put_provider_section(p, id);
	return end(w, n);
}

int fxt_writer__provider_event(struct fxt_writer *w, uint32_t id,
			       unsigned int event_id)
{
	int n = fxt_size_provider_event(event_id), err;
	uint64_t *p = begin(w, n, FXT_REC_METADATA, &err);

	if (!p)
		return err;
	fxt_put_provider_event(p, id, event_id);
	return end(w, n);
}

int fxt_writer__init(struct fxt_writer *w, uint64_t ticks_per_sec)
{
	int n = fxt_size_init(ticks_per_sec), err;
	uint64_t *p = begin(w, n, FXT_REC_INIT, &err);

	if (!p)
		return err;
	fxt_put_init(p, ticks_per_sec);
	return end(w, n);
}

int fxt_writer__prologue(struct fxt_writer *w, uint32_t provider_id,
			 const char *name, uint64_t ticks_per_sec)
{
	int err = fxt_writer__magic(w);

	if (!err)
		err = fxt_writer__provider_info(w, provider_id, name,
						name ? strlen(name) : 0);
	if (!err)
		err = fxt_writer__provider_section(w, provider_id);
	if (!err)
		err = fxt_writer__init(w, ticks_per_sec);
	return err;
}

int fxt_writer__thread(struct fxt_writer *w, uint8_t index, uint64_t pid,
		       uint64_t tid)
{
	int n = fxt_size_thread(index), err;
	uint64_t *p = begin(w, n, FXT_REC_THREAD, &err);

	if (!p)
		return err;
	fxt_put_thread(p, index, pid, tid);
	return end(w, n);
}

int fxt_writer__event(struct fxt_writer *w, const struct fxt_event *ev)
{
	int n = fxt_size_event(ev), err;
	uint64_t *p = begin(w, n, FXT_REC_EVENT, &err);

	if (!p)
		return err;
	fxt_put_event(p, (size_t)n, ev);
	return end(w, n);
}

int fxt_writer__instant(struct fxt_writer *w, uint64_t ts,
			const struct fxt_tref *thread, struct fxt_sref category,
			struct fxt_sref name, const struct fxt_arg *args,
			unsigned int nargs)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT, .ts = ts, .thread = *thread,
		.category = category, .name = name, .args = args,
		.nargs = nargs,
	};

	return fxt_writer__event(w, &ev);
}

int fxt_writer__counter(struct fxt_writer *w, uint64_t ts,
			const struct fxt_tref *thread, struct fxt_sref category,
			struct fxt_sref name, const struct fxt_arg *args,
			unsigned int nargs, uint64_t counter_id)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER, .ts = ts, .thread = *thread,
		.category = category, .name = name, .args = args,
		.nargs = nargs, .payload = counter_id,
	};

	return fxt_writer__event(w, &ev);
}

int fxt_writer__kobj(struct fxt_writer *w, uint8_t obj_type, uint64_t koid,
		     struct fxt_sref name, const struct fxt_arg *args,
		     unsigned int nargs)
{
	int n = fxt_size_kobj(name, args, nargs), err;
	uint64_t *p = begin(w, n, FXT_REC_KERNEL_OBJ, &err);

	if (!p)
		return err;
	fxt_put_kobj(p, (size_t)n, obj_type, koid, name, args, nargs);
	return end(w, n);
}

/* Names are inline: comms are many and rarely repeat in the hot table. */
static struct fxt_sref name_sref(struct fxt_writer *w, const char *name,
				 size_t len)
{
	if (len > FXT_MAX_STRING_LEN)
		len = FXT_MAX_STRING_LEN;
	if (len && !fxt_utf8_valid(name, len)) {
		len = fxt_utf8_sanitize(w->text, sizeof(w->text), name, len);
		name = w->text;
	}
	return fxt_sref_inline(name, len);
}

int fxt_writer__process_name(struct fxt_writer *w, uint64_t pid,
			     const char *name, size_t len)
{
	return fxt_writer__kobj(w, FXT_KOBJ_PROCESS, pid,
				name_sref(w, name, len), NULL, 0);
}

int fxt_writer__process_name_args(struct fxt_writer *w, uint64_t pid,
				  const char *name, size_t len,
				  const struct fxt_arg *args,
				  unsigned int nargs)
{
	return fxt_writer__kobj(w, FXT_KOBJ_PROCESS, pid,
				name_sref(w, name, len), args, nargs);
}

int fxt_writer__thread_name(struct fxt_writer *w, uint64_t pid, uint64_t tid,
			    const char *name, size_t len)
{
	struct fxt_arg arg = { .type = FXT_ARG_KOID, .v.koid = pid };
	int err;

	/* Interned first: it may write a string record of its own. */
	err = fxt_writer__string_ref(w, "process", 7, &arg.name);
	if (err)
		return err;
	return fxt_writer__kobj(w, FXT_KOBJ_THREAD, tid,
				name_sref(w, name, len), &arg, 1);
}

int fxt_writer__large_blob(struct fxt_writer *w, uint64_t ts,
			   const struct fxt_tref *thread,
			   struct fxt_sref category, struct fxt_sref name,
			   const struct fxt_arg *args, unsigned int nargs,
			   const void *data, size_t len)
{
	int n = fxt_size_large_blob(thread, category, name, args, nargs, data,
				    len), err;
	uint64_t *p = begin(w, n, FXT_REC_LARGE, &err);

	if (!p)
		return err;
	fxt_put_large_blob(p, (size_t)n, ts, thread, category, name, args,
			   nargs, data, len);
	return end(w, n);
}

int fxt_writer__stack_sample(struct fxt_writer *w, uint64_t ts, uint64_t pid,
			     uint64_t tid, const uint64_t *pcs,
			     size_t nr_frames)
{
	struct fxt_tref t = fxt_tref_inline(pid, tid);

	if (nr_frames > FXT_MAX_FRAMES)
		nr_frames = FXT_MAX_FRAMES;
	return fxt_writer__large_blob(w, ts, &t, fxt_sref_empty(),
				      fxt_sref_empty(), NULL, 0, pcs,
				      nr_frames * 8);
}

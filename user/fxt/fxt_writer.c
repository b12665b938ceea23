// SPDX-License-Identifier: MIT
/*
 * fxt_writer.c - struct fxt_writer: encodes records into one fixed
 * scratch buffer (no allocation per record) and passes each complete
 * record to the sink; owns string interning so that a string record
 * always precedes the first record using its index.
 */
#include <errno.h>
#include <stdlib.h>

#include "fxt_internal.h"

struct fxt_writer {
	fxt_sink_fn write;
	void *ctx;
	uint64_t generation;
	struct fxt_strtab strtab;
	char text[FXT_MAX_STRING_LEN];		/* sanitized strings */
	uint64_t scratch[FXT_MAX_RECORD_WORDS];	/* the record being built */
};

#define SCRATCH_WORDS	FXT_MAX_RECORD_WORDS

int fxt_writer__new(const struct fxt_writer_opts *opts,
		    struct fxt_writer **out)
{
	struct fxt_writer *w;
	uint32_t size;
	int err;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts) || !opts->write)
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

void fxt_writer__set_sink(struct fxt_writer *w, fxt_sink_fn write, void *ctx)
{
	w->write = write;
	w->ctx = ctx;
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

/* n is an encoder's return value: a word count or -errno. */
static int emit(struct fxt_writer *w, int n)
{
	int err;

	if (n < 0)
		return n;
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
	int idx, err;

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
	err = emit(w, fxt_enc_string(w->scratch, SCRATCH_WORDS,
				     (uint16_t)idx, out, out_len));
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

int fxt_writer__raw(struct fxt_writer *w, const uint64_t *words, size_t n)
{
	uint64_t size;

	if (!words || n == 0)
		return -EINVAL;
	size = (words[0] & 0xf) == FXT_REC_LARGE ? fxt_get(words[0], 4, 35)
						   : fxt_get(words[0], 4, 15);
	if (size != n || n > FXT_MAX_RECORD_WORDS)
		return -EINVAL;
	size = (uint64_t)w->write(w->ctx, words, n * 8);
	return (int)size < 0 ? (int)size : 0;
}

int fxt_writer__magic(struct fxt_writer *w)
{
	return emit(w, fxt_enc_magic(w->scratch, SCRATCH_WORDS));
}

int fxt_writer__provider_info(struct fxt_writer *w, uint32_t id,
			      const char *name, size_t len)
{
	if (len > FXT_MAX_PROVIDER_NAME)
		len = FXT_MAX_PROVIDER_NAME;
	if (len && !fxt_utf8_valid(name, len)) {
		len = fxt_utf8_sanitize(w->text, FXT_MAX_PROVIDER_NAME, name,
					len);
		name = w->text;
	}
	return emit(w, fxt_enc_provider_info(w->scratch, SCRATCH_WORDS, id,
					     name, len));
}

int fxt_writer__provider_section(struct fxt_writer *w, uint32_t id)
{
	return emit(w, fxt_enc_provider_section(w->scratch, SCRATCH_WORDS, id));
}

int fxt_writer__provider_event(struct fxt_writer *w, uint32_t id,
			       unsigned int event_id)
{
	return emit(w, fxt_enc_provider_event(w->scratch, SCRATCH_WORDS, id,
					      event_id));
}

int fxt_writer__init(struct fxt_writer *w, uint64_t ticks_per_sec)
{
	return emit(w, fxt_enc_init(w->scratch, SCRATCH_WORDS, ticks_per_sec));
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
	return emit(w, fxt_enc_thread(w->scratch, SCRATCH_WORDS, index, pid,
				      tid));
}

int fxt_writer__event(struct fxt_writer *w, const struct fxt_event *ev)
{
	return emit(w, fxt_enc_event(w->scratch, SCRATCH_WORDS, ev));
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

	return emit(w, fxt_enc_event(w->scratch, SCRATCH_WORDS, &ev));
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

	return emit(w, fxt_enc_event(w->scratch, SCRATCH_WORDS, &ev));
}

int fxt_writer__kobj(struct fxt_writer *w, uint8_t obj_type, uint64_t koid,
		     struct fxt_sref name, const struct fxt_arg *args,
		     unsigned int nargs)
{
	return emit(w, fxt_enc_kobj(w->scratch, SCRATCH_WORDS, obj_type, koid,
				    name, args, nargs));
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
	return emit(w, fxt_enc_large_blob(w->scratch, SCRATCH_WORDS, ts, thread,
					  category, name, args, nargs, data,
					  len));
}

int fxt_writer__stack_sample(struct fxt_writer *w, uint64_t ts, uint64_t pid,
			     uint64_t tid, const uint64_t *pcs,
			     size_t nr_frames)
{
	struct fxt_tref t = fxt_tref_inline(pid, tid);

	if (nr_frames > FXT_MAX_FRAMES)
		nr_frames = FXT_MAX_FRAMES;
	return emit(w, fxt_enc_large_blob(w->scratch, SCRATCH_WORDS, ts, &t,
					  fxt_sref_empty(), fxt_sref_empty(),
					  NULL, 0, pcs, nr_frames * 8));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * pprof.c - a loaded recording as a gzipped profile.proto (pprof.h).
 *
 * One merged profile for the whole system.  pprof has one address space
 * per profile, but every Location names its Mapping by id, so each
 * process keeps its own: one Mapping per recorded mapping (a process's
 * executable mapping of one file), one per kernel image or module.
 * Every Location has Lines with a Function, the unnamed ones too (named
 * "dso+0xoffset"), because speedscope drops locations without a line.
 * Identical samples (same stack, pid, tid, CPU and names) are merged,
 * their values summed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "intern.h"
#include "pprof.h"

/* Profile */
#define PR_SAMPLE_TYPE		1
#define PR_SAMPLE		2
#define PR_MAPPING		3
#define PR_LOCATION		4
#define PR_FUNCTION		5
#define PR_STRING_TABLE		6
#define PR_TIME_NANOS		9
#define PR_DURATION_NANOS	10
#define PR_PERIOD_TYPE		11
#define PR_PERIOD		12
#define PR_COMMENT		13
/* ValueType */
#define VT_TYPE			1
#define VT_UNIT			2
/* Sample */
#define SM_LOCATION_ID		1
#define SM_VALUE		2
#define SM_LABEL		3
/* Label */
#define LB_KEY			1
#define LB_STR			2
#define LB_NUM			3
/* Mapping */
#define MP_ID			1
#define MP_MEMORY_START		2
#define MP_MEMORY_LIMIT		3
#define MP_FILE_OFFSET		4
#define MP_FILENAME		5
#define MP_BUILD_ID		6
#define MP_HAS_FUNCTIONS	7
#define MP_HAS_FILENAMES	8
#define MP_HAS_LINE_NUMBERS	9
#define MP_HAS_INLINE_FRAMES	10
/* Location */
#define LC_ID			1
#define LC_MAPPING_ID		2
#define LC_ADDRESS		3
#define LC_LINE			4
/* Line */
#define LN_FUNCTION_ID		1
#define LN_LINE			2
/* Function */
#define FN_ID			1
#define FN_NAME			2
#define FN_SYSTEM_NAME		3
#define FN_FILENAME		4

#define NAME_BUF		256

struct pp_mapping {
	uint64_t start, limit, offset;
	uint32_t filename, build_id;	/* string indices */
	bool has_functions, has_filenames, has_lines, has_inlines;
};

struct pp_line {
	uint32_t function;
	uint32_t line;
};

struct pp_location {
	uint32_t mapping;		/* 0: none */
	uint64_t address;
	uint8_t nr_lines;
	struct pp_line lines[SYM_MAX_INLINE];
};

struct pp_location_key {
	uint64_t mapping;
	uint64_t address;
	uint64_t leaf;			/* leaves are looked up at addr, not addr - 1 */
};

struct pp_function_key {
	uint32_t name, filename;
};

/* A sample's key: these, then its location ids, leaf first. */
struct pp_sample_key {
	uint32_t pid, tid, cpu, comm, thread_comm;
	uint32_t cgroup;	/* the process's cgroup v2 path; 0: unknown */
	uint32_t nspid;		/* its pid in its namespace, + 1; 0: unknown */
	uint32_t base;		/* 1: a sample of --diff-base's recording */
	uint32_t state, waker;	/* a wait's, as strings; 0 for a sample */
};

struct pp {
	const struct profile *p;
	struct symbolizer *s;
	struct export_stack stack;
	struct intern strs, maps, funcs, locs, samples;
	struct pp_mapping *map;		/* [id - 1] */
	struct pp_location *loc;
	uint64_t *counts;		/* samples merged, [id - 1] */
	uint64_t *ns;			/* --off-cpu: their ns waited */
	size_t map_cap, loc_cap, count_cap, ns_cap;
	bool waits;			/* of off-CPU waits, not samples */
	uint32_t *key;			/* a sample key being built */
	size_t key_cap;
	bool adding_base;		/* the samples being added are BASE's */
	double base_scale;		/* BASE's counts x this, negated */
	int err;
};

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t c;
	void *p;

	if (need <= *cap)
		return 0;
	c = *cap ? *cap * 2 : 256;
	while (c < need)
		c *= 2;
	p = realloc(*arr, c * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (c - *cap) * size);
	*arr = p;
	*cap = c;
	return 0;
}

/* The string table index of s (0 = ""), or 0 with x->err set. */
static uint32_t str(struct pp *x, const char *s)
{
	uint32_t id = intern__id(&x->strs, s, strlen(s), NULL);

	if (!id) {
		x->err = -ENOMEM;
		return 0;
	}
	return id - 1;
}

static void hex(char *out, const uint8_t *b, unsigned int n)
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned int i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

/* The Mapping id of frame r, 0 for a user address outside every mapping. */
static uint32_t mapping_of(struct pp *x, const struct sym_result *r,
			   uint64_t addr, bool kernel)
{
	char key[1 + 256], bid[2 * PROFILE_BUILD_ID_MAX + 1] = "";
	struct pp_mapping *m;
	size_t len;
	bool is_new;
	uint32_t id;

	if (kernel) {
		const char *dso = r->dso ? r->dso : "[kernel.kallsyms]";

		len = (size_t)snprintf(key, sizeof(key), "K%s", dso);
		if (len >= sizeof(key))
			len = sizeof(key) - 1;
	} else if (r->mapping) {
		/* The mapping itself: a serial may be reused (profile.h). */
		uintptr_t m = (uintptr_t)r->mapping;

		key[0] = 'U';
		memcpy(key + 1, &m, sizeof(m));
		len = 1 + sizeof(m);
	} else {
		return 0;
	}
	id = intern__id(&x->maps, key, len, &is_new);
	if (!id || grow((void **)&x->map, &x->map_cap, id, sizeof(*x->map))) {
		x->err = -ENOMEM;
		return 0;
	}
	if (!is_new)
		return id;
	m = &x->map[id - 1];
	if (kernel) {
		const struct profile_kmod *k = profile__find_kmod(x->p, addr);

		m->filename = str(x, key + 1);
		if (k) {
			m->start = k->start;
			m->limit = k->end;
			hex(bid, k->build_id, k->build_id_size);
		}
	} else {
		const struct profile_mapping *pm = r->mapping;

		m->start = pm->start;
		m->limit = pm->end;
		m->offset = pm->pgoff;
		m->filename = str(x, pm->path ? pm->path : "");
		hex(bid, pm->build_id, pm->build_id_size);
	}
	m->build_id = str(x, bid);
	return id;
}

static uint32_t function_of(struct pp *x, const char *name, const char *file)
{
	struct pp_function_key k = { str(x, name), str(x, file ? file : "") };
	uint32_t id = intern__id(&x->funcs, &k, sizeof(k), NULL);

	if (!id)
		x->err = -ENOMEM;
	return id;
}

static uint32_t location_of(struct pp *x, const struct sym_result *r,
			    uint64_t addr, bool kernel, bool leaf)
{
	struct pp_location_key k = { 0 };
	struct pp_location *l;
	struct pp_mapping *m;
	bool is_new;
	uint32_t id;

	k.mapping = mapping_of(x, r, addr, kernel);
	k.address = addr;
	k.leaf = leaf;
	if (x->err)
		return 0;
	id = intern__id(&x->locs, &k, sizeof(k), &is_new);
	if (!id || grow((void **)&x->loc, &x->loc_cap, id, sizeof(*x->loc))) {
		x->err = -ENOMEM;
		return 0;
	}
	if (!is_new)
		return id;
	l = &x->loc[id - 1];
	l->mapping = (uint32_t)k.mapping;
	l->address = addr;
	l->nr_lines = (uint8_t)r->nr_frames;
	m = k.mapping ? &x->map[k.mapping - 1] : NULL;
	for (unsigned int j = 0; j < r->nr_frames; j++) {
		char buf[NAME_BUF];
		const struct sym_frame *f = &r->frames[j];

		l->lines[j].function = function_of(x,
				export_frame_name(r, j, buf, sizeof(buf)),
				f->file);
		l->lines[j].line = f->line;
		if (m && f->function)
			m->has_functions = true;
		if (m && f->file)
			m->has_filenames = true;
		if (m && f->line)
			m->has_lines = true;
	}
	if (m && r->nr_frames > 1)
		m->has_inlines = true;
	return id;
}

/* Sample (or wait) @smp into @x: one more of its stack and labels. */
static int add_sample(struct pp *x, const struct profile_sample *smp,
		      struct export_stats *st)
{
	const struct profile_process *proc;
	struct pp_sample_key *sk;
	size_t n, hdr = sizeof(*sk) / sizeof(uint32_t);
	uint32_t id;
	int err;

	err = export_stack__symbolize(&x->stack, x->s, x->p, smp, st);
	if (err)
		return err;
	n = x->stack.n;
	err = grow((void **)&x->key, &x->key_cap, hdr + n, sizeof(*x->key));
	if (err)
		return err;
	sk = (struct pp_sample_key *)x->key;
	sk->pid = smp->pid;
	sk->tid = smp->tid;
	sk->cpu = smp->cpu;
	sk->comm = str(x, smp->process ? smp->process : "");
	sk->thread_comm = str(x, smp->comm ? smp->comm : "");
	proc = profile__process(x->p, smp->pid);
	sk->cgroup = proc && proc->cgroup ? str(x, proc->cgroup) : 0;
	sk->nspid = proc && proc->nspid >= 0 ? (uint32_t)proc->nspid + 1 : 0;
	sk->base = x->adding_base;
	sk->state = sk->waker = 0;
	if (x->waits) {
		const char *state = profile__wait_state_name(smp->wait_state);

		sk->state = str(x, state ? state : "unknown");
		if (smp->waker)
			sk->waker = str(x, smp->waker);
	}
	for (size_t i = 0; i < n; i++)
		x->key[hdr + i] = location_of(x, &x->stack.res[i], smp->ips[i],
					      i < smp->nr_kernel, i == 0);
	if (x->err)
		return x->err;
	id = intern__id(&x->samples, x->key, (hdr + n) * sizeof(*x->key),
			NULL);
	if (!id || grow((void **)&x->counts, &x->count_cap, id,
			sizeof(*x->counts)))
		return -ENOMEM;
	x->counts[id - 1]++;
	if (x->waits) {
		if (grow((void **)&x->ns, &x->ns_cap, id, sizeof(*x->ns)))
			return -ENOMEM;
		x->ns[id - 1] += smp->wait_ns;
	}
	return 0;
}

static void put_value_type(struct pb_buf *b, uint32_t field, uint32_t type,
			   uint32_t unit)
{
	size_t m = pb_open(b, field);

	pb_put_uint(b, VT_TYPE, type);
	pb_put_uint(b, VT_UNIT, unit);
	pb_close(b, m);
}

static void put_label(struct pb_buf *b, uint32_t key, bool is_num,
		      uint64_t v)
{
	size_t m = pb_open(b, SM_LABEL);

	pb_put_uint(b, LB_KEY, key);
	pb_put_uint(b, is_num ? LB_NUM : LB_STR, v);
	pb_close(b, m);
}

static void put_samples(struct pp *x, struct pb_buf *b, uint64_t period)
{
	size_t hdr = sizeof(struct pp_sample_key) / sizeof(uint32_t);
	uint32_t k_pid = str(x, "pid"), k_tid = str(x, "tid");
	uint32_t k_cpu = str(x, "cpu"), k_comm = str(x, "comm");
	uint32_t k_tcomm = str(x, "thread_comm");
	uint32_t k_cgroup = str(x, "cgroup"), k_nspid = str(x, "nspid");
	uint32_t k_base = 0, v_true = 0, k_state = 0, k_waker = 0;

	if (x->base_scale) {
		k_base = str(x, "pprof::base");
		v_true = str(x, "true");
	}
	if (x->waits) {
		k_state = str(x, "state");
		k_waker = str(x, "waker");
	}

	for (uint32_t id = 1; id <= intern__count(&x->samples); id++) {
		const struct intern_key *k = intern__key(&x->samples, id);
		const uint32_t *w = k->data;
		const struct pp_sample_key *sk = k->data;
		size_t n = k->len / sizeof(uint32_t) - hdr, m, pm;

		m = pb_open(b, PR_SAMPLE);
		pm = pb_open(b, SM_LOCATION_ID);	/* packed */
		for (size_t i = 0; i < n; i++)
			pb_put_varint(b, w[hdr + i]);
		pb_close(b, pm);
		pm = pb_open(b, SM_VALUE);
		if (sk->base) {
			/* int64 values: negative ones are their two's complement. */
			uint64_t c = (uint64_t)((double)x->counts[id - 1] *
						x->base_scale + 0.5);

			pb_put_varint(b, -c);
			pb_put_varint(b, -(c * period));
		} else if (x->waits) {
			pb_put_varint(b, x->counts[id - 1]);
			pb_put_varint(b, x->ns[id - 1]);
		} else {
			pb_put_varint(b, x->counts[id - 1]);
			pb_put_varint(b, x->counts[id - 1] * period);
		}
		pb_close(b, pm);
		put_label(b, k_pid, true, sk->pid);
		put_label(b, k_tid, true, sk->tid);
		put_label(b, k_cpu, true, sk->cpu);
		if (sk->comm)
			put_label(b, k_comm, false, sk->comm);
		if (sk->thread_comm)
			put_label(b, k_tcomm, false, sk->thread_comm);
		if (sk->cgroup)
			put_label(b, k_cgroup, false, sk->cgroup);
		if (sk->nspid)
			put_label(b, k_nspid, true, sk->nspid - 1);
		if (sk->base)
			put_label(b, k_base, false, v_true);
		if (sk->state)
			put_label(b, k_state, false, sk->state);
		if (sk->waker)
			put_label(b, k_waker, false, sk->waker);
		pb_close(b, m);
	}
}

static void put_tables(struct pp *x, struct pb_buf *b)
{
	for (uint32_t id = 1; id <= intern__count(&x->maps); id++) {
		const struct pp_mapping *mp = &x->map[id - 1];
		size_t m = pb_open(b, PR_MAPPING);

		pb_put_uint(b, MP_ID, id);
		pb_put_uint(b, MP_MEMORY_START, mp->start);
		pb_put_uint(b, MP_MEMORY_LIMIT, mp->limit);
		pb_put_uint(b, MP_FILE_OFFSET, mp->offset);
		pb_put_uint(b, MP_FILENAME, mp->filename);
		if (mp->build_id)
			pb_put_uint(b, MP_BUILD_ID, mp->build_id);
		pb_put_uint(b, MP_HAS_FUNCTIONS, mp->has_functions);
		pb_put_uint(b, MP_HAS_FILENAMES, mp->has_filenames);
		pb_put_uint(b, MP_HAS_LINE_NUMBERS, mp->has_lines);
		pb_put_uint(b, MP_HAS_INLINE_FRAMES, mp->has_inlines);
		pb_close(b, m);
	}
	for (uint32_t id = 1; id <= intern__count(&x->locs); id++) {
		const struct pp_location *l = &x->loc[id - 1];
		size_t m = pb_open(b, PR_LOCATION);

		pb_put_uint(b, LC_ID, id);
		if (l->mapping)
			pb_put_uint(b, LC_MAPPING_ID, l->mapping);
		pb_put_uint(b, LC_ADDRESS, l->address);
		/* Innermost first: the last Line is the caller. */
		for (unsigned int j = 0; j < l->nr_lines; j++) {
			size_t lm = pb_open(b, LC_LINE);

			pb_put_uint(b, LN_FUNCTION_ID, l->lines[j].function);
			if (l->lines[j].line)
				pb_put_uint(b, LN_LINE, l->lines[j].line);
			pb_close(b, lm);
		}
		pb_close(b, m);
	}
	for (uint32_t id = 1; id <= intern__count(&x->funcs); id++) {
		const struct pp_function_key *f =
			intern__key(&x->funcs, id)->data;
		size_t m = pb_open(b, PR_FUNCTION);

		pb_put_uint(b, FN_ID, id);
		pb_put_uint(b, FN_NAME, f->name);
		pb_put_uint(b, FN_SYSTEM_NAME, f->name);
		if (f->filename)
			pb_put_uint(b, FN_FILENAME, f->filename);
		pb_close(b, m);
	}
}

/* The time from the first sample (or wait) to the last one's end. */
static uint64_t duration_of(const struct pp *x)
{
	const struct profile_sample *first, *last;
	size_t n;

	if (x->waits) {
		n = profile__nr_waits(x->p);
		first = profile__wait(x->p, 0);
		last = n ? profile__wait(x->p, n - 1) : NULL;
	} else {
		n = profile__nr_samples(x->p);
		first = profile__sample(x->p, 0);
		last = n ? profile__sample(x->p, n - 1) : NULL;
	}
	return last ? last->ts + last->wait_ns - first->ts : 0;
}

static int encode(struct pp *x, struct pb_buf *b, uint64_t time_nanos,
		  struct export_stats *st)
{
	uint64_t period = st->period_ns, duration = duration_of(x);
	uint32_t samples, count, cpu, ns, comment;
	char text[128];

	samples = str(x, x->waits ? "waits" : "samples");
	count = str(x, "count");
	/* Waits: the second value is the time waited, each wait's own. */
	cpu = str(x, x->waits ? "off-cpu" : "cpu");
	ns = str(x, "nanoseconds");
	if (x->waits) {
		period = 1;
		snprintf(text, sizeof(text), "fxtprof: off-cpu = the "
			 "nanoseconds each stack waited off a CPU");
	} else {
		snprintf(text, sizeof(text), "fxtprof: cpu time = samples x %"
			 PRIu64 " ns, the period of the median sample spacing",
			 period);
	}
	comment = str(x, text);
	if (x->err)
		return x->err;
	put_value_type(b, PR_SAMPLE_TYPE, samples, count);
	put_value_type(b, PR_SAMPLE_TYPE, cpu, ns);
	put_samples(x, b, period);
	put_tables(x, b);
	for (uint32_t id = 1; id <= intern__count(&x->strs); id++) {
		const struct intern_key *k = intern__key(&x->strs, id);

		pb_put_bytes(b, PR_STRING_TABLE, k->data, k->len);
	}
	if (time_nanos)
		pb_put_uint(b, PR_TIME_NANOS, time_nanos);
	pb_put_uint(b, PR_DURATION_NANOS, duration);
	put_value_type(b, PR_PERIOD_TYPE, cpu, ns);
	pb_put_uint(b, PR_PERIOD, period);
	{
		size_t m = pb_open(b, PR_COMMENT);	/* packed */

		pb_put_varint(b, comment);
		pb_close(b, m);
	}
	st->mappings = intern__count(&x->maps);
	st->functions = intern__count(&x->funcs);
	st->locations = intern__count(&x->locs);
	return x->err ? x->err : b->err;
}

int pprof__gzip(const void *in, size_t len, struct pb_buf *out)
{
	z_stream z;
	int ret;

	pb_buf__reset(out);
	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	ret = pb_buf__reserve(out, deflateBound(&z, len));
	if (ret)
		goto out_end;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out->data;
	z.avail_out = (uInt)out->cap;
	if (len > UINT32_MAX / 2 || deflate(&z, Z_FINISH) != Z_STREAM_END)
		ret = -EIO;
	else
		out->len = z.total_out;
out_end:
	deflateEnd(&z);
	return ret;
}

static void pp_init(struct pp *x)
{
	intern__init(&x->strs);
	intern__init(&x->maps);
	intern__init(&x->funcs);
	intern__init(&x->locs);
	intern__init(&x->samples);
	str(x, "");	/* string_table[0] must be "" */
}

static void pp_release(struct pp *x)
{
	export_stack__release(&x->stack);
	intern__release(&x->strs);
	intern__release(&x->maps);
	intern__release(&x->funcs);
	intern__release(&x->locs);
	intern__release(&x->samples);
	free(x->map);
	free(x->loc);
	free(x->counts);
	free(x->ns);
	free(x->key);
}

/*
 * The samples (or, in->waits, the waits) @in keeps into @x; their number
 * in *kept.  0 or -errno.
 */
static int pp_add(struct pp *x, const struct pprof_input *in, bool base,
		  uint64_t *kept)
{
	size_t n = in->waits ? profile__nr_waits(in->p) :
			       profile__nr_samples(in->p);
	int err = 0;

	x->p = in->p;
	x->s = in->s;
	x->adding_base = base;
	x->waits = in->waits;
	*kept = 0;
	in->st->period_ns = profile__sample_period_ns(in->p);
	for (size_t i = 0; i < n && !err; i++) {
		if (in->f && in->f->keep && !in->f->keep(in->f->ctx, i))
			continue;
		err = add_sample(x, in->waits ? profile__wait(in->p, i) :
						profile__sample(in->p, i),
				 in->st);
		++*kept;
	}
	return err ? err : x->err;
}

/* The profile @x holds, encoded for @new's recording and gzipped. */
static int pp_finish(struct pp *x, const struct pprof_input *new,
		     uint64_t time_nanos, struct pb_buf *out)
{
	struct pb_buf raw = PB_BUF_INIT;
	int err;

	x->p = new->p;
	err = encode(x, &raw, time_nanos, new->st);
	if (!err)
		err = pprof__gzip(raw.data, raw.len, out);
	pb_buf__release(&raw);
	return err;
}

int pprof__encode_filtered(const struct profile *p, struct symbolizer *s,
			   const struct pprof_filter *f, uint64_t time_nanos,
			   struct pb_buf *out, struct export_stats *st)
{
	const struct pprof_input in = { .p = p, .s = s, .f = f, .st = st };
	struct pp x = { 0 };
	uint64_t kept;
	int err;

	pp_init(&x);
	err = pp_add(&x, &in, false, &kept);
	if (!err)
		err = pp_finish(&x, &in, time_nanos, out);
	pp_release(&x);
	return err;
}

int pprof__encode_waits(const struct pprof_input *in, uint64_t time_nanos,
			struct pb_buf *out)
{
	struct pprof_input waits = *in;
	struct pp x = { 0 };
	uint64_t kept;
	int err;

	waits.waits = true;
	pp_init(&x);
	err = pp_add(&x, &waits, false, &kept);
	if (!err && !kept)
		err = -ENODATA;
	if (!err)
		err = pp_finish(&x, &waits, time_nanos, out);
	pp_release(&x);
	return err;
}

int pprof__encode_diff(const struct pprof_input *new,
		       const struct pprof_input *base, uint64_t time_nanos,
		       struct pb_buf *out, double *scale)
{
	struct pp x = { 0 };
	uint64_t kept_new, kept_base;
	int err;

	pp_init(&x);
	err = pp_add(&x, base, true, &kept_base);
	if (!err)
		err = pp_add(&x, new, false, &kept_new);
	if (!err && (!kept_new || !kept_base))
		err = -ENODATA;
	if (!err) {
		x.base_scale = (double)kept_new / (double)kept_base;
		*scale = x.base_scale;
		err = pp_finish(&x, new, time_nanos, out);
	}
	pp_release(&x);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * chunk_codec2.c - see chunk_codec2.h.  Codec 1 (chunk_codec.c) takes the
 * samples apart and interns their stacks, but leaves LZ4 to code what is
 * left, and LZ4 has no entropy stage: a timestamp's jitter costs two or
 * three whole bytes of varint, and every stack index a byte or two even
 * when it is "the thread's stack again".  Codec 2 parses the same record
 * shapes and codes every field with the adaptive binary range coder
 * (range_coder.h) under a model that predicts it from the chunk so far:
 *
 *   kind      by the previous record's kind
 *   template  "the previous sample's again", else its index
 *   cpu       "the previous sample's again", else its number
 *   time      the difference from the CPU's last time plus its smoothed
 *             period, as a bit length coded in the context of the CPU's
 *             previous bit length, then the bits below the leading one
 *   thread    "the one this CPU sampled last", else its index
 *   kframes   "this thread's last again", else its number
 *   stack     one of the thread's 16 recent stacks (a spinning thread's
 *             leaf moves among a few addresses), an earlier entry by how
 *             far back it is, or a new entry coded against the thread's
 *             last stack: the callers they share by count, the frames
 *             that differ by a table of each frame's last caller, else
 *             as differences from the frames at the same depth
 *
 * Records of any other shape, the replay's names, mappings and symbols
 * among them, are kept verbatim in front of the range-coded bytes, and
 * LZ4 (which the writer runs over the whole coded chunk) compresses
 * them as it does today.  Every model starts afresh in every chunk: a
 * chunk decodes alone.  The exact stream: Documentation/archive-format.md,
 * "Chunk codec 2".
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <lz4hc.h>

#include "chunk_codec2.h"
#include "codec_record.h"
#include "codec_array.h"
#include "codec_table.h"
#include "range_coder.h"

enum { K_VERBATIM, K_SAMPLE, K_BLOB_OF_SAMPLE, K_BLOB };
/*
 * A stack is coded as one of: the thread's RECENT_STACKS most recent
 * distinct stacks (0: its last), an earlier entry of the chunk, or a new
 * one.  A spinning thread's leaf moves among a few addresses, so its
 * stacks do too: most are found among its recent ones.
 */
#define RECENT_STACKS	16u
enum { OP_EARLIER = RECENT_STACKS, OP_NEW, OP_CTX = 3 };
/* What the coded bits are spent on, when measured (RC_COST). */
enum {
	F_KIND, F_TEMPLATE, F_CPU, F_TIME, F_THREAD, F_KFRAMES, F_STACK_OP,
	F_STACK_EARLIER, F_STACK_WORDS, F_STACK_DIFFER, F_STACK_LEAF,
	F_STACK_FRAMES, F_BLOBTIME, NFIELDS
};

#define MAX_TEMPLATES	64u
#define CPU_SLOTS	64u
/* The verbatim records' size, then their LZ4 block's. */
#define VERBATIM_HEADER	8u
/*
 * LZ4 HC at level 4 for the verbatim records: the replay's kernel
 * symbols and names come out a quarter smaller than with the fast LZ4,
 * and it runs on some 20 KB a chunk, so its speed does not matter.
 */
#define VERBATIM_HC_LEVEL 4
/* Callers remembered: a direct-mapped table, frame -> its last caller. */
#define CALLER_BITS	12u
#define CALLER_SLOTS	(1u << CALLER_BITS)
/* Time contexts: the CPU's previous bit length, up to 39; 40: none. */
#define TIME_CTX	41u
/* Bits below a number's leading one that are modelled; the rest are even. */
#define MANT_MODELLED	3u

/*
 * A number: its bit length (0 for 0, up to 64) in a 7-bit tree, then
 * the MANT_MODELLED bits below its leading one, each in the context of
 * its length and the bits above it, then the rest at even odds.
 */
struct num_model {
	rc_prob len[128];
	rc_prob mant[65][1u << MANT_MODELLED];
};

struct c2_models {
	rc_prob kind[4][4];
	rc_prob tmpl_other, tmpl_idx[128];
	rc_prob cpu_other;
	struct num_model cpu;
	struct num_model time[TIME_CTX];
	rc_prob thr_other;
	struct num_model thr_idx, pid, tid;
	rc_prob kf_other[2];		/* by: the thread's last had none */
	struct num_model kf[2];
	rc_prob op[2][OP_CTX][32];	/* by: kframes changed; op_ctx() */
	struct num_model back;
	rc_prob n_other, w0_other, w1_other, w5_other;
	struct num_model nframes, differ;
	struct num_model frame[2];	/* the leaf, the frames above it */
	rc_prob caller_miss[2];		/* by: the reference agrees */
};

struct caller_slot {
	uint64_t frame, caller;
};

struct cpu_slot {
	uint64_t cpu, ts, interval;
	uint32_t thread;		/* index + 1 of its last thread, 0: none */
	uint8_t nb;			/* its last time difference's bit length */
	bool used;
};

/* A thread of the chunk, and what its next sample is predicted by. */
struct thread_state {
	uint64_t pid, tid, kframes;
	uint32_t recent[RECENT_STACKS];	/* entry index + 1, 0: none; latest first */
};

/*
 * The model state both sides keep, in the same order: tables of the
 * chunk's templates, threads and stack entries (an entry is a blob's
 * words 0, 1 and 5 and its frames, kept in the arena).
 */
struct c2_state {
	struct c2_models m;
	struct template tmpl[MAX_TEMPLATES];
	uint32_t ntmpl, last_tmpl;
	struct cpu_slot cpu[CPU_SLOTS];
	uint64_t last_cpu, last_ts;
	uint32_t last_kind, last_op;
	uint32_t cur_thread;		/* index + 1 of the last sample's */
	uint32_t kf_changed;		/* its kframes is not its thread's last */
	struct thread_state *thr;
	uint32_t nthr, cap_thr;
	uint32_t *ent;			/* each entry's word offset in the arena */
	uint32_t nent, cap_ent;
	uint64_t *arena;
	size_t arena_len, arena_cap;	/* in words */
	uint32_t prev_ent;		/* index + 1 of the previous blob's */
	struct caller_slot caller[CALLER_SLOTS];
};

/* The entry table; the thread table is codec_table.h's. */
struct entry_slot {
	uint64_t hash;
	uint32_t idx, gen;
};

static uint32_t entry_slot_hash(const void *slot)
{
	return (uint32_t)((const struct entry_slot *)slot)->hash;
}

struct chunk_codec2 {
	struct c2_state st;
	struct rc_enc rc;
	unsigned char *verb;		/* the chunk's verbatim records */
	size_t verb_cap;
	void *hc;			/* LZ4 HC's state */
	struct thread_slot *ths;
	uint32_t ths_size;
	struct entry_slot *ens;
	uint32_t ens_size;
	uint32_t gen;
};

static uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* Every model at even odds, every table empty: the start of a chunk. */
static void state_reset(struct c2_state *s)
{
	rc_probs_init((rc_prob *)&s->m, sizeof(s->m) / sizeof(rc_prob));
	s->ntmpl = s->last_tmpl = 0;
	memset(s->cpu, 0, sizeof(s->cpu));
	s->last_cpu = s->last_ts = 0;
	s->last_kind = s->last_op = 0;
	s->cur_thread = s->kf_changed = 0;
	s->nthr = s->nent = 0;
	s->arena_len = 0;
	s->prev_ent = 0;
	memset(s->caller, 0, sizeof(s->caller));
}

static void state_free(struct c2_state *s)
{
	free(s->thr);
	free(s->ent);
	free(s->arena);
}

/* The first capacity of a chunk's arrays, in entries. */
#define TABLE_FIRST	256u

/*
 * The CPU's slot and the time prediction: the timer fires every period,
 * so the CPU's last time plus its period (interval_update()) predicts the
 * next, and what remains is the jitter.
 */
static struct cpu_slot *cpu_slot(struct c2_state *s, uint64_t cpu)
{
	return &s->cpu[cpu % CPU_SLOTS];
}

static bool slot_holds(const struct cpu_slot *k, uint64_t cpu)
{
	return k->used && k->cpu == cpu;
}

static unsigned int time_ctx(const struct cpu_slot *k, uint64_t cpu)
{
	if (!slot_holds(k, cpu))
		return TIME_CTX - 1;
	return k->nb < TIME_CTX - 1 ? k->nb : TIME_CTX - 2;
}

static uint64_t time_predict(const struct c2_state *s,
			     const struct cpu_slot *k, uint64_t cpu)
{
	return slot_holds(k, cpu) ? k->ts + k->interval : s->last_ts;
}

static unsigned int bit_length(uint64_t v)
{
	return v ? 64 - (unsigned int)__builtin_clzll(v) : 0;
}

/*
 * The interval is the CPU's sampling period, smoothed: each interval
 * moves it an eighth of the way, by at most a sixteenth of it.  Under
 * jitter this predicts better than the last interval alone, whose own
 * jitter would add to the next's, and a gap (a descheduled vCPU, a
 * stopped timer) hardly moves it.
 */
static uint64_t interval_update(const struct cpu_slot *k, uint64_t dt)
{
	int64_t diff = (int64_t)(dt - k->interval), lim;

	if (!k->interval)
		return dt;
	lim = (int64_t)(k->interval / 2);
	if (diff > lim)
		diff = lim;
	if (diff < -lim)
		diff = -lim;
	return k->interval + (uint64_t)(diff / 8);
}

static void time_update(struct c2_state *s, struct cpu_slot *k,
			uint64_t cpu, uint64_t ts, uint64_t zz)
{
	k->interval = slot_holds(k, cpu) ? interval_update(k, ts - k->ts) : 0;
	k->cpu = cpu;
	k->ts = ts;
	k->nb = (uint8_t)bit_length(zz);
	k->used = true;
	s->last_ts = ts;
	s->last_cpu = cpu;
}

/* A stack entry: words 0, 1, 5, then the frames. */
static const uint64_t *entry(const struct c2_state *s, uint32_t idx)
{
	return s->arena + s->ent[idx];
}

static uint64_t entry_frames(const uint64_t *e)
{
	return record_words(e[0]) - 6;
}

/*
 * The entry a new one is coded against: the thread's last stack (its
 * callers are likely the same), else the previous blob's.
 */
/* The last sample's thread's recent stacks; NULL: no sample yet. */
static uint32_t *thread_recent(struct c2_state *s)
{
	return s->cur_thread ? s->thr[s->cur_thread - 1].recent : NULL;
}

/* Entry @idx to the front of the thread's recent stacks. */
static void recent_use(uint32_t *recent, uint32_t idx)
{
	uint32_t j = 0;

	while (j < RECENT_STACKS - 1 && recent[j] != idx + 1)
		j++;
	memmove(recent + 1, recent, j * sizeof(*recent));
	recent[0] = idx + 1;
}

static unsigned int op_ctx(unsigned int last_op)
{
	return last_op == 0 ? 0 : last_op < RECENT_STACKS ? 1 : 2;
}

/*
 * The model of a stack's op: by whether its sample's kernel frame count
 * differs from the thread's sample before (then so does its stack), and
 * by how the chunk's previous stack was coded.
 */
static rc_prob *op_model(struct c2_state *s)
{
	return s->m.op[s->kf_changed][op_ctx(s->last_op)];
}

static void op_done(struct c2_state *s, unsigned int op, uint32_t idx)
{
	s->last_op = op;
	s->prev_ent = idx + 1;
	if (s->cur_thread)
		recent_use(s->thr[s->cur_thread - 1].recent, idx);
}

static const uint64_t *reference(struct c2_state *s)
{
	uint32_t *rs = thread_recent(s), r = rs ? rs[0] : 0;

	if (!r)
		r = s->prev_ent;
	return r ? entry(s, r - 1) : NULL;
}

/* Word 0 as the reference's with the new size, word 5 grown with it. */
static uint64_t predict_w0(const uint64_t *ref, uint64_t words)
{
	uint64_t w0 = ref ? ref[0] : FXT_REC_LARGE;

	return (w0 & ~(0xffffffffull << 4)) | words << 4;
}

static uint64_t predict_w5(const uint64_t *ref, uint64_t n)
{
	return ref ? ref[2] + 8 * (n - entry_frames(ref)) : 8 * n;
}

/*
 * Frame @i of @n (leaf first) is predicted by the reference's frame at
 * the same depth from the root, else by the frame before it.
 */
static uint64_t predict_frame(const uint64_t *ref, uint64_t n, uint64_t i,
			      uint64_t prev)
{
	uint64_t nref = ref ? entry_frames(ref) : 0;

	if (nref + i >= n && nref + i - n < nref)
		return ref[3 + nref + i - n];
	return i ? prev : 0;
}

/*
 * The caller of @frame in the last stack that had it: a return address
 * is mostly called from one place, so this predicts most frames of a
 * stack that differs from the reference above its leaf.  A slot holds
 * one frame; a frame not in it is predicted by nothing (0).
 */
static struct caller_slot *caller_slot(struct c2_state *s, uint64_t frame)
{
	return &s->caller[(frame * 0x9e3779b97f4a7c15ull) >> (64 - CALLER_BITS)];
}

static uint64_t caller_of(struct c2_state *s, uint64_t frame)
{
	struct caller_slot *c = caller_slot(s, frame);

	return c->frame == frame ? c->caller : 0;
}

/* A new entry's frames into the table, each frame's caller above it. */
static void callers_learn(struct c2_state *s, const uint64_t *f, uint64_t n)
{
	for (uint64_t i = 0; i + 1 < n; i++) {
		struct caller_slot *c = caller_slot(s, f[i]);

		c->frame = f[i];
		c->caller = f[i + 1];
	}
}

/* The index of @t among the templates, ntmpl if it is not one. */
static uint32_t template_find(const struct c2_state *s,
			      const struct template *t)
{
	if (s->last_tmpl < s->ntmpl &&
	    !memcmp(&s->tmpl[s->last_tmpl], t, sizeof(*t)))
		return s->last_tmpl;
	for (uint32_t i = 0; i < s->ntmpl; i++)
		if (!memcmp(&s->tmpl[i], t, sizeof(*t)))
			return i;
	return s->ntmpl;
}

static struct template sample_template(const unsigned char *r)
{
	return (struct template){
		.w0 = load64(r), .w5 = load64(r + 40),
		.w4lo = (uint32_t)load64(r + 32),
		.w6lo = (uint32_t)load64(r + 48),
	};
}

/* ------------------------------------------------------------------ */
/* Encoding                                                            */
/* ------------------------------------------------------------------ */

static void enc_num(struct rc_enc *e, struct num_model *m, uint64_t v)
{
	unsigned int nb = bit_length(v), rest, k;
	uint32_t t = 1;

	rc_enc_tree(e, m->len, 7, nb);
	if (nb <= 1)
		return;
	rest = nb - 1;
	k = rest < MANT_MODELLED ? rest : MANT_MODELLED;
	for (unsigned int i = 0; i < k; i++) {
		unsigned int bit = (v >> (rest - 1 - i)) & 1;

		rc_enc_bit(e, &m->mant[nb][t], bit);
		t = 2 * t + bit;
	}
	rest -= k;
	if (rest > 32) {
		rc_enc_direct(e, (uint32_t)(v >> 32), rest - 32);
		rest = 32;
	}
	rc_enc_direct(e, (uint32_t)v, rest);
}

static void enc_raw64(struct rc_enc *e, uint64_t v)
{
	rc_enc_direct(e, (uint32_t)(v >> 32), 32);
	rc_enc_direct(e, (uint32_t)v, 32);
}

int chunk_codec2__new(struct chunk_codec2 **cp)
{
	struct chunk_codec2 *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->ths_size = 256;
	c->ens_size = 1024;
	c->ths = calloc(c->ths_size, sizeof(*c->ths));
	c->ens = calloc(c->ens_size, sizeof(*c->ens));
	c->hc = malloc((size_t)LZ4_sizeofStateHC());
	if (!c->ths || !c->ens || !c->hc) {
		chunk_codec2__free(c);
		return -ENOMEM;
	}
	*cp = c;
	return 0;
}

void chunk_codec2__free(struct chunk_codec2 *c)
{
	if (!c)
		return;
	state_free(&c->st);
	rc_enc_free(&c->rc);
	free(c->ths);
	free(c->ens);
	free(c->verb);
	free(c->hc);
	free(c);
}

static void tables_reset(struct chunk_codec2 *c)
{
	/* Generation 0 marks a never-used slot. */
	if (++c->gen == 0) {
		memset(c->ths, 0, c->ths_size * sizeof(*c->ths));
		memset(c->ens, 0, c->ens_size * sizeof(*c->ens));
		c->gen = 1;
	}
}

static int thread_grow(struct chunk_codec2 *c)
{
	struct thread_slot *t = codec_table__rehash(c->ths, c->ths_size, sizeof(*t),
					offsetof(struct thread_slot, gen), c->gen,
					thread_slot_hash);

	if (!t)
		return -ENOMEM;
	free(c->ths);
	c->ths = t;
	c->ths_size *= 2;
	return 0;
}

/* The thread's index, *fresh if it is new (added to the tables). */
static int thread_find(struct chunk_codec2 *c, uint64_t pid, uint64_t tid,
		       uint32_t *idx, bool *fresh)
{
	struct c2_state *s = &c->st;
	uint32_t mask, j;

	if (2 * (s->nthr + 1) > c->ths_size && thread_grow(c))
		return -ENOMEM;
	if (!codec_array__room((void **)&s->thr, &s->cap_thr, s->nthr,
			       sizeof(*s->thr), TABLE_FIRST))
		return -ENOMEM;
	mask = c->ths_size - 1;
	for (j = (uint32_t)codec_mix(pid, tid) & mask;; j = (j + 1) & mask) {
		struct thread_slot *t = &c->ths[j];

		if (t->gen != c->gen) {
			*t = (struct thread_slot){ pid, tid, s->nthr, c->gen };
			s->thr[s->nthr] = (struct thread_state){ .pid = pid, .tid = tid };
			*idx = s->nthr++;
			*fresh = true;
			return 0;
		}
		if (t->pid == pid && t->tid == tid) {
			*idx = t->idx;
			*fresh = false;
			return 0;
		}
	}
}

static int encode_sample(struct chunk_codec2 *c, const unsigned char *r)
{
	struct c2_state *s = &c->st;
	struct c2_models *m = &s->m;
	struct rc_enc *e = &c->rc;
	struct template t = sample_template(r);
	uint64_t ts = load64(r + 8), cpu = load64(r + 32) >> 32;
	uint64_t kframes = load64(r + 48) >> 32, zz;
	uint32_t i = template_find(s, &t), thr, kctx;
	struct cpu_slot *k;
	bool fresh;
	int ret;

	/* The caller made sure there is room for a new template. */
	RC_FIELD(e, F_TEMPLATE);
	rc_enc_bit(e, &m->tmpl_other, i != s->last_tmpl || !s->ntmpl);
	if (i != s->last_tmpl || !s->ntmpl) {
		if (i >= s->ntmpl) {
			i = s->ntmpl++;
			s->tmpl[i] = t;
			rc_enc_tree(e, m->tmpl_idx, 7, i);
			enc_raw64(e, t.w0);
			rc_enc_direct(e, t.w4lo, 32);
			enc_raw64(e, t.w5);
			rc_enc_direct(e, t.w6lo, 32);
		} else {
			rc_enc_tree(e, m->tmpl_idx, 7, i);
		}
		s->last_tmpl = i;
	}

	RC_FIELD(e, F_CPU);
	rc_enc_bit(e, &m->cpu_other, cpu != s->last_cpu);
	if (cpu != s->last_cpu)
		enc_num(e, &m->cpu, cpu);
	k = cpu_slot(s, cpu);
	zz = zigzag(ts - time_predict(s, k, cpu));
	RC_FIELD(e, F_TIME);
	enc_num(e, &m->time[time_ctx(k, cpu)], zz);

	/* Mostly the thread the CPU sampled last: no hashing for it. */
	if (slot_holds(k, cpu) && k->thread &&
	    s->thr[k->thread - 1].pid == load64(r + 16) &&
	    s->thr[k->thread - 1].tid == load64(r + 24)) {
		thr = k->thread - 1;
		fresh = false;
	} else {
		ret = thread_find(c, load64(r + 16), load64(r + 24), &thr, &fresh);
		if (ret)
			return ret;
	}
	RC_FIELD(e, F_THREAD);
	if (slot_holds(k, cpu) && k->thread)
		rc_enc_bit(e, &m->thr_other, thr + 1 != k->thread);
	if (!slot_holds(k, cpu) || thr + 1 != k->thread) {
		enc_num(e, &m->thr_idx, fresh ? s->nthr - 1 : thr);
		if (fresh) {
			enc_num(e, &m->pid, load64(r + 16));
			enc_num(e, &m->tid, zigzag(load64(r + 24) - load64(r + 16)));
		}
	}
	RC_FIELD(e, F_KFRAMES);
	kctx = s->thr[thr].kframes == 0;
	rc_enc_bit(e, &m->kf_other[kctx], kframes != s->thr[thr].kframes);
	if (kframes != s->thr[thr].kframes)
		enc_num(e, &m->kf[kctx], kframes);

	time_update(s, k, cpu, ts, zz);
	k->thread = thr + 1;
	s->kf_changed = kframes != s->thr[thr].kframes;
	s->thr[thr].kframes = kframes;
	s->cur_thread = thr + 1;
	return 0;
}

static int entry_grow(struct chunk_codec2 *c)
{
	struct entry_slot *t = codec_table__rehash(c->ens, c->ens_size, sizeof(*t),
					offsetof(struct entry_slot, gen), c->gen,
					entry_slot_hash);

	if (!t)
		return -ENOMEM;
	free(c->ens);
	c->ens = t;
	c->ens_size *= 2;
	return 0;
}

static bool entry_is(const uint64_t *e, const unsigned char *r, uint64_t words)
{
	if (e[0] != load64(r) || e[1] != load64(r + 8) || e[2] != load64(r + 40))
		return false;
	/* The leaf first: it is what differs most often. */
	if (words > 6 && e[3] != load64(r + 48))
		return false;
	return !memcmp(e + 3, r + 48, 8 * (words - 6));
}

/* A new entry's fields against the reference (see reference()). */
static void encode_new_entry(struct c2_state *s, struct rc_enc *e,
			     const unsigned char *r, uint64_t words,
			     const uint64_t *ref)
{
	struct c2_models *m = &s->m;
	uint64_t n = words - 6, nref = ref ? entry_frames(ref) : 0, same = 0;
	uint64_t w0 = load64(r), w1 = load64(r + 8), w5 = load64(r + 40);
	const unsigned char *f = r + 48;
	uint64_t prev = 0;

	RC_FIELD(e, F_STACK_WORDS);
	rc_enc_bit(e, &m->n_other, n != nref);
	if (n != nref)
		enc_num(e, &m->nframes, n);
	rc_enc_bit(e, &m->w0_other, w0 != predict_w0(ref, words));
	if (w0 != predict_w0(ref, words))
		enc_raw64(e, w0);
	rc_enc_bit(e, &m->w1_other, w1 != (ref ? ref[1] : 0));
	if (w1 != (ref ? ref[1] : 0))
		enc_raw64(e, w1);
	rc_enc_bit(e, &m->w5_other, w5 != predict_w5(ref, n));
	if (w5 != predict_w5(ref, n))
		enc_raw64(e, w5);
	/* The callers both share, counted from the root. */
	while (same < n && same < nref &&
	       load64(f + 8 * (n - 1 - same)) == ref[3 + nref - 1 - same])
		same++;
	RC_FIELD(e, F_STACK_DIFFER);
	enc_num(e, &m->differ, n - same);
	for (uint64_t i = 0; i < n - same; i++) {
		uint64_t v = load64(f + 8 * i);

		uint64_t pf = predict_frame(ref, n, i, prev);

		RC_FIELD(e, i ? F_STACK_FRAMES : F_STACK_LEAF);
		if (i) {
			uint64_t pc = caller_of(s, prev);

			rc_enc_bit(e, &m->caller_miss[pc == pf], v != pc);
			if (v == pc) {
				prev = v;
				continue;
			}
		}
		enc_num(e, &m->frame[i != 0], zigzag(v - pf));
		prev = v;
	}
}

static int encode_blob(struct chunk_codec2 *c, const unsigned char *r,
		       uint64_t words)
{
	struct c2_state *s = &c->st;
	struct c2_models *m = &s->m;
	struct rc_enc *e = &c->rc;
	uint32_t *rs = thread_recent(s), idx, mask, j, op;
	rc_prob *opm = op_model(s);
	const uint64_t *ref;
	uint64_t h;

	RC_FIELD(e, F_STACK_OP);
	if (2 * (s->nent + 1) > c->ens_size && entry_grow(c))
		return -ENOMEM;
	mask = c->ens_size - 1;
	/* Most often one of the thread's recent stacks: no hashing for it. */
	for (op = 0; rs && op < RECENT_STACKS && rs[op]; op++) {
		if (entry_is(entry(s, rs[op] - 1), r, words)) {
			idx = rs[op] - 1;
			rc_enc_tree(e, opm, 5, op);
			goto out;
		}
	}
	/*
	 * The hash of the words other than time, pid and tid: one
	 * multiplication a word, mixed once at the end (collisions only cost
	 * a comparison).
	 */
	h = load64(r) ^ load64(r + 8) * 3 ^ load64(r + 40) * 5;
	for (uint64_t i = FXT_STACK_FRAMES; i < words; i++)
		h = (h + load64(r + 8 * i)) * 0x9e3779b97f4a7c15ull;
	h = codec_mix(h, h >> 32);
	for (j = (uint32_t)h & mask;; j = (j + 1) & mask) {
		struct entry_slot *t = &c->ens[j];

		if (t->gen != c->gen)
			break;
		if (t->hash == h && entry_is(entry(s, t->idx), r, words)) {
			idx = t->idx;
			op = OP_EARLIER;
			rc_enc_tree(e, opm, 5, op);
			RC_FIELD(e, F_STACK_EARLIER);
			enc_num(e, &m->back, s->nent - 1 - idx);
			goto out;
		}
	}
	if (!codec_array__room((void **)&s->ent, &s->cap_ent, s->nent,
			       sizeof(*s->ent), TABLE_FIRST))
		return -ENOMEM;
	if (s->arena_len + words - 3 > s->arena_cap) {
		size_t cap = s->arena_cap ? 2 * s->arena_cap : 65536;
		uint64_t *p;

		while (cap < s->arena_len + words - 3)
			cap *= 2;
		p = realloc(s->arena, cap * 8);
		if (!p)
			return -ENOMEM;
		s->arena = p;
		s->arena_cap = cap;
	}
	op = OP_NEW;
	rc_enc_tree(e, opm, 5, op);
	ref = reference(s);
	encode_new_entry(s, e, r, words, ref);
	idx = s->nent++;
	c->ens[j] = (struct entry_slot){ h, idx, c->gen };
	s->ent[idx] = (uint32_t)s->arena_len;
	s->arena[s->arena_len] = load64(r);
	s->arena[s->arena_len + 1] = load64(r + 8);
	s->arena[s->arena_len + 2] = load64(r + 40);
	memcpy(s->arena + s->arena_len + 3, r + 48, 8 * (words - 6));
	callers_learn(s, s->arena + s->arena_len + 3, words - 6);
	s->arena_len += words - 3;
out:
	op_done(s, op, idx);
	return 0;
}

long chunk_codec2__encode(struct chunk_codec2 *c, const void *fxt, size_t len,
			  uint32_t records, void *out, size_t cap)
{
	const unsigned char *p = fxt, *end = p + len, *sample = NULL;
	unsigned char *o = out;
	struct c2_state *s = &c->st;
	struct rc_enc *e = &c->rc;
	size_t nverb = 0;
	uint32_t n = 0, vlen, zlen = 0;
	int ret;

	if (cap < VERBATIM_HEADER)
		return 0;
	state_reset(s);
	tables_reset(c);
	rc_enc_reset(e);
	while (p < end) {
		uint64_t w0, words, bytes;
		unsigned int kind = K_VERBATIM;
		struct c2_models *m = &s->m;

		if (end - p < 8)
			return 0;
		w0 = load64(p);
		words = record_words(w0);
		if (!words || words > (uint64_t)(end - p) / 8 || n == records)
			return 0;		/* not whole records: uncoded */
		bytes = words * 8;
		/*
		 * The kind is coded before the record's fields, so a sample
		 * that would need a 65th template is known to be verbatim
		 * first.
		 */
		if ((w0 & 0xf) == FXT_REC_EVENT && words == FXT_SAMPLE_EVENT_WORDS) {
			struct template t = sample_template(p);

			if (s->ntmpl < MAX_TEMPLATES ||
			    template_find(s, &t) < s->ntmpl)
				kind = K_SAMPLE;
		} else if ((w0 & 0xf) == FXT_REC_LARGE && words >= FXT_STACK_FRAMES) {
			kind = sample && !memcmp(p + 16, sample + 8, 24) ?
			       K_BLOB_OF_SAMPLE : K_BLOB;
		}
		RC_FIELD(e, F_KIND);
		rc_enc_tree(e, m->kind[s->last_kind], 2, kind);
		s->last_kind = kind;
		switch (kind) {
		case K_SAMPLE:
			ret = encode_sample(c, p);
			if (ret)
				return ret;
			sample = p;
			break;
		case K_BLOB:
			RC_FIELD(e, F_BLOBTIME);
			enc_raw64(e, load64(p + 16));
			enc_raw64(e, load64(p + 24));
			enc_raw64(e, load64(p + 32));
			/* fall through */
		case K_BLOB_OF_SAMPLE:
			ret = encode_blob(c, p, words);
			if (ret)
				return ret;
			break;
		default:
			if (nverb + bytes > c->verb_cap) {
				size_t vc = c->verb_cap ? 2 * c->verb_cap : 65536;
				unsigned char *q;

				while (vc < nverb + bytes)
					vc *= 2;
				q = realloc(c->verb, vc);
				if (!q)
					return -ENOMEM;
				c->verb = q;
				c->verb_cap = vc;
			}
			memcpy(c->verb + nverb, p, bytes);
			nverb += bytes;
			break;
		}
		n++;
		p += bytes;
	}
	if (n != records)
		return 0;
	rc_enc_flush(e);
	if (e->error)
		return e->error;
	if (nverb) {
		/* No room, or not a valid size: not coded (0). */
		int z = LZ4_compress_HC_extStateHC(c->hc, (const char *)c->verb,
						   (char *)o + VERBATIM_HEADER,
						   (int)nverb,
						   (int)(cap - VERBATIM_HEADER),
						   VERBATIM_HC_LEVEL);

		if (z <= 0)
			return 0;
		zlen = (uint32_t)z;
	}
	if (VERBATIM_HEADER + zlen + e->len >= len ||
	    e->len > cap - VERBATIM_HEADER - zlen)
		return 0;
	vlen = (uint32_t)nverb;
	memcpy(o, &vlen, 4);
	memcpy(o + 4, &zlen, 4);
	memcpy(o + VERBATIM_HEADER + zlen, e->p, e->len);
	return (long)(VERBATIM_HEADER + zlen + e->len);
}

/* ------------------------------------------------------------------ */
/* Decoding: every length and loop bounded by the chunk's sizes        */
/* ------------------------------------------------------------------ */

static bool dec_num(struct rc_dec *d, struct num_model *m, uint64_t *v)
{
	unsigned int nb = rc_dec_tree(d, m->len, 7), rest, k;
	uint32_t t = 1;
	uint64_t x = 1;

	if (nb > 64)
		return false;
	if (nb <= 1) {
		*v = nb;
		return true;
	}
	rest = nb - 1;
	k = rest < MANT_MODELLED ? rest : MANT_MODELLED;
	for (unsigned int i = 0; i < k; i++) {
		unsigned int bit = rc_dec_bit(d, &m->mant[nb][t]);

		t = 2 * t + bit;
		x = 2 * x + bit;
	}
	rest -= k;
	if (rest > 32) {
		x = x << (rest - 32) | rc_dec_direct(d, rest - 32);
		rest = 32;
	}
	*v = x << rest | rc_dec_direct(d, rest);
	return true;
}

static bool dec_u32(struct rc_dec *d, struct num_model *m, uint64_t *v)
{
	return dec_num(d, m, v) && *v <= UINT32_MAX;
}

static uint64_t dec_raw64(struct rc_dec *d)
{
	uint64_t hi = rc_dec_direct(d, 32);

	return hi << 32 | rc_dec_direct(d, 32);
}

static int decode_sample(struct c2_state *s, struct rc_dec *d,
			 unsigned char *o, size_t out_left)
{
	struct c2_models *m = &s->m;
	uint64_t cpu, zz, ts, kframes, idx;
	struct cpu_slot *k;
	const struct template *tp;
	uint32_t thr, kctx;

	if (out_left < 8 * FXT_SAMPLE_EVENT_WORDS)
		return -EBADMSG;
	if (rc_dec_bit(d, &m->tmpl_other) || !s->ntmpl) {
		idx = rc_dec_tree(d, m->tmpl_idx, 7);
		if (idx > s->ntmpl || idx >= MAX_TEMPLATES)
			return -EBADMSG;
		if (idx == s->ntmpl) {
			struct template *t = &s->tmpl[s->ntmpl++];

			t->w0 = dec_raw64(d);
			t->w4lo = rc_dec_direct(d, 32);
			t->w5 = dec_raw64(d);
			t->w6lo = rc_dec_direct(d, 32);
			if ((t->w0 & 0xf) != FXT_REC_EVENT ||
			    record_words(t->w0) != FXT_SAMPLE_EVENT_WORDS)
				return -EBADMSG;
		}
		s->last_tmpl = (uint32_t)idx;
	}
	tp = &s->tmpl[s->last_tmpl];

	cpu = s->last_cpu;
	if (rc_dec_bit(d, &m->cpu_other) && !dec_u32(d, &m->cpu, &cpu))
		return -EBADMSG;
	k = cpu_slot(s, cpu);
	if (!dec_num(d, &m->time[time_ctx(k, cpu)], &zz))
		return -EBADMSG;
	ts = time_predict(s, k, cpu) + unzigzag(zz);

	if (slot_holds(k, cpu) && k->thread && !rc_dec_bit(d, &m->thr_other)) {
		thr = k->thread - 1;
	} else {
		if (!dec_num(d, &m->thr_idx, &idx) || idx > s->nthr)
			return -EBADMSG;
		if (idx == s->nthr) {
			uint64_t pid, tid;

			if (!codec_array__room((void **)&s->thr, &s->cap_thr,
					       s->nthr, sizeof(*s->thr),
					       TABLE_FIRST))
				return -ENOMEM;
			if (!dec_num(d, &m->pid, &pid) || !dec_num(d, &m->tid, &tid))
				return -EBADMSG;
			s->thr[s->nthr++] = (struct thread_state){
				.pid = pid, .tid = pid + unzigzag(tid) };
		}
		thr = (uint32_t)idx;
	}
	kframes = s->thr[thr].kframes;
	kctx = kframes == 0;
	if (rc_dec_bit(d, &m->kf_other[kctx]) && !dec_u32(d, &m->kf[kctx], &kframes))
		return -EBADMSG;

	time_update(s, k, cpu, ts, zz);
	k->thread = thr + 1;
	s->kf_changed = kframes != s->thr[thr].kframes;
	s->thr[thr].kframes = kframes;
	s->cur_thread = thr + 1;
	store64(o, tp->w0);
	store64(o + 8, ts);
	store64(o + 16, s->thr[thr].pid);
	store64(o + 24, s->thr[thr].tid);
	store64(o + 32, tp->w4lo | cpu << 32);
	store64(o + 40, tp->w5);
	store64(o + 48, tp->w6lo | kframes << 32);
	return 0;
}

static int decode_new_entry(struct c2_state *s, struct rc_dec *d,
			    size_t out_left)
{
	struct c2_models *m = &s->m;
	const uint64_t *ref = reference(s);
	uint64_t nref = ref ? entry_frames(ref) : 0, n = nref, words, differ;
	uint64_t *e, prev = 0;

	if (rc_dec_bit(d, &m->n_other) && !dec_num(d, &m->nframes, &n))
		return -EBADMSG;
	/* The record holds 6 words and the frames: the output bounds them. */
	if (n > out_left / 8 || n + 6 > out_left / 8)
		return -EBADMSG;
	words = n + 6;
	if (!codec_array__room((void **)&s->ent, &s->cap_ent, s->nent,
			       sizeof(*s->ent), TABLE_FIRST))
		return -ENOMEM;
	if (s->arena_len + words - 3 > s->arena_cap)
		return -EBADMSG;
	e = s->arena + s->arena_len;
	e[0] = rc_dec_bit(d, &m->w0_other) ? dec_raw64(d) : predict_w0(ref, words);
	e[1] = rc_dec_bit(d, &m->w1_other) ? dec_raw64(d) : ref ? ref[1] : 0;
	e[2] = rc_dec_bit(d, &m->w5_other) ? dec_raw64(d) : predict_w5(ref, n);
	if ((e[0] & 0xf) != FXT_REC_LARGE || record_words(e[0]) != words)
		return -EBADMSG;
	if (!dec_num(d, &m->differ, &differ) || differ > n || n - differ > nref)
		return -EBADMSG;
	for (uint64_t i = 0; i < differ; i++) {
		uint64_t z, pf = predict_frame(ref, n, i, prev);

		if (i) {
			uint64_t pc = caller_of(s, prev);

			if (!rc_dec_bit(d, &m->caller_miss[pc == pf])) {
				e[3 + i] = prev = pc;
				continue;
			}
		}
		if (!dec_num(d, &m->frame[i != 0], &z))
			return -EBADMSG;
		e[3 + i] = prev = pf + unzigzag(z);
	}
	/* The shared callers: the reference's last n - differ frames. */
	if (n > differ)
		memcpy(e + 3 + differ, ref + 3 + nref - (n - differ),
		       8 * (n - differ));
	callers_learn(s, e + 3, n);
	s->ent[s->nent] = (uint32_t)s->arena_len;
	s->arena_len += words - 3;
	return (int)s->nent++;
}

static int decode_blob(struct c2_state *s, struct rc_dec *d, unsigned int kind,
		       unsigned char *o, size_t out_left,
		       const unsigned char *sample)
{
	struct c2_models *m = &s->m;
	uint32_t *rs = thread_recent(s);
	unsigned int op = rc_dec_tree(d, op_model(s), 5);
	const uint64_t *en;
	uint64_t back, words;
	uint32_t idx;
	int ret;

	if (out_left < 8 * FXT_STACK_FRAMES)
		return -EBADMSG;
	if (kind == K_BLOB_OF_SAMPLE) {
		if (!sample)
			return -EBADMSG;
		memcpy(o + 16, sample + 8, 24);
	}
	switch (op) {
	case 0 ... RECENT_STACKS - 1:
		if (!rs || !rs[op])
			return -EBADMSG;
		idx = rs[op] - 1;
		break;
	case OP_EARLIER:
		if (!dec_num(d, &m->back, &back) || back >= s->nent)
			return -EBADMSG;
		idx = (uint32_t)(s->nent - 1 - back);
		break;
	case OP_NEW:
		ret = decode_new_entry(s, d, out_left);
		if (ret < 0)
			return ret;
		idx = (uint32_t)ret;
		break;
	default:
		return -EBADMSG;
	}
	en = entry(s, idx);
	words = record_words(en[0]);
	if (words > out_left / 8)
		return -EBADMSG;
	store64(o, en[0]);
	store64(o + 8, en[1]);
	store64(o + 40, en[2]);
	memcpy(o + 48, en + 3, 8 * (words - 6));
	op_done(s, op, idx);
	return (int)words;
}

/* The verbatim records, read in order. */
struct rd_verbatim {
	const unsigned char *p;
	size_t len, pos;
};

static int decode_records(struct c2_state *s, struct rc_dec *d,
			  struct rd_verbatim *v, unsigned char *out,
			  size_t out_len, uint32_t records)
{
	const unsigned char *sample = NULL;
	size_t o = 0;
	int ret;

	for (uint32_t n = 0; n < records; n++) {
		struct c2_models *m = &s->m;
		unsigned int kind = rc_dec_tree(d, m->kind[s->last_kind], 2);
		uint64_t words;

		s->last_kind = kind;
		switch (kind) {
		case K_VERBATIM:
			if (v->len - v->pos < 8)
				return -EBADMSG;
			words = record_words(load64(v->p + v->pos));
			if (!words || words > (out_len - o) / 8 ||
			    words * 8 > v->len - v->pos)
				return -EBADMSG;
			memcpy(out + o, v->p + v->pos, words * 8);
			v->pos += words * 8;
			break;
		case K_SAMPLE:
			ret = decode_sample(s, d, out + o, out_len - o);
			if (ret)
				return ret;
			sample = out + o;
			words = FXT_SAMPLE_EVENT_WORDS;
			break;
		case K_BLOB:
			if (out_len - o < 8 * FXT_STACK_FRAMES)
				return -EBADMSG;
			store64(out + o + 16, dec_raw64(d));
			store64(out + o + 24, dec_raw64(d));
			store64(out + o + 32, dec_raw64(d));
			/* fall through */
		default:		/* K_BLOB_OF_SAMPLE */
			ret = decode_blob(s, d, kind, out + o, out_len - o, sample);
			if (ret < 0)
				return ret;
			words = (uint64_t)ret;
			break;
		}
		if (rc_dec_failed(d))
			return -EBADMSG;	/* cut short: stop early */
		o += words * 8;
	}
	if (v->pos != v->len || !rc_dec_exact(d))
		return -EBADMSG;		/* bytes no record used */
	return o == out_len ? 0 : -EBADMSG;
}

int chunk_codec2__decode(const void *in, size_t len, void *out,
			 size_t out_len, uint32_t records)
{
	const unsigned char *p = in;
	unsigned char *verb = NULL;
	struct rd_verbatim v;
	struct c2_state *s;
	struct rc_dec d;
	uint32_t vlen, zlen;
	int ret;

	if (len < VERBATIM_HEADER)
		return -EBADMSG;
	memcpy(&vlen, p, 4);
	memcpy(&zlen, p + 4, 4);
	/* The verbatim records are output records: the output bounds them. */
	if (vlen > out_len || zlen > len - VERBATIM_HEADER || !vlen != !zlen ||
	    !rc_dec_init(&d, p + VERBATIM_HEADER + zlen,
			 len - VERBATIM_HEADER - zlen))
		return -EBADMSG;
	if (vlen) {
		verb = malloc(vlen);
		if (!verb)
			return -ENOMEM;
		if (LZ4_decompress_safe((const char *)p + VERBATIM_HEADER,
					(char *)verb, (int)zlen, (int)vlen) != (int)vlen) {
			free(verb);
			return -EBADMSG;
		}
	}
	v = (struct rd_verbatim){ verb, vlen, 0 };
	s = calloc(1, sizeof(*s));
	if (!s) {
		free(verb);
		return -ENOMEM;
	}
	state_reset(s);
	/* An entry is a blob record less 24 bytes: the output bounds them. */
	s->arena_cap = out_len / 8;
	s->arena = malloc(out_len ? out_len : 1);
	ret = s->arena ? decode_records(s, &d, &v, out, out_len, records)
		       : -ENOMEM;
	state_free(s);
	free(s);
	free(verb);
	return ret;
}

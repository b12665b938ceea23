// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfetto.c - Perfetto TracePackets for a CPU profile, one at a time
 * (perfetto.h).  Field numbers are Perfetto's (protos/perfetto/trace/...;
 * Documentation/export.md lists them); every repeated scalar is written
 * unpacked, as those proto2 fields are declared, since Perfetto's decoder
 * does not read the other encoding.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "pb_writer.h"
#include "perfetto.h"

/* TracePacket */
#define TP_TIMESTAMP			8
#define TP_SEQUENCE_ID			10
#define TP_INTERNED_DATA		12
#define TP_SEQUENCE_FLAGS		13
#define TP_PROCESS_TREE			2
#define TP_DEFAULTS			59
#define TP_FIRST_PACKET_ON_SEQUENCE	87
#define TP_PERF_SAMPLE			66
/* TracePacketDefaults */
#define TPD_TIMESTAMP_CLOCK_ID		58
#define TPD_PERF_SAMPLE_DEFAULTS	12
/* PerfSampleDefaults, PerfEvents.Timebase, PerfEvents.Tracepoint */
#define PSD_TIMEBASE			1
#define TB_TRACEPOINT			3
#define TB_NAME				10
#define TPT_NAME			1
/* InternedData */
#define ID_FUNCTION_NAMES		5
#define ID_FRAMES			6
#define ID_CALLSTACKS			7
#define ID_BUILD_IDS			16
#define ID_MAPPING_PATHS		17
#define ID_MAPPINGS			19
/* InternedString */
#define IS_IID				1
#define IS_STR				2
/* Mapping */
#define MAP_IID				1
#define MAP_BUILD_ID			2
#define MAP_START_OFFSET		3
#define MAP_START			4
#define MAP_END				5
#define MAP_LOAD_BIAS			6
#define MAP_PATH_STRING_IDS		7
#define MAP_EXACT_OFFSET		8
/* Frame */
#define FR_IID				1
#define FR_FUNCTION_NAME_ID		2
#define FR_MAPPING_ID			3
#define FR_REL_PC			4
#define FR_KIND				7
/* Callstack */
#define CS_IID				1
#define CS_FRAME_IDS			2
/* PerfSample */
#define PS_CPU				1
#define PS_PID				2
#define PS_TID				3
#define PS_CALLSTACK_IID		4
#define PS_CPU_MODE			5
/* ProcessTree, Process, Thread */
#define PT_PROCESSES			1
#define PT_THREADS			2
#define PR_PID				1
#define PR_CMDLINE			3
#define PR_CMDLINE_IS_COMM		9
#define TH_TID				1
#define TH_NAME				2
#define TH_TGID				3

#define SEQ_ID_CPU			1
#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define SEQ_NEEDS_INCREMENTAL_STATE	2
#define CLOCK_BOOTTIME_ID		6
#define FRAME_KIND_NATIVE		1
#define FRAME_KIND_KERNEL		2
/* Perfetto recognises the kernel's mapping by this name and no range. */
#define KERNEL_MAPPING_PATH		"/kernel"

/*
 * Room a sample packet needs besides its interned data: preamble (4),
 * timestamp (11), sequence id and flags (4), the interned data's tag and
 * length (4), and a PerfSample (at most 3 + 4 * 6 + 11 + 2).
 */
#define SAMPLE_OVERHEAD		64u
#define INTERN_BUDGET		(PERFETTO_MAX_PACKET - SAMPLE_OVERHEAD)

struct frame_key {
	uint64_t mapping_iid;
	uint64_t rel_pc;
	uint64_t name_iid;
};

struct perfetto_emitter {
	perfetto_emit_fn emit;
	void *ctx;
	uint32_t seq_id;
	struct perfetto_timebase tb;	/* tb.tracepoint NULL: the CPU's */
	bool started;
	struct intern names, paths, build_ids, mappings, frames, callstacks;
	uint32_t kernel_mapping_iid;
	struct pb_buf pending;	/* InternedData fields not yet emitted */
	struct pb_buf item;	/* one interned entry being encoded */
	struct pb_buf pkt;	/* a TracePacket */
	struct pb_buf out;	/* preamble + packet */
	uint64_t *stack;	/* frame iids, root first */
	size_t stack_cap;
	uint64_t last_ts;
	struct perfetto_stats st;
};

int perfetto_emitter__new_timebase(perfetto_emit_fn emit, void *ctx,
				   const struct perfetto_timebase *tb,
				   struct perfetto_emitter **out)
{
	struct perfetto_emitter *e;

	if (tb && (tb->sequence_id <= SEQ_ID_CPU || !tb->tracepoint))
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->emit = emit;
	e->ctx = ctx;
	e->seq_id = tb ? tb->sequence_id : SEQ_ID_CPU;
	if (tb)
		e->tb = *tb;
	intern__init(&e->names);
	intern__init(&e->paths);
	intern__init(&e->build_ids);
	intern__init(&e->mappings);
	intern__init(&e->frames);
	intern__init(&e->callstacks);
	*out = e;
	return 0;
}

int perfetto_emitter__new(perfetto_emit_fn emit, void *ctx,
			  struct perfetto_emitter **out)
{
	return perfetto_emitter__new_timebase(emit, ctx, NULL, out);
}

void perfetto_emitter__free(struct perfetto_emitter *e)
{
	if (!e)
		return;
	intern__release(&e->names);
	intern__release(&e->paths);
	intern__release(&e->build_ids);
	intern__release(&e->mappings);
	intern__release(&e->frames);
	intern__release(&e->callstacks);
	pb_buf__release(&e->pending);
	pb_buf__release(&e->item);
	pb_buf__release(&e->pkt);
	pb_buf__release(&e->out);
	free(e->stack);
	free(e);
}

void perfetto_emitter__stats(const struct perfetto_emitter *e,
			     struct perfetto_stats *st)
{
	*st = e->st;
}

/* Hand e->pkt to the callback behind its Trace.packet preamble. */
static int emit_packet(struct perfetto_emitter *e)
{
	int err;

	if (e->pkt.err)
		return e->pkt.err;
	pb_buf__reset(&e->out);
	pb_put_bytes(&e->out, 1, e->pkt.data, e->pkt.len);
	if (e->out.err)
		return e->out.err;
	if (e->out.len > PERFETTO_MAX_PACKET)
		return -E2BIG;	/* a bug in the budgets above */
	err = e->emit(e->ctx, e->out.data, e->out.len);
	if (err)
		return err;
	e->st.packets++;
	e->st.bytes += e->out.len;
	return 0;
}

static void packet_begin(struct perfetto_emitter *e, uint64_t ts,
			 unsigned int flags)
{
	pb_buf__reset(&e->pkt);
	pb_put_uint(&e->pkt, TP_TIMESTAMP, ts);
	pb_put_uint(&e->pkt, TP_SEQUENCE_ID, e->seq_id);
	pb_put_uint(&e->pkt, TP_SEQUENCE_FLAGS, flags);
}

/* PerfSampleDefaults naming a tracepoint as what the samples count. */
static void put_timebase(struct perfetto_emitter *e)
{
	const char *tp = e->tb.tracepoint, *name = e->tb.name;
	size_t psd, tb, t;

	psd = pb_open(&e->pkt, TPD_PERF_SAMPLE_DEFAULTS);
	tb = pb_open(&e->pkt, PSD_TIMEBASE);
	t = pb_open(&e->pkt, TB_TRACEPOINT);
	pb_put_bytes(&e->pkt, TPT_NAME, tp, strlen(tp));
	pb_close(&e->pkt, t);
	if (name)
		pb_put_bytes(&e->pkt, TB_NAME, name, strlen(name));
	pb_close(&e->pkt, tb);
	pb_close(&e->pkt, psd);
}

/*
 * The first packet of the sequence: a clean state, BOOTTIME, and for
 * another kind of samples what they count.
 */
static int start(struct perfetto_emitter *e, uint64_t ts)
{
	size_t m;

	if (e->started)
		return 0;
	packet_begin(e, ts, SEQ_INCREMENTAL_STATE_CLEARED);
	m = pb_open(&e->pkt, TP_DEFAULTS);
	pb_put_uint(&e->pkt, TPD_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME_ID);
	if (e->tb.tracepoint)
		put_timebase(e);
	pb_close(&e->pkt, m);
	pb_put_uint(&e->pkt, TP_FIRST_PACKET_ON_SEQUENCE, 1);
	e->started = true;
	return emit_packet(e);
}

/* The pending interned data, alone in a packet of its own. */
static int flush_pending(struct perfetto_emitter *e)
{
	int err;

	if (!e->pending.len)
		return e->pending.err;
	packet_begin(e, e->last_ts, SEQ_NEEDS_INCREMENTAL_STATE);
	pb_put_bytes(&e->pkt, TP_INTERNED_DATA, e->pending.data,
		     e->pending.len);
	err = emit_packet(e);
	pb_buf__reset(&e->pending);
	return err;
}

/* Move e->item (one InternedData field) to the pending data. */
static int add_item(struct perfetto_emitter *e)
{
	int err;

	if (e->item.err)
		return e->item.err;
	if (e->pending.len + e->item.len > INTERN_BUDGET) {
		err = flush_pending(e);
		if (err)
			return err;
	}
	pb_put_raw(&e->pending, e->item.data, e->item.len);
	return e->pending.err;
}

/* Longest prefix of s within max bytes that ends on a UTF-8 boundary. */
static size_t cut_len(const char *s, size_t max)
{
	size_t len = strlen(s);

	if (len <= max)
		return len;
	len = max;
	while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	return len;
}

/* The iid of string s in table t, interned as InternedData field. */
static int intern_string(struct perfetto_emitter *e, struct intern *t,
			 uint32_t field, const void *s, size_t len,
			 uint64_t *iid)
{
	bool is_new;
	uint32_t id = intern__id(t, s, len, &is_new);
	size_t m;

	if (!id)
		return -ENOMEM;
	*iid = id;
	if (!is_new)
		return 0;
	if (t == &e->names)
		e->st.function_names++;
	pb_buf__reset(&e->item);
	m = pb_open(&e->item, field);
	pb_put_uint(&e->item, IS_IID, id);
	pb_put_bytes(&e->item, IS_STR, s, len);
	pb_close(&e->item, m);
	return add_item(e);
}

static int intern_kernel_mapping(struct perfetto_emitter *e, uint64_t *iid)
{
	uint64_t path;
	size_t m;
	int err;

	if (e->kernel_mapping_iid) {
		*iid = e->kernel_mapping_iid;
		return 0;
	}
	err = intern_string(e, &e->paths, ID_MAPPING_PATHS,
			    KERNEL_MAPPING_PATH, strlen(KERNEL_MAPPING_PATH),
			    &path);
	if (err)
		return err;
	/* One byte: no user mapping's key (9 bytes) can be equal to it. */
	e->kernel_mapping_iid = intern__id(&e->mappings, "K", 1, NULL);
	if (!e->kernel_mapping_iid)
		return -ENOMEM;
	pb_buf__reset(&e->item);
	m = pb_open(&e->item, ID_MAPPINGS);
	pb_put_uint(&e->item, MAP_IID, e->kernel_mapping_iid);
	pb_put_uint(&e->item, MAP_START, 0);
	pb_put_uint(&e->item, MAP_END, 0);
	pb_put_uint(&e->item, MAP_EXACT_OFFSET, 0);
	pb_put_uint(&e->item, MAP_PATH_STRING_IDS, path);
	pb_close(&e->item, m);
	e->st.mappings++;
	*iid = e->kernel_mapping_iid;
	return add_item(e);
}

static int intern_mapping(struct perfetto_emitter *e,
			  const struct perfetto_mapping *map, uint64_t *iid)
{
	uint8_t key[1 + sizeof(map->key)];
	uint64_t path = 0, build_id = 0;
	uint32_t id;
	bool is_new;
	size_t m;
	int err;

	key[0] = 'U';
	memcpy(key + 1, &map->key, sizeof(map->key));
	id = intern__find(&e->mappings, key, sizeof(key));
	if (id) {
		*iid = id;
		return 0;
	}
	if (map->path && *map->path) {
		err = intern_string(e, &e->paths, ID_MAPPING_PATHS, map->path,
				    cut_len(map->path, PERFETTO_MAX_NAME),
				    &path);
		if (err)
			return err;
	}
	if (map->build_id && map->build_id_size) {
		err = intern_string(e, &e->build_ids, ID_BUILD_IDS,
				    map->build_id, map->build_id_size,
				    &build_id);
		if (err)
			return err;
	}
	id = intern__id(&e->mappings, key, sizeof(key), &is_new);
	if (!id)
		return -ENOMEM;
	pb_buf__reset(&e->item);
	m = pb_open(&e->item, ID_MAPPINGS);
	pb_put_uint(&e->item, MAP_IID, id);
	if (build_id)
		pb_put_uint(&e->item, MAP_BUILD_ID, build_id);
	pb_put_uint(&e->item, MAP_START_OFFSET, map->start_offset);
	pb_put_uint(&e->item, MAP_START, map->start);
	pb_put_uint(&e->item, MAP_END, map->end);
	pb_put_uint(&e->item, MAP_LOAD_BIAS, map->load_bias);
	/* One component holding the whole path: Perfetto joins with '/'. */
	if (path)
		pb_put_uint(&e->item, MAP_PATH_STRING_IDS, path);
	pb_put_uint(&e->item, MAP_EXACT_OFFSET, map->exact_offset);
	pb_close(&e->item, m);
	e->st.mappings++;
	*iid = id;
	return add_item(e);
}

static int intern_frame(struct perfetto_emitter *e,
			const struct perfetto_frame *f, uint64_t *iid)
{
	struct frame_key key = { 0 };
	bool is_new;
	uint32_t id;
	size_t m;
	int err = 0;

	if (f->kernel)
		err = intern_kernel_mapping(e, &key.mapping_iid);
	else if (f->mapping)
		err = intern_mapping(e, f->mapping, &key.mapping_iid);
	if (err)
		return err;
	if (f->function && *f->function) {
		err = intern_string(e, &e->names, ID_FUNCTION_NAMES,
				    f->function,
				    cut_len(f->function, PERFETTO_MAX_NAME),
				    &key.name_iid);
		if (err)
			return err;
	}
	key.rel_pc = f->rel_pc;
	id = intern__id(&e->frames, &key, sizeof(key), &is_new);
	if (!id)
		return -ENOMEM;
	*iid = id;
	if (!is_new)
		return 0;
	pb_buf__reset(&e->item);
	m = pb_open(&e->item, ID_FRAMES);
	pb_put_uint(&e->item, FR_IID, id);
	if (key.name_iid)
		pb_put_uint(&e->item, FR_FUNCTION_NAME_ID, key.name_iid);
	if (key.mapping_iid) {
		pb_put_uint(&e->item, FR_MAPPING_ID, key.mapping_iid);
		pb_put_uint(&e->item, FR_REL_PC, key.rel_pc);
	}
	pb_put_uint(&e->item, FR_KIND,
		    f->kernel ? FRAME_KIND_KERNEL : FRAME_KIND_NATIVE);
	pb_close(&e->item, m);
	e->st.frames++;
	return add_item(e);
}

static int intern_callstack(struct perfetto_emitter *e,
			    const struct perfetto_sample *smp, uint64_t *iid)
{
	size_t n = smp->nr_frames;
	bool is_new;
	uint32_t id;
	size_t m;
	int err;

	/* frames[0] is the leaf: a cut keeps the leaf end. */
	if (n > PERFETTO_MAX_FRAMES)
		n = PERFETTO_MAX_FRAMES;
	if (n > e->stack_cap) {
		uint64_t *s = realloc(e->stack, n * sizeof(*s));

		if (!s)
			return -ENOMEM;
		e->stack = s;
		e->stack_cap = n;
	}
	/* Root (outermost) first: the reverse of fxtprof's leaf first. */
	for (size_t i = 0; i < n; i++) {
		err = intern_frame(e, &smp->frames[n - 1 - i], &e->stack[i]);
		if (err)
			return err;
	}
	id = intern__id(&e->callstacks, e->stack, n * sizeof(*e->stack),
			&is_new);
	if (!id)
		return -ENOMEM;
	*iid = id;
	if (!is_new)
		return 0;
	pb_buf__reset(&e->item);
	m = pb_open(&e->item, ID_CALLSTACKS);
	pb_put_uint(&e->item, CS_IID, id);
	for (size_t i = 0; i < n; i++)
		pb_put_uint(&e->item, CS_FRAME_IDS, e->stack[i]);
	pb_close(&e->item, m);
	e->st.callstacks++;
	return add_item(e);
}

int perfetto_emitter__sample(struct perfetto_emitter *e,
			     const struct perfetto_sample *smp)
{
	uint64_t cs = 0;
	size_t m;
	int err;

	err = start(e, smp->ts);
	if (err)
		return err;
	e->last_ts = smp->ts;
	if (smp->nr_frames) {
		err = intern_callstack(e, smp, &cs);
		if (err)
			return err;
	}
	packet_begin(e, smp->ts, SEQ_NEEDS_INCREMENTAL_STATE);
	if (e->pending.len)
		pb_put_bytes(&e->pkt, TP_INTERNED_DATA, e->pending.data,
			     e->pending.len);
	m = pb_open(&e->pkt, TP_PERF_SAMPLE);
	pb_put_uint(&e->pkt, PS_CPU, smp->cpu);
	pb_put_uint(&e->pkt, PS_PID, smp->pid);
	pb_put_uint(&e->pkt, PS_TID, smp->tid);
	if (cs)
		pb_put_uint(&e->pkt, PS_CALLSTACK_IID, cs);
	pb_put_uint(&e->pkt, PS_CPU_MODE, smp->mode);
	pb_close(&e->pkt, m);
	pb_buf__reset(&e->pending);
	err = emit_packet(e);
	if (!err)
		e->st.samples++;
	return err;
}

static int process_tree(struct perfetto_emitter *e, uint64_t ts,
			uint32_t pid, uint32_t tid, const char *name,
			bool thread)
{
	size_t tree, m;
	int err;

	err = start(e, ts);
	if (err)
		return err;
	err = flush_pending(e);	/* never the case today; keeps order */
	if (err)
		return err;
	e->last_ts = ts;
	packet_begin(e, ts, SEQ_NEEDS_INCREMENTAL_STATE);
	tree = pb_open(&e->pkt, TP_PROCESS_TREE);
	if (thread) {
		m = pb_open(&e->pkt, PT_THREADS);
		pb_put_uint(&e->pkt, TH_TID, tid);
		if (name && *name)
			pb_put_bytes(&e->pkt, TH_NAME, name,
				     cut_len(name, PERFETTO_MAX_NAME));
		pb_put_uint(&e->pkt, TH_TGID, pid);
	} else {
		m = pb_open(&e->pkt, PT_PROCESSES);
		pb_put_uint(&e->pkt, PR_PID, pid);
		pb_put_bytes(&e->pkt, PR_CMDLINE, name,
			     cut_len(name, PERFETTO_MAX_NAME));
		pb_put_uint(&e->pkt, PR_CMDLINE_IS_COMM, 1);
	}
	pb_close(&e->pkt, m);
	pb_close(&e->pkt, tree);
	return emit_packet(e);
}

int perfetto_emitter__process(struct perfetto_emitter *e, uint64_t ts,
			      uint32_t pid, const char *name)
{
	if (!name || !*name)
		return -EINVAL;
	return process_tree(e, ts, pid, 0, name, false);
}

int perfetto_emitter__thread(struct perfetto_emitter *e, uint64_t ts,
			     uint32_t pid, uint32_t tid, const char *name)
{
	return process_tree(e, ts, pid, tid, name, true);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_export_units.c - the exporters' lower layers on their own:
 *  - pb_writer: varints, nested messages whose length takes two bytes,
 *    the sticky error;
 *  - intern: dense ids in first-seen order over many keys;
 *  - fxt_enc_blob: the golden header of fxt-format §1.8 and its limits;
 *  - the Perfetto emitter, read back by a small decoder here: the first
 *    packet, interning only once, the 32000-byte cap with many long
 *    names, and the callback's error passed on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "export/intern.h"
#include "export/pb_writer.h"
#include "export/perfetto.h"
#include "fxt.h"

TEST(pb_varints_and_nesting)
{
	static const struct { uint64_t v; size_t n; uint8_t b[10]; } cases[] = {
		{ 0, 1, { 0 } },
		{ 127, 1, { 0x7f } },
		{ 128, 2, { 0x80, 0x01 } },
		{ 300, 2, { 0xac, 0x02 } },
		{ 1ULL << 32, 5, { 0x80, 0x80, 0x80, 0x80, 0x10 } },
		{ UINT64_MAX, 10, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff, 0x01 } },
	};
	struct pb_buf b = PB_BUF_INIT;
	uint8_t body[200];
	size_t outer, inner;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pb_buf__reset(&b);
		pb_put_varint(&b, cases[i].v);
		ASSERT_EQ(cases[i].n, b.len);
		ASSERT_EQ(cases[i].n, pb_varint_size(cases[i].v));
		ASSERT_EQ(0, memcmp(b.data, cases[i].b, b.len));
	}
	/* field 66 { field 2 { 200 bytes }, field 1 = 5 } */
	memset(body, 0xab, sizeof(body));
	pb_buf__reset(&b);
	outer = pb_open(&b, 66);
	inner = pb_open(&b, 2);
	pb_put_raw(&b, body, sizeof(body));
	pb_close(&b, inner);
	pb_put_uint(&b, 1, 5);
	pb_close(&b, outer);
	ASSERT_EQ(0, b.err);
	/* 92 04 | cd 01 | 12 c8 01 <200> 08 05 */
	ASSERT_EQ(2 + 2 + 3 + 200 + 2, b.len);
	ASSERT_EQ(0x92, b.data[0]);
	ASSERT_EQ(0x04, b.data[1]);
	ASSERT_EQ(0xcd, b.data[2]);
	ASSERT_EQ(0x01, b.data[3]);
	ASSERT_EQ(0x12, b.data[4]);
	ASSERT_EQ(0xc8, b.data[5]);
	ASSERT_EQ(0x01, b.data[6]);
	ASSERT_EQ(0, memcmp(b.data + 7, body, sizeof(body)));
	ASSERT_EQ(0x08, b.data[207]);
	ASSERT_EQ(0x05, b.data[208]);
	/* An impossible size fails, and every later call does nothing. */
	ASSERT_EQ(-ENOMEM, pb_buf__reserve(&b, SIZE_MAX - 8));
	pb_put_uint(&b, 1, 1);
	ASSERT_EQ(-ENOMEM, b.err);
	ASSERT_EQ(209, b.len);
	pb_buf__release(&b);
}

TEST(intern_dense_ids)
{
	struct intern t;
	char key[32];
	bool is_new;

	intern__init(&t);
	for (uint32_t i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof(key), "key-%u", i * 7919u);

		ASSERT_EQ(i + 1, intern__id(&t, key, (size_t)n, &is_new));
		ASSERT_TRUE(is_new);
	}
	ASSERT_EQ(100000, intern__count(&t));
	for (uint32_t i = 0; i < 100000; i += 997) {
		int n = snprintf(key, sizeof(key), "key-%u", i * 7919u);

		ASSERT_EQ(i + 1, intern__id(&t, key, (size_t)n, &is_new));
		ASSERT_FALSE(is_new);
		ASSERT_EQ(i + 1, intern__find(&t, key, (size_t)n));
		ASSERT_EQ((uint32_t)n, intern__key(&t, i + 1)->len);
		ASSERT_EQ(0, memcmp(intern__key(&t, i + 1)->data, key, n));
	}
	ASSERT_EQ(0, intern__find(&t, "nope", 4));
	/* The empty key and a key that is a prefix of another are keys. */
	ASSERT_EQ(100001, intern__id(&t, "", 0, NULL));
	ASSERT_EQ(100002, intern__id(&t, "key-", 4, NULL));
	intern__release(&t);
}

TEST(blob_record_golden)
{
	uint64_t w[4100];
	uint8_t payload[32001];

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 31 + 7);
	/* fxt-format §1.8: 100 bytes, name index 1 -> 14 words. */
	ASSERT_EQ(14, fxt_enc_blob(w, 4100, fxt_sref_index(1), 3, payload, 100));
	ASSERT_EQ(0x00030064000100e5ULL, w[0]);
	ASSERT_EQ(0, memcmp(w + 1, payload, 100));
	ASSERT_EQ(0, ((uint8_t *)(w + 1))[100]);	/* zero padding */
	ASSERT_EQ(0, ((uint8_t *)(w + 1))[103]);
	/* Inline name: its stream comes first. */
	ASSERT_EQ(1 + 1 + 2, fxt_enc_blob(w, 4100, fxt_sref_inline("perfetto", 8),
					  FXT_BLOB_PERFETTO, payload, 9));
	ASSERT_EQ(0x8008, (w[0] >> 16) & 0xffff);
	ASSERT_EQ(0, memcmp(w + 1, "perfetto", 8));
	ASSERT_EQ(0, memcmp(w + 2, payload, 9));
	/* Limits: Fuchsia's 32000 bytes, the caller's room, the blob type. */
	ASSERT_EQ(1 + 4000, fxt_enc_blob(w, 4100, fxt_sref_empty(), 3, payload,
					 32000));
	ASSERT_EQ(-E2BIG, fxt_enc_blob(w, 4100, fxt_sref_empty(), 3, payload,
				       32001));
	ASSERT_EQ(-ENOSPC, fxt_enc_blob(w, 13, fxt_sref_index(1), 3, payload,
					100));
	ASSERT_EQ(-EINVAL, fxt_enc_blob(w, 4100, fxt_sref_index(1), 256,
					payload, 1));
}

/* ---- a small reader of what the emitter writes ------------------- */

struct packets {
	uint8_t *p[256];
	size_t len[256];
	size_t n;
	int fail_at;		/* the callback fails on this packet (1-based) */
};

static int collect(void *ctx, const uint8_t *packet, size_t len)
{
	struct packets *pk = ctx;

	if (pk->fail_at && (int)pk->n + 1 == pk->fail_at)
		return -EIO;
	if (pk->n == 256)
		return -ENOSPC;
	pk->p[pk->n] = malloc(len);
	memcpy(pk->p[pk->n], packet, len);
	pk->len[pk->n++] = len;
	return 0;
}

static void packets_free(struct packets *pk)
{
	for (size_t i = 0; i < pk->n; i++)
		free(pk->p[i]);
}

static uint64_t rd_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (unsigned int s = 0; *p < end && s < 64; s += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/*
 * Field f of the message [p, end), its n-th occurrence (0 = first):
 * the value of a varint in *val, the bytes of a length-delimited field
 * in *sub and *sub_len.  1 if found, 0 if not.
 */
static int field(const uint8_t *p, const uint8_t *end, uint32_t f,
		 unsigned int n, uint64_t *val, const uint8_t **sub,
		 size_t *sub_len)
{
	while (p < end) {
		uint64_t key = rd_varint(&p, end), v = 0;
		const uint8_t *s = NULL;

		if ((key & 7) == 0) {
			v = rd_varint(&p, end);
		} else if ((key & 7) == 2) {
			v = rd_varint(&p, end);
			s = p;
			p += v;
		} else {
			return -1;
		}
		if ((key >> 3) == f && n-- == 0) {
			if (val)
				*val = v;
			if (sub)
				*sub = s;
			if (sub_len)
				*sub_len = s ? v : 0;
			return 1;
		}
	}
	return 0;
}

/* The TracePacket inside packet i, checking its Trace preamble. */
static void body(struct __test_metadata *_metadata, struct packets *pk,
		 size_t i, const uint8_t **b, const uint8_t **e)
{
	const uint8_t *p = pk->p[i] + 1;
	uint64_t len;

	ASSERT_EQ(0x0a, pk->p[i][0]);	/* Trace.packet, length-delimited */
	len = rd_varint(&p, pk->p[i] + pk->len[i]);
	ASSERT_EQ(pk->len[i], 1 + pb_varint_size(len) + len);
	*b = p;
	*e = pk->p[i] + pk->len[i];
}

TEST(emitter_first_packet_and_interning)
{
	struct perfetto_mapping map = { .key = 7, .start = 0x1000,
					.end = 0x2000, .exact_offset = 0x1000,
					.path = "/bin/x" };
	struct perfetto_frame fr[3] = {
		{ .mapping = &map, .rel_pc = 0x1010, .function = "leaf" },
		{ .mapping = &map, .rel_pc = 0x1020, .function = "root" },
		{ .kernel = true, .function = "kfn" },
	};
	struct perfetto_sample smp = { .ts = 5, .cpu = 1, .pid = 10,
				       .tid = 11, .mode = PERFETTO_MODE_USER,
				       .frames = fr, .nr_frames = 2 };
	struct packets pk = { 0 };
	struct perfetto_emitter *e;
	struct perfetto_stats st;
	const uint8_t *b, *end, *sub, *cs;
	size_t sub_len, cs_len;
	uint64_t v;

	ASSERT_EQ(0, perfetto_emitter__new(collect, &pk, &e));
	ASSERT_EQ(0, perfetto_emitter__sample(e, &smp));
	smp.ts = 6;
	ASSERT_EQ(0, perfetto_emitter__sample(e, &smp));
	ASSERT_EQ(3, pk.n);
	/* 1: CLEARED, the BOOTTIME default, sequence 1. */
	body(_metadata, &pk, 0, &b, &end);
	ASSERT_EQ(1, field(b, end, 13, 0, &v, NULL, NULL));
	ASSERT_EQ(1, v);
	ASSERT_EQ(1, field(b, end, 10, 0, &v, NULL, NULL));
	ASSERT_EQ(1, v);
	ASSERT_EQ(1, field(b, end, 59, 0, NULL, &sub, &sub_len));
	ASSERT_EQ(1, field(sub, sub + sub_len, 58, 0, &v, NULL, NULL));
	ASSERT_EQ(6, v);
	/* 2: the sample with its interned data; callstack root first. */
	body(_metadata, &pk, 1, &b, &end);
	ASSERT_EQ(1, field(b, end, 13, 0, &v, NULL, NULL));
	ASSERT_EQ(2, v);
	ASSERT_EQ(1, field(b, end, 12, 0, NULL, &sub, &sub_len));
	ASSERT_EQ(1, field(sub, sub + sub_len, 7, 0, NULL, &cs, &cs_len));
	ASSERT_EQ(1, field(cs, cs + cs_len, 2, 0, &v, NULL, NULL));
	ASSERT_EQ(1, v);	/* frame 1 = "root", interned first */
	ASSERT_EQ(1, field(cs, cs + cs_len, 2, 1, &v, NULL, NULL));
	ASSERT_EQ(2, v);
	ASSERT_EQ(0, field(cs, cs + cs_len, 2, 2, &v, NULL, NULL));
	ASSERT_EQ(1, field(sub, sub + sub_len, 5, 0, NULL, &cs, &cs_len));
	ASSERT_EQ(1, field(cs, cs + cs_len, 2, 0, NULL, &cs, &cs_len));
	ASSERT_EQ(4, cs_len);
	ASSERT_EQ(0, memcmp(cs, "root", 4));
	ASSERT_EQ(1, field(b, end, 66, 0, NULL, &sub, &sub_len));
	ASSERT_EQ(1, field(sub, sub + sub_len, 4, 0, &v, NULL, NULL));
	ASSERT_EQ(1, v);
	/* 3: the same stack again: no interned data at all. */
	body(_metadata, &pk, 2, &b, &end);
	ASSERT_EQ(0, field(b, end, 12, 0, NULL, NULL, NULL));
	ASSERT_EQ(1, field(b, end, 8, 0, &v, NULL, NULL));
	ASSERT_EQ(6, v);
	ASSERT_EQ(1, field(b, end, 66, 0, NULL, &sub, &sub_len));
	ASSERT_EQ(1, field(sub, sub + sub_len, 4, 0, &v, NULL, NULL));
	ASSERT_EQ(1, v);
	perfetto_emitter__stats(e, &st);
	ASSERT_EQ(2, st.samples);
	ASSERT_EQ(1, st.callstacks);
	ASSERT_EQ(2, st.frames);
	ASSERT_EQ(2, st.function_names);
	ASSERT_EQ(1, st.mappings);
	/* A process needs a name: Perfetto skips one without cmdline. */
	ASSERT_EQ(-EINVAL, perfetto_emitter__process(e, 7, 10, ""));
	perfetto_emitter__free(e);
	packets_free(&pk);
}

/*
 * The waits' emitter: its own sequence, whose first packet's defaults
 * say what its samples count (PerfSampleDefaults.timebase: a tracepoint
 * and a name); its interning starts over.  Sequence 0 or 1, or no
 * tracepoint, is refused.
 */
TEST(emitter_timebase_sequence)
{
	static const struct perfetto_timebase tb = {
		.sequence_id = 2, .tracepoint = "sched:sched_switch",
		.name = "off-cpu",
	};
	struct perfetto_timebase bad = tb;
	struct perfetto_frame fr = { .kernel = true, .function = "kfn" };
	struct perfetto_sample smp = { .ts = 5, .cpu = 1, .pid = 10,
				       .tid = 11, .mode = PERFETTO_MODE_KERNEL,
				       .frames = &fr, .nr_frames = 1 };
	const uint8_t *b, *end, *d, *psd, *t, *tp, *str;
	size_t d_len, psd_len, t_len, tp_len, str_len;
	struct packets pk = { 0 };
	struct perfetto_emitter *e;
	uint64_t v;

	bad.sequence_id = 1;
	EXPECT_EQ(-EINVAL, perfetto_emitter__new_timebase(collect, &pk, &bad, &e));
	bad.sequence_id = 0;
	EXPECT_EQ(-EINVAL, perfetto_emitter__new_timebase(collect, &pk, &bad, &e));
	bad = tb;
	bad.tracepoint = NULL;
	EXPECT_EQ(-EINVAL, perfetto_emitter__new_timebase(collect, &pk, &bad, &e));

	ASSERT_EQ(0, perfetto_emitter__new_timebase(collect, &pk, &tb, &e));
	ASSERT_EQ(0, perfetto_emitter__sample(e, &smp));
	ASSERT_EQ(2, pk.n);
	body(_metadata, &pk, 0, &b, &end);
	ASSERT_EQ(1, field(b, end, 10, 0, &v, NULL, NULL));
	ASSERT_EQ(2, v);
	ASSERT_EQ(1, field(b, end, 59, 0, NULL, &d, &d_len));
	ASSERT_EQ(1, field(d, d + d_len, 58, 0, &v, NULL, NULL));
	ASSERT_EQ(6, v);
	ASSERT_EQ(1, field(d, d + d_len, 12, 0, NULL, &psd, &psd_len));
	ASSERT_EQ(1, field(psd, psd + psd_len, 1, 0, NULL, &t, &t_len));
	ASSERT_EQ(1, field(t, t + t_len, 3, 0, NULL, &tp, &tp_len));
	ASSERT_EQ(1, field(tp, tp + tp_len, 1, 0, NULL, &str, &str_len));
	ASSERT_EQ(18, str_len);
	ASSERT_EQ(0, memcmp(str, "sched:sched_switch", 18));
	ASSERT_EQ(1, field(t, t + t_len, 10, 0, NULL, &str, &str_len));
	ASSERT_EQ(7, str_len);
	ASSERT_EQ(0, memcmp(str, "off-cpu", 7));
	/* The sample, on sequence 2, its callstack interned afresh: iid 1. */
	body(_metadata, &pk, 1, &b, &end);
	ASSERT_EQ(1, field(b, end, 10, 0, &v, NULL, NULL));
	ASSERT_EQ(2, v);
	ASSERT_EQ(1, field(b, end, 66, 0, NULL, &d, &d_len));
	ASSERT_EQ(1, field(d, d + d_len, 4, 0, &v, NULL, NULL));
	ASSERT_EQ(1, v);
	ASSERT_EQ(1, field(d, d + d_len, 5, 0, &v, NULL, NULL));
	ASSERT_EQ(PERFETTO_MODE_KERNEL, v);
	perfetto_emitter__free(e);
	packets_free(&pk);
}

TEST(emitter_packets_stay_under_32000)
{
	static struct perfetto_frame fr[100];
	static char names[100][1001];
	struct perfetto_sample smp = { .ts = 1, .pid = 1, .tid = 1,
				       .mode = PERFETTO_MODE_KERNEL,
				       .frames = fr, .nr_frames = 100 };
	struct packets pk = { 0 };
	struct perfetto_emitter *e;
	const uint8_t *b, *end;
	size_t interned = 0;

	for (int i = 0; i < 100; i++) {
		char prefix[8];

		memset(names[i], 'a' + i % 26, 1000);
		snprintf(prefix, sizeof(prefix), "f%03d_", i);
		memcpy(names[i], prefix, strlen(prefix));
		fr[i].kernel = true;
		fr[i].function = names[i];
	}
	ASSERT_EQ(0, perfetto_emitter__new(collect, &pk, &e));
	ASSERT_EQ(0, perfetto_emitter__sample(e, &smp));
	/* CLEARED, three interned-only packets, the sample: ~100 KB. */
	ASSERT_LE(5, pk.n);
	for (size_t i = 0; i < pk.n; i++) {
		ASSERT_LE(pk.len[i], PERFETTO_MAX_PACKET);
		body(_metadata, &pk, i, &b, &end);
		if (field(b, end, 12, 0, NULL, NULL, NULL) == 1)
			interned++;
		/* Only the last one has the sample. */
		ASSERT_EQ(i == pk.n - 1, field(b, end, 66, 0, NULL, NULL, NULL));
	}
	ASSERT_EQ(pk.n - 1, interned);
	perfetto_emitter__free(e);
	packets_free(&pk);
}

TEST(emitter_passes_callback_errors)
{
	struct perfetto_frame fr = { .kernel = true, .function = "k" };
	struct perfetto_sample smp = { .ts = 1, .frames = &fr, .nr_frames = 1 };
	struct packets pk = { .fail_at = 2 };
	struct perfetto_emitter *e;

	ASSERT_EQ(0, perfetto_emitter__new(collect, &pk, &e));
	ASSERT_EQ(-EIO, perfetto_emitter__sample(e, &smp));
	ASSERT_EQ(1, pk.n);
	perfetto_emitter__free(e);
	packets_free(&pk);
}

TEST_HARNESS_MAIN

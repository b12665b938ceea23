// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbolize.c - `fxtprof symbolize FILE -o OUT.fxt`: the recording's FXT
 * records, unchanged, then its CPU profile as Perfetto TracePackets, one
 * per FXT blob record of blob type 3 (Documentation/export.md).
 *
 * Perfetto's FXT importer feeds every type-3 blob, in file order, to its
 * protobuf reader, so the Perfetto UI shows call stacks and flame graphs
 * from the .fxt alone, while Fuchsia's tools and `fxtprof check` see the
 * same FXT as before plus blobs they skip.  Perfetto blobs already in the
 * input (an output of symbolize, symbolized again) are left out: they
 * would be a second profile of the same samples.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "export.h"
#include "export/perfetto_profile.h"
#include "fxt/fxt.h"

/*
 * The blobs' name: Perfetto ignores it; readers of the FXT see it.  It is
 * registered once, after the input's records, at the last string index,
 * and each blob names it by that index: 8 bytes less per sample than an
 * inline name.  Nothing of the input follows it, so no input record can
 * see the index it takes.
 */
#define BLOB_NAME	"perfetto"
#define BLOB_NAME_INDEX	FXT_MAX_STRING_INDEX

struct sym_out {
	uint64_t *rec;		/* one blob record being encoded */
	size_t rec_words;
	uint8_t *data;
	size_t len, cap;
	uint64_t blobs, dropped_blobs;
	const uint8_t *held;	/* a blob name record, in the input */
	size_t held_len;
};

static int out_put(struct sym_out *o, const void *p, size_t len)
{
	if (len > o->cap - o->len) {
		size_t cap = o->cap ? o->cap : 1 << 20;
		uint8_t *d;

		while (cap - o->len < len)
			cap *= 2;
		d = realloc(o->data, cap);
		if (!d)
			return -ENOMEM;
		o->data = d;
		o->cap = cap;
	}
	memcpy(o->data + o->len, p, len);
	o->len += len;
	return 0;
}

static bool is_perfetto_blob(const uint8_t *rec)
{
	uint64_t h;

	memcpy(&h, rec, 8);
	return (h & 0xf) == FXT_REC_BLOB &&
	       ((h >> 48) & 0xff) == FXT_BLOB_PERFETTO;
}

/* The string record an earlier symbolize wrote for its blobs' name. */
static bool is_blob_name(const uint8_t *rec, size_t len)
{
	uint64_t h;

	memcpy(&h, rec, 8);
	return (h & 0xf) == FXT_REC_STRING &&
	       ((h >> 16) & 0x7fff) == BLOB_NAME_INDEX &&
	       ((h >> 32) & 0x7fff) == strlen(BLOB_NAME) &&
	       len >= 8 + strlen(BLOB_NAME) &&
	       !memcmp(rec + 8, BLOB_NAME, strlen(BLOB_NAME));
}

/*
 * Copy a record of the input, but for an earlier profile: its blobs, and
 * the name record just before the first of them, which is held back one
 * record to know (another record may have that name at that index).
 */
static int copy_record(void *ctx, const uint8_t *rec, size_t len)
{
	struct sym_out *o = ctx;
	int err;

	if (o->held) {
		const uint8_t *held = o->held;

		o->held = NULL;
		if (!is_perfetto_blob(rec)) {
			err = out_put(o, held, o->held_len);
			if (err)
				return err;
		}
	}
	if (is_perfetto_blob(rec)) {
		o->dropped_blobs++;
		return 0;
	}
	if (is_blob_name(rec, len)) {
		o->held = rec;
		o->held_len = len;
		return 0;
	}
	return out_put(o, rec, len);
}

/* The emitter's callback: one TracePacket, one blob record. */
static int emit_blob(void *ctx, const uint8_t *packet, size_t len)
{
	struct sym_out *o = ctx;
	int n, err;

	if (!o->blobs) {
		n = fxt_enc_string(o->rec, o->rec_words, BLOB_NAME_INDEX,
				   BLOB_NAME, strlen(BLOB_NAME));
		if (n < 0)
			return n;
		err = out_put(o, o->rec, (size_t)n * 8);
		if (err)
			return err;
	}
	n = fxt_enc_blob(o->rec, o->rec_words,
			 fxt_sref_index(BLOB_NAME_INDEX), FXT_BLOB_PERFETTO,
			 packet, len);
	if (n < 0)
		return n;
	o->blobs++;
	return out_put(o, o->rec, (size_t)n * 8);
}

int cmd_symbolize(int argc, char **argv)
{
	struct sym_out o = { 0 };
	struct export_cmd c;
	struct export_stats st = { 0 };
	uint64_t bad = 0;
	int ret, err;

	ret = export_cmd__parse(&c, argc, argv, "symbolize", NULL);
	if (ret >= 0)
		return ret;
	ret = CMD_EXIT_FAILED;
	o.rec_words = FXT_MAX_RECORD_WORDS;
	o.rec = malloc(o.rec_words * 8);
	if (!o.rec) {
		reader_err(-ENOMEM, "symbolize");
		goto out_release;
	}
	if (export_cmd__load(&c))
		goto out_release;
	err = export_fxt_records(c.data, c.len, copy_record, &o, &bad);
	if (!err && o.held)
		err = out_put(&o, o.held, o.held_len);
	if (err) {
		reader_err(err, "cannot copy the records of %s", c.input);
		goto out_release;
	}
	err = perfetto__export_profile(c.profile, c.symbolizer, emit_blob, &o,
				       &st);
	if (err) {
		reader_err(err, "cannot build the Perfetto profile");
		goto out_release;
	}
	if (export_cmd__write(&c, o.data, o.len))
		goto out_release;
	fprintf(export_cmd__info(&c), "fxtprof: wrote %s: %zu bytes, the "
		"input's records and %" PRIu64 " Perfetto blobs (%" PRIu64
		" bytes of packets): %" PRIu64 " samples, %" PRIu64
		" off-CPU waits, %" PRIu64 " callstacks, %" PRIu64 " frames, %"
		PRIu64 " function names, %" PRIu64 " mappings\n", c.output,
		o.len, o.blobs, st.bytes, st.samples, st.waits, st.callstacks,
		st.locations, st.functions, st.mappings);
	if (o.dropped_blobs)
		fprintf(export_cmd__info(&c), "fxtprof: left out the %" PRIu64
			" Perfetto blobs already in %s: this profile replaces "
			"them\n", o.dropped_blobs, c.input);
	export_cmd__print_unresolved(&c, &st);
	ret = CMD_EXIT_OK;
out_release:
	free(o.rec);
	free(o.data);
	export_cmd__release(&c);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sched.c - the sched.switch records through the reader's pipeline:
 *  - libfxtprof's validation of SWITCH and WAKEUP records;
 *  - the FXT encoder's scheduling records (type 8), word for word, as
 *    the stream state hands them on, and `fxtprof check` passing them;
 *  - the idle task's weight, a wakeup without a waker;
 *  - a stream without scheduling records interns none of their names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include <libfxtprof.h>
#include "encode/fxt_encoder.h"
#include "fxt_reader.h"
#include "state/stream_state.h"
#include "mem_sink.h"
#include "mem_readback.h"

static struct fxtprof_switch mk_switch(uint16_t cpu, uint64_t ts,
				       uint32_t prev, uint32_t next,
				       uint32_t state)
{
	struct fxtprof_switch sw = {
		.hdr = { .size = sizeof(sw), .type = FXTPROF_REC_SWITCH,
			 .cpu = cpu, .time_ns = ts },
		.prev_pid = prev ? 1000 : 0, .prev_tid = prev,
		.next_pid = next ? 1000 : 0, .next_tid = next,
		.prev_prio = prev ? 120 : 120, .next_prio = next ? 110 : 120,
		.prev_state = state,
	};

	return sw;
}

TEST(validate_records)
{
	struct fxtprof_switch sw = mk_switch(0, 1, 5, 6,
					     FXTPROF_THREAD_BLOCKED);
	struct fxtprof_wakeup wk = {
		.hdr = { .size = sizeof(wk), .type = FXTPROF_REC_WAKEUP },
		.pid = 5, .tid = 5, .target_cpu = 1, .prio = 120,
		.flags = FXTPROF_WAKEUP_NEW,
	};

	ASSERT_EQ(0, fxtprof_rec__validate(&sw.hdr, sizeof(sw)));
	sw.prev_state = 0;		/* FXT's "new": never a Linux switch */
	ASSERT_EQ(-EPROTO, fxtprof_rec__validate(&sw.hdr, sizeof(sw)));
	sw.prev_state = FXTPROF_THREAD_DEAD + 1;
	ASSERT_EQ(-EPROTO, fxtprof_rec__validate(&sw.hdr, sizeof(sw)));
	sw.prev_state = FXTPROF_THREAD_DEAD;
	sw.hdr.size = sizeof(sw) - 8;	/* shorter than the record */
	ASSERT_EQ(-EPROTO, fxtprof_rec__validate(&sw.hdr, sizeof(sw)));

	ASSERT_EQ(0, fxtprof_rec__validate(&wk.hdr, sizeof(wk)));
	wk.flags = 2;
	ASSERT_EQ(-EPROTO, fxtprof_rec__validate(&wk.hdr, sizeof(wk)));
	wk.flags = 0;
	wk.target_cpu = 0x10000;	/* FXT's CPU field is 16 bits */
	ASSERT_EQ(-EPROTO, fxtprof_rec__validate(&wk.hdr, sizeof(wk)));
}

TEST(encode_switch_and_wakeup)
{
	static struct mem m;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	struct fxtprof_switch a = mk_switch(1, 1000, 0, 7,
					    FXTPROF_THREAD_RUNNING);
	struct fxtprof_switch b = mk_switch(1, 2000, 7, 8,
					    FXTPROF_THREAD_BLOCKED);
	struct fxtprof_wakeup wk = {
		.hdr = { .size = sizeof(wk), .type = FXTPROF_REC_WAKEUP,
			 .cpu = 0, .time_ns = 3000 },
		.pid = 1000, .tid = 7, .target_cpu = 1, .prio = 120,
		.waker_tid = 8,
	};
	struct fxtprof_wakeup irq = wk;
	uint64_t w[16], iw, ow, wt, wr;
	struct fxt_encoder *enc;
	struct stream_state st;
	struct fxt_error err;
	unsigned int n;

	m.len = 0;
	irq.waker_tid = 0;
	irq.hdr.time_ns = 4000;
	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	ASSERT_EQ(0, stream_state__sync(&st));
	stream_state__record(&st, &a.hdr);
	stream_state__record(&st, &b.hdr);
	stream_state__record(&st, &wk.hdr);
	stream_state__record(&st, &irq.hdr);
	ASSERT_EQ(0, st.st.encode_errors);
	ASSERT_EQ(2, st.st.records[FXTPROF_REC_SWITCH]);
	ASSERT_EQ(2, st.st.records[FXTPROF_REC_WAKEUP]);
	ASSERT_EQ(0, fxt_check_buffer(m.buf, m.len, &err)) {
		TH_LOG("%s at %llu: %s", err.rule,
		       (unsigned long long)err.offset, err.msg);
	}

	iw = mem_string_index(&m, "incoming_weight");
	ow = mem_string_index(&m, "outgoing_weight");
	wt = mem_string_index(&m, "weight");
	wr = mem_string_index(&m, "waker");
	ASSERT_NE(0, iw);
	ASSERT_NE(0, ow);
	ASSERT_NE(0, wt);
	ASSERT_NE(0, wr);

	/* idle -> 7 on CPU 1: running, idle's weight INT32_MIN */
	n = mem_record_words(&m, FXT_REC_SCHED, 0, w);
	ASSERT_WORDS(w, n, 0x1000001000120068ULL, 1000, 0, 7,
		     0x0000006e00000011ULL | iw << 16,
		     0x8000000000000011ULL | ow << 16);
	/* 7 -> 8, 7 blocked (3), weights = prio 110 in, 110 out */
	n = mem_record_words(&m, FXT_REC_SCHED, 1, w);
	ASSERT_WORDS(w, n, 0x1000003000120068ULL, 2000, 7, 8,
		     0x0000006e00000011ULL | iw << 16,
		     0x0000007800000011ULL | ow << 16);
	/* wakeup of 7 onto CPU 1 by 8: weight, then the waker koid */
	n = mem_record_words(&m, FXT_REC_SCHED, 2, w);
	ASSERT_WORDS(w, n, 0x2000000000120068ULL, 3000, 7,
		     0x0000007800000011ULL | wt << 16,
		     0x0000000000000028ULL | wr << 16, 8);
	/* from an interrupt: no waker argument */
	n = mem_record_words(&m, FXT_REC_SCHED, 3, w);
	ASSERT_WORDS(w, n, 0x2000000000110048ULL, 4000, 7,
		     0x0000007800000011ULL | wt << 16);

	stream_state__fini(&st);
	fxt_encoder__free(enc);
}

TEST(no_sched_strings_without_sched_records)
{
	static struct mem m;
	struct fxt_writer_opts wo = {
		.sz = sizeof(wo), .reserve = mem_reserve,
		.commit = mem_commit, .ctx = &m,
	};
	struct fxt_encoder *enc;
	struct stream_state st;

	m.len = 0;
	ASSERT_EQ(0, fxt_encoder__new_opts(&enc, &wo));
	stream_state__init(&st, fxt_encoder__encoder(enc), NULL);
	ASSERT_EQ(0, stream_state__sync(&st));
	ASSERT_EQ(0, mem_string_index(&m, "incoming_weight"));
	ASSERT_EQ(0, mem_string_index(&m, "waker"));
	stream_state__fini(&st);
	fxt_encoder__free(enc);
}

TEST_HARNESS_MAIN

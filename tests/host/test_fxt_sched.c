// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_fxt_sched.c - FXT scheduling records (type 8): the header words
 * fxtprof builds them from, worked out by hand from fxt-format.md 1.11,
 * what the reader and `fxtprof dump` make of them, and the checker's
 * scheduling rules (state, argument types, per-CPU chain and time).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fxt_test_util.h"

TEST(header_words)
{
	/* type 8, 6 words, 2 args, CPU 1, outgoing state 3, sched type 1 */
	ASSERT_EQ(0x1000003000120068ULL, fxt_sched_switch_hdr(6, 2, 1, 3));
	/* CPU 0xffff lands in bits 20..35 and nothing spills */
	ASSERT_EQ(0x1000000ffff20068ULL, fxt_sched_switch_hdr(6, 2, 0xffff, 0));
	/* wakeup: type 8, 6 words, 2 args, CPU 2, sched type 2 */
	ASSERT_EQ(0x2000000000220068ULL, fxt_sched_wakeup_hdr(6, 2, 2));
	/* koid argument: type 8, 2 words, name ref 0x8005 */
	ASSERT_EQ(0x0000000080050028ULL, fxt_arg_hdr_koid(0x8005));
}

/* A stream: prologue, then the four argument names as strings 1..4. */
struct sched_stream {
	struct memsink m;
	struct fxt_writer *w;
};

static void stream_begin(struct sched_stream *s)
{
	static const char *const names[] = {
		"incoming_weight", "outgoing_weight", "weight", "waker",
	};
	struct fxt_sref ref;

	memset(s, 0, sizeof(*s));
	s->w = memsink_writer(&s->m, 0);
	fxt_writer__prologue(s->w, 1, "t", FXT_NS_PER_SEC);
	for (unsigned int i = 0; i < 4; i++)
		fxt_writer__string_pin(s->w, names[i], strlen(names[i]), &ref);
}

/* A context switch with int32 weights (or @weight_type ones). */
static int add_switch(struct sched_stream *s, uint64_t ts, uint16_t cpu,
		       unsigned int state, uint64_t out, uint64_t in,
		       unsigned int weight_type)
{
	uint64_t w[6] = {
		fxt_sched_switch_hdr(6, 2, cpu, state), ts, out, in,
		fxt_arg_hdr32(weight_type, 1, in ? 120 : (uint32_t)INT32_MIN),
		fxt_arg_hdr32(weight_type, 2, out ? 120 : (uint32_t)INT32_MIN),
	};

	return fxt_writer__raw(s->w, w, 6);
}

static const char *check(struct sched_stream *s, unsigned int *warnings)
{
	static struct fxt_error err;
	struct fxt_checker *c;
	const char *rule = NULL;

	if (fxt_checker__new(NULL, NULL, &c))
		return "no memory";
	if (fxt_checker__feed(c, s->m.buf, s->m.len) ||
	    fxt_checker__finish(c)) {
		err = *fxt_checker__error(c);
		rule = err.rule;
	}
	if (warnings)
		*warnings = (unsigned int)fxt_checker__stats(c)->warnings;
	fxt_checker__free(c);
	fxt_writer__free(s->w);
	memsink_free(&s->m);
	return rule;
}

TEST(decode_and_dump)
{
	struct sched_stream s;
	uint64_t wk[6] = {
		fxt_sched_wakeup_hdr(6, 2, 1), 2000, 101,
		fxt_arg_hdr32(FXT_ARG_INT32, 3, 120), fxt_arg_hdr_koid(4), 102,
	};
	struct fxt_reader *rd;
	struct fxt_record rec;
	unsigned int nsched = 0;
	char line[512];
	int ret;

	stream_begin(&s);
	ASSERT_EQ(0, add_switch(&s, 1000, 1, 3, 101, 102, FXT_ARG_INT32));
	ASSERT_EQ(0, fxt_writer__raw(s.w, wk, 6));
	ASSERT_EQ(0, fxt_reader__new(0, &rd));
	ASSERT_EQ(0, fxt_reader__feed(rd, s.m.buf, s.m.len));
	while ((ret = fxt_reader__next(rd, &rec)) > 0) {
		if (rec.type != FXT_REC_SCHED)
			continue;
		fxt_record__format(&rec, line, sizeof(line));
		if (nsched++ == 0) {
			ASSERT_EQ(1, rec.subtype);
			ASSERT_EQ(1, rec.sched.cpu);
			ASSERT_EQ(3, rec.sched.out_state);
			ASSERT_EQ(101, rec.sched.out_tid);
			ASSERT_EQ(102, rec.sched.in_tid);
			ASSERT_EQ(2, rec.nargs);
			ASSERT_EQ(120, rec.args[0].v.i32);
			ASSERT_NE(NULL, strstr(line, "ContextSwitch(ts: 1000, cpu: 1, out_state: 3 (blocked), out: 101, in: 102"));
			ASSERT_NE(NULL, strstr(line, "incoming_weight"));
		} else {
			ASSERT_EQ(2, rec.subtype);
			ASSERT_EQ(101, rec.sched.tid);
			ASSERT_EQ(FXT_ARG_KOID, rec.args[1].type);
			ASSERT_EQ(102, rec.args[1].v.koid);
			ASSERT_NE(NULL, strstr(line, "ThreadWakeup(ts: 2000, cpu: 1, tid: 101"));
		}
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(2, nsched);
	fxt_reader__free(rd);
	ASSERT_EQ(NULL, check(&s, NULL));
}

TEST(chain_per_cpu_passes)
{
	struct sched_stream s;
	unsigned int warnings;

	stream_begin(&s);
	/* Two CPUs interleaved, idle (0) in between: each chain holds. */
	ASSERT_EQ(0, add_switch(&s, 100, 0, 3, 0, 10, FXT_ARG_INT32));
	ASSERT_EQ(0, add_switch(&s, 110, 1, 1, 0, 11, FXT_ARG_INT32));
	ASSERT_EQ(0, add_switch(&s, 120, 0, 3, 10, 0, FXT_ARG_INT32));
	ASSERT_EQ(0, add_switch(&s, 120, 1, 1, 11, 12, FXT_ARG_INT32));
	ASSERT_EQ(0, add_switch(&s, 130, 0, 1, 0, 10, FXT_ARG_INT32));
	ASSERT_EQ(NULL, check(&s, &warnings));
	ASSERT_EQ(0, warnings);
}

TEST(chain_broken)
{
	struct sched_stream s;

	stream_begin(&s);
	ASSERT_EQ(0, add_switch(&s, 100, 0, 3, 10, 11, FXT_ARG_INT32));
	ASSERT_EQ(0, add_switch(&s, 110, 0, 3, 12, 10, FXT_ARG_INT32));
	ASSERT_STREQ("sched-cpu-chain", check(&s, NULL));
}

TEST(chain_reset_by_loss_notice)
{
	struct sched_stream s;

	stream_begin(&s);
	ASSERT_EQ(0, add_switch(&s, 100, 0, 3, 10, 11, FXT_ARG_INT32));
	/* Records were lost here: the buffer-overflow provider event. */
	ASSERT_EQ(0, fxt_writer__provider_event(s.w, 1,
					       FXT_PROVIDER_EVENT_BUFFER_OVERFLOW));
	ASSERT_EQ(0, add_switch(&s, 110, 0, 3, 12, 10, FXT_ARG_INT32));
	ASSERT_EQ(NULL, check(&s, NULL));
}

TEST(time_backwards_on_a_cpu)
{
	struct sched_stream s;

	stream_begin(&s);
	ASSERT_EQ(0, add_switch(&s, 100, 0, 3, 10, 11, FXT_ARG_INT32));
	ASSERT_EQ(0, add_switch(&s, 90, 0, 3, 11, 10, FXT_ARG_INT32));
	ASSERT_STREQ("sched-cpu-time", check(&s, NULL));
}

TEST(self_switch)
{
	struct sched_stream s;

	stream_begin(&s);
	ASSERT_EQ(0, add_switch(&s, 100, 0, 1, 10, 10, FXT_ARG_INT32));
	ASSERT_STREQ("sched-self-switch", check(&s, NULL));
}

TEST(bad_state)
{
	struct sched_stream s;

	stream_begin(&s);
	ASSERT_EQ(0, add_switch(&s, 100, 0, 6, 10, 11, FXT_ARG_INT32));
	ASSERT_STREQ("sched-state", check(&s, NULL));
}

TEST(weight_not_int32)
{
	struct sched_stream s;

	stream_begin(&s);
	ASSERT_EQ(0, add_switch(&s, 100, 0, 3, 10, 11, FXT_ARG_UINT32));
	ASSERT_STREQ("sched-arg-type", check(&s, NULL));
}

TEST(waker_not_koid)
{
	struct sched_stream s;
	uint64_t wk[5] = {
		fxt_sched_wakeup_hdr(5, 2, 0), 100, 10,
		fxt_arg_hdr32(FXT_ARG_INT32, 3, 120),
		fxt_arg_hdr32(FXT_ARG_UINT32, 4, 11),
	};

	stream_begin(&s);
	ASSERT_EQ(0, fxt_writer__raw(s.w, wk, 5));
	ASSERT_STREQ("sched-arg-type", check(&s, NULL));
}

TEST(idle_weight_warns)
{
	struct sched_stream s;
	unsigned int warnings;
	uint64_t w[6] = {
		fxt_sched_switch_hdr(6, 2, 0, 1), 100, 0, 10,
		fxt_arg_hdr32(FXT_ARG_INT32, 1, 120),
		fxt_arg_hdr32(FXT_ARG_INT32, 2, 120),	/* idle, not INT32_MIN */
	};

	stream_begin(&s);
	ASSERT_EQ(0, fxt_writer__raw(s.w, w, 6));
	ASSERT_EQ(NULL, check(&s, &warnings));
	ASSERT_EQ(1, warnings);
}

TEST_HARNESS_MAIN

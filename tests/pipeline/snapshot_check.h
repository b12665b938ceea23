/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_check.h - what the flight recorder's tests check in a
 * snapshot, shared by the host test (tests/pipeline/test_flight_window.c)
 * and the VM test (tests/reader/test_flight.c): it passes the checker,
 * every thread an event names has a kernel object naming it before, and
 * the first and last sample time on each CPU; the triggers it holds.
 */
#ifndef FXTPROF_SNAPSHOT_CHECK_H
#define FXTPROF_SNAPSHOT_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"

#define SNAP_MAX_CPUS	64
#define SNAP_MAX_TIDS	8192

struct snap_info {
	int err;			/* checker or reader failure */
	char errmsg[256];
	uint64_t records, samples, events;
	uint64_t cpu_first[SNAP_MAX_CPUS], cpu_last[SNAP_MAX_CPUS];
	uint64_t cpus;			/* bit n: samples on CPU n */
	uint64_t unnamed;		/* events on a thread named nowhere before */
	uint64_t first_unnamed_tid, first_unnamed_pid;
	/*
	 * Set before snap_analyze(): threads of this process are not held to
	 * being named.  The recorder's own io_uring workers are made by
	 * create_io_thread(), which fires no sched_process_fork: no stream
	 * names them, a snapshot no more than a recording.
	 */
	uint64_t ignore_pid;
	uint64_t triggers;		/* fxtprof:trigger events */
	char trigger[64];		/* the first one's name */
	uint64_t trigger_ts;
	uint64_t mappings, ksyms, kmods;
	uint64_t ntids;
	uint64_t tids[SNAP_MAX_TIDS];	/* named so far */
};

static inline bool snap_str_is(const struct fxt_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->data, lit, s->len);
}

static inline bool snap_named(const struct snap_info *si, uint64_t tid)
{
	for (uint64_t i = 0; i < si->ntids; i++)
		if (si->tids[i] == tid)
			return true;
	return false;
}

static inline void snap_thread(struct snap_info *si, const struct fxt_thr *t)
{
	if (snap_named(si, t->tid) || (si->ignore_pid && t->pid == si->ignore_pid))
		return;
	if (!si->unnamed) {
		si->first_unnamed_tid = t->tid;
		si->first_unnamed_pid = t->pid;
	}
	si->unnamed++;
}

static inline void snap_analyze(const void *buf, size_t len,
				struct snap_info *si)
{
	struct fxt_record *rec = malloc(sizeof(*rec));
	struct fxt_reader *r = NULL;
	struct fxt_error e;
	int ret;

	uint64_t ignore = si->ignore_pid;

	memset(si, 0, sizeof(*si));
	si->ignore_pid = ignore;
	if (fxt_check_buffer(buf, len, &e)) {
		si->err = -EPROTO;
		snprintf(si->errmsg, sizeof(si->errmsg), "check: offset %llu: %s: %s",
			 (unsigned long long)e.offset, e.rule, e.msg);
		free(rec);
		return;
	}
	if (!rec || fxt_reader__new(0, &r)) {
		si->err = -ENOMEM;
		free(rec);
		return;
	}
	ret = fxt_reader__feed(r, buf, len);
	while (!ret && (ret = fxt_reader__next(r, rec)) > 0) {
		ret = 0;
		si->records++;
		if (rec->type == FXT_REC_KERNEL_OBJ) {
			if (rec->subtype == FXT_KOBJ_THREAD &&
			    si->ntids < SNAP_MAX_TIDS && !snap_named(si, rec->kobj.koid))
				si->tids[si->ntids++] = rec->kobj.koid;
			si->mappings += rec->subtype == 0x80;
			si->kmods += rec->subtype == 0x81;
			si->ksyms += rec->subtype == 0x82;
			continue;
		}
		if (rec->type == FXT_REC_LARGE) {
			snap_thread(si, &rec->thread);
			continue;
		}
		if (rec->type != FXT_REC_EVENT)
			continue;
		si->events++;
		/* Counters are on the reader's own thread, named or not. */
		if (snap_str_is(&rec->event.category, "fxtprof") &&
		    !snap_str_is(&rec->event.name, "trigger"))
			continue;
		snap_thread(si, &rec->thread);
		if (snap_str_is(&rec->event.category, "cpu") &&
		    snap_str_is(&rec->event.name, "sample")) {
			uint64_t cpu = SNAP_MAX_CPUS;

			for (unsigned int i = 0; i < rec->nargs; i++)
				if (snap_str_is(&rec->args[i].name, "cpu"))
					cpu = rec->args[i].v.u32;
			si->samples++;
			if (cpu >= SNAP_MAX_CPUS)
				continue;
			if (!(si->cpus & (1ull << cpu)) || rec->ts < si->cpu_first[cpu])
				si->cpu_first[cpu] = rec->ts;
			if (rec->ts > si->cpu_last[cpu])
				si->cpu_last[cpu] = rec->ts;
			si->cpus |= 1ull << cpu;
		} else if (snap_str_is(&rec->event.category, "fxtprof") &&
			   snap_str_is(&rec->event.name, "trigger")) {
			/* The first one: later ones may follow it in. */
			if (si->triggers++)
				continue;
			si->trigger_ts = rec->ts;
			for (unsigned int i = 0; i < rec->nargs; i++) {
				const struct fxt_argv *a = &rec->args[i];
				size_t n = a->v.str.len < 63 ? a->v.str.len : 63;

				if (!snap_str_is(&a->name, "name") ||
				    a->type != FXT_ARG_STRING)
					continue;
				memcpy(si->trigger, a->v.str.data, n);
				si->trigger[n] = 0;
			}
		}
	}
	if (ret < 0) {
		si->err = ret;
		snprintf(si->errmsg, sizeof(si->errmsg), "reader: %s",
			 fxt_reader__error(r)->msg);
	}
	fxt_reader__free(r);
	free(rec);
}

#endif /* FXTPROF_SNAPSHOT_CHECK_H */

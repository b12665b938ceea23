/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hooks_readback.h - the tests' view of an FXT file written by
 * libfxtprof-hooks: `fxtprof check` on it, then its annotation events read
 * back with user/fxt's reader, in file order.
 */
#ifndef FXTPROF_HOOKS_READBACK_H
#define FXTPROF_HOOKS_READBACK_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/fxtprof.h>

struct rb_event {
	uint8_t type;			/* enum fxt_event_type */
	uint64_t pid, tid;
	uint64_t ts;
	char category[16];
	char name[FXTPROF_ANNOTATION_NAME_MAX + 1];
	uint16_t name_len;
	uint64_t id;			/* async: the correlation id */
	bool has_kernel_id;
	uint64_t kernel_id;
};

/* A thread kernel object: the name a thread had from there on. */
struct rb_name {
	uint64_t tid;
	char name[FXTPROF_COMM_LEN];
	unsigned int after;		/* events in ev[] before it */
};

struct rb_trace {
	struct rb_event *ev;		/* categories region/section/kernel/event */
	unsigned int n;
	unsigned int threads_named;	/* thread kernel objects */
	struct rb_name *names;		/* [threads_named], in file order */
	/* The in-band loss notices (counter fxtprof:kernel_lost). */
	unsigned int lost_notices;
	uint64_t lost_records;		/* the last notice's total */
};

/* `fxtprof check PATH` exits 0: 0, else its exit status (or -errno). */
int rb_check(const char *path);
/* Read @path: 0 or -errno (-EPROTO: the reader refused it). */
int rb_load(const char *path, struct rb_trace *t);
void rb_free(struct rb_trace *t);
/* The names given to @tid, in order, into @out: how many there were. */
unsigned int rb_names_of(const struct rb_trace *t, uint64_t tid,
			 const struct rb_name **out, unsigned int cap);

#endif /* FXTPROF_HOOKS_READBACK_H */

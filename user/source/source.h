/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source.h - the record source as an interface: one ops table per back
 * end, as the kernel's struct bpf_map_ops, so that the recorder drives
 * any of them without knowing which.
 *
 * A source produces the record stream: validated uapi records
 * (include/uapi/linux/fxtprof.h) handed one at a time to an fxtprof_rec_cb.
 * The back ends are the module's per-CPU rings (ring_source.c) and the
 * eBPF programs (bpf_source_ops.c, over bpf_source.h).  A new one is a
 * file that defines its struct source_ops, and a line in the recorder's
 * table of sources (user/cmd/record_opts.c).
 *
 * Each back end's instance begins with a struct source.  An operation
 * that fails returns -errno and, where it can say more than the errno,
 * leaves one sentence in source__error().
 */
#ifndef FXTPROF_SOURCE_H
#define FXTPROF_SOURCE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <libfxtprof.h>

struct source_ops;

struct source {
	const struct source_ops *ops;
	char msg[320];			/* the last failure's sentence */
};

struct source_opts {
	const char *device;		/* the module's; NULL: FXTPROF_DEVICE */
};

struct source_ops {
	const char *name;		/* as --source names it */
	const char *desc;		/* "the module", in sentences */
	size_t size;			/* of the instance */
	/*
	 * --source auto takes the first source in the table whose probe
	 * says 1; NULL: always.  @why gets the reason, either way.
	 */
	int (*probe)(const struct source_opts *opts, char *why, size_t len);
	/* What the data source table needs (a device to ask). */
	int (*open)(struct source *src, const struct source_opts *opts);
	/*
	 * Its data sources (fxtprof sources), at most @max into @tab: the
	 * number, or -errno.
	 */
	int (*data_sources)(struct source *src, struct fxtprof_source *tab,
			    unsigned int max);
	/* Check what it needs and set up a session for @cfg, not started. */
	int (*configure)(struct source *src, const struct fxtprof_config *cfg);
	/* Release what open and configure took; the session ends. */
	void (*close)(struct source *src);
	/* Readable when records are pending: the recorder polls it. */
	int (*fd)(const struct source *src);
	int (*start)(struct source *src);
	/* Stop producing; what was written stays to be drained. */
	int (*stop)(struct source *src);
	/*
	 * Have every producer write out what it holds and a FLUSH marker;
	 * *seq gets the flush's number.  flush_done() is true once the drains
	 * passed flush @seq on every ring.
	 */
	int (*flush)(struct source *src, __u64 *seq);
	bool (*flush_done)(const struct source *src, __u64 seq);
	/* Every pending record, ring by ring, to @cb.  0 or -errno. */
	int (*drain)(struct source *src, fxtprof_rec_cb cb, void *ctx);
	/*
	 * The session's totals over the CPUs; with @report, a line per CPU
	 * that lost records.
	 */
	void (*stats)(struct source *src, struct fxtprof_stats *total,
		      FILE *report);
	/*
	 * Unwind tables (Documentation/unwinding.md), for a session
	 * configured with FXTPROF_CFG_UNWIND; NULL in a back end that cannot
	 * walk them.  As FXTPROF_IOC_UNWIND_LOAD, _MAP and _UNLOAD:
	 * unwind_load sets @t->id, also with -EEXIST; unwind_map adds or
	 * removes a range; unwind_unload drops a table no range runs.
	 */
	int (*unwind_load)(struct source *src, struct fxtprof_unwind_table *t);
	int (*unwind_map)(struct source *src,
			  const struct fxtprof_unwind_map *map);
	int (*unwind_unload)(struct source *src, __u32 id);
	/*
	 * The kernel symbol that holds @addr, as FXTPROF_IOC_KSYM gives it:
	 * 0, -ENOENT where none does, another -errno where the back end
	 * cannot name any.  NULL in a back end that never can: the recorder
	 * then keeps a copy of /proc/kallsyms.
	 */
	int (*kernel_symbol)(struct source *src, __u64 addr,
			     struct fxtprof_ksym_query *q);
	/* It takes FXTPROF_CFG_STACK_COPY: samples carry stack copies. */
	bool stack_copy;
	/* It takes FXTPROF_CFG_OFFCPU: waits with their stacks. */
	bool offcpu;
};

extern const struct source_ops ring_source_ops;
extern const struct source_ops bpf_source_ops;

/* A zeroed instance of @ops, not open yet; NULL without memory. */
static inline struct source *source__new(const struct source_ops *ops)
{
	struct source *src = calloc(1, ops->size);

	if (src)
		src->ops = ops;
	return src;
}

/* Close and free @src (NULL: nothing). */
static inline void source__free(struct source *src)
{
	if (!src)
		return;
	src->ops->close(src);
	free(src);
}

/* The sentence of the last failure ("" if none). */
static inline const char *source__error(const struct source *src)
{
	return src->msg;
}

#endif /* FXTPROF_SOURCE_H */

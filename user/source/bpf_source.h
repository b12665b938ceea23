/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_source.h - the eBPF programs (user/source/bpf/fxtprof.bpf.c) as a
 * record source, for machines where fxtprof.ko cannot be loaded.
 *
 * bpf_source_ops.c makes it a source.h back end; the callback gets the same
 * validated uapi records (include/uapi/linux/fxtprof.h): SAMPLE, FORK,
 * EXEC, EXIT, RENAME, SNAPSHOT, and LOST records made from the programs'
 * drop counters, so everything downstream stays source-blind.
 * Documentation/bpf-source.md has the design, requirements and errors.
 *
 * Every call that fails returns -errno and leaves a sentence saying what
 * to do in bpf_source__error().  Nothing outlives the process: programs,
 * maps, links and perf events are file descriptors, and none is pinned.
 */
#ifndef FXTPROF_BPF_SOURCE_H
#define FXTPROF_BPF_SOURCE_H

#include <stdbool.h>
#include <stdio.h>

#include <libfxtprof.h>

struct bpf_source_impl;

struct bpf_source {
	struct bpf_source_impl *impl;
	char msg[320];		/* the last error's sentence */
};

struct bpf_source_opts {
	/* Kernel BTF to check and relocate against; NULL: the running
	 * kernel's, /sys/kernel/btf/vmlinux. */
	const char *btf_path;
	/* Pretend the kernel is this release ("5.4.0"), to exercise the
	 * too-old error; NULL: uname(). */
	const char *kernel_release;
};

/*
 * Check the prerequisites (BTF, kernel version, capabilities,
 * perf_event_paranoid); @opts may be NULL.  0/-errno.
 */
int bpf_source__open(struct bpf_source *src, const struct bpf_source_opts *opts);
/* Load the programs for @cfg and open the perf events (still disabled). */
int bpf_source__configure(struct bpf_source *src,
			  const struct fxtprof_config *cfg);
void bpf_source__close(struct bpf_source *src);

/* An epoll fd over the per-CPU ring buffers: readable when one has
 * records pending (past the watermark), poll it. */
int bpf_source__fd(const struct bpf_source *src);
/* Attach the task programs, write the snapshot, start sampling. */
int bpf_source__start(struct bpf_source *src);
/* Detach everything; what was written before stays to be drained. */
int bpf_source__stop(struct bpf_source *src);
/* ring_source__flush()'s counterpart: LOST records come from counters at
 * every drain, so there is nothing to push out.  Always 0. */
int bpf_source__flush(struct bpf_source *src);

/*
 * Hand every pending record to @cb, then a LOST record per CPU that
 * dropped records since the last drain.  Also follows CPU hotplug (at most
 * once a second).  0, or -errno with the CPU of the corrupt record (or
 * 0) in *bad_cpu.
 */
int bpf_source__drain(struct bpf_source *src, fxtprof_rec_cb cb, void *ctx,
		      unsigned int *bad_cpu);

/* Totals over the CPUs; with @report, a line per CPU that lost records.
 * handler_ns/calls and timer_overruns are not available from BPF and stay
 * 0, and so do ustack_faults and the unwind counters without
 * FXTPROF_CFG_UNWIND (bpf_get_stack() does not say why it stopped). */
void bpf_source__stats(struct bpf_source *src, struct fxtprof_stats *total,
		       FILE *report);

/*
 * Unwind tables, for a session configured with FXTPROF_CFG_UNWIND, with
 * the contract of FXTPROF_IOC_UNWIND_LOAD, _MAP and _UNLOAD (-EBUSY
 * before the configuration or without the flag); no sentence in
 * bpf_source__error().
 */
int bpf_source__unwind_load(struct bpf_source *src,
			    struct fxtprof_unwind_table *t);
int bpf_source__unwind_map(struct bpf_source *src,
			   const struct fxtprof_unwind_map *m);
int bpf_source__unwind_unload(struct bpf_source *src, __u32 id);

/* The sentence of the last failure ("" if none). */
const char *bpf_source__error(const struct bpf_source *src);

/*
 * Its data sources, in the module's terms (bpf_source_ops.c): what
 * `fxtprof sources` lists and `record --sources` resolves against.
 */
extern const struct fxtprof_source bpf_source_data_sources[];
extern const unsigned int bpf_source_nr_data_sources;

/* CPUs with an attached sampling event now (tests, status). */
unsigned int bpf_source__nr_sampling(const struct bpf_source *src);

#endif /* FXTPROF_BPF_SOURCE_H */

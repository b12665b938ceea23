/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * profile.h - a recording, loaded: the samples of an fxtprof FXT stream
 * with their frames, the names every thread had over time, the executable
 * mappings of every process, and the kernel's images and symbols.
 *
 * It reads what the FXT encoder writes (Documentation/fxt-mapping.md):
 * `cpu/sample` instant events followed by their frame blobs, the `task`
 * events, process and thread kernel objects, and the mapping, kernel
 * image and kernel symbol objects of user/fxt/fxt_profile.h.  It does not
 * name frames: user/symbolize does, from this model.
 *
 * All strings are owned by the profile and live as long as it.  Every
 * function returns 0 or -errno; a load that fails says why in err.
 */
#ifndef FXTPROF_PROFILE_H
#define FXTPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/fxtprof.h>

#define PROFILE_BUILD_ID_MAX	20

struct profile;
struct profile_annots;
struct profile_runs;

/*
 * One sample.  ips[] are leaf first: nr_kernel kernel, then nr_user user.
 * The profile stores each distinct stack once: samples with the same
 * frames share one ips array, so the pointer tells equal stacks apart.
 */
struct profile_sample {
	uint64_t ts;			/* ns, CLOCK_BOOTTIME */
	uint32_t pid, tid;
	uint16_t cpu;
	uint8_t mode;			/* FXTPROF_MODE_*, 0 if unknown */
	uint8_t ustack_end;		/* a partial user stack's reason, else 0 */
	uint16_t nr_kernel, nr_user;
	const uint64_t *ips;
	const char *comm;		/* thread name at ts: "swapper/N" when idle */
	const char *process;		/* process name at ts */
	/*
	 * An off-CPU wait (profile__wait()): ts is when the thread left its
	 * CPU, ips its stacks then, cpu where it ran again wait_ns later.
	 */
	uint64_t wait_ns;		/* 0 for a sample */
	uint32_t waker_tid;		/* 0: none known */
	const char *waker;		/* its name when it woke it, or NULL */
	uint8_t wait_state;		/* enum fxtprof_wait_state, 0 unknown */
};

/* An executable file mapping of process pid, created at time. */
struct profile_mapping {
	uint64_t serial;		/* the FXT koid, unique in the profile */
	uint32_t pid;
	uint64_t time;			/* ns; 0 for mappings that existed at start */
	uint64_t start, end, pgoff;
	const char *path;
	uint8_t build_id[PROFILE_BUILD_ID_MAX];
	uint8_t build_id_size;		/* 0: unknown */
};

/* The kernel image or one module. */
struct profile_kmod {
	uint64_t start, end;
	const char *name;		/* "[kernel.kallsyms]" or the module's */
	bool is_kernel;
	uint8_t build_id[PROFILE_BUILD_ID_MAX];
	uint8_t build_id_size;
};

struct profile_ksym {
	uint64_t addr;
	uint32_t size;
	const char *name;
};

/*
 * A process's container, from its process object's arguments (the
 * latest the recording gave): its pid in its own pid namespace and its
 * cgroup v2 path.
 */
struct profile_process {
	uint32_t pid;
	int32_t nspid;			/* -1: unknown */
	const char *cgroup;		/* NULL: unknown */
};

/* A function a JIT compiler listed in its process's /tmp/perf-PID.map. */
struct profile_jit {
	uint32_t pid;
	uint64_t start, size;
	const char *name;
};

struct profile_error {
	uint64_t offset;		/* byte offset in the file */
	char msg[256];
};

/* Load a whole FXT file ("-" = stdin). */
int profile__load(const char *path, struct profile **out,
		  struct profile_error *err);
/* Load from memory (tests, fuzzers). */
int profile__load_buffer(const void *data, size_t len, struct profile **out,
			 struct profile_error *err);
void profile__free(struct profile *p);

/* Samples in timestamp order. */
size_t profile__nr_samples(const struct profile *p);
/*
 * The sampling period in ns: 1e9 / the frequency, which is taken from the
 * median spacing of consecutive samples on one CPU (the module samples
 * every CPU at the same rate, idle included).  FXTPROF_DEFAULT_FREQ's
 * period when no CPU has two samples (profile_period.c).
 */
uint64_t profile__sample_period_ns(const struct profile *p);

/*
 * Off-CPU waits (record --off-cpu), by when they began, as samples whose
 * wait fields are set.
 */
size_t profile__nr_waits(const struct profile *p);
/* A wait_state's name as the recording spells it ("sleeping"), or NULL. */
const char *profile__wait_state_name(unsigned int state);
const struct profile_sample *profile__wait(const struct profile *p, size_t i);
/* The recording's annotations (profile_annot.h; never NULL once loaded). */
const struct profile_annots *profile__annots(const struct profile *p);
/*
 * When its threads ran, from its context switches (profile_runs.h; never
 * NULL once loaded, empty without sched.switch).
 */
const struct profile_runs *profile__runs(const struct profile *p);
const struct profile_sample *profile__sample(const struct profile *p,
					     size_t i);

/*
 * The mapping that covered addr in process pid at time ts: the newest
 * mapping of pid created at or before ts that covers addr, else, for a
 * process forked during the recording, its parent's at the time of the
 * fork.  NULL if none.
 */
const struct profile_mapping *profile__find_mapping(const struct profile *p,
						    uint32_t pid,
						    uint64_t addr,
						    uint64_t ts);
size_t profile__nr_mappings(const struct profile *p);
/* Mapping i (0 <= i < profile__nr_mappings()), by pid then start. */
const struct profile_mapping *profile__mapping(const struct profile *p,
					       size_t i);
/*
 * Call fn for each mapping profile__find_mapping() answers for some
 * address of pid at ts, until fn returns non-zero (returned).
 */
int profile__for_each_mapping(const struct profile *p, uint32_t pid,
			      uint64_t ts,
			      int (*fn)(void *ctx,
					const struct profile_mapping *m),
			      void *ctx);

/*
 * The epoch of process pid's mappings at time ts: what
 * profile__find_mapping() answers for pid changes only when pid gets a
 * mapping, is forked or execs, and two times of pid with the same epoch
 * get the same answer for every address.  What is named from one sample
 * then holds for all those of its process and epoch.
 */
uint64_t profile__mapping_epoch(const struct profile *p, uint32_t pid,
				uint64_t ts);

/* The kernel image or module holding addr, NULL if none. */
const struct profile_kmod *profile__find_kmod(const struct profile *p,
					      uint64_t addr);
size_t profile__nr_kmods(const struct profile *p);
const struct profile_kmod *profile__kmod(const struct profile *p, size_t i);

/* The kernel symbol holding addr (addr - sym->addr < size), NULL if none. */
const struct profile_ksym *profile__find_ksym(const struct profile *p,
					      uint64_t addr);
size_t profile__nr_ksyms(const struct profile *p);

/* Process @pid's container, or NULL if the recording does not say. */
const struct profile_process *profile__process(const struct profile *p,
					       uint32_t pid);

/*
 * The JIT function of process @pid holding @addr (the latest listed at
 * its start), or NULL.
 */
const struct profile_jit *profile__find_jit(const struct profile *p,
					    uint32_t pid, uint64_t addr);
size_t profile__nr_jits(const struct profile *p);

/*
 * The wall-clock time of boot-time timestamp @ts, from the recording's
 * clock object: false (and *@wall_ns untouched) if it has none, or if @ts
 * is too far before it to be one.
 */
bool profile__wall_clock(const struct profile *p, uint64_t ts,
			 uint64_t *wall_ns);

/*
 * The machine the recording was made on, from the clock object's
 * optional arguments (uname's nodename, release, machine): each NULL
 * when the recording does not say.
 */
struct profile_machine {
	const char *host;
	const char *kernel_release;
	const char *arch;
};
const struct profile_machine *profile__machine(const struct profile *p);

/* Why names may be missing: what the stream lacked, for the reports. */
struct profile_stats {
	uint64_t samples;
	uint64_t frames;
	uint64_t mappings;
	uint64_t kmods;
	uint64_t ksyms;
	uint64_t lost_records;		/* fxtprof:kernel_lost, last totals */
	uint64_t output_dropped;	/* fxtprof:output_dropped records */
	/* Samples naming a shared stack their segment never defined. */
	uint64_t unresolved_stacks;
	/*
	 * Samples by why their user stack stopped short, by enum
	 * fxtprof_ustack_end (the ustack_end argument; 0 counts none).
	 */
	uint64_t partial_ustacks[FXTPROF_USTACK_END_SLOTS];
	bool has_mappings;		/* any mapping record at all */
	bool has_kernel;		/* any kernel image or symbol record */
};
void profile__stats(const struct profile *p, struct profile_stats *st);

/*
 * Stack copies (`--call-graph dwarf`): a sample may carry a copy of its
 * user registers and stack (struct fxtprof_stack_copy).  The profile does
 * not unwind them itself (that takes libdwfl): a command passes an
 * unwinder, and profile__unwind_copies() gives each sample whose user
 * stack was not walked (the leaf only) or ended partial the frames the
 * unwinder found, its kernel frames kept.
 */
#define PROFILE_COPY_WHY_MAX	8

struct profile_unwinder {
	/*
	 * Unwind smp's copy, len bytes, into up to max user pcs, leaf first:
	 * their number (> 0); or 0 and *why (< PROFILE_COPY_WHY_MAX) when
	 * it failed; or -ENOMEM.
	 */
	int (*unwind)(void *ctx, const struct profile *p,
		      const struct profile_sample *smp, const void *copy,
		      size_t len, uint64_t *pcs, unsigned int max,
		      unsigned int *why);
	/* What a failure's why means, for the reports. */
	const char *(*why_name)(unsigned int why);
	void *ctx;
};

struct profile_copy_stats {
	uint64_t copies;		/* samples with a copy */
	uint64_t unwound;		/* given their frames by the unwinder */
	uint64_t failed;		/* tried, and the unwinder failed */
	uint64_t failed_why[PROFILE_COPY_WHY_MAX];
	const char *(*why_name)(unsigned int why);
};

/*
 * 0 (also with no copies: then nothing is done), or -ENOMEM.  Once only:
 * the copies are freed after.
 */
int profile__unwind_copies(struct profile *p,
			   const struct profile_unwinder *uw);
void profile__copy_stats(const struct profile *p,
			 struct profile_copy_stats *st);

#endif /* FXTPROF_PROFILE_H */

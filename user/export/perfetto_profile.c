// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfetto_profile.c - a loaded recording through the Perfetto emitter
 * (perfetto_profile.h).
 *
 * Names: a ProcessTree entry for a process when it first samples and
 * whenever its name changes (exec), and one for each thread the same way.
 * Idle samples (tid 0, "swapper/N" on each CPU) name the process only:
 * one thread 0 cannot carry a name per CPU.
 *
 * Kernel frames carry their function name, with " [module]" for module
 * code, on Perfetto's kernel mapping, rel_pc 0: Perfetto keeps no kernel
 * addresses, and one frame per function keeps the interning small.  User
 * frames carry their mapping (path, raw build id, pgoff, load bias) and
 * the ELF address, named when the symbolizer named them and otherwise left
 * for Perfetto's own symbolization by build id.
 *
 * Off-CPU waits, where the recording has them: a PerfSample each, at the
 * time the thread left its CPU, with the stacks it had then, on a
 * sequence of their own whose timebase is the sched_switch tracepoint,
 * named "off-cpu": Perfetto shows them apart from the CPU samples, at the
 * start of the thread's blocked slice (the FXT `cpu/off-cpu` event, which
 * the same file holds, gives its length, state and waker).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fxtprof.h>

#include "intern.h"
#include "perfetto_profile.h"

#define NAME_BUF	256
/* The image's dso name (user/fxt/fxt_profile.h): its frames get no suffix. */
#define KERNEL_DSO	"[kernel.kallsyms]"

/* The waits' sequence: the CPU samples' is 1. */
static const struct perfetto_timebase waits_timebase = {
	.sequence_id = 2,
	.tracepoint = "sched:sched_switch",
	.name = "off-cpu",
};

struct px {
	const struct profile *p;
	struct symbolizer *s;
	struct perfetto_emitter *em;	/* the CPU samples' */
	struct export_stack stack;
	struct perfetto_frame *frames;
	struct perfetto_mapping *maps;	/* one per frame, for its lifetime */
	char (*names)[NAME_BUF];
	size_t cap;
	struct intern pids, tids;
	const char **pid_name, **tid_name;	/* [id - 1] */
	size_t pid_cap, tid_cap;
};

/* Remember name for key in t/names; true if it is new or changed. */
static int name_changed(struct intern *t, const char ***names, size_t *cap,
			const void *key, size_t len, const char *name,
			bool *changed)
{
	bool is_new;
	uint32_t id = intern__id(t, key, len, &is_new);

	if (!id)
		return -ENOMEM;
	if (id > *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		const char **n = realloc(*names, c * sizeof(*n));

		if (!n)
			return -ENOMEM;
		*names = n;
		*cap = c;
	}
	*changed = is_new || strcmp((*names)[id - 1], name);
	(*names)[id - 1] = name;
	return 0;
}

/* ProcessTree packets are not per sequence: x->em writes them all. */
static int name_tasks(struct px *x, const struct profile_sample *smp)
{
	const char *proc = smp->process && *smp->process ? smp->process :
			   smp->comm && *smp->comm ? smp->comm :
			   smp->pid ? "[unknown]" : "swapper";
	uint32_t key[2] = { smp->pid, smp->tid };
	bool changed;
	int err;

	if (!smp->pid)
		proc = "swapper";
	err = name_changed(&x->pids, &x->pid_name, &x->pid_cap, &smp->pid,
			   sizeof(smp->pid), proc, &changed);
	if (!err && changed)
		err = perfetto_emitter__process(x->em, smp->ts, smp->pid,
						proc);
	if (err || !smp->tid || !smp->comm || !*smp->comm)
		return err;
	err = name_changed(&x->tids, &x->tid_name, &x->tid_cap, key,
			   sizeof(key), smp->comm, &changed);
	if (!err && changed)
		err = perfetto_emitter__thread(x->em, smp->ts, smp->pid,
					       smp->tid, smp->comm);
	return err;
}

static int reserve(struct px *x, size_t n)
{
	if (n <= x->cap)
		return 0;
	free(x->frames);
	free(x->maps);
	free(x->names);
	x->frames = calloc(n, sizeof(*x->frames));
	x->maps = calloc(n, sizeof(*x->maps));
	x->names = calloc(n, sizeof(*x->names));
	x->cap = x->frames && x->maps && x->names ? n : 0;
	return x->cap ? 0 : -ENOMEM;
}

/* A kernel frame's name: "function" or "function [module]". */
static const char *kernel_name(const struct sym_result *r, unsigned int j,
			       char *buf)
{
	const char *fn = export_frame_name(r, j, buf, NAME_BUF);
	const char *dso = r->dso;

	if (!r->frames[j].function || !dso ||
	    !strcmp(dso, KERNEL_DSO))
		return fn;
	if (*dso == '[')
		snprintf(buf, NAME_BUF, "%s %s", fn, dso);
	else
		snprintf(buf, NAME_BUF, "%s [%s]", fn, dso);
	return buf;
}

static void user_mapping(struct perfetto_mapping *pm,
			 const struct sym_result *r, uint64_t addr)
{
	const struct profile_mapping *m = r->mapping;
	uint64_t file_off = addr - m->start + m->pgoff;

	memset(pm, 0, sizeof(*pm));
	/* Not the serial: two streams put together may reuse one. */
	pm->key = (uint64_t)(uintptr_t)m;
	pm->start = m->start;
	pm->end = m->end;
	pm->exact_offset = m->pgoff;
	pm->start_offset = 0;
	/* rel_pc = addr - start + exact_offset + load_bias (Perfetto). */
	pm->load_bias = r->rel_pc >= file_off ? r->rel_pc - file_off : 0;
	pm->path = m->path;
	pm->build_id = m->build_id_size ? m->build_id : NULL;
	pm->build_id_size = m->build_id_size;
}

/* A sample, or a wait (on @em, the waits' emitter), with its stacks. */
static int export_sample(struct px *x, struct perfetto_emitter *em,
			 const struct profile_sample *smp,
			 struct export_stats *st)
{
	struct perfetto_sample ps = { 0 };
	size_t nf = 0;
	int err;

	err = name_tasks(x, smp);
	if (err)
		return err;
	err = export_stack__symbolize(&x->stack, x->s, x->p, smp, st);
	if (err)
		return err;
	err = reserve(x, x->stack.n * SYM_MAX_INLINE);
	if (err)
		return err;
	for (size_t i = 0; i < x->stack.n; i++) {
		const struct sym_result *r = &x->stack.res[i];
		bool kernel = i < smp->nr_kernel;

		/* Inline frames innermost first: leaf first, as the rest. */
		for (unsigned int j = 0; j < r->nr_frames; j++) {
			struct perfetto_frame *f = &x->frames[nf];

			memset(f, 0, sizeof(*f));
			f->kernel = kernel;
			if (kernel) {
				f->function = kernel_name(r, j, x->names[nf]);
			} else if (r->mapping) {
				user_mapping(&x->maps[nf], r, smp->ips[i]);
				f->mapping = &x->maps[nf];
				f->rel_pc = r->rel_pc;
				f->function = r->frames[j].function;
			} else {
				f->function = export_frame_name(r, j,
							x->names[nf], NAME_BUF);
			}
			nf++;
		}
	}
	ps.ts = smp->ts;
	ps.cpu = smp->cpu;
	ps.pid = smp->pid;
	ps.tid = smp->tid;
	/* A thread waits in the kernel. */
	ps.mode = smp->wait_ns || smp->mode == FXTPROF_MODE_KERNEL ||
		  smp->mode == FXTPROF_MODE_IDLE ? PERFETTO_MODE_KERNEL :
		  smp->mode == FXTPROF_MODE_USER ? PERFETTO_MODE_USER :
		  PERFETTO_MODE_UNKNOWN;
	ps.frames = x->frames;
	ps.nr_frames = nf;
	return perfetto_emitter__sample(em, &ps);
}

/* The waits, on a sequence of their own; none: no sequence. */
static int export_waits(struct px *x, perfetto_emit_fn emit, void *ctx,
			struct export_stats *st)
{
	size_t n = profile__nr_waits(x->p);
	struct perfetto_emitter *em;
	struct perfetto_stats ps;
	int err;

	if (!n)
		return 0;
	err = perfetto_emitter__new_timebase(emit, ctx, &waits_timebase, &em);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++)
		err = export_sample(x, em, profile__wait(x->p, i), st);
	perfetto_emitter__stats(em, &ps);
	st->waits = ps.samples;
	st->mappings += ps.mappings;
	st->functions += ps.function_names;
	st->locations += ps.frames;
	st->callstacks += ps.callstacks;
	st->packets += ps.packets;
	st->bytes += ps.bytes;
	perfetto_emitter__free(em);
	return err;
}

int perfetto__export_profile(const struct profile *p, struct symbolizer *s,
			     perfetto_emit_fn emit, void *ctx,
			     struct export_stats *st)
{
	struct px x = { .p = p, .s = s };
	struct perfetto_stats ps;
	size_t n = profile__nr_samples(p);
	int err;

	intern__init(&x.pids);
	intern__init(&x.tids);
	err = perfetto_emitter__new(emit, ctx, &x.em);
	if (err)
		return err;
	st->period_ns = profile__sample_period_ns(p);
	for (size_t i = 0; i < n && !err; i++)
		err = export_sample(&x, x.em, profile__sample(p, i), st);
	perfetto_emitter__stats(x.em, &ps);
	st->mappings = ps.mappings;
	st->functions = ps.function_names;
	st->locations = ps.frames;
	st->callstacks = ps.callstacks;
	st->packets = ps.packets;
	st->bytes = ps.bytes;
	if (!err)
		err = export_waits(&x, emit, ctx, st);
	/* export_stack__symbolize() counted the waits too. */
	st->samples = ps.samples;
	perfetto_emitter__free(x.em);
	export_stack__release(&x.stack);
	intern__release(&x.pids);
	intern__release(&x.tids);
	free(x.pid_name);
	free(x.tid_name);
	free(x.frames);
	free(x.maps);
	free(x.names);
	return err;
}

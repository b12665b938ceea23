// SPDX-License-Identifier: GPL-2.0-only
/*
 * probes.c - the tracepoint probes of tasks.c and sched.c: found by name at
 * load, registered the first time a session needs them, and removed only
 * when the module is unloaded.
 *
 * None of the sched/task __tracepoint_* symbols is exported, so the
 * tracepoints are looked up with for_each_kernel_tracepoint() and probed
 * with tracepoint_probe_register(), as lttng-modules does.
 *
 * Why not register at every start and unregister at every stop: the first
 * probe on a tracepoint and the last one off it rewrite kernel text (a
 * static key and, on x86, the inline static call), and each rewrite stops
 * every CPU three times with an IPI.  Under QEMU TCG the rewrite of the
 * sched_switch call inside __schedule() hung the guest (one vCPU sat in
 * text_poke_bp() waiting for the other, which kept re-executing the
 * removed int3 with interrupts off; Documentation/testing.md).  Once
 * registered, a probe instead asks fxtprof_running() for a session that
 * records its source, so start and stop only publish a pointer.  The cost
 * of a probe kept while no session runs is one call, one load and one
 * test per event.
 */

#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "fxtprof_module.h"

/* Serialises registration; sessions only read what it publishes. */
static DEFINE_MUTEX(fxtprof_probes_lock);

static void fxtprof_probes_match(struct tracepoint *tp, void *priv)
{
	struct fxtprof_probe_set *set = priv;
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(tp->name, set->probes[i].name))
			set->probes[i].tp = tp;
}

int fxtprof_probes_find(struct fxtprof_probe_set *set)
{
	unsigned int i;

	for_each_kernel_tracepoint(fxtprof_probes_match, set);
	for (i = 0; i < set->nr; i++) {
		if (!set->probes[i].tp) {
			pr_info("fxtprof: tracepoint %s not found: %s unavailable\n",
				set->probes[i].name, set->source);
			return -ENOENT;
		}
	}
	set->found = true;
	return 0;
}

/* Remove the first @n probes of @set and wait until none runs. */
static void fxtprof_probes_remove(struct fxtprof_probe_set *set,
				  unsigned int n)
{
	while (n--)
		WARN_ON_ONCE(tracepoint_probe_unregister(set->probes[n].tp,
							 set->probes[n].func,
							 NULL));
	/* The module's text goes next: no probe may still be in it. */
	tracepoint_synchronize_unregister();
}

int fxtprof_probes_register(struct fxtprof_probe_set *set)
{
	unsigned int i;
	int ret = 0;

	if (!set->found)
		return -EOPNOTSUPP;
	mutex_lock(&fxtprof_probes_lock);
	if (set->registered)
		goto out_unlock;
	for (i = 0; i < set->nr; i++) {
		ret = tracepoint_probe_register(set->probes[i].tp,
						set->probes[i].func, NULL);
		if (ret) {
			fxtprof_probes_remove(set, i);
			goto out_unlock;
		}
	}
	set->registered = true;
out_unlock:
	mutex_unlock(&fxtprof_probes_lock);
	return ret;
}

void fxtprof_probes_unregister(struct fxtprof_probe_set *set)
{
	mutex_lock(&fxtprof_probes_lock);
	if (set->registered)
		fxtprof_probes_remove(set, set->nr);
	set->registered = false;
	mutex_unlock(&fxtprof_probes_lock);
}

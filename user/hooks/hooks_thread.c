// SPDX-License-Identifier: GPL-2.0-only
/*
 * hooks_thread.c - the per-thread state of libfxtprof-hooks: found through
 * a thread-local pointer, made on the thread's first annotation, released
 * by a pthread key destructor when the thread exits.
 *
 * In standalone mode the writer thread also holds a reference (its list
 * of rings to drain): a thread that exits leaves its last records in the
 * ring, and whichever of the two lets go last frees it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "hooks_thread.h"
#include "transport/clock.h"

static __thread struct hooks_thread *hooks_self;
static pthread_key_t hooks_key;
/* The output's: set before any thread annotates, never changed after. */
static const struct hooks_thread_ops *thread_ops;

void hooks_thread__set_ops(const struct hooks_thread_ops *ops)
{
	thread_ops = ops;
}

void hooks_thread__put(struct hooks_thread *t)
{
	if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
		return;
	name_stack__fini(&t->regions);
	name_stack__fini(&t->kernels);
	thread_ring__fini(&t->ring);
	free(t);
	hooks_inc(threads_released);
}

static void thread_exit(void *p)
{
	struct hooks_thread *t = p;

	/* Its last records are drained after this: its last name with them. */
	if (thread_ops)
		thread_ops->check_comm(t);
	hooks_self = NULL;
	t->exit_ns = clock_ns(CLOCK_BOOTTIME);
	atomic_store_explicit(&t->exited, true, memory_order_release);
	hooks_thread__put(t);
}

void hooks_thread__check_comm(void)
{
	if (hooks_self && thread_ops)
		thread_ops->check_comm(hooks_self);
}

int hooks_thread__setup(void)
{
	return pthread_key_create(&hooks_key, thread_exit);
}

struct hooks_thread *hooks_thread__self(void)
{
	struct hooks_thread *t = hooks_self;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = (uint32_t)getpid();
	t->tid = (uint32_t)gettid();
	atomic_init(&t->refs, 1);
	if (pthread_setspecific(hooks_key, t)) {
		free(t);
		return NULL;
	}
	hooks_self = t;
	hooks_inc(threads);
	/* A thread without a ring still keeps its stacks: ends stay right. */
	if (thread_ops)
		t->ring_ok = !thread_ops->add(t);
	return t;
}

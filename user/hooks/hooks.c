// SPDX-License-Identifier: GPL-2.0-only
/*
 * hooks.c - the public entry points of libfxtprof-hooks (fxtprof_hooks.h):
 * the life cycle, the rules of the ProfilingHooks contract, the regions
 * (a per-thread stack), the sections (a shared lock-free key table) and
 * the Kokkos kernels, each annotation handed to the output of the mode.
 *
 * Every rule is checked before anything is written, and a call that breaks
 * one is ignored and counted: an application with a bug in its annotations
 * gets a trace without the bad pairs and a line that says how many, not a
 * crash and not an END without its BEGIN.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fxtprof_hooks.h"
#include "hooks_internal.h"
#include "hooks_out.h"
#include "hooks_state.h"
#include "hooks_thread.h"
#include "section_table.h"

_Static_assert(FXTPROF_HOOKS_NAME_MAX == FXTPROF_ANNOTATION_NAME_MAX,
	       "the public clip length is the module's limit");

/* A Kokkos kernel id whose name could not be kept: its end is absorbed. */
#define KERNEL_UNTRACKED	(1ull << 63)

static pthread_mutex_t life_lock = PTHREAD_MUTEX_INITIALIZER;
static struct section_table sections;
static _Atomic uint64_t next_kernel_id = 1;

uint64_t fxtprof_interface_version(void)
{
	return FXTPROF_HOOKS_INTERFACE_VERSION;
}

/* @name clipped (on a UTF-8 boundary) and counted; NULL/"" become "?". */
static uint16_t hooks_name(const char **name)
{
	const char *n = *name;
	size_t len;

	if (!n || !*n) {
		hooks_inc(names_missing);
		*name = "?";
		return 1;
	}
	len = strnlen(n, FXTPROF_ANNOTATION_NAME_MAX + 1);
	if (len <= FXTPROF_ANNOTATION_NAME_MAX)
		return (uint16_t)len;
	hooks_inc(names_clipped);
	/* Cut before the character that would be split, not inside it. */
	len = FXTPROF_ANNOTATION_NAME_MAX;
	while (len > 0 && ((unsigned char)n[len] & 0xc0) == 0x80)
		len--;
	return (uint16_t)(len ? len : FXTPROF_ANNOTATION_NAME_MAX);
}

/* The writer thread is not in a fork's child: standalone stops there. */
static void hooks_atfork_child(void)
{
	if (atomic_load(&hooks_state) == HOOKS_ACTIVE &&
	    hooks_mode == HOOKS_STANDALONE)
		atomic_store(&hooks_state, HOOKS_FINALIZED);
}

static int hooks_setup_once(void)
{
	static bool done;
	int ret;

	if (done)
		return 0;
	ret = hooks_thread__setup();
	if (!ret)
		ret = pthread_atfork(NULL, NULL, hooks_atfork_child);
	done = !ret;
	return -ret;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int fxtprof_initialize(const char *uri)
{
	int ret;

	pthread_mutex_lock(&life_lock);
	if (atomic_load(&hooks_state) != HOOKS_UNINIT) {
		hooks_inc(initialize_again);
		pthread_mutex_unlock(&life_lock);
		return EALREADY;
	}
	if (!uri || !*uri)
		uri = FXTPROF_HOOKS_DEFAULT_URI;
	ret = hooks_setup_once();
	if (ret) {
		fprintf(stderr, "fxtprof-hooks: cannot set up threads: %s\n",
			strerror(-ret));
	} else if (!strcmp(uri, "fxtprof:")) {
		hooks_mode = HOOKS_DEVICE;
		ret = out_device__open();
		if (ret)
			fprintf(stderr, "fxtprof-hooks: cannot open %s: %s%s\n",
				FXTPROF_ANNOTATE_DEVICE, strerror(-ret),
				ret == -ENOENT ? " (is the fxtprof module loaded?)" : "");
	} else if (has_prefix(uri, "file://") || has_prefix(uri, "tcp://") ||
		   has_prefix(uri, "unix://")) {
		hooks_mode = HOOKS_STANDALONE;
		hooks_thread__set_ops(&out_standalone_thread_ops);
		ret = out_standalone__open(uri);
	} else {
		fprintf(stderr, "fxtprof-hooks: unknown destination '%s': use fxtprof:, file:///PATH, tcp://HOST:PORT or unix:///PATH\n",
			uri);
		ret = -EINVAL;
	}
	if (!ret)
		section_table__init(&sections);
	atomic_store_explicit(&hooks_state, ret ? HOOKS_FAILED : HOOKS_ACTIVE,
			      memory_order_release);
	pthread_mutex_unlock(&life_lock);
	return -ret;
}

/* ------------------------------------------------------------------ */
/* Regions: the calling thread's stack                                 */
/* ------------------------------------------------------------------ */

/* The calling thread's state for an annotation, counted when none. */
static struct hooks_thread *self_or_drop(void)
{
	struct hooks_thread *t = hooks_thread__self();

	if (!t)
		hooks_inc(dropped);
	return t;
}

/* Both checks of an annotation on the calling thread: NULL, counted. */
static struct hooks_thread *active_self(void)
{
	return hooks_active() ? self_or_drop() : NULL;
}

/* A section's annotation, from whichever thread begins or ends it. */
static void emit_section(unsigned int kind, uint64_t key, const char *name,
			 uint16_t len)
{
	struct hooks_thread *t = self_or_drop();

	if (t)
		hooks_emit(t, kind, key, name, len);
}

void fxtprof_begin_region(const char *name)
{
	struct hooks_thread *t;
	uint16_t len;
	int ret;

	t = active_self();
	if (!t)
		return;
	len = hooks_name(&name);
	/* Once one is refused, the ones inside it are too: ends stay paired. */
	ret = t->lost_depth ? -E2BIG :
			      name_stack__push(&t->regions, 0, name, len);
	if (ret) {
		if (ret == -E2BIG)
			hooks_inc(too_deep);
		else
			hooks_inc(dropped);
		t->lost_depth++;
		return;
	}
	hooks_emit(t, FXTPROF_ANNOT_REGION_BEGIN, 0, name, len);
}

void fxtprof_end_region(void)
{
	const struct name_stack_entry *e;
	struct hooks_thread *t;

	t = active_self();
	if (!t)
		return;
	if (t->lost_depth) {
		t->lost_depth--;
		return;
	}
	e = name_stack__find(&t->regions, 0);
	if (!e) {
		hooks_inc(region_unbalanced);
		return;
	}
	hooks_emit(t, FXTPROF_ANNOT_REGION_END, 0,
		   name_stack__name(&t->regions, e), e->len);
	name_stack__remove(&t->regions, e);
}

/* ------------------------------------------------------------------ */
/* Sections: the shared key table                                      */
/* ------------------------------------------------------------------ */

uint64_t fxtprof_create_section(const char *name)
{
	uint64_t key;
	uint16_t len;

	if (!hooks_active())
		return 0;
	len = hooks_name(&name);
	key = section_table__create(&sections, name, len);
	if (!key)
		hooks_inc(dropped);
	return key;
}

static void count_section(enum section_result r)
{
	switch (r) {
	case SECTION_OK:
		break;
	case SECTION_UNKNOWN:
		hooks_inc(key_unknown);
		break;
	case SECTION_WAS_BEGUN:
		hooks_inc(section_begun_twice);
		break;
	case SECTION_NOT_BEGUN:
		hooks_inc(section_not_begun);
		break;
	}
}

void fxtprof_begin_section(uint64_t key)
{
	enum section_result r;
	const char *name;
	uint16_t len;

	if (!hooks_active())
		return;
	r = section_table__begin(&sections, key, &name, &len);
	count_section(r);
	if (r == SECTION_OK)
		emit_section(FXTPROF_ANNOT_SECTION_BEGIN, key, name, len);
}

void fxtprof_end_section(uint64_t key)
{
	enum section_result r;
	const char *name;
	uint16_t len;

	if (!hooks_active())
		return;
	r = section_table__end(&sections, key, &name, &len);
	count_section(r);
	if (r == SECTION_OK)
		emit_section(FXTPROF_ANNOT_SECTION_END, key, name, len);
}

void fxtprof_destroy_section(uint64_t key)
{
	enum section_result r;
	const char *name;
	uint16_t len;

	if (!hooks_active())
		return;
	r = section_table__destroy(&sections, key, &name, &len);
	if (r == SECTION_UNKNOWN) {
		hooks_inc(key_unknown);
		return;
	}
	if (r != SECTION_WAS_BEGUN)
		return;
	/* Destroyed while begun: end it, so that its pair stays whole. */
	hooks_inc(section_destroyed_begun);
	emit_section(FXTPROF_ANNOT_SECTION_END, key, name, len);
}

/* ------------------------------------------------------------------ */
/* Events, triggers, Kokkos kernels                                    */
/* ------------------------------------------------------------------ */

void fxtprof_event(const char *name)
{
	struct hooks_thread *t;
	uint16_t len;

	t = active_self();
	if (!t)
		return;
	len = hooks_name(&name);
	hooks_emit(t, FXTPROF_ANNOT_EVENT, 0, name, len);
}

static bool trigger_name_ok(const char *name)
{
	size_t len = name ? strnlen(name, FXTPROF_TRIGGER_NAME_MAX + 1) : 0;

	if (!len || len > FXTPROF_TRIGGER_NAME_MAX)
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == len;
}

int fxtprof_trigger(const char *name)
{
	if (!hooks_active())
		return EPERM;
	if (!trigger_name_ok(name))
		return EINVAL;
	return -out_device__trigger(name);
}

uint64_t hooks_kernel_begin(const char *name)
{
	struct hooks_thread *t;
	uint64_t kid;
	uint16_t len;
	int ret;

	t = active_self();
	if (!t)
		return KERNEL_UNTRACKED;
	len = hooks_name(&name);
	kid = atomic_fetch_add_explicit(&next_kernel_id, 1,
					memory_order_relaxed);
	ret = name_stack__push(&t->kernels, kid, name, len);
	if (ret) {
		if (ret == -E2BIG)
			hooks_inc(too_deep);
		else
			hooks_inc(dropped);
		return kid | KERNEL_UNTRACKED;
	}
	hooks_emit(t, FXTPROF_ANNOT_KERNEL_BEGIN, kid, name, len);
	return kid;
}

void hooks_kernel_end(uint64_t kid)
{
	const struct name_stack_entry *e;
	struct hooks_thread *t;

	if (!hooks_active() || (kid & KERNEL_UNTRACKED))
		return;
	t = self_or_drop();
	if (!t)
		return;
	e = kid ? name_stack__find(&t->kernels, kid) : NULL;
	if (!e) {
		hooks_inc(key_unknown);
		return;
	}
	hooks_emit(t, FXTPROF_ANNOT_KERNEL_END, kid,
		   name_stack__name(&t->kernels, e), e->len);
	name_stack__remove(&t->kernels, e);
}

/* ------------------------------------------------------------------ */
/* Finalize, the table, the counts                                     */
/* ------------------------------------------------------------------ */

size_t fxtprof_get_stats(struct fxtprof_hooks_stats *st, size_t size)
{
	struct fxtprof_hooks_stats s = {
#define C(f) .f = atomic_load_explicit(&hooks_count.f, memory_order_relaxed)
		C(annotations), C(dropped), C(no_session), C(output_dropped),
		C(encode_errors), C(not_active), C(initialize_again),
		C(region_unbalanced), C(key_unknown), C(section_begun_twice),
		C(section_not_begun), C(section_destroyed_begun), C(too_deep),
		C(names_clipped), C(names_missing), C(threads),
		C(threads_released),
#undef C
	};

	if (!st)
		return 0;
	if (size > sizeof(s))
		size = sizeof(s);
	memcpy(st, &s, size);
	return size;
}

static void report(void)
{
	struct fxtprof_hooks_stats s;

	fxtprof_get_stats(&s, sizeof(s));
	fprintf(stderr, "fxtprof-hooks: %llu annotations, %llu dropped, %llu without a session, %llu dropped by the output, %llu encode errors; ignored: %llu not active, %llu initialize again, %llu unbalanced region ends, %llu unknown keys, %llu sections begun twice, %llu sections not begun, %llu destroyed while begun, %llu too deep; names: %llu clipped, %llu missing\n",
		(unsigned long long)s.annotations,
		(unsigned long long)s.dropped,
		(unsigned long long)s.no_session,
		(unsigned long long)s.output_dropped,
		(unsigned long long)s.encode_errors,
		(unsigned long long)s.not_active,
		(unsigned long long)s.initialize_again,
		(unsigned long long)s.region_unbalanced,
		(unsigned long long)s.key_unknown,
		(unsigned long long)s.section_begun_twice,
		(unsigned long long)s.section_not_begun,
		(unsigned long long)s.section_destroyed_begun,
		(unsigned long long)s.too_deep,
		(unsigned long long)s.names_clipped,
		(unsigned long long)s.names_missing);
}

int fxtprof_finalize(void)
{
	int ret = 0;

	pthread_mutex_lock(&life_lock);
	if (atomic_load(&hooks_state) != HOOKS_ACTIVE) {
		hooks_inc(not_active);
		pthread_mutex_unlock(&life_lock);
		return EPERM;
	}
	/* Before the writer's last drain. */
	hooks_thread__check_comm();
	atomic_store_explicit(&hooks_state, HOOKS_FINALIZED,
			      memory_order_release);
	if (hooks_mode == HOOKS_DEVICE)
		out_device__close();
	else
		ret = out_standalone__close();
	section_table__fini(&sections);
	report();
	if (!ret && (atomic_load(&hooks_count.dropped) ||
		     atomic_load(&hooks_count.output_dropped) ||
		     atomic_load(&hooks_count.encode_errors)))
		ret = -EIO;
	pthread_mutex_unlock(&life_lock);
	return -ret;
}

size_t fxtprof_get_hooks(struct fxtprof_hooks *hooks, size_t size)
{
	const struct fxtprof_hooks h = {
		.interface_version = fxtprof_interface_version,
		.initialize = fxtprof_initialize,
		.begin_region = fxtprof_begin_region,
		.end_region = fxtprof_end_region,
		.create_section = fxtprof_create_section,
		.destroy_section = fxtprof_destroy_section,
		.begin_section = fxtprof_begin_section,
		.end_section = fxtprof_end_section,
		.finalize = fxtprof_finalize,
	};

	if (!hooks)
		return 0;
	if (size > sizeof(h))
		size = sizeof(h);
	memcpy(hooks, &h, size);
	return size;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_kokkos_loader.c - libfxtprof-hooks loaded the way Kokkos loads a
 * tool: the first ';'-separated entry of KOKKOS_TOOLS_LIBS, dlopen() with
 * RTLD_NOW | RTLD_GLOBAL, dlsym() of every kokkosp_* name, init with the
 * interface version; then a run of regions, a section, nested kernels and
 * an event to file:// ($FXTPROF_URI), checked and read back; and without
 * FXTPROF_URI, the default (fxtprof:) failing cleanly on a host without
 * the module.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "fxt.h"
#include "fxtprof_hooks.h"
#include "hooks_readback.h"

#define KOKKOSP_INTERFACE_VERSION	20210623ull

struct kokkosp {
	void (*init_library)(int, uint64_t, uint32_t, void *);
	void (*finalize_library)(void);
	void (*push_profile_region)(const char *);
	void (*pop_profile_region)(void);
	void (*create_profile_section)(const char *, uint32_t *);
	void (*start_profile_section)(uint32_t);
	void (*stop_profile_section)(uint32_t);
	void (*destroy_profile_section)(uint32_t);
	void (*profile_event)(const char *);
	void (*begin_parallel_for)(const char *, uint32_t, uint64_t *);
	void (*end_parallel_for)(uint64_t);
	void (*begin_parallel_reduce)(const char *, uint32_t, uint64_t *);
	void (*end_parallel_reduce)(uint64_t);
	void (*begin_parallel_scan)(const char *, uint32_t, uint64_t *);
	void (*end_parallel_scan)(uint64_t);
	size_t (*get_stats)(struct fxtprof_hooks_stats *, size_t);
};

/* Kokkos: first entry of the list, dlopen, then each name (NULL = absent). */
static int kokkos_load(struct kokkosp *k)
{
	const char *libs = getenv("KOKKOS_TOOLS_LIBS");
	char first[4096];
	void *dl;

	memset(k, 0, sizeof(*k));
	if (!libs)
		return -1;
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(libs, ";"), libs);
	dl = dlopen(first, RTLD_NOW | RTLD_GLOBAL);
	if (!dl) {
		fprintf(stderr, "# %s\n", dlerror());
		return -1;
	}
#define SYM(f) (*(void **)&k->f = dlsym(dl, "kokkosp_" #f))
	SYM(init_library);
	SYM(finalize_library);
	SYM(push_profile_region);
	SYM(pop_profile_region);
	SYM(create_profile_section);
	SYM(start_profile_section);
	SYM(stop_profile_section);
	SYM(destroy_profile_section);
	SYM(profile_event);
	SYM(begin_parallel_for);
	SYM(end_parallel_for);
	SYM(begin_parallel_reduce);
	SYM(end_parallel_reduce);
	SYM(begin_parallel_scan);
	SYM(end_parallel_scan);
#undef SYM
	*(void **)&k->get_stats = dlsym(dl, "fxtprof_get_stats");
	return 0;
}

static struct fxtprof_hooks_stats stats(const struct kokkosp *k)
{
	struct fxtprof_hooks_stats st;

	k->get_stats(&st, sizeof(st));
	return st;
}

FIXTURE(kokkos) {
	struct kokkosp k;
};

FIXTURE_SETUP(kokkos)
{
	/* The tool list as a user sets it; a chained second tool is ignored. */
	setenv("KOKKOS_TOOLS_LIBS", HOOKS_LIB ";/nonexistent/next-tool.so", 1);
	ASSERT_EQ(0, kokkos_load(&self->k));
}

FIXTURE_TEARDOWN(kokkos)
{
}

TEST_F(kokkos, every_symbol)
{
	void **p = (void **)&self->k;

	for (size_t i = 0; i < sizeof(self->k) / sizeof(void *); i++) {
		ASSERT_NE(NULL, p[i]) TH_LOG("callback %zu missing", i);
	}
}

static const struct rb_event *expect_ev(struct __test_metadata *_metadata,
					const struct rb_trace *t,
					unsigned int i, const char *cat,
					const char *name, uint8_t type)
{
	const struct rb_event *e = &t->ev[i];

	EXPECT_STREQ(cat, e->category) TH_LOG("event %u", i);
	EXPECT_STREQ(name, e->name) TH_LOG("event %u", i);
	EXPECT_EQ(type, e->type) TH_LOG("event %u", i);
	EXPECT_EQ((uint64_t)gettid(), e->tid);
	return e;
}

TEST_F(kokkos, run_to_file)
{
	char dir[] = "/tmp/fxtprof-kokkos-XXXXXX", path[64], uri[80];
	struct kokkosp *k = &self->k;
	struct fxtprof_hooks_stats st;
	uint64_t kfor = 0, kred = 0, kscan = 0;
	const struct rb_event *e;
	uint32_t sec = 0;
	struct rb_trace t;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/kokkos.fxt", dir);
	snprintf(uri, sizeof(uri), "file://%s", path);
	setenv("FXTPROF_URI", uri, 1);

	k->init_library(0, KOKKOSP_INTERFACE_VERSION, 0, NULL);
	k->push_profile_region("main");
	k->create_profile_section("halo", &sec);
	ASSERT_NE(0, sec);
	k->start_profile_section(sec);
	k->begin_parallel_for("axpy", 0, &kfor);
	k->end_parallel_for(kfor);
	k->begin_parallel_reduce("dot", 0, &kred);
	k->begin_parallel_scan("prefix", 0, &kscan);
	k->end_parallel_scan(kscan);
	k->end_parallel_reduce(kred);
	k->stop_profile_section(sec);
	k->profile_event("checkpoint");
	k->pop_profile_region();
	k->destroy_profile_section(sec);
	k->finalize_library();

	ASSERT_NE(0, kfor);
	ASSERT_NE(kfor, kred);
	ASSERT_NE(kred, kscan);
	ASSERT_NE(kfor, kscan);
	st = stats(k);
	EXPECT_EQ(11, st.annotations);
	EXPECT_EQ(0, st.dropped + st.not_active + st.key_unknown +
		     st.region_unbalanced + st.section_not_begun);

	ASSERT_EQ(0, rb_check(path));
	ASSERT_EQ(0, rb_load(path, &t));
	ASSERT_EQ(11, t.n);
	expect_ev(_metadata, &t, 0, "region", "main", FXT_EVENT_DURATION_BEGIN);
	e = expect_ev(_metadata, &t, 1, "section", "halo", FXT_EVENT_ASYNC_BEGIN);
	EXPECT_EQ(sec, e->id);
	e = expect_ev(_metadata, &t, 2, "kernel", "axpy", FXT_EVENT_DURATION_BEGIN);
	EXPECT_TRUE(e->has_kernel_id);
	EXPECT_EQ(kfor, e->kernel_id);
	e = expect_ev(_metadata, &t, 3, "kernel", "axpy", FXT_EVENT_DURATION_END);
	EXPECT_EQ(kfor, e->kernel_id);
	e = expect_ev(_metadata, &t, 4, "kernel", "dot", FXT_EVENT_DURATION_BEGIN);
	EXPECT_EQ(kred, e->kernel_id);
	e = expect_ev(_metadata, &t, 5, "kernel", "prefix", FXT_EVENT_DURATION_BEGIN);
	EXPECT_EQ(kscan, e->kernel_id);
	e = expect_ev(_metadata, &t, 6, "kernel", "prefix", FXT_EVENT_DURATION_END);
	EXPECT_EQ(kscan, e->kernel_id);
	e = expect_ev(_metadata, &t, 7, "kernel", "dot", FXT_EVENT_DURATION_END);
	EXPECT_EQ(kred, e->kernel_id);
	e = expect_ev(_metadata, &t, 8, "section", "halo", FXT_EVENT_ASYNC_END);
	EXPECT_EQ(sec, e->id);
	expect_ev(_metadata, &t, 9, "event", "checkpoint", FXT_EVENT_INSTANT);
	expect_ev(_metadata, &t, 10, "region", "main", FXT_EVENT_DURATION_END);
	rb_free(&t);
	unlink(path);
	rmdir(dir);
}

TEST_F(kokkos, default_uri_without_module)
{
	struct kokkosp *k = &self->k;
	uint64_t kid = 0;
	uint32_t sec = 7;

	ASSERT_NE(0, access(FXTPROF_ANNOTATE_DEVICE, F_OK));
	unsetenv("FXTPROF_URI");
	/* fxtprof: without the device: said on stderr, then all ignored. */
	k->init_library(0, KOKKOSP_INTERFACE_VERSION, 0, NULL);
	k->push_profile_region("main");
	k->create_profile_section("s", &sec);
	EXPECT_EQ(0, sec);
	k->begin_parallel_for("axpy", 0, &kid);
	k->end_parallel_for(kid);
	k->pop_profile_region();
	k->finalize_library();
	EXPECT_EQ(6, stats(k).not_active);
	EXPECT_EQ(0, stats(k).annotations);
}

TEST_HARNESS_MAIN

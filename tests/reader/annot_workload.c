// SPDX-License-Identifier: GPL-2.0-only
/*
 * annot_workload - an application annotating through libfxtprof-hooks.so,
 * loaded with dlopen() as a tool library is, for tests/reader/
 * test_annotations.  A second thread, busy all along, does:
 *
 *   spin 100 ms; begin region "outer"; spin 100 ms; event "tick";
 *   begin region "inner"; spin 150 ms; begin section "phase";
 *   spin 150 ms; end section; end region (inner); spin 100 ms;
 *   end region (outer); spin 100 ms; [trigger NAME]
 *
 * usage: annot_workload LIB OUT [NAME]
 * OUT gets "PID TID SECTION-KEY TRIGGER-RC" (the trigger's return, or -1
 * without NAME).  Exit status: finalize's return (0: nothing lost), 100 +
 * a step that failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <fxtprof_hooks.h>

struct api {
	fxtprof_initialize_fn initialize;
	fxtprof_begin_region_fn begin_region;
	fxtprof_end_region_fn end_region;
	fxtprof_create_section_fn create_section;
	fxtprof_destroy_section_fn destroy_section;
	fxtprof_begin_section_fn begin_section;
	fxtprof_end_section_fn end_section;
	void (*event)(const char *name);
	int (*trigger)(const char *name);
	fxtprof_finalize_fn finalize;
};

static struct api api;
static const char *out_path, *trigger_name;

static void spin_ms(unsigned int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 +
	       (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *busy(void *arg)
{
	fxtprof_section_key key = api.create_section("phase");
	int trig = -1;
	FILE *f;

	(void)arg;
	spin_ms(100);
	api.begin_region("outer");
	spin_ms(100);
	api.event("tick");
	api.begin_region("inner");
	spin_ms(150);
	api.begin_section(key);
	spin_ms(150);
	api.end_section(key);
	api.end_region();
	spin_ms(100);
	api.end_region();
	spin_ms(100);
	if (trigger_name)
		trig = api.trigger(trigger_name);
	api.destroy_section(key);
	f = fopen(out_path, "w");
	if (!f)
		exit(101);
	fprintf(f, "%d %ld %llu %d\n", getpid(), syscall(SYS_gettid),
		(unsigned long long)key, trig);
	fclose(f);
	return NULL;
}

#define SYM(field, name) do {						\
	*(void **)&api.field = dlsym(lib, name);			\
	if (!api.field) {						\
		fprintf(stderr, "annot_workload: no %s\n", name);	\
		return 102;						\
	}								\
} while (0)

int main(int argc, char **argv)
{
	pthread_t th;
	void *lib;
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: annot_workload LIB OUT [NAME]\n");
		return 2;
	}
	out_path = argv[2];
	trigger_name = argc > 3 ? argv[3] : NULL;
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "annot_workload: %s\n", dlerror());
		return 103;
	}
	SYM(initialize, "fxtprof_initialize");
	SYM(begin_region, "fxtprof_begin_region");
	SYM(end_region, "fxtprof_end_region");
	SYM(create_section, "fxtprof_create_section");
	SYM(destroy_section, "fxtprof_destroy_section");
	SYM(begin_section, "fxtprof_begin_section");
	SYM(end_section, "fxtprof_end_section");
	SYM(event, "fxtprof_event");
	SYM(trigger, "fxtprof_trigger");
	SYM(finalize, "fxtprof_finalize");
	ret = api.initialize("fxtprof:");
	if (ret) {
		fprintf(stderr, "annot_workload: initialize: %d\n", ret);
		return 104;
	}
	if (pthread_create(&th, NULL, busy, NULL) || pthread_join(th, NULL))
		return 105;
	return api.finalize();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * kokkos.c - the Kokkos Tools callbacks (the kokkosp_* C ABI), so that
 * KOKKOS_TOOLS_LIBS=libfxtprof-hooks.so profiles an unmodified Kokkos
 * application.  Kokkos dlopen()s the library, looks each name up, and
 * calls the ones it finds.
 *
 * The callbacks map onto the public entry points: push/pop region are the
 * regions, the profile sections are sections (Kokkos's 32-bit section id
 * is the key: keys stay far below 2^32), profile_event is an event, and
 * the parallel_for/reduce/scan pairs are kernels, whose id the tool
 * chooses.  Init takes no URI: it comes from $FXTPROF_URI, with the same
 * forms and default as fxtprof_initialize().  Kokkos's interface version
 * is not checked: every version since 20150628 passes these callbacks the
 * same arguments.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fxtprof_hooks.h"
#include "hooks_internal.h"

/* Kokkos_Profiling_KokkosPDeviceInfo */
struct kokkosp_device_info {
	size_t device_id;
};

void kokkosp_init_library(const int load_seq,
				 const uint64_t interface_ver,
				 const uint32_t dev_info_count,
				 struct kokkosp_device_info *device_info)
{
	(void)load_seq;
	(void)interface_ver;
	(void)dev_info_count;
	(void)device_info;
	/* A failure is said on stderr; Kokkos has no way to hear it. */
	fxtprof_initialize(getenv("FXTPROF_URI"));
}

void kokkosp_finalize_library(void)
{
	fxtprof_finalize();
}

void kokkosp_push_profile_region(const char *name)
{
	fxtprof_begin_region(name);
}

void kokkosp_pop_profile_region(void)
{
	fxtprof_end_region();
}

void kokkosp_create_profile_section(const char *name, uint32_t *sec_id)
{
	uint64_t key = fxtprof_create_section(name);

	if (sec_id)
		*sec_id = key <= UINT32_MAX ? (uint32_t)key : 0;
}

void kokkosp_start_profile_section(const uint32_t sec_id)
{
	fxtprof_begin_section(sec_id);
}

void kokkosp_stop_profile_section(const uint32_t sec_id)
{
	fxtprof_end_section(sec_id);
}

void kokkosp_destroy_profile_section(const uint32_t sec_id)
{
	fxtprof_destroy_section(sec_id);
}

void kokkosp_profile_event(const char *name)
{
	fxtprof_event(name);
}

/*
 * The three parallel patterns are one kind of kernel to the profiler:
 * one body each for begin and end, exported under the three names.
 */
void kokkosp_begin_parallel_for(const char *name, const uint32_t dev_id,
				uint64_t *kid)
{
	uint64_t id = hooks_kernel_begin(name);

	(void)dev_id;
	if (kid)
		*kid = id;
}

void kokkosp_end_parallel_for(const uint64_t kid)
{
	hooks_kernel_end(kid);
}

void kokkosp_begin_parallel_reduce(const char *name, const uint32_t dev_id,
				   uint64_t *kid)
	__attribute__((alias("kokkosp_begin_parallel_for")));
void kokkosp_end_parallel_reduce(const uint64_t kid)
	__attribute__((alias("kokkosp_end_parallel_for")));
void kokkosp_begin_parallel_scan(const char *name, const uint32_t dev_id,
				 uint64_t *kid)
	__attribute__((alias("kokkosp_begin_parallel_for")));
void kokkosp_end_parallel_scan(const uint64_t kid)
	__attribute__((alias("kokkosp_end_parallel_for")));

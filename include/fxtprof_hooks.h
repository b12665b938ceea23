/* SPDX-License-Identifier: (LGPL-2.1-only OR BSD-2-Clause) */
/*
 * fxtprof_hooks.h - libfxtprof-hooks: application annotations (regions,
 * sections, events, triggers) for fxtprof.
 *
 * The entry points follow the ProfilingHooks contract: a table of
 * callbacks an application fills with fxtprof_get_hooks() (or calls by
 * name), and rules for when each may be called:
 *  1. fxtprof_interface_version() may be called at any time;
 *  2. nothing else before fxtprof_initialize() succeeded;
 *  3. fxtprof_initialize() at most once;
 *  4. after it failed, nothing else;
 *  5. after it succeeded, fxtprof_finalize() exactly once;
 *  6. nothing else after fxtprof_finalize().
 * The library enforces them without crashing: a call that breaks one is
 * ignored and counted (struct fxtprof_hooks_stats), and finalize reports
 * the counts on stderr.  Every call is thread-safe, except initialize and
 * finalize, which must not race with any other call.
 *
 * Destinations (the URI of fxtprof_initialize(), or $FXTPROF_URI for the
 * Kokkos entry points):
 *   "fxtprof:"          default: each annotation is written to
 *                       /dev/fxtprof-annotate and recorded by the running
 *                       `fxtprof record`, on the kernel's clock and CPU
 *   "file:///path.fxt"  standalone: the library writes FXT itself, on a
 *   "tcp://host:port"   background thread; the application never waits
 *   "unix:///path"      for it (a full queue drops and counts)
 * Documentation/annotations.md has the details.
 */
#ifndef FXTPROF_HOOKS_H
#define FXTPROF_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The value fxtprof_interface_version() returns; the caller compares. */
#define FXTPROF_HOOKS_INTERFACE_VERSION	1u

/* Longer names are clipped to this many bytes (on a UTF-8 boundary). */
#define FXTPROF_HOOKS_NAME_MAX		512

/* The default destination, when the URI is NULL or empty. */
#define FXTPROF_HOOKS_DEFAULT_URI	"fxtprof:"

/*
 * A section key: non-zero, unique, never reused; 0 means "none".  Its own
 * name because callers store keys and the contract calls them keys.
 */
typedef uint64_t fxtprof_section_key;

typedef uint64_t (*fxtprof_interface_version_fn)(void);
typedef int (*fxtprof_initialize_fn)(const char *uri);
typedef void (*fxtprof_begin_region_fn)(const char *name);
typedef void (*fxtprof_end_region_fn)(void);
typedef fxtprof_section_key (*fxtprof_create_section_fn)(const char *name);
typedef void (*fxtprof_destroy_section_fn)(fxtprof_section_key key);
typedef void (*fxtprof_begin_section_fn)(fxtprof_section_key key);
typedef void (*fxtprof_end_section_fn)(fxtprof_section_key key);
typedef int (*fxtprof_finalize_fn)(void);

/* FXTPROF_HOOKS_INTERFACE_VERSION. */
uint64_t fxtprof_interface_version(void);

/*
 * Start annotating to @uri (NULL or "" = FXTPROF_HOOKS_DEFAULT_URI).
 * 0, or a positive errno: EINVAL (unknown scheme), ENOENT (no
 * /dev/fxtprof-annotate: the module is not loaded), EACCES, ECONNREFUSED,
 * EALREADY (called before)...  One line on stderr says why.
 */
int fxtprof_initialize(const char *uri);

/* A region on the calling thread; regions nest, end closes the innermost. */
void fxtprof_begin_region(const char *name);
void fxtprof_end_region(void);

/*
 * A section: created once, begun and ended any number of times (never
 * begun twice without an end), destroyed once.  Sections may overlap, and
 * different keys may be used from different threads at once.  0 when the
 * section cannot be made (not active, or no memory: counted).
 */
fxtprof_section_key fxtprof_create_section(const char *name);
void fxtprof_destroy_section(fxtprof_section_key key);
void fxtprof_begin_section(fxtprof_section_key key);
void fxtprof_end_section(fxtprof_section_key key);

/* An instant on the calling thread. */
void fxtprof_event(const char *name);

/*
 * Fire the trigger @name (1..63 bytes of [A-Za-z0-9._-]) on
 * /dev/fxtprof-annotate: a `fxtprof record --flight-recorder --trigger
 * NAME` saves its window.  Works in every mode once initialized.  0, or a
 * positive errno: EINVAL (bad name), ENOENT (no device), ESRCH (nothing
 * is recording), EPERM (not initialized, or finalized).
 */
int fxtprof_trigger(const char *name);

/*
 * Stop: write out what is queued (standalone: waits at most the linger
 * time, 2 s by default, for a slow destination), print the counts on one
 * stderr line and release everything.  0, or a positive errno: EIO when
 * annotations were lost on the way, EPERM when not initialized.
 */
int fxtprof_finalize(void);

/* The callback table, in the order of the ProfilingHooks contract. */
struct fxtprof_hooks {
	fxtprof_interface_version_fn interface_version;
	fxtprof_initialize_fn initialize;
	fxtprof_begin_region_fn begin_region;
	fxtprof_end_region_fn end_region;
	fxtprof_create_section_fn create_section;
	fxtprof_destroy_section_fn destroy_section;
	fxtprof_begin_section_fn begin_section;
	fxtprof_end_section_fn end_section;
	fxtprof_finalize_fn finalize;
};

/*
 * Fill the first @size bytes of @hooks (sizeof(*hooks) when built with
 * this header; a smaller, older size is filled as far as it goes).
 * Returns the bytes filled.
 */
size_t fxtprof_get_hooks(struct fxtprof_hooks *hooks, size_t size);

/* What the library counted since it was loaded; every field only grows. */
struct fxtprof_hooks_stats {
	uint64_t annotations;		/* written to the device, or encoded */
	uint64_t dropped;		/* lost: queue full, device error */
	uint64_t no_session;		/* fxtprof: nothing was recording */
	uint64_t output_dropped;	/* standalone: the output dropped */
	uint64_t encode_errors;		/* standalone: could not be encoded */
	/* Rule violations, each ignored. */
	uint64_t not_active;		/* before initialize, after finalize */
	uint64_t initialize_again;	/* a second initialize */
	uint64_t region_unbalanced;	/* end region with none open */
	uint64_t key_unknown;		/* never created, or destroyed */
	uint64_t section_begun_twice;	/* begin of a section already begun */
	uint64_t section_not_begun;	/* end of a section not begun */
	uint64_t section_destroyed_begun;	/* destroyed while begun: ended */
	uint64_t too_deep;		/* regions or kernels nested too deep */
	/* Names. */
	uint64_t names_clipped;		/* longer than FXTPROF_HOOKS_NAME_MAX */
	uint64_t names_missing;		/* NULL or "": recorded as "?" */
	/*
	 * Threads: those that annotated, and those whose state the library
	 * has freed since they exited (standalone: once their last records
	 * are written).  The difference is what the library holds.
	 */
	uint64_t threads;
	uint64_t threads_released;
};

/* Fill the first @size bytes of @st; returns the bytes filled. */
size_t fxtprof_get_stats(struct fxtprof_hooks_stats *st, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* FXTPROF_HOOKS_H */

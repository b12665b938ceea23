/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hooks_state.h - the state of libfxtprof-hooks every part reads: where it
 * is in its life cycle, which output it writes to, and the counters of
 * what it refused or lost.  Defined in hooks_state.c; hooks.c alone
 * changes the state and the mode.
 */
#ifndef FXTPROF_HOOKS_STATE_H
#define FXTPROF_HOOKS_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define HIDDEN __attribute__((visibility("hidden")))

enum hooks_state {
	HOOKS_UNINIT = 0,	/* before initialize */
	HOOKS_FAILED,		/* initialize failed: only the version now */
	HOOKS_ACTIVE,
	HOOKS_FINALIZED,	/* or a fork's child in standalone mode */
};

enum hooks_mode {
	HOOKS_DEVICE = 1,	/* fxtprof: */
	HOOKS_STANDALONE,	/* file://, tcp://, unix:// */
};

/* Counters: the rule violations are rare, so plain shared atomics. */
struct hooks_counters {
	_Atomic uint64_t annotations;
	_Atomic uint64_t dropped;
	_Atomic uint64_t no_session;
	_Atomic uint64_t output_dropped;
	_Atomic uint64_t encode_errors;
	_Atomic uint64_t not_active;
	_Atomic uint64_t initialize_again;
	_Atomic uint64_t region_unbalanced;
	_Atomic uint64_t key_unknown;
	_Atomic uint64_t section_begun_twice;
	_Atomic uint64_t section_not_begun;
	_Atomic uint64_t section_destroyed_begun;
	_Atomic uint64_t too_deep;
	_Atomic uint64_t names_clipped;
	_Atomic uint64_t names_missing;
	_Atomic uint64_t threads;
	_Atomic uint64_t threads_released;
};

HIDDEN extern struct hooks_counters hooks_count;
HIDDEN extern _Atomic int hooks_state;
HIDDEN extern enum hooks_mode hooks_mode;

#define hooks_inc(field) \
	atomic_fetch_add_explicit(&hooks_count.field, 1, memory_order_relaxed)

/* Whether annotations are taken now; counts the call if not. */
static inline bool hooks_active(void)
{
	if (atomic_load_explicit(&hooks_state, memory_order_acquire) ==
	    HOOKS_ACTIVE)
		return true;
	hooks_inc(not_active);
	return false;
}

#endif /* FXTPROF_HOOKS_STATE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim: "interrupts disabled" is a per-thread flag that the ring
 * simulator (tests/host/ring_sim.c) sets from reserve to commit, the way
 * every producer in the module disables interrupts; the assertion then
 * catches a simulator that enters the producer outside that window.
 */
#ifndef FXTPROF_KSHIM_LOCKDEP_H
#define FXTPROF_KSHIM_LOCKDEP_H

#include <assert.h>

extern _Thread_local int kshim_irqs_disabled;

#define lockdep_assert_irqs_disabled()	assert(kshim_irqs_disabled)

#endif /* FXTPROF_KSHIM_LOCKDEP_H */

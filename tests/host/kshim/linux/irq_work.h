/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim: an irq_work that only counts how often it was queued, so a test
 * can check when the producer would wake the reader.
 */
#ifndef FXTPROF_KSHIM_IRQ_WORK_H
#define FXTPROF_KSHIM_IRQ_WORK_H

#include <stdbool.h>

struct irq_work {
	unsigned long queued;
};

static inline bool irq_work_queue(struct irq_work *work)
{
	work->queued++;
	return true;
}

#endif /* FXTPROF_KSHIM_IRQ_WORK_H */

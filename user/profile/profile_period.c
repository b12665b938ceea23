// SPDX-License-Identifier: GPL-2.0-only
/*
 * profile_period.c - the sampling period of a recording (profile.h).
 */
#include <stdlib.h>

#include "profile.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t profile__sample_period_ns(const struct profile *p)
{
	size_t n = profile__nr_samples(p), nd = 0;
	uint64_t *last, *d, period = 1000000000ULL / FXTPROF_DEFAULT_FREQ;

	last = calloc(65536, sizeof(*last));
	d = n ? malloc(n * sizeof(*d)) : NULL;
	if (!last || !d)
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		const struct profile_sample *smp = profile__sample(p, i);
		uint64_t *l = &last[smp->cpu];

		/* ts + 1 so that 0 means "none yet", for a sample at 0 too. */
		if (*l && smp->ts + 1 > *l)
			d[nd++] = smp->ts + 1 - *l;
		*l = smp->ts + 1;
	}
	if (nd) {
		uint64_t median, freq;

		qsort(d, nd, sizeof(*d), cmp_u64);
		median = d[nd / 2];
		/* The rate was a whole number of Hz: round to it. */
		freq = (1000000000ULL + median / 2) / median;
		if (freq < FXTPROF_MIN_FREQ)
			freq = FXTPROF_MIN_FREQ;
		if (freq > FXTPROF_MAX_FREQ)
			freq = FXTPROF_MAX_FREQ;
		period = 1000000000ULL / freq;
	}
out_free:
	free(last);
	free(d);
	return period;
}

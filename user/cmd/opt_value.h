/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * opt_value.h - parsers of the option values that more than one command
 * takes (record, send, receive), so each is spelled, bounded and refused
 * with the same words everywhere.
 */
#ifndef FXTPROF_OPT_VALUE_H
#define FXTPROF_OPT_VALUE_H

#include <stdint.h>

/*
 * A SIZE (4096, 64K, 1M, ...) of at least @min for --@name.  Returns 0,
 * or -EINVAL after saying "bad --NAME 'ARG'".
 */
int opt_value__size(const char *name, const char *arg, uint64_t min,
		    uint64_t *out);

/*
 * A TIME for --@name: nanoseconds, or a number with a unit (ns, us, ms,
 * s), at most an hour.  Returns 0, or -EINVAL after saying
 * "bad --NAME 'ARG'".
 */
int opt_value__duration_ns(const char *name, const char *arg, uint64_t *ns);

/* --linger SECS: 0 to 3600 seconds.  Returns 0 or -EINVAL, said. */
int opt_value__linger(const char *arg, double *secs);

#endif /* FXTPROF_OPT_VALUE_H */

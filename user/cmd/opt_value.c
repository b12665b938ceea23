// SPDX-License-Identifier: GPL-2.0-only
/*
 * opt_value.c - the option value parsers several commands share
 * (user/cmd/opt_value.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "cmd.h"
#include "opt_value.h"

int opt_value__size(const char *name, const char *arg, uint64_t min,
		    uint64_t *out)
{
	if (reader_parse_size(arg, out) || *out < min)
		return reader_err(-EINVAL, "bad --%s '%s'", name, arg);
	return 0;
}

int opt_value__linger(const char *arg, double *secs)
{
	char *end;

	*secs = strtod(arg, &end);
	if (*end || *secs < 0 || *secs > 3600)
		return reader_err(-EINVAL, "bad --linger '%s'", arg);
	return 0;
}

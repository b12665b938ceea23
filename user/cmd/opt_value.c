// SPDX-License-Identifier: GPL-2.0-only
/*
 * opt_value.c - the option value parsers several commands share
 * (user/cmd/opt_value.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int opt_value__duration_ns(const char *name, const char *arg, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 },
	};
	char *end;
	double v = strtod(arg, &end);
	size_t i;

	for (i = 0; end != arg && i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (!(v >= 0) || v > 3600e9)
			break;
		*ns = (uint64_t)(v + 0.5);
		return 0;
	}
	return reader_err(-EINVAL, "bad --%s '%s' (a time: ns, or a number "
			  "with us, ms or s, at most an hour)", name, arg);
}

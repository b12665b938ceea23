// SPDX-License-Identifier: GPL-2.0-only
/*
 * push_cli.c - the --push options of receive and record (push_cli.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "cmd.h"
#include "opt_value.h"
#include "push_cli.h"

/* --push-interval and --push-timeout: whole seconds, 1 to a day. */
static int parse_seconds(const char *name, const char *arg, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || !v || v > 86400)
		return reader_err(-EINVAL, "bad --%s '%s' (seconds, 1 to "
				  "86400)", name, arg);
	*out = (unsigned int)v;
	return 0;
}

int push_cli__option(int opt, const char *arg, struct push_opts *o)
{
	switch (opt) {
	case PUSH_CLI_URL:
		o->url = arg;
		return 0;
	case PUSH_CLI_INTERVAL:
		return parse_seconds("push-interval", arg, &o->interval_s);
	case PUSH_CLI_TIMEOUT:
		return parse_seconds("push-timeout", arg, &o->timeout_s);
	case PUSH_CLI_APP:
		o->app = arg;
		return 0;
	case PUSH_CLI_LABELS:
		o->labels = arg;
		return 0;
	case PUSH_CLI_QUEUE:
		return opt_value__size("push-queue", arg, 1, &o->queue_bytes) ?
		       -EINVAL : 0;
	}
	return -ENOENT;
}

void push_cli__usage(FILE *f)
{
	fprintf(f,
"      --push URL         push profiles to Grafana Pyroscope as they are\n"
"                         recorded, URL pyroscope+http://HOST:PORT: one\n"
"                         pprof per process per interval, named on this\n"
"                         host (Documentation/receive.md, \"Fleet\")\n"
"      --push-interval S  seconds of trace time per profile (default 10)\n"
"      --push-app NAME    the series' name, NAME.cpu and NAME.off_cpu\n"
"                         (default fxtprof)\n"
"      --push-labels L    more labels for every series, k=v,k=v\n"
"      --push-queue SIZE  profiles waiting for Pyroscope; beyond it whole\n"
"                         intervals are dropped and counted (default 64M)\n"
"      --push-timeout S   bound of one request, and of the last pushes\n"
"                         at exit (default 10)\n");
}

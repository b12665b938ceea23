// SPDX-License-Identifier: GPL-2.0-only
/*
 * push_stats.c - the push's summary line, shared by the build with
 * libcurl (push.c) and the one without (push_none.c).
 */
#include <inttypes.h>
#include <stdio.h>

#include "push.h"

bool push_stats__print(const struct push_stats *st, FILE *f)
{
	fprintf(f, "push: %" PRIu64 " intervals pushed, %" PRIu64
		" dropped, %" PRIu64 " refused", st->pushed, st->dropped,
		st->refused);
	if (st->refused)
		fprintf(f, " (HTTP %d)", st->last_refusal);
	if (st->failed)
		fprintf(f, ", %" PRIu64 " not encoded", st->failed);
	fprintf(f, "; %" PRIu64 " requests, %" PRIu64 " bytes, %" PRIu64
		" retries", st->requests, st->bytes, st->retries);
	if (st->retries && st->last_failure)
		fprintf(f, " (last HTTP %d)", st->last_failure);
	else if (st->retries && st->last_error[0])
		fprintf(f, " (last: %s)", st->last_error);
	fprintf(f, "; %.3f s CPU for %.3f s of profile\n",
		(double)st->cpu_ns / 1e9, (double)st->profile_ns / 1e9);
	fflush(f);
	return !st->dropped && !st->refused && !st->failed;
}

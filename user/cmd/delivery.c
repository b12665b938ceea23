// SPDX-License-Identifier: GPL-2.0-only
/*
 * delivery.c - what record and send say about their output once the sink
 * is closed: what reached the destination and how that is known, and
 * everything else as lost.  Counts come from the sink's settlement
 * (user/sink/sink.h), never from what was merely handed to the kernel.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "sink/sink.h"

static const char *how(const struct sink *s)
{
	const struct sink_stats *st = sink__stats(s);

	if (!st->delivered_records && !st->delivered_bytes)
		return "nothing confirmed";
	if (!sink__is_socket(s))
		return "written and synced";
	if (st->acked_streams && !st->outq_streams)
		return "confirmed by the receiver";
	if (st->outq_streams && !st->acked_streams)
		return "acknowledged by the peer's kernel (not an fxtprof receiver)";
	if (st->acked_streams)
		return "confirmed by the receiver or the peer's kernel";
	return "confirmed";
}

bool cmd_delivery_summary(const struct sink *s, const char *uri, bool quiet)
{
	const struct sink_stats *st = sink__stats(s);
	bool complete = sink__complete(s);

	if (quiet)
		return complete;
	if (st->disconnects)
		fprintf(stderr, "fxtprof: the peer went away %" PRIu64
			" times; %" PRIu64 " connections\n", st->disconnects,
			st->connects);
	fprintf(stderr, "fxtprof: delivered %" PRIu64 " bytes (%" PRIu64
		" records) to %s, %s\n", st->delivered_bytes,
		st->delivered_records, uri, how(s));
	if (st->unconfirmed_records || st->unconfirmed_bytes)
		fprintf(stderr, "fxtprof: lost %" PRIu64 " records (%" PRIu64
			" bytes) that were sent but never confirmed%s\n",
			st->unconfirmed_records, st->unconfirmed_bytes,
			st->disconnects ? ": the peer reset the connection" :
			sink__is_socket(s) ? ": the receiver did not answer" :
					     ": the file could not be synced");
	if (st->dropped_records)
		fprintf(stderr, "fxtprof: lost %" PRIu64 " records (%" PRIu64
			" bytes) dropped before sending: %s\n",
			st->dropped_records, st->dropped_bytes,
			sink__error(s) ? "the output had failed" :
					 "the destination was too slow");
	if (sink__error(s))
		fprintf(stderr, "fxtprof: output failed: %s\n",
			strerror(sink__error(s)));
	if (!complete)
		fprintf(stderr, "fxtprof: the output is incomplete\n");
	return complete;
}

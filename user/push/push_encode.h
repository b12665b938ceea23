/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * push_encode.h - one interval of one stream as Pyroscope ingest
 * requests: the interval loaded as a profile (user/profile), its frames
 * named on this host (user/symbolize), one gzipped pprof per process
 * (user/export/pprof.c) for its CPU samples, APP.cpu, and one for its
 * off-CPU waits, APP.off_cpu, when the recording has them.
 *
 * A request's URL is Pyroscope's documented ingest call:
 *   BASE/ingest?name=APP.cpu{LABELS}&from=S&until=S&format=pprof
 *                &sampleRate=HZ&spyName=fxtprof
 * with the name percent-encoded.  LABELS are Pyroscope's k=v,k=v (the
 * parser of pkg/og's labelset takes values verbatim up to ',' or '}':
 * no quotes): arch, host, kernel_release from the recording (the clock
 * object's, fxt-mapping.md), process, and the --push-labels.
 */
#ifndef FXTPROF_PUSH_ENCODE_H
#define FXTPROF_PUSH_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "push.h"

struct push_request {
	struct push_request *next;
	char *url;
	unsigned char *body;
	size_t len;
};

/* One interval of one stream: sent whole, or counted as lost whole. */
struct push_item {
	struct push_item *next;
	struct push_request *reqs;	/* those not yet taken */
	size_t bytes;			/* of the bodies, for the queue's cap */
	unsigned int tries;		/* of the request at the head */
	uint64_t next_try_ms;		/* CLOCK_MONOTONIC */
	uint64_t span_ns;		/* trace time its samples span */
};

/* What every request shares, from the options. */
struct push_target {
	char base[512];			/* http://HOST:PORT[/PREFIX] */
	const char *app;
	char labels[512];		/* ",k=v,k=v" checked, or "" */
	struct symbolizer_opts sym;
};

/*
 * @o's URL and labels into @t: 0, or -EINVAL with a sentence in @err.
 */
int push_target__init(struct push_target *t, const struct push_opts *o,
		      char *err, size_t errlen);

/*
 * The requests of interval [@from_s, @until_s) of @fxt (@len bytes):
 * *@out (NULL when no process ran in it), 0, or -errno.
 */
int push_encode__interval(const struct push_target *t,
			  const unsigned char *fxt, size_t len,
			  uint64_t from_s, uint64_t until_s,
			  struct push_item **out);

void push_item__free(struct push_item *it);

#endif /* FXTPROF_PUSH_ENCODE_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * push_none.c - the pusher of a build without libcurl and the symbolizer
 * (the board's static build): --push is refused with a sentence, the
 * rest has nothing to do.  Same interface as push.c (push.h).
 */
#include <errno.h>
#include <stdio.h>

#include "push.h"

void push_opts__init(struct push_opts *o)
{
	o->app = PUSH_DEFAULT_APP;
	o->labels = NULL;
	o->interval_s = PUSH_DEFAULT_INTERVAL_S;
	o->queue_bytes = PUSH_DEFAULT_QUEUE;
	o->timeout_s = PUSH_DEFAULT_TIMEOUT_S;
}

int pusher__new(const struct push_opts *o, struct pusher **out, char *err,
		size_t errlen)
{
	(void)o;
	*out = NULL;
	snprintf(err, errlen, "this fxtprof is built without --push (no "
		 "libcurl, no symbolizer: the board's static build); push "
		 "from the host: fxtprof receive --push");
	return -ENOTSUP;
}

struct push_stream *pusher__add(struct pusher *p, const char *path)
{
	(void)p;
	(void)path;
	return NULL;
}

void push_stream__commit(struct push_stream *s, uint64_t len)
{
	(void)s;
	(void)len;
}

void push_stream__end(struct push_stream *s)
{
	(void)s;
}

void pusher__finish(struct pusher *p, struct push_stats *st)
{
	(void)p;
	if (st)
		*st = (struct push_stats){ 0 };
}

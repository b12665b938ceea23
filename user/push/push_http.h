/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * push_http.h - one HTTP POST at a time over libcurl, on one connection
 * kept alive between requests.  Every request is bounded: a connect
 * timeout and a total timeout, and an abort flag the pusher sets when it
 * must stop now.
 */
#ifndef FXTPROF_PUSH_HTTP_H
#define FXTPROF_PUSH_HTTP_H

#include <stdatomic.h>
#include <stddef.h>

struct push_http;

/* 0 or -ENOMEM (libcurl could not start). */
int push_http__new(unsigned int timeout_s, const atomic_bool *abort,
		   struct push_http **out);
void push_http__free(struct push_http *h);
/*
 * POST @len bytes of @body to @url (Content-Type
 * application/octet-stream).  0 with *@status the server's answer;
 * -ETIMEDOUT, -ECONNREFUSED, -ECANCELED (aborted), or -EIO for other
 * transport errors, with a sentence in @err.
 */
int push_http__post(struct push_http *h, const char *url, const void *body,
		    size_t len, long *status, char *err, size_t errlen);

#endif /* FXTPROF_PUSH_HTTP_H */

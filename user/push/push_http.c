// SPDX-License-Identifier: GPL-2.0-only
/*
 * push_http.c - the ingest requests over libcurl (push_http.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "push_http.h"

struct push_http {
	CURL *curl;
	struct curl_slist *headers;
	const atomic_bool *abort;
	char errbuf[CURL_ERROR_SIZE];
};

/* The answer's body is Pyroscope's sentence: not needed, not kept. */
static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

static int progress(void *ctx, curl_off_t dlt, curl_off_t dln,
		    curl_off_t ult, curl_off_t uln)
{
	struct push_http *h = ctx;

	(void)dlt;
	(void)dln;
	(void)ult;
	(void)uln;
	return atomic_load(h->abort) ? 1 : 0;
}

int push_http__new(unsigned int timeout_s, const atomic_bool *abort,
		   struct push_http **out)
{
	struct push_http *h;

	/* Once, before any thread: the caller's thread, at pusher__new. */
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return -ENOMEM;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->abort = abort;
	h->curl = curl_easy_init();
	h->headers = curl_slist_append(NULL,
				       "Content-Type: application/octet-stream");
	if (!h->curl || !h->headers) {
		push_http__free(h);
		return -ENOMEM;
	}
	curl_easy_setopt(h->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(h->curl, CURLOPT_USERAGENT, "fxtprof");
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, h->errbuf);
	curl_easy_setopt(h->curl, CURLOPT_TIMEOUT, (long)timeout_s);
	curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT,
			 (long)(timeout_s < 5 ? timeout_s : 5));
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h->curl, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(h->curl, CURLOPT_XFERINFODATA, h);
	*out = h;
	return 0;
}

void push_http__free(struct push_http *h)
{
	if (!h)
		return;
	if (h->curl)
		curl_easy_cleanup(h->curl);
	curl_slist_free_all(h->headers);
	free(h);
	curl_global_cleanup();
}

int push_http__post(struct push_http *h, const char *url, const void *body,
		    size_t len, long *status, char *err, size_t errlen)
{
	CURLcode rc;

	h->errbuf[0] = '\0';
	curl_easy_setopt(h->curl, CURLOPT_URL, url);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)len);
	rc = curl_easy_perform(h->curl);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, status);
		return 0;
	}
	snprintf(err, errlen, "%s", h->errbuf[0] ? h->errbuf :
		 curl_easy_strerror(rc));
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_ABORTED_BY_CALLBACK:
		return -ECANCELED;
	default:
		return -EIO;
	}
}

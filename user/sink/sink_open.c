// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink_open.c - sink__open(): the back end is chosen by URI, through one
 * table.  A new sink is one new file with its ops and one line here.
 */
#include <stdio.h>
#include <string.h>

#include "sink_backends.h"
#include "transport/netaddr.h"

static bool uri_is_socket(const char *uri, const struct sink_opts *opts)
{
	(void)opts;
	return netaddr__is_socket_uri(uri);
}

/* A file as an archive, asked for or named *.fxtz. */
static bool uri_is_archive(const char *uri, const struct sink_opts *opts)
{
	return opts->archive || sink__is_archive_uri(uri);
}

static bool uri_is_file(const char *uri, const struct sink_opts *opts)
{
	(void)uri;
	(void)opts;
	return true;		/* a path, file:///path or "-" */
}

/* In order: the first that matches opens the sink. */
static const struct sink_backend {
	bool (*match)(const char *uri, const struct sink_opts *opts);
	const struct sink_ops *ops;
} sink_backends[] = {
	{ uri_is_socket,	&sink_socket_ops },
	{ uri_is_archive,	&sink_archive_ops },
	{ uri_is_file,		&sink_file_ops },
};

int sink__open(struct sink **sp, const char *uri, struct evloop *loop,
	       const struct sink_opts *opts, char *err, size_t errlen)
{
	static const struct sink_opts defaults;
	const struct sink_backend *b = sink_backends;
	struct sink *s;
	int ret;

	if (!opts)
		opts = &defaults;
	err[0] = '\0';
	while (!b->match(uri, opts))
		b++;
	ret = sink_alloc(&s, b->ops, loop, opts);
	if (ret) {
		snprintf(err, errlen, "cannot set up the output queue");
		return ret;
	}
	ret = b->ops->open(s, uri, opts, err, errlen);
	if (ret) {
		sink_free(s);
		if (!err[0])
			snprintf(err, errlen, "%s: %s", uri, strerror(-ret));
		return ret;
	}
	*sp = s;
	return 0;
}

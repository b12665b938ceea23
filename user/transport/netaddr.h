/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netaddr.h - socket URIs (tcp://HOST:PORT, unix:///PATH) to addresses.
 *
 * Shared by the socket sink (user/sink/sink_socket.c, which connects and
 * reconnects) and `fxtprof receive` (user/cmd/receive.c, which listens),
 * so both accept the same spelling.
 */
#ifndef FXTPROF_NETADDR_H
#define FXTPROF_NETADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define NETADDR_MAX	8

struct netaddr {
	struct sockaddr_storage ss;
	socklen_t len;
	int family;
};

/* True for tcp:// and unix:// URIs. */
bool netaddr__is_socket_uri(const char *uri);

/*
 * Resolve @uri into up to NETADDR_MAX addresses (in getaddrinfo order;
 * @passive for binding: an empty host means any).  Returns the count or
 * -errno with a message in @err.
 */
int netaddr__resolve(const char *uri, bool passive, struct netaddr *addrs,
		     size_t max, char *err, size_t errlen);

/* "127.0.0.1:4242", "[::1]:4242" or "unix" (unix peers are unnamed). */
void netaddr__format(const struct sockaddr *sa, socklen_t len, char *buf,
		     size_t cap);

#endif /* FXTPROF_NETADDR_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * netaddr.c - see netaddr.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "netaddr.h"

bool netaddr__is_socket_uri(const char *uri)
{
	return !strncmp(uri, "tcp://", 6) || !strncmp(uri, "unix://", 7);
}

static int resolve_unix(const char *path, struct netaddr *a, char *err,
			size_t errlen)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&a->ss;

	if (!path[0] || strlen(path) >= sizeof(sun->sun_path)) {
		snprintf(err, errlen, "bad unix socket path '%s'", path);
		return -ENAMETOOLONG;
	}
	memset(a, 0, sizeof(*a));
	sun->sun_family = AF_UNIX;
	strcpy(sun->sun_path, path);
	a->len = sizeof(*sun);
	a->family = AF_UNIX;
	return 1;
}

static int resolve_tcp(const char *hostport, bool passive,
		       struct netaddr *addrs, size_t max, char *err,
		       size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	const char *colon = strrchr(hostport, ':');
	char host[256];
	size_t hlen, n = 0;
	int ret;

	if (!colon || !colon[1]) {
		snprintf(err, errlen, "tcp:// needs host:port, got '%s'",
			 hostport);
		return -EINVAL;
	}
	hlen = (size_t)(colon - hostport);
	if (hlen >= 2 && hostport[0] == '[' && colon[-1] == ']') {
		hostport++;		/* [v6]:port */
		hlen -= 2;
	}
	if (hlen >= sizeof(host)) {
		snprintf(err, errlen, "host name too long");
		return -EINVAL;
	}
	memcpy(host, hostport, hlen);
	host[hlen] = '\0';
	if (passive)
		hints.ai_flags = AI_PASSIVE;
	ret = getaddrinfo(hlen ? host : NULL, colon + 1, &hints, &res);
	if (ret) {
		snprintf(err, errlen, "cannot resolve '%s': %s", hostport,
			 gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	for (ai = res; ai && n < max; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(addrs[n].ss))
			continue;
		memset(&addrs[n], 0, sizeof(addrs[n]));
		memcpy(&addrs[n].ss, ai->ai_addr, ai->ai_addrlen);
		addrs[n].len = ai->ai_addrlen;
		addrs[n].family = ai->ai_family;
		n++;
	}
	freeaddrinfo(res);
	if (!n) {
		snprintf(err, errlen, "no address for '%s'", hostport);
		return -EHOSTUNREACH;
	}
	return (int)n;
}

int netaddr__resolve(const char *uri, bool passive, struct netaddr *addrs,
		     size_t max, char *err, size_t errlen)
{
	if (!max)
		return -EINVAL;
	if (!strncmp(uri, "tcp://", 6))
		return resolve_tcp(uri + 6, passive, addrs, max, err, errlen);
	if (!strncmp(uri, "unix://", 7))
		return resolve_unix(uri + 7, addrs, err, errlen);
	snprintf(err, errlen, "'%s' is not a tcp:// or unix:// URI", uri);
	return -EINVAL;
}

void netaddr__format(const struct sockaddr *sa, socklen_t len, char *buf,
		     size_t cap)
{
	char ip[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, cap, "%s:%u", ip, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6 &&
		   len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, cap, "[%s]:%u", ip, ntohs(in6->sin6_port));
	} else {
		snprintf(buf, cap, "unix");
	}
}

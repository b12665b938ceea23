// SPDX-License-Identifier: GPL-2.0-only
/*
 * fxt_sink - a tiny stand-in for `fxtprof receive`: listen on TCP
 * 127.0.0.1:PORT (0: any free port), accept ONE connection, save every
 * byte it sends to OUT until EOF, then exit 0.  The chosen port is
 * written to PORTFILE (-P) once listening, so a script can wait for it.
 *
 * usage: fxt_sink [-p PORT] [-P PORTFILE] [-t TIMEOUT-SECS] OUT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	const char *portfile = NULL;
	int port = 0, timeout = 600, c, lfd, fd, out, one = 1;
	unsigned long long total = 0;
	struct pollfd p;
	char buf[1 << 16];

	while ((c = getopt(argc, argv, "p:P:t:")) != -1) {
		switch (c) {
		case 'p': port = atoi(optarg); break;
		case 'P': portfile = optarg; break;
		case 't': timeout = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (void *)&a, &alen)) {
		perror("fxt_sink: listen");
		return 1;
	}
	out = open(argv[optind], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		perror(argv[optind]);
		return 1;
	}
	if (portfile) {
		FILE *f = fopen(portfile, "w");

		if (!f || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f)) {
			perror(portfile);
			return 1;
		}
	}
	fprintf(stderr, "fxt_sink: listening on 127.0.0.1:%u, saving to %s\n",
		ntohs(a.sin_port), argv[optind]);
	p.fd = lfd;
	p.events = POLLIN;
	if (poll(&p, 1, timeout * 1000) != 1) {
		fprintf(stderr, "fxt_sink: nobody connected in %d s\n", timeout);
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("fxt_sink: accept");
		return 1;
	}
	close(lfd);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("fxt_sink: read");
			return 1;
		}
		if (!n)
			break;
		while (w < n) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0) {
				perror("fxt_sink: write");
				return 1;
			}
			w += k;
		}
		total += (unsigned long long)n;
	}
	fprintf(stderr, "fxt_sink: received %llu bytes\n", total);
	return close(out) ? 1 : 0;
usage:
	fprintf(stderr, "usage: fxt_sink [-p PORT] [-P PORTFILE] [-t SECS] OUT\n");
	return 2;
}

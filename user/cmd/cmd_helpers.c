// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_helpers.c - what the subcommands share besides the dispatcher: the
 * error line, option values (sizes, file modes) and the signalfd that
 * their event loops stop on.  Declared in cmd.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>

#include "cmd.h"

int reader_err(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("fxtprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	fputc('\n', stderr);
	return err;
}

int reader_parse_mode(const char *s, unsigned int *mode)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 8);
	if (!*s || *end || errno || v > 0777)
		return -EINVAL;
	*mode = (unsigned int)v;
	return 0;
}

int reader_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int reader_signalfd(sigset_t *old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

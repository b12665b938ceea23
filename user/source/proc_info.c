// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_info.c - see proc_info.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_info.h"

int proc_info__parse_cgroup(const char *text, char *out, size_t n)
{
	const char *line = text, *end;
	size_t len;

	if (!n)
		return -EINVAL;
	out[0] = '\0';
	for (; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (strncmp(line, "0::", 3))
			continue;
		line += 3;
		len = end ? (size_t)(end - line) : strlen(line);
		/* A path in the hierarchy: absolute, one line. */
		if (!len || line[0] != '/')
			return -EINVAL;
		if (len >= n)
			len = n - 1;
		memcpy(out, line, len);
		out[len] = '\0';
		return 0;
	}
	return -ENOENT;
}

int proc_info__parse_nspid(const char *text, int64_t *nspid)
{
	const char *p = text;
	long long v = -1;
	char *end;

	for (; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "NSpid:", 6))
			break;
	if (!p)
		return -ENOENT;
	p += 6;
	/* The pids from the outermost namespace in: the last is its own. */
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (end == p || errno || v < 0 || v > INT_MAX ||
		    (*end && *end != ' ' && *end != '\t' && *end != '\n'))
			return -EINVAL;
		p = end;
	}
	if (v < 0)
		return -EINVAL;
	*nspid = v;
	return 0;
}

/* @path's text into @buf (NUL-terminated): 0 or -errno. */
static int read_text(const char *path, char *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got + 1 < n) {
		r = read(fd, buf + got, n - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(fd);
	/* A process that exits between open and read reads as empty. */
	return got ? 0 : -ESRCH;
}

int proc_info__read(const char *proc, uint32_t pid, struct proc_info *out)
{
	char path[64], buf[4096];
	int rc, rs;

	if (!proc)
		proc = "/proc";
	out->nspid = -1;
	out->cgroup[0] = '\0';
	snprintf(path, sizeof(path), "%s/%u/cgroup", proc, pid);
	rc = read_text(path, buf, sizeof(buf));
	if (!rc)
		rc = proc_info__parse_cgroup(buf, out->cgroup,
					     sizeof(out->cgroup));
	snprintf(path, sizeof(path), "%s/%u/status", proc, pid);
	rs = read_text(path, buf, sizeof(buf));
	if (!rs)
		rs = proc_info__parse_nspid(buf, &out->nspid);
	if (!rc || !rs)
		return 0;
	/* Both files gone: the process is. */
	return rc == -ENOENT || rc == -ESRCH ? -ESRCH : rc;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proc_info.h - what a process's container is, as the recorder reads it
 * from /proc when it first sees the process (Documentation/fxt-mapping.md,
 * "Processes"): its cgroup v2 path (the "0::" line of /proc/PID/cgroup)
 * and its pid as it sees itself, in its innermost pid namespace (the last
 * field of "NSpid:" in /proc/PID/status).
 *
 * The parsers take the files' text, so that tests feed them any input.
 */
#ifndef FXTPROF_PROC_INFO_H
#define FXTPROF_PROC_INFO_H

#include <stddef.h>
#include <stdint.h>

/* A cgroup path longer than this is cut (and still a valid prefix). */
#define PROC_INFO_CGROUP_MAX	512

struct proc_info {
	int64_t nspid;				/* -1: unknown */
	char cgroup[PROC_INFO_CGROUP_MAX];	/* "": unknown */
};

/*
 * The cgroup v2 path in /proc/PID/cgroup's @text into @out (@n bytes,
 * NUL-terminated, cut to fit): 0; -ENOENT if no line is "0::PATH" (a
 * cgroup v1 only machine), -EINVAL for a "0::" line that is no path.
 */
int proc_info__parse_cgroup(const char *text, char *out, size_t n);

/*
 * The last pid of the "NSpid:" line of /proc/PID/status's @text: 0 and
 * *@nspid; -ENOENT without the line (a kernel before 4.1), -EINVAL for
 * one that holds no pid or a bad one.
 */
int proc_info__parse_nspid(const char *text, int64_t *nspid);

/*
 * Both, for process @pid under @proc (NULL: "/proc"): 0 if either was
 * read (the other stays unknown); -ESRCH if the process is gone (it
 * exited before it could be read), another -errno if neither file could
 * be read.
 */
int proc_info__read(const char *proc, uint32_t pid, struct proc_info *out);

#endif /* FXTPROF_PROC_INFO_H */

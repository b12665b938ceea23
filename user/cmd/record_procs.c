// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_procs.c - see record_procs.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record_procs.h"
#include "source/perf_map.h"
#include "source/proc_info.h"
#include "state/stream_state.h"

static int lookup(void *ctx, uint32_t pid, int64_t *nspid, char *cgroup,
		  size_t n)
{
	struct record_procs *rp = ctx;
	struct proc_info pi;
	int ret = proc_info__read(rp->proc, pid, &pi);

	if (ret)
		return ret;
	*nspid = pi.nspid;
	snprintf(cgroup, n, "%s", pi.cgroup);
	return 0;
}

struct jit_ctx {
	struct record_procs *rp;
	uint32_t pid;
};

static int jit_entry(void *ctx, const struct perf_map_entry *e)
{
	struct jit_ctx *jc = ctx;
	int ret;

	if (jc->rp->jit_entries >= RECORD_JIT_TOTAL_MAX_ENTRIES)
		return -E2BIG;
	ret = stream_state__jit_symbol(jc->rp->state, jc->pid, e->start,
				       e->size, e->name, e->name_len);
	if (ret && ret != -ENOBUFS)
		jc->rp->jit_write_errors++;
	else if (!ret)
		jc->rp->jit_entries++;
	return 0;
}

/* @fd if it is a regular file (not a FIFO someone left): else closed. */
static int regular_fd(int fd)
{
	struct stat sb;

	if (fd < 0)
		return fd;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

#define MAP_OPEN_FLAGS	(O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)

static int regular(const char *path)
{
	int fd = open(path, MAP_OPEN_FLAGS);

	return regular_fd(fd < 0 ? -errno : fd);
}

/*
 * @rel under process @pid's root, resolved as the process would: its
 * symbolic links stay inside its root (RESOLVE_IN_ROOT), which a plain
 * path through /proc/PID/root would follow into ours.  A kernel before
 * 5.6 has no openat2: the plain path then.
 */
static int open_in_root(const struct record_procs *rp, uint32_t pid,
			const char *rel, char *path, size_t n)
{
	struct open_how how = {
		.flags = MAP_OPEN_FLAGS,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int dfd, fd;

	snprintf(path, n, "%s/%u/root", rp->proc, pid);
	dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	snprintf(path, n, "%s/%u/root/%s", rp->proc, pid, rel);
	fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	if (fd < 0)
		fd = -errno;
	close(dfd);
	if (fd == -ENOSYS)
		return regular(path);
	return regular_fd(fd);
}

/*
 * The map's file: through the process's root while it lives (named by
 * its own pid there), else in our /tmp, but only for a process whose
 * pid is the same in both (one in another pid namespace wrote another
 * name there).
 */
static int open_map(struct record_procs *rp, uint32_t pid, int64_t nspid,
		    bool alive, char *path, size_t n)
{
	uint32_t own = nspid >= 0 ? (uint32_t)nspid : pid;
	char rel[64];
	int fd;

	if (alive) {
		snprintf(rel, sizeof(rel), "%s/perf-%u.map", rp->tmp + 1, own);
		fd = open_in_root(rp, pid, rel, path, n);
		if (fd != -ENOENT)
			return fd;
	}
	if (own != pid)
		return -ENOENT;
	snprintf(path, n, "%s/perf-%u.map", rp->tmp, pid);
	return regular(path);
}

void record_procs__read_jit(struct record_procs *rp, uint32_t pid,
			    int64_t nspid, bool alive)
{
	struct jit_ctx jc = { .rp = rp, .pid = pid };
	struct perf_map_stats st = { 0 };
	char path[128];
	int fd, ret;

	if (!pid || rp->jit_entries >= RECORD_JIT_TOTAL_MAX_ENTRIES)
		return;
	fd = open_map(rp, pid, nspid, alive, path, sizeof(path));
	if (fd == -ENOENT)
		return;			/* no JIT here: the usual case */
	if (fd < 0) {
		rp->jit_unreadable++;
		return;
	}
	ret = perf_map__read_fd(fd, RECORD_JIT_MAP_MAX_ENTRIES,
				RECORD_JIT_MAP_MAX_BYTES, jit_entry, &jc, &st);
	close(fd);
	rp->jit_maps++;
	rp->jit_bad_lines += st.bad_lines;
	rp->jit_truncated += st.truncated + (ret == -E2BIG);
	if (ret && ret != -E2BIG)
		rp->jit_unreadable++;
	if (st.bad_lines && !rp->jit_first_error) {
		rp->jit_first_error = st.first_error;
		rp->jit_first_error_line = st.first_error_line;
		snprintf(rp->jit_first_error_path,
			 sizeof(rp->jit_first_error_path), "%s", path);
	}
}

static void on_exit_jit(void *ctx, uint32_t pid, int64_t nspid)
{
	/* The process is gone: its map is reachable in our /tmp only. */
	record_procs__read_jit(ctx, pid, nspid, false);
}

void record_procs__init(struct record_procs *rp, struct stream_state *state)
{
	memset(rp, 0, sizeof(*rp));
	rp->state = state;
	rp->proc = "/proc";
	rp->tmp = "/tmp";
	stream_state__set_proc_lookup(state, lookup, rp);
	stream_state__set_exit_observer(state, on_exit_jit, rp);
}

static int living(void *ctx, uint32_t pid, uint32_t tid, const char *comm)
{
	struct record_procs *rp = ctx;
	const struct name_entry *e =
		name_table__process(&rp->state->names, pid);

	(void)tid;
	(void)comm;
	record_procs__read_jit(rp, pid, e && e->has_info ? e->nspid : -1,
			       true);
	return 0;
}

void record_procs__finish(struct record_procs *rp)
{
	if (rp->state)
		name_table__for_each_process(&rp->state->names, living, rp);
}

void record_procs__summary(const struct record_procs *rp)
{
	const struct stream_stats *st = &rp->state->st;

	fprintf(stderr, "fxtprof: processes: %" PRIu64 " containers read, %"
		PRIu64 " exited before they could be read", st->proc_infos,
		st->proc_gone);
	if (st->proc_unreadable)
		fprintf(stderr, ", %" PRIu64 " unreadable",
			st->proc_unreadable);
	fprintf(stderr, "; JIT maps: %" PRIu64 " read, %" PRIu64
		" functions", rp->jit_maps, rp->jit_entries);
	if (rp->jit_truncated)
		fprintf(stderr, ", %" PRIu64 " maps cut at the cap",
			rp->jit_truncated);
	if (rp->jit_unreadable)
		fprintf(stderr, ", %" PRIu64 " unreadable",
			rp->jit_unreadable);
	if (rp->jit_write_errors)
		fprintf(stderr, ", %" PRIu64 " not written",
			rp->jit_write_errors);
	fputc('\n', stderr);
	if (rp->jit_bad_lines)
		fprintf(stderr, "fxtprof: JIT maps: %" PRIu64 " bad lines "
			"skipped, the first %s:%" PRIu64 ": %s\n",
			rp->jit_bad_lines, rp->jit_first_error_path,
			rp->jit_first_error_line, rp->jit_first_error);
}

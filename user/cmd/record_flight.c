// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_flight.c - see record_flight.h.  The snapshots are named from
 * the URI (a directory, or a pattern) and the trigger, and written from
 * the window sink's segments, synced, one file each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "record_flight.h"
#include "record_opts.h"
#include "sink/sink.h"
#include "state/stream_state.h"
#include "transport/clock.h"

/* "20261201T224455.123Z": UTC, to the millisecond. */
static void utc_stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y%m%dT%H%M%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/*
 * The snapshot's file: in the directory @base, NAME-TIME.fxt; or @base as
 * a pattern, %n the trigger, %t the time, %% a percent sign.  @attempt > 1
 * adds "-ATTEMPT" (before ".fxt" in a directory) when the name is taken.
 */
static int snapshot_path(const char *base, const char *name,
			 const char *stamp, unsigned int attempt, char *out,
			 size_t len)
{
	char suffix[16] = "";
	size_t n = 0;
	int w;

	if (attempt > 1)
		snprintf(suffix, sizeof(suffix), "-%u", attempt);
	if (!strchr(base, '%')) {
		w = snprintf(out, len, "%s/%s-%s%s.fxt", base, name, stamp,
			     suffix);
		return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
	}
	for (const char *p = base; *p; p++) {
		const char *add = NULL;
		char one[2] = { *p, 0 };

		if (*p == '%' && p[1]) {
			p++;
			add = *p == 'n' ? name : *p == 't' ? stamp :
			      *p == '%' ? "%" : NULL;
			if (!add)
				return -EINVAL;
		} else {
			add = one;
		}
		w = snprintf(out + n, len - n, "%s", add);
		if (w < 0 || (size_t)w >= len - n)
			return -ENAMETOOLONG;
		n += (size_t)w;
	}
	w = snprintf(out + n, len - n, "%s", suffix);
	return w < 0 || (size_t)w >= len - n ? -ENAMETOOLONG : 0;
}

/* Before recording: the directory exists, or the pattern's does. */
static int check_uri(const char *base)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (!strchr(base, '%')) {
		if (stat(base, &st))
			return reader_err(-errno, "--flight-recorder: %s", base);
		if (!S_ISDIR(st.st_mode))
			return reader_err(-ENOTDIR, "--flight-recorder: %s is not a directory (or a pattern with %%n or %%t)",
					  base);
		if (access(base, W_OK | X_OK))
			return reader_err(-errno, "--flight-recorder: %s", base);
		return 0;
	}
	if (snapshot_path(base, "x", "t", 1, dir, sizeof(dir)))
		return reader_err(-EINVAL, "--flight-recorder: bad pattern %s (%%n, %%t and %%%% only)",
				  base);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = 0;
	if (dir[0] && access(dir, W_OK | X_OK))
		return reader_err(-errno, "--flight-recorder: %s", dir);
	return 0;
}

void flight_recorder__request(struct flight_recorder *fr, const char *name,
			      size_t len, uint64_t ts)
{
	struct flight_req *q;

	if (fr->npending == FLIGHT_MAX_PENDING) {
		fr->snapshots_missed++;
		reader_err(-EBUSY, "trigger '%.*s': %d snapshots are waiting already; not taken",
			   (int)len, name, FLIGHT_MAX_PENDING);
		return;
	}
	q = &fr->pending[fr->npending++];
	memset(q, 0, sizeof(*q));
	memcpy(q->name, name, len < sizeof(q->name) ? len : sizeof(q->name) - 1);
	q->ts = ts;
	q->turn = fr->turn;
}

/* One snapshot, synced; says what it holds.  0 or -errno (reported). */
static int flight_write(struct flight_recorder *fr, const struct flight_req *q)
{
	const struct record_opts *o = fr->opts;
	uint64_t window = (uint64_t)(o->flight_secs * 1e9);
	uint64_t from = q->ts > window ? q->ts - window : 0, t0 = clock_ns(CLOCK_BOOTTIME);
	struct flight_snapshot_stats st;
	char path[PATH_MAX], stamp[32];
	unsigned int attempt = 1;
	int fd, ret;

	utc_stamp(stamp, sizeof(stamp));
	for (;;) {
		ret = snapshot_path(record_opts__path(o->uri), q->name, stamp,
				    attempt, path, sizeof(path));
		if (ret)
			return reader_err(ret, "snapshot '%s': no file name", q->name);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  o->file_mode ? o->file_mode : SINK_DEFAULT_FILE_MODE);
		if (fd >= 0 || errno != EEXIST || attempt == 100)
			break;
		attempt++;
	}
	if (fd < 0)
		return reader_err(-errno, "snapshot '%s': %s", q->name, path);
	ret = flight_window__snapshot(fr->win, fd, from, &st);
	if (!ret && fdatasync(fd) && errno != EINVAL)
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		unlink(path);
		return reader_err(ret, "snapshot '%s': cannot write %s", q->name, path);
	}
	if (!o->quiet) {
		fprintf(stderr, "fxtprof: snapshot %s: trigger %s, %" PRIu64
			" records (%" PRIu64 " events, %" PRIu64 " segments), "
			"%.1f MB in %.1f ms; events from %.3f s to %+.3f s of "
			"the trigger\n", path, q->name, st.records, st.events,
			st.segments, (double)st.bytes / 1e6,
			(double)(clock_ns(CLOCK_BOOTTIME) - t0) / 1e6,
			st.events ? -((double)q->ts - (double)st.first_ns) / 1e9 : 0.0,
			st.events ? ((double)st.last_ns - (double)q->ts) / 1e9 : 0.0);
		if (st.cut_by_bound)
			fprintf(stderr, "fxtprof: snapshot %s is short of %.1f s: "
				"--max-window-bytes evicted records in its range\n",
				path, o->flight_secs);
	}
	return 0;
}

/*
 * Snapshots whose trigger was seen before the last complete drain turn:
 * every ring has been drained past the trigger since, so the window holds
 * what every CPU recorded up to it.  @all: at the end, whatever is left.
 */
static void service(struct flight_recorder *fr, bool all)
{
	unsigned int i, kept = 0;

	for (i = 0; i < fr->npending; i++) {
		struct flight_req *q = &fr->pending[i];

		if (!all && q->turn + 2 > fr->turn) {
			fr->pending[kept++] = *q;
			continue;
		}
		if (flight_write(fr, q))
			fr->snapshots_failed++;
		else
			fr->snapshots++;
	}
	fr->npending = kept;
}

void flight_recorder__turn(struct flight_recorder *fr)
{
	fr->turn++;
	if (fr->npending)
		service(fr, false);
}

void flight_recorder__finish(struct flight_recorder *fr)
{
	if (fr->npending)
		service(fr, true);
}

bool flight_recorder__complete(const struct flight_recorder *fr)
{
	return !fr->snapshots_failed && !fr->snapshots_missed;
}

/* A TRIGGER record: a snapshot if --trigger names it. */
static void on_trigger(void *ctx, const struct fxtprof_trigger_rec *t)
{
	struct flight_recorder *fr = ctx;
	unsigned int i;

	for (i = 0; i < fr->opts->ntriggers; i++) {
		const char *n = fr->opts->triggers[i];

		if (strlen(n) == t->name_len &&
		    !memcmp(n, t->name, t->name_len)) {
			flight_recorder__request(fr, t->name, t->name_len,
						 t->hdr.time_ns);
			return;
		}
	}
	fr->triggers_ignored++;
}

void flight_recorder__listen(struct flight_recorder *fr,
			     struct stream_state *state)
{
	stream_state__set_trigger_observer(state, on_trigger, fr);
}

int flight_recorder__open(struct flight_recorder *fr,
			  const struct record_opts *o, struct sink **out)
{
	struct flight_window_opts wo = {
		.window_ns = (uint64_t)(o->flight_secs * 1e9),
		.max_bytes = o->max_window_bytes,
	};
	int ret;

	memset(fr, 0, sizeof(*fr));
	fr->opts = o;
	ret = check_uri(record_opts__path(o->uri));
	if (ret)
		return ret;
	ret = sink__open_window(out, &wo);
	if (ret)
		return reader_err(ret, "cannot set up the flight recorder's window");
	fr->win = sink__window(*out);
	return 0;
}

void flight_recorder__summary(const struct flight_recorder *fr)
{
	struct flight_window_stats ws;

	flight_window__stats(fr->win, &ws);
	fprintf(stderr, "fxtprof: flight recorder: %" PRIu64 " snapshots written"
		" to %s, %" PRIu64 " failed, %" PRIu64 " not taken; %" PRIu64
		" triggers not in --trigger\n", fr->snapshots, fr->opts->uri,
		fr->snapshots_failed, fr->snapshots_missed, fr->triggers_ignored);
	fprintf(stderr, "fxtprof: window: held at most %.1f MB (bound %.1f MB"
		"%s), %" PRIu64 " segments; evicted %" PRIu64 " records by age,"
		" %" PRIu64 " for the bound; refused %" PRIu64 "\n",
		(double)ws.held_max / 1e6, (double)fr->opts->max_window_bytes / 1e6,
		ws.over_bound ? ", exceeded by one segment's names and symbols" : "",
		ws.segments_begun, ws.evicted_time, ws.evicted_bytes, ws.refused);
}


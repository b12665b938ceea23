// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_map.c - see perf_map.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "perf_map.h"

/* A hex number, 0x or not, ending at a blank: its end, or NULL. */
static const char *parse_hex(const char *p, const char *end, uint64_t *v)
{
	const char *start;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	start = p;
	*v = 0;
	for (; p < end && isxdigit((unsigned char)*p); p++) {
		if (p - start >= 16)
			return NULL;	/* more than 64 bits */
		*v = *v << 4 | (uint64_t)(isdigit((unsigned char)*p) ?
			*p - '0' : (tolower((unsigned char)*p) - 'a' + 10));
	}
	if (p == start || p == end || (*p != ' ' && *p != '\t'))
		return NULL;
	return p;
}

int perf_map__parse_line(const char *line, size_t len,
			 struct perf_map_entry *e, const char **why)
{
	const char *end = line + len, *p;

	if (len && line[len - 1] == '\r')
		end--;
	p = parse_hex(line, end, &e->start);
	if (!p) {
		*why = "START is not a hex number followed by a blank";
		return -EINVAL;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	p = parse_hex(p, end, &e->size);
	if (!p) {
		*why = "SIZE is not a hex number followed by a blank";
		return -EINVAL;
	}
	if (!e->size || e->size > PERF_MAP_SIZE_MAX) {
		*why = "SIZE is 0 or larger than 4 GiB";
		return -EINVAL;
	}
	if (e->start + e->size < e->start) {
		*why = "START + SIZE is past the address space";
		return -EINVAL;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end) {
		*why = "no name";
		return -EINVAL;
	}
	e->name = p;
	e->name_len = (size_t)(end - p);
	if (e->name_len > PERF_MAP_NAME_MAX)
		e->name_len = PERF_MAP_NAME_MAX;
	return 0;
}

static void bad_line(struct perf_map_stats *st, uint64_t lineno,
		     const char *why)
{
	if (!st->bad_lines++) {
		st->first_error = why;
		st->first_error_line = lineno;
	}
}

int perf_map__read_fd(int fd, uint64_t max_entries, uint64_t max_bytes,
		      perf_map_fn fn, void *ctx, struct perf_map_stats *st)
{
	char buf[PERF_MAP_NAME_MAX + 128];
	size_t have = 0, used;
	uint64_t lineno = 0, bytes = 0;
	bool skipping = false;	/* the rest of an overlong line */
	struct perf_map_entry e;
	const char *why;
	ssize_t r;
	int ret;

	for (;;) {
		char *nl;

		r = read(fd, buf + have, sizeof(buf) - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		have += (size_t)r;
		used = 0;
		while ((nl = memchr(buf + used, '\n', have - used)) ||
		       (r == 0 && used < have)) {
			size_t len = nl ? (size_t)(nl - (buf + used)) :
				     have - used;

			if (skipping) {
				skipping = false;
			} else {
				lineno++;
				if (st->entries >= max_entries ||
				    bytes + len + 1 > max_bytes) {
					/* The rest is not read. */
					st->truncated++;
					return 0;
				} else if (perf_map__parse_line(buf + used,
							len, &e, &why)) {
					bad_line(st, lineno, why);
				} else {
					ret = fn(ctx, &e);
					if (ret)
						return ret;
					st->entries++;
				}
			}
			bytes += len + 1;
			used += len + (nl ? 1 : 0);
		}
		if (r == 0)
			return 0;
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have == sizeof(buf)) {
			/* A line longer than any map writes: bad, skipped. */
			if (!skipping)
				bad_line(st, ++lineno, "a line longer than "
					 "1 KiB of name");
			skipping = true;
			bytes += have;
			have = 0;
		}
	}
}

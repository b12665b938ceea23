// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_ranges.c - see unwind_ranges.h.  The sampling program finds a
 * pc's range by a binary search over r[0 .. nr) (unwind.bpf.h), so the
 * array is kept sorted and without overlaps.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "unwind_ranges.h"

#define MAX_RANGES	FXTPROF_BPF_UNWIND_MAX_RANGES

/* Append a range to @out: 0, or -ENOSPC when it is full. */
static int push(struct fxtprof_bpf_unwind_range *out, unsigned int *n,
		__u64 start, __u64 end, __u64 bias, __u32 id)
{
	if (*n == MAX_RANGES)
		return -ENOSPC;
	memset(&out[*n], 0, sizeof(out[*n]));
	out[*n].start = start;
	out[*n].end = end;
	out[*n].bias = bias;
	out[*n].id = id;
	(*n)++;
	return 0;
}

int unwind_ranges__update(struct fxtprof_bpf_unwind_proc *p,
			  const struct fxtprof_unwind_map *m)
{
	struct fxtprof_bpf_unwind_range out[MAX_RANGES];
	unsigned int i, n = 0, nr = p->nr < MAX_RANGES ? p->nr : MAX_RANGES;
	bool placed = !m->id;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		const struct fxtprof_bpf_unwind_range *r = &p->r[i];

		/* The new range goes before the first that starts after it,
		 * after what is left of an overlapped range's left part. */
		if (r->start < m->start)
			err = push(out, &n, r->start,
				   r->end < m->start ? r->end : m->start,
				   r->bias, r->id);
		if (!err && !placed && r->end > m->start) {
			err = push(out, &n, m->start, m->end, m->bias, m->id);
			placed = true;
		}
		if (!err && r->end > m->end)
			err = push(out, &n, r->start > m->end ? r->start :
				   m->end, r->end, r->bias, r->id);
	}
	if (!err && !placed)
		err = push(out, &n, m->start, m->end, m->bias, m->id);
	if (err)
		return err;
	memcpy(p->r, out, n * sizeof(out[0]));
	p->nr = n;
	return 0;
}

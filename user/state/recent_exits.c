// SPDX-License-Identifier: GPL-2.0-only
/*
 * recent_exits.c - the last RECENT_EXITS_MAX exits the stream saw
 * (recent_exits.h): a FIFO for their order, a map for the lookups.
 */
#include <errno.h>
#include <stdlib.h>

#include "recent_exits.h"

#define PROCESS_BIT	(1ull << 32)

void recent_exits__fini(struct recent_exits *r)
{
	hmap__free(&r->by_id);
	free(r->fifo);
	r->fifo = NULL;
	r->head = r->len = 0;
}

static int add(struct recent_exits *r, uint64_t id, uint64_t ts)
{
	struct recent_exit *e;

	if (!r->fifo) {
		r->fifo = malloc(RECENT_EXITS_MAX * sizeof(*r->fifo));
		if (!r->fifo)
			return -ENOMEM;
	}
	if (r->len == RECENT_EXITS_MAX) {
		const struct recent_exit *old = &r->fifo[r->head];
		uint64_t *t = hmap__get(&r->by_id, old->id);

		/* Unless the id exited again since (a reused pid). */
		if (t && *t == old->ts)
			hmap__del(&r->by_id, old->id);
		r->head = (r->head + 1) % RECENT_EXITS_MAX;
		r->len--;
	}
	if (hmap__put(&r->by_id, id, ts))
		return -ENOMEM;
	e = &r->fifo[(r->head + r->len++) % RECENT_EXITS_MAX];
	e->id = id;
	e->ts = ts;
	return 0;
}

int recent_exits__add_thread(struct recent_exits *r, uint32_t tid,
			     uint64_t ts)
{
	return add(r, tid, ts);
}

int recent_exits__add_process(struct recent_exits *r, uint32_t pid,
			      uint64_t ts)
{
	return add(r, PROCESS_BIT | pid, ts);
}

static bool gone(const struct recent_exits *r, uint64_t id, uint64_t ts)
{
	const uint64_t *t = hmap__get(&r->by_id, id);

	return t && *t >= ts;
}

bool recent_exits__thread_gone(const struct recent_exits *r, uint32_t tid,
			       uint64_t ts)
{
	return gone(r, tid, ts);
}

bool recent_exits__process_gone(const struct recent_exits *r, uint32_t pid,
				uint64_t ts)
{
	return gone(r, PROCESS_BIT | pid, ts);
}

size_t recent_exits__bytes(const struct recent_exits *r)
{
	return hmap__bytes(&r->by_id) +
	       (r->fifo ? RECENT_EXITS_MAX * sizeof(*r->fifo) : 0);
}

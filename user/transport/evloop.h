/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * evloop.h - a minimal io_uring event loop.
 *
 * Every request carries a pointer to a struct ev_handler as its user_data;
 * a completion is dispatched to that handler.  The loop owns nothing else,
 * so the device poll, the timer, the signalfd and the socket writer each
 * keep their own state and re-arm themselves.
 */
#ifndef FXTPROF_EVLOOP_H
#define FXTPROF_EVLOOP_H

#include <liburing.h>

struct ev_handler {
	void (*complete)(struct ev_handler *h, const struct io_uring_cqe *cqe);
};

struct evloop {
	struct io_uring ring;
};

int evloop__init(struct evloop *loop, unsigned int entries);
void evloop__fini(struct evloop *loop);

/* A free SQE tagged for @h; submits pending ones if the queue is full. */
struct io_uring_sqe *evloop__sqe(struct evloop *loop, struct ev_handler *h);

/*
 * Submit what is queued now, without waiting or reaping: for a request
 * that should start before the loop's next turn.  0 or -errno.
 */
int evloop__submit(struct evloop *loop);

/*
 * Submit what is queued, wait for at least one completion (or until
 * @timeout_ms, -1 = no limit, 0 = do not wait), and dispatch every completion available.
 * Returns the number dispatched or -errno.
 */
int evloop__run_once(struct evloop *loop, int timeout_ms);

#endif /* FXTPROF_EVLOOP_H */

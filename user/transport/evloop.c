// SPDX-License-Identifier: GPL-2.0-only
/*
 * evloop.c - see evloop.h.
 */
#include <errno.h>
#include <string.h>

#include "evloop.h"

int evloop__init(struct evloop *loop, unsigned int entries)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	/*
	 * One thread submits and reaps; completions need no IPI to it
	 * (COOP_TASKRUN).  Older kernels reject the flags: retry without.
	 */
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
	ret = io_uring_queue_init_params(entries, &loop->ring, &p);
	if (ret == -EINVAL) {
		memset(&p, 0, sizeof(p));
		ret = io_uring_queue_init_params(entries, &loop->ring, &p);
	}
	return ret;
}

void evloop__fini(struct evloop *loop)
{
	io_uring_queue_exit(&loop->ring);
}

struct io_uring_sqe *evloop__sqe(struct evloop *loop, struct ev_handler *h)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&loop->ring);

	if (!sqe) {
		io_uring_submit(&loop->ring);
		sqe = io_uring_get_sqe(&loop->ring);
		if (!sqe)
			return NULL;
	}
	io_uring_sqe_set_data(sqe, h);
	return sqe;
}

int evloop__submit(struct evloop *loop)
{
	int ret = io_uring_submit(&loop->ring);

	return ret < 0 && ret != -EBUSY && ret != -EAGAIN ? ret : 0;
}

int evloop__run_once(struct evloop *loop, int timeout_ms)
{
	struct __kernel_timespec ts, *tsp = NULL;
	struct io_uring_cqe *cqe;
	unsigned int n = 0;
	int ret;

	if (timeout_ms == 0) {
		/* A poll: submit, reap what is there, never sleep (a zero
		 * timeout would still arm a timer and schedule). */
		ret = io_uring_submit(&loop->ring);
		if (ret < 0 && ret != -EBUSY && ret != -EAGAIN)
			return ret;
		goto reap;
	}
	if (timeout_ms > 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long long)(timeout_ms % 1000) * 1000000;
		tsp = &ts;
	}
	ret = io_uring_submit_and_wait_timeout(&loop->ring, &cqe, 1, tsp, NULL);
	if (ret < 0 && ret != -ETIME && ret != -EINTR)
		return ret;

reap:
	/*
	 * Handlers may queue new SQEs; they go out with the next submit.
	 * Copy each CQE before advancing so the handler may reap reentrantly.
	 */
	for (;;) {
		struct io_uring_cqe copy;
		struct ev_handler *h;

		if (io_uring_peek_cqe(&loop->ring, &cqe) != 0)
			break;
		copy = *cqe;
		io_uring_cqe_seen(&loop->ring, cqe);
		h = io_uring_cqe_get_data(&copy);
		if (h && h->complete)
			h->complete(h, &copy);
		n++;
	}
	return n;
}

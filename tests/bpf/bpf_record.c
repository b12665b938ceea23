// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_record.c - `fxtprof record --source bpf` until record.c has the
 * option: the bpf source drained by the pipeline record.c assembles (the
 * stream state driving the FXT encoder, which writes into a sink) in the
 * same io_uring loop: a multishot poll on the ring buffer's map fd, a
 * 100 ms tick, SIGINT/SIGTERM through a signalfd.
 *
 *   bpf_record [-F hz] [-C cpus] [-d secs] [-g kernel,user|none]
 *              [--max-stack n] [-m ring] [--skip-idle] [--no-tasks] OUT
 *
 * Prints "bpf_record: <samples> samples, <lost> lost, <LOST sum> in LOST
 * records, sampling <n> CPUs" on stderr at the end, for the tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "encode/fxt_encoder.h"
#include "sink/sink.h"
#include "source/bpf_source.h"
#include "state/stream_state.h"
#include "transport/evloop.h"

#define TICK_MS 100

struct driver {
	struct evloop loop;
	struct bpf_source src;
	struct sink *out;
	struct fxt_encoder *enc;
	struct stream_state state;
	struct ev_handler poll_h, tick_h, sig_h;
	struct __kernel_timespec tick;
	struct signalfd_siginfo si;
	int sigfd;
	bool stop;
	int error;
	double duration;
	uint64_t start_ns;
	uint64_t lost_in_records;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define container(p, m) ((struct driver *)((char *)(p) - offsetof(struct driver, m)))

/* Counts the LOST records on their way to the stream state. */
static int on_record(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct driver *d = ctx;

	if (rec->type == FXTPROF_REC_LOST)
		d->lost_in_records += ((const struct fxtprof_lost *)rec)->records;
	return stream_state__record(&d->state, rec);
}

static int drain(struct driver *d)
{
	unsigned int cpu;
	int ret;

	stream_state__announce_errors(&d->state, now_ns());
	stream_state__announce_gap(&d->state, now_ns());
	ret = bpf_source__drain(&d->src, on_record, d, &cpu);
	if (ret < 0) {
		fprintf(stderr, "bpf_record: %s (CPU %u): %s\n",
			bpf_source__error(&d->src), cpu, strerror(-ret));
		return ret;
	}
	sink__flush(d->out);
	return 0;
}

static void arm_poll(struct driver *d)
{
	struct io_uring_sqe *sqe = evloop__sqe(&d->loop, &d->poll_h);

	if (sqe)
		io_uring_prep_poll_multishot(sqe, bpf_source__fd(&d->src),
					     POLLIN);
}

static void arm_tick(struct driver *d)
{
	struct io_uring_sqe *sqe = evloop__sqe(&d->loop, &d->tick_h);

	d->tick.tv_sec = 0;
	d->tick.tv_nsec = TICK_MS * 1000000ll;
	if (sqe)
		io_uring_prep_timeout(sqe, &d->tick, 0, 0);
}

static void arm_signal(struct driver *d)
{
	struct io_uring_sqe *sqe = evloop__sqe(&d->loop, &d->sig_h);

	if (sqe)
		io_uring_prep_read(sqe, d->sigfd, &d->si, sizeof(d->si), 0);
}

static void on_poll(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct driver *d = container(h, poll_h);

	if (cqe->res < 0 && cqe->res != -ECANCELED) {
		d->error = cqe->res;
		d->stop = true;
		return;
	}
	if (drain(d))
		d->stop = true;
	if (!(cqe->flags & IORING_CQE_F_MORE) && !d->stop)
		arm_poll(d);
}

static void on_tick(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct driver *d = container(h, tick_h);

	(void)cqe;
	if (drain(d))
		d->stop = true;
	if (d->duration > 0 && (double)(now_ns() - d->start_ns) >= d->duration * 1e9)
		d->stop = true;
	if (!d->stop)
		arm_tick(d);
}

static void on_signal(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	(void)cqe;
	container(h, sig_h)->stop = true;
}

static int parse_cpus(const char *s, uint64_t *mask, size_t words)
{
	char *end;

	while (*s) {
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (b < a || b >= words * 64)
			return -EINVAL;
		for (; a <= b; a++)
			mask[a / 64] |= 1ull << (a % 64);
		if (*end && *end != ',')
			return -EINVAL;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: bpf_record [-F hz] [-C cpus] [-d secs] "
		"[-g kernel,user|none] [--max-stack n] [-m bytes] "
		"[--skip-idle] [--no-tasks] OUT\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-stack", required_argument, NULL, 's' },
		{ "skip-idle", no_argument, NULL, 'i' },
		{ "no-tasks", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct fxtprof_config cfg = { .size = sizeof(cfg),
				      .flags = FXTPROF_CFG_DEFAULT &
					 ~FXTPROF_CFG_ANNOTATE };
	static uint64_t cpumask[16];
	struct sink_opts sopts = { 0 };
	struct fxtprof_stats total;
	struct driver d;
	sigset_t mask;
	char err[256];
	int c, ret;

	memset(&d, 0, sizeof(d));
	d.sigfd = -1;
	while ((c = getopt_long(argc, argv, "F:C:d:g:m:", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			cfg.freq_hz = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'C':
			if (parse_cpus(optarg, cpumask, 16))
				return usage();
			cfg.cpumask_ptr = (uintptr_t)cpumask;
			cfg.cpumask_len = sizeof(cpumask);
			break;
		case 'd':
			d.duration = strtod(optarg, NULL);
			break;
		case 'g':
			cfg.flags &= ~(FXTPROF_CFG_KSTACK | FXTPROF_CFG_USTACK);
			if (strstr(optarg, "kernel"))
				cfg.flags |= FXTPROF_CFG_KSTACK;
			if (strstr(optarg, "user"))
				cfg.flags |= FXTPROF_CFG_USTACK;
			break;
		case 's':
			cfg.kstack_depth = cfg.ustack_depth =
				(uint16_t)strtoul(optarg, NULL, 10);
			break;
		case 'm':
			cfg.ring_size = strtoull(optarg, NULL, 0);
			break;
		case 'i':
			cfg.flags |= FXTPROF_CFG_SKIP_IDLE;
			break;
		case 't':
			cfg.flags &= ~(FXTPROF_CFG_TASKS | FXTPROF_CFG_SNAPSHOT);
			break;
		default:
			return usage();
		}
	}
	if (optind != argc - 1)
		return usage();

	d.poll_h.complete = on_poll;
	d.tick_h.complete = on_tick;
	d.sig_h.complete = on_signal;
	ret = bpf_source__open(&d.src, NULL);
	if (!ret)
		ret = bpf_source__configure(&d.src, &cfg);
	if (ret) {
		fprintf(stderr, "bpf_record: %s (%s)\n",
			bpf_source__error(&d.src), strerror(-ret));
		bpf_source__close(&d.src);
		return 1;
	}
	ret = evloop__init(&d.loop, 64);
	if (ret)
		goto out_close_source;
	ret = sink__open(&d.out, argv[optind], &d.loop, &sopts, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "bpf_record: %s\n", err);
		goto out_fini_loop;
	}
	ret = fxt_encoder__new(&d.enc, d.out);
	if (ret)
		goto out_close_sink;
	stream_state__init(&d.state, fxt_encoder__encoder(d.enc), d.out);
	ret = stream_state__sync(&d.state);
	if (ret)
		goto out_free_encoder;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	d.sigfd = signalfd(-1, &mask, SFD_CLOEXEC);

	ret = bpf_source__start(&d.src);
	if (ret) {
		fprintf(stderr, "bpf_record: %s (%s)\n",
			bpf_source__error(&d.src), strerror(-ret));
		goto out_free_encoder;
	}
	d.start_ns = now_ns();
	arm_poll(&d);
	arm_tick(&d);
	if (d.sigfd >= 0)
		arm_signal(&d);
	while (!d.stop) {
		ret = evloop__run_once(&d.loop, -1);
		if (ret < 0) {
			d.error = ret;
			break;
		}
	}

	/* As record.c's finish(): stop, then drain to the very end. */
	bpf_source__stop(&d.src);
	ret = drain(&d);
	if (!ret)
		ret = bpf_source__flush(&d.src);
	if (!ret)
		ret = drain(&d);
	bpf_source__stats(&d.src, &total, stderr);
	stream_state__final_stats(&d.state, now_ns(), &total);
	stream_state__announce_errors(&d.state, now_ns());
	stream_state__announce_gap(&d.state, now_ns());
	sink__flush(d.out);
	sink__linger(d.out, 5000);
	fprintf(stderr, "bpf_record: %" PRIu64 " samples, %llu lost, %" PRIu64
		" in LOST records, %llu unreported, %" PRIu64 " encode errors\n",
		d.state.st.records[FXTPROF_REC_SAMPLE],
		(unsigned long long)total.lost_records, d.lost_in_records,
		(unsigned long long)total.lost_unreported,
		d.state.st.encode_errors);
	if (!ret)
		ret = d.error;

out_free_encoder:
	if (d.sigfd >= 0)
		close(d.sigfd);
	stream_state__fini(&d.state);
	fxt_encoder__free(d.enc);
out_close_sink:
	sink__close(d.out);
out_fini_loop:
	evloop__fini(&d.loop);
out_close_source:
	bpf_source__close(&d.src);
	return ret ? 1 : 0;
}

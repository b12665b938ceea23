/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sock_util.h - shared by the socket tests and bench-socket: a generator
 * of valid FXT streams feeding a writer, byte buffers, and measurements.
 */
#ifndef SOCK_UTIL_H
#define SOCK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fxt.h"
#include "sink/sink.h"

struct buf {
	unsigned char *p;
	size_t len, cap;
};

void buf__append(struct buf *b, const void *p, size_t len);
void buf__free(struct buf *b);

/*
 * Writes FXT records (a prologue, then stack samples of random depth)
 * through an fxt_writer into a sink (copying, sink__write()); remembers
 * which records the sink took and which it dropped.
 */
struct gen {
	struct fxt_writer *w;
	struct sink *out;
	uint64_t rng;
	unsigned int max_frames;
	bool keep;		/* keep the accepted records in .accepted */
	struct buf accepted;
	uint64_t ok_records, ok_bytes, drop_records, drop_bytes;
	uint64_t ts;
};

int gen__init(struct gen *g, struct sink *out, uint64_t seed,
	      unsigned int max_frames, bool keep);
void gen__fini(struct gen *g);
/* One stack sample: 0 if queued, -ENOBUFS if dropped. */
int gen__sample(struct gen *g);
uint64_t gen__rand(struct gen *g);

/* A whole valid stream of about @bytes, for files to send. */
int gen__stream(uint64_t seed, size_t bytes, struct buf *out);

/* The length in bytes an FXT record header gives. */
size_t fxt_record_len(const void *rec);
/* Walk headers: records in data, and whether it ends on a boundary. */
uint64_t fxt_count_records(const void *data, size_t len, bool *whole);

size_t rss_bytes(void);
uint64_t now_ns(void);
/* Read what is available without blocking; returns bytes read. */
size_t read_avail(int fd, struct buf *b, size_t max);
/*
 * What a receiver does at the end of a stream: read what is there, and
 * once the sender has half-closed (EOF), end its own side too, so the
 * sender's sink settles the stream (user/sink/sink.h, "Delivery").
 * Returns 1 at EOF, else 0.
 */
int peer_serve(int fd, struct buf *b);

/* The peak resident set (VmHWM) of process @pid, in KiB; 0 if unknown. */
uint64_t proc_hwm_kb(pid_t pid);
int set_bufs(int fd, int sndbuf, int rcvbuf);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fxt_encoder.h - the FXT encoder: fxtprof records and the state's
 * notices as Fuchsia Trace Format, written in place into a sink.
 *
 * Mapping (Documentation/fxt-mapping.md has the full table):
 *  - snapshot, fork, exec, rename: kernel objects naming the process
 *    (tgid) and the thread (tid, with a koid-typed "process" argument),
 *    written through the name operations;
 *  - sample: an instant event "cpu"/"sample" on the thread with args cpu,
 *    mode and kframes, followed by the stack as a large blob in the Fuchsia
 *    kernel sampler's convention (kernel frames first, then user frames,
 *    each leaf first; kframes says where the user frames begin), or, with
 *    shared stacks, a stack argument naming a stack written once;
 *  - fork, exec, exit: instant events in category "task" with arguments;
 *  - LOST: a provider buffer-overflow event plus the counter
 *    "fxtprof:kernel_lost" with the running totals;
 *  - MMAP, KMOD, KSYM: kernel objects of types 0x80, 0x81, 0x82 as
 *    user/fxt/fxt_profile.h describes them.
 */
#ifndef FXTPROF_FXT_ENCODER_H
#define FXTPROF_FXT_ENCODER_H

#include <stdbool.h>

#include "encode/encoder.h"
#include "fxt/fxt.h"
#include "sink/sink.h"

#define FXT_ENCODER_PROVIDER_ID		1
#define FXT_ENCODER_PROVIDER_NAME	"fxtprof"

struct fxt_encoder;

/* An encoder writing in place into @sink: 0 or -errno. */
int fxt_encoder__new(struct fxt_encoder **ep, struct sink *sink);
/*
 * An encoder writing to any fxt_writer sink (@wo: reserve/commit or
 * write, and ctx), e.g. memory in a benchmark.
 */
int fxt_encoder__new_opts(struct fxt_encoder **ep,
			  const struct fxt_writer_opts *wo);
void fxt_encoder__free(struct fxt_encoder *e);

/*
 * Share stacks between samples (fxt_profile.h, "Stack references"): each
 * distinct stack written once per segment, samples naming it by id.  Off
 * by default, and for sinks that keep or cut a stream by record (the
 * flight window, archives), whose definitions must stay with their
 * samples.  0 or -ENOMEM.
 */
int fxt_encoder__share_stacks(struct fxt_encoder *e, bool on);

/* The encoder interface of @e, for the state. */
struct encoder fxt_encoder__encoder(struct fxt_encoder *e);

#endif /* FXTPROF_FXT_ENCODER_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_flight.h - the flight recorder of `fxtprof record`
 * (Documentation/flight-recorder.md): the window sink it records into,
 * the triggers it hears from the stream state, and the snapshots it
 * writes once every ring has been drained past their trigger.
 */
#ifndef FXTPROF_RECORD_FLIGHT_H
#define FXTPROF_RECORD_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/fxtprof.h>

struct flight_window;
struct record_opts;
struct sink;
struct stream_state;

#define FLIGHT_DEFAULT_WINDOW_BYTES	(256ull << 20)
#define FLIGHT_MAX_PENDING	64	/* snapshots waiting for their turn */

/* A snapshot to write once every ring has been drained past it. */
struct flight_req {
	char name[FXTPROF_TRIGGER_NAME_MAX + 1];
	uint64_t ts;		/* the trigger's time, CLOCK_BOOTTIME */
	uint64_t turn;		/* drain turn it was seen in */
};

struct flight_recorder {
	const struct record_opts *opts;
	struct flight_window *win;	/* the window sink's */
	struct flight_req pending[FLIGHT_MAX_PENDING];
	unsigned int npending;
	uint64_t turn;
	uint64_t snapshots, snapshots_failed, snapshots_missed;
	uint64_t triggers_ignored;	/* TRIGGER records not in the list */
};

/*
 * Check that the snapshots can be written where --flight-recorder's URI
 * says, and open the window sink into *out.  0 or -errno (said).
 */
int flight_recorder__open(struct flight_recorder *fr,
			  const struct record_opts *o, struct sink **out);

/* Hear the TRIGGER records that reach @state. */
void flight_recorder__listen(struct flight_recorder *fr,
			     struct stream_state *state);

/* A snapshot of the window up to @ts, when its turn comes (SIGUSR2). */
void flight_recorder__request(struct flight_recorder *fr, const char *name,
			      size_t len, uint64_t ts);

/* A drain turn has passed every ring: write the snapshots it completes. */
void flight_recorder__turn(struct flight_recorder *fr);
/* At the end, every ring drained: write whatever is pending. */
void flight_recorder__finish(struct flight_recorder *fr);

/* True when every snapshot asked for was written. */
bool flight_recorder__complete(const struct flight_recorder *fr);

/* The summary's lines: snapshots and the window. */
void flight_recorder__summary(const struct flight_recorder *fr);

#endif /* FXTPROF_RECORD_FLIGHT_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - `fxtprof record`: configure the module, drain its rings in one
 * io_uring event loop, and write FXT to a destination.  It assembles the
 * pipeline (Documentation/architecture.md): the ring source drains into
 * the stream state, which drives the FXT encoder, which writes in place
 * into the sink.
 *
 * The loop waits on three things and never busy-waits:
 *  - readiness of /dev/fxtprof (a multishot poll, re-armed whenever a
 *    completion arrives without IORING_CQE_F_MORE);
 *  - a periodic timeout, which bounds latency below the watermark and
 *    drives the status line and --duration;
 *  - SIGINT/SIGTERM (stop) and SIGUSR1 (flush, going on), read from a
 *    signalfd.
 *
 * A flush (SIGUSR1, and the one stop makes) is complete when the drains
 * have passed its FLUSH marker on every ring: then everything committed
 * before it is in the output.  See Documentation/protocol.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "sources.h"
#ifdef FXTPROF_HAVE_SYMBOLS
#include "export.h"
#endif
#include "archive/archive.h"
#include "encode/fxt_encoder.h"
#include <libfxtprof.h>
#include "sink/sink.h"
#include "source/bpf_source.h"
#include "source/kernel_info.h"
#include "source/perf_mmap_source.h"
#include "source/proc_maps.h"
#include "source/ring_source.h"
#include "state/stream_state.h"
#include "transport/evloop.h"
#include "transport/netaddr.h"

#define TICK_MS		100
#define MAX_TRIGGERS	32	/* names in --trigger */
#define MAX_PENDING	64	/* snapshots waiting for their drain turn */
#define DEFAULT_WINDOW_BYTES	(256ull << 20)

enum record_source {
	SOURCE_AUTO,	/* the module if its device exists, else bpf */
	SOURCE_MODULE,
	SOURCE_BPF,
};

struct record_opts {
	struct fxtprof_config cfg;
	enum record_source source;
	const char *sources;	/* --sources LIST, resolved at open */
	const char *device;
	const char *uri;
	const char *ready_file;	/* --ready-file: created once recording */
	double duration;	/* seconds, 0 = until a signal */
	double linger;		/* seconds to wait for the output at exit */
	uint64_t max_buffered;
	unsigned int file_mode;	/* 0 = the sink's default, 0600 */
	bool reconnect;
	uint64_t cpumask[16];	/* -C, up to 1024 CPUs */
	bool quiet;
	bool no_mmap;		/* no mapping records */
	bool no_ksyms;		/* no kernel symbol records */
	bool symbolize;		/* append the Perfetto profile at the end */
	/* --flight-recorder: a window of this many seconds, 0 = off. */
	double flight_secs;
	uint64_t max_window_bytes;
	/* --archive, --live-archive, the chunk limits (sink.h). */
	bool archive;
	struct archive_writer_opts archive_opts;
	unsigned int archive_flush_ms;
	const char *triggers[MAX_TRIGGERS];
	unsigned int ntriggers;
	char trigger_buf[4096];	/* the names, split out of their lists */
};

/* A snapshot to write once every ring has been drained past it. */
struct flight_req {
	char name[FXTPROF_TRIGGER_NAME_MAX + 1];
	uint64_t ts;		/* the trigger's time, CLOCK_BOOTTIME */
	uint64_t turn;		/* drain turn it was seen in */
};

struct recorder {
	struct record_opts *opts;
	struct evloop loop;
	enum record_source source;	/* MODULE or BPF once chosen */
	struct ring_source src;
	struct bpf_source bsrc;
	struct sink *out;
	struct fxt_encoder *enc;
	struct stream_state state;
	struct kernel_info kinfo;
	struct perf_mmap_source perf;	/* .nr == 0: not open */
	struct proc_maps_stats sweep;
	uint64_t kmods;
	bool perf_broken;		/* stopped draining it */

	struct ev_handler poll_h;
	struct ev_handler tick_h;
	struct ev_handler sig_h;
	struct __kernel_timespec tick;
	struct signalfd_siginfo si;
	int sigfd;

	bool stop;
	bool flush_pending;		/* a SIGUSR1 flush not yet complete */
	__u64 flush_seq;
	uint64_t flush_ns;		/* when it was asked for */
	bool status_line;
	int error;
	uint64_t start_ns;
	uint64_t last_status_ns;
	uint64_t last_samples;

	/* --flight-recorder */
	struct flight_window *win;	/* the window sink's; NULL: off */
	struct flight_req pending[MAX_PENDING];
	unsigned int npending;
	uint64_t turn;
	uint64_t snapshots, snapshots_failed, snapshots_missed;
	uint64_t triggers_ignored;	/* TRIGGER records not in the list */
};

static uint64_t now_boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void record_usage(FILE *f)
{
	fprintf(f,
"usage: fxtprof record [options] URI\n"
"       fxtprof record [options] -o URI\n"
"  URI: PATH, file:///PATH, - (stdout), tcp://HOST:PORT, unix:///PATH\n"
"  -F, --freq HZ          samples per second per CPU (%d..%d, default %d)\n"
"  -C, --cpu LIST         sample only these CPUs, e.g. 0,2-3 (default all)\n"
"  -d, --duration SECS    stop after SECS seconds (default: at SIGINT/SIGTERM)\n"
"  -g, --call-graph WHAT  stacks to record: kernel,user (default), kernel,\n"
"                         user or none\n"
"      --max-stack N      frames per stack kind (1..%d, default %d)\n"
"  -m, --ring-size SIZE   ring bytes per CPU, power of two, K/M suffix\n"
"                         (default %uK)\n"
"      --skip-idle        do not record samples of idle CPUs\n"
"      --no-tasks         no fork/exec/exit/rename records\n"
"      --no-mmap          no executable mappings (user frames cannot be\n"
"                         symbolized later)\n"
"      --no-ksyms         no kernel symbols (kernel frames stay addresses)\n"
"      --symbolize        when the recording ends, name its frames here, on\n"
"                         the target, and append them to the file as\n"
"                         Perfetto call stacks (as fxtprof symbolize; a\n"
"                         file output only)\n"
"      --max-buffered SIZE  output queue cap for sockets (default %uM); a\n"
"                         record that does not fit is dropped whole, counted\n"
"                         and announced in the stream\n"
"      --reconnect        when the socket peer goes away, retry with backoff;\n"
"                         each connection gets a complete stream\n"
"      --linger SECS      wait at most SECS for the output at exit (default 5)\n"
"      --mode OCTAL       mode of a trace file (default 0600: it holds\n"
"                         kernel addresses)\n"
"      --source WHICH     module, bpf or auto (default): auto takes the\n"
"                         module when its device exists, else bpf\n"
"      --sources LIST     the data sources to enable, comma separated (see\n"
"                         fxtprof sources; default: the DEFAULT ones,\n"
"                         cpu.sampling,task.lifecycle); -g and --skip-idle\n"
"                         are options of cpu.sampling, --no-tasks removes\n"
"                         task.lifecycle\n"
"      --device PATH      the fxtprof device (default %s)\n"
"  -o, --output URI       the output, instead of the URI operand\n"
"  -q, --quiet            no status line, no summary\n"
"      --ready-file PATH  once the source samples, create PATH (mode 0600,\n"
"                         holding the recorder's pid): a script waits for\n"
"                         it before it starts the workload\n"
"\n"
"Archive (Documentation/archive-format.md): a URI ending in .fxtz, or:\n"
"      --archive          write an archive: LZ4 chunks that each decode\n"
"                         alone, then a manifest and summaries\n"
"      --live-archive     an archive another process may read as it grows:\n"
"                         chunks only (fxtprof archive repair adds the\n"
"                         summaries), the partial chunk written every\n"
"                         --flush-ms\n"
"      --chunk-ms MS      cut a chunk after MS of trace time (default %llu)\n"
"      --chunk-bytes SIZE  or SIZE bytes of FXT (default %uK)\n"
"      --chunk-records N  or N records (default %u), whichever comes first\n"
"      --flush-ms MS      live: write the partial chunk after MS (default %u)\n"
"\n"
"Flight recorder (Documentation/flight-recorder.md):\n"
"      --flight-recorder SECS  keep the newest SECS seconds in memory and\n"
"                         write nothing until a trigger: then a snapshot of\n"
"                         the window to URI, a directory (NAME-TIME.fxt in\n"
"                         it) or a pattern with %%n (trigger) and %%t (time)\n"
"      --max-window-bytes SIZE  memory bound of the window (default %lluM,\n"
"                         at least %uM); the oldest records go first\n"
"      --trigger NAME[,NAME]  snapshot when fxtprof trigger NAME fires\n"
"                         (repeatable); SIGUSR2 always snapshots (\"sigusr2\")\n"
"\n"
"Signals: SIGINT or SIGTERM stop (with a flush: nothing committed is lost);\n"
"SIGUSR1 flushes and goes on: everything recorded until then reaches the\n"
"output, and a line on stderr says when (unless -q); with the flight\n"
"recorder, SIGUSR2 writes a snapshot of the window.\n"
"\n"
"Exit status: 0 when every record was delivered and confirmed (a socket\n"
"peer's acknowledgement, a synced file); 1 when the recording could not\n"
"start or stopped on an error; 2 for bad arguments; 3 when it ran to the\n"
"end but output was lost (dropped, unconfirmed, or the output failed).\n"
"Records the kernel rings lost are reported, in the stream and here, and\n"
"do not change the status.\n",
		FXTPROF_MIN_FREQ, FXTPROF_MAX_FREQ, FXTPROF_DEFAULT_FREQ,
		FXTPROF_MAX_STACK_DEPTH, FXTPROF_DEFAULT_STACK_DEPTH,
		FXTPROF_DEFAULT_RING_SIZE >> 10, SINK_DEFAULT_MAX_BUFFERED >> 20,
		FXTPROF_DEVICE,
		(unsigned long long)(ARCHIVE_DEFAULT_WINDOW_NS / 1000000),
		ARCHIVE_DEFAULT_CHUNK_BYTES >> 10, ARCHIVE_DEFAULT_CHUNK_RECORDS,
		ARCHIVE_DEFAULT_FLUSH_MS, DEFAULT_WINDOW_BYTES >> 20,
		FLIGHT_MIN_BYTES >> 20);
}

static int parse_cpu_list(const char *s, uint64_t *mask, size_t words)
{
	char *end;

	memset(mask, 0, words * sizeof(*mask));
	while (*s) {
		unsigned long a, b;

		errno = 0;
		a = strtoul(s, &end, 10);
		if (end == s || errno)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || errno || b < a)
				return -EINVAL;
		}
		if (b >= words * 64)
			return -EINVAL;
		for (; a <= b; a++)
			mask[a / 64] |= 1ull << (a % 64);
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		s = end;
	}
	return 0;
}

/* The file a URI names, or NULL for stdout and sockets. */
static const char *symbolize_path(const char *uri)
{
	if (!strncmp(uri, "file://", 7))
		return uri + 7;
	if (!strcmp(uri, "-") || strstr(uri, "://"))
		return NULL;
	return uri;
}

#ifdef FXTPROF_HAVE_SYMBOLS
/*
 * --symbolize: the finished, synced recording through `fxtprof symbolize`
 * into a file beside it, which then replaces it.  Until the rename the
 * recording is untouched, so a failure here loses nothing: it only says
 * that the call stacks are missing.
 */
static int symbolize_recording(const struct record_opts *o)
{
	const char *path = symbolize_path(o->uri);
	char tmp[PATH_MAX], mode[16];
	int saved_stdout;
	char *argv[] = { "symbolize", "--mode", mode, "-o", tmp,
			 (char *)path, NULL };
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.symbolize", path) >=
	    (int)sizeof(tmp))
		return reader_err(-ENAMETOOLONG, "--symbolize: %s", path);
	snprintf(mode, sizeof(mode), "%o", o->file_mode ? o->file_mode : 0600);
	/*
	 * symbolize prints its summary on stdout; record keeps stdout for
	 * the trace ("-") and says everything else on stderr, so its summary
	 * goes there too.
	 */
	fflush(stdout);
	saved_stdout = dup(STDOUT_FILENO);
	if (saved_stdout >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	rc = cmd_symbolize(6, argv);
	fflush(stdout);
	if (saved_stdout >= 0) {
		dup2(saved_stdout, STDOUT_FILENO);
		close(saved_stdout);
	}
	if (rc == CMD_EXIT_OK && rename(tmp, path)) {
		reader_err(-errno, "--symbolize: cannot replace %s", path);
		rc = CMD_EXIT_FAILED;
	}
	if (rc == CMD_EXIT_OK)
		fprintf(stderr, "fxtprof: --symbolize: %s now holds the "
			"recording and its call stacks\n", path);
	if (rc != CMD_EXIT_OK) {
		unlink(tmp);
		fprintf(stderr, "fxtprof: --symbolize failed: %s is the "
			"recording without its call stacks\n", path);
		return CMD_EXIT_FAILED;
	}
	return CMD_EXIT_OK;
}
#endif

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	enum { OPT_MAX_STACK = 256, OPT_SKIP_IDLE, OPT_NO_TASKS,
	       OPT_MAX_BUFFERED, OPT_LINGER, OPT_DEVICE, OPT_RECONNECT,
	       OPT_MODE, OPT_NO_MMAP, OPT_NO_KSYMS, OPT_SOURCE, OPT_SYMBOLIZE,
	       OPT_SOURCES, OPT_FLIGHT, OPT_MAX_WINDOW, OPT_TRIGGER,
	       OPT_ARCHIVE, OPT_LIVE_ARCHIVE, OPT_CHUNK_MS, OPT_CHUNK_BYTES,
	       OPT_CHUNK_RECORDS, OPT_FLUSH_MS, OPT_READY_FILE };
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "ring-size", required_argument, NULL, 'm' },
		{ "skip-idle", no_argument, NULL, OPT_SKIP_IDLE },
		{ "no-tasks", no_argument, NULL, OPT_NO_TASKS },
		{ "no-mmap", no_argument, NULL, OPT_NO_MMAP },
		{ "no-ksyms", no_argument, NULL, OPT_NO_KSYMS },
		{ "symbolize", no_argument, NULL, OPT_SYMBOLIZE },
		{ "flight-recorder", required_argument, NULL, OPT_FLIGHT },
		{ "max-window-bytes", required_argument, NULL, OPT_MAX_WINDOW },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "archive", no_argument, NULL, OPT_ARCHIVE },
		{ "live-archive", no_argument, NULL, OPT_LIVE_ARCHIVE },
		{ "chunk-ms", required_argument, NULL, OPT_CHUNK_MS },
		{ "chunk-bytes", required_argument, NULL, OPT_CHUNK_BYTES },
		{ "chunk-records", required_argument, NULL, OPT_CHUNK_RECORDS },
		{ "flush-ms", required_argument, NULL, OPT_FLUSH_MS },
		{ "max-buffered", required_argument, NULL, OPT_MAX_BUFFERED },
		{ "linger", required_argument, NULL, OPT_LINGER },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "reconnect", no_argument, NULL, OPT_RECONNECT },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "sources", required_argument, NULL, OPT_SOURCES },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "ready-file", required_argument, NULL, OPT_READY_FILE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	size_t tb = 0;
	uint64_t size;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->max_window_bytes = DEFAULT_WINDOW_BYTES;
	o->cfg.size = sizeof(o->cfg);
	o->cfg.flags = FXTPROF_CFG_DEFAULT;
	o->linger = 5;
	o->max_buffered = SINK_DEFAULT_MAX_BUFFERED;
	optind = 1;
	while ((c = getopt_long(argc, argv, "F:C:d:g:m:o:qh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'F':
			v = strtoul(optarg, &end, 10);
			if (*end || v < FXTPROF_MIN_FREQ || v > FXTPROF_MAX_FREQ)
				return reader_err(-EINVAL, "bad frequency '%s'",
						  optarg);
			o->cfg.freq_hz = (uint32_t)v;
			break;
		case 'C':
			if (parse_cpu_list(optarg, o->cpumask, 16))
				return reader_err(-EINVAL, "bad CPU list '%s'",
						  optarg);
			o->cfg.cpumask_ptr = (uintptr_t)o->cpumask;
			o->cfg.cpumask_len = sizeof(o->cpumask);	/* <= MAX */
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || !(o->duration > 0) || o->duration > 1e7)
				return reader_err(-EINVAL, "bad duration '%s'",
						  optarg);
			break;
		case 'g':
			o->cfg.flags &= ~(FXTPROF_CFG_KSTACK | FXTPROF_CFG_USTACK);
			if (strstr(optarg, "kernel"))
				o->cfg.flags |= FXTPROF_CFG_KSTACK;
			if (strstr(optarg, "user"))
				o->cfg.flags |= FXTPROF_CFG_USTACK;
			if (!(o->cfg.flags & (FXTPROF_CFG_KSTACK |
					      FXTPROF_CFG_USTACK)) &&
			    strcmp(optarg, "none"))
				return reader_err(-EINVAL,
						  "bad --call-graph '%s'", optarg);
			break;
		case OPT_MAX_STACK:
			v = strtoul(optarg, &end, 10);
			if (*end || !v || v > FXTPROF_MAX_STACK_DEPTH)
				return reader_err(-EINVAL, "bad --max-stack '%s'",
						  optarg);
			o->cfg.kstack_depth = o->cfg.ustack_depth = (uint16_t)v;
			break;
		case 'm':
			if (reader_parse_size(optarg, &size))
				return reader_err(-EINVAL, "bad ring size '%s'",
						  optarg);
			o->cfg.ring_size = size;
			break;
		case OPT_SKIP_IDLE:
			o->cfg.flags |= FXTPROF_CFG_SKIP_IDLE;
			break;
		case OPT_NO_TASKS:
			o->cfg.flags &= ~(FXTPROF_CFG_TASKS | FXTPROF_CFG_SNAPSHOT);
			break;
		case OPT_NO_MMAP:
			o->no_mmap = true;
			break;
		case OPT_NO_KSYMS:
			o->no_ksyms = true;
			break;
		case OPT_MAX_BUFFERED:
			if (reader_parse_size(optarg, &o->max_buffered) ||
			    o->max_buffered < 4096)
				return reader_err(-EINVAL,
						  "bad --max-buffered '%s'", optarg);
			break;
		case OPT_ARCHIVE:
			o->archive = true;
			break;
		case OPT_LIVE_ARCHIVE:
			o->archive = o->archive_opts.live = true;
			break;
		case OPT_CHUNK_MS:
		case OPT_FLUSH_MS:
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !v || v > 3600000)
				return reader_err(-EINVAL, "bad --%s '%s' (milliseconds, 1 to 3600000)",
						  c == OPT_CHUNK_MS ? "chunk-ms" : "flush-ms",
						  optarg);
			if (c == OPT_CHUNK_MS)
				o->archive_opts.window_ns = v * 1000000ull;
			else
				o->archive_flush_ms = (unsigned int)v;
			break;
		case OPT_CHUNK_BYTES: {
			uint64_t sz;

			if (reader_parse_size(optarg, &sz) || sz < 4096 ||
			    sz > ARCHIVE_MAX_CHUNK_BYTES / 2)
				return reader_err(-EINVAL, "bad --chunk-bytes '%s' (4K to %uM)",
						  optarg, ARCHIVE_MAX_CHUNK_BYTES >> 21);
			o->archive_opts.max_bytes = (uint32_t)sz;
			break;
		}
		case OPT_CHUNK_RECORDS:
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !v || v > 10000000)
				return reader_err(-EINVAL, "bad --chunk-records '%s' (1 to 10000000)",
						  optarg);
			o->archive_opts.max_records = (uint32_t)v;
			break;
		case OPT_LINGER:
			o->linger = strtod(optarg, &end);
			if (*end || o->linger < 0 || o->linger > 3600)
				return reader_err(-EINVAL, "bad --linger '%s'",
						  optarg);
			break;
		case OPT_DEVICE:
			o->device = optarg;
			break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "auto"))
				o->source = SOURCE_AUTO;
			else if (!strcmp(optarg, "module"))
				o->source = SOURCE_MODULE;
			else if (!strcmp(optarg, "bpf"))
				o->source = SOURCE_BPF;
			else
				return reader_err(-EINVAL, "bad --source '%s' "
						  "(module, bpf or auto)", optarg);
			break;
		case OPT_SOURCES:
			o->sources = optarg;
			break;
		case OPT_MODE:
			if (reader_parse_mode(optarg, &o->file_mode))
				return reader_err(-EINVAL, "bad --mode '%s'",
						  optarg);
			break;
		case OPT_RECONNECT:
			o->reconnect = true;
			break;
		case OPT_SYMBOLIZE:
			o->symbolize = true;
			break;
		case OPT_FLIGHT:
			o->flight_secs = strtod(optarg, &end);
			if (*end || !(o->flight_secs >= 0.01) ||
			    o->flight_secs > 86400)
				return reader_err(-EINVAL, "bad --flight-recorder '%s' (seconds, 0.01 to 86400)",
						  optarg);
			break;
		case OPT_MAX_WINDOW:
			if (reader_parse_size(optarg, &o->max_window_bytes) ||
			    o->max_window_bytes < FLIGHT_MIN_BYTES)
				return reader_err(-EINVAL, "bad --max-window-bytes '%s' (at least %uM)",
						  optarg, FLIGHT_MIN_BYTES >> 20);
			break;
		case OPT_TRIGGER: {
			size_t n = strlen(optarg) + 1;
			char *p, *save = NULL;

			if (tb + n > sizeof(o->trigger_buf))
				return reader_err(-E2BIG, "--trigger: too many names");
			p = memcpy(o->trigger_buf + tb, optarg, n);
			tb += n;
			for (p = strtok_r(p, ",", &save); p;
			     p = strtok_r(NULL, ",", &save)) {
				if (!cmd_trigger_name_ok(p))
					return reader_err(-EINVAL, "bad --trigger name '%s' (1..%d characters of A-Z a-z 0-9 . _ -)",
							  p, FXTPROF_TRIGGER_NAME_MAX);
				if (o->ntriggers == MAX_TRIGGERS)
					return reader_err(-E2BIG, "--trigger: at most %d names",
							  MAX_TRIGGERS);
				o->triggers[o->ntriggers++] = p;
			}
			break;
		}
		case 'o':
			o->uri = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_READY_FILE:
			o->ready_file = optarg;
			break;
		case 'h':
			record_usage(stdout);
			return 1;
		default:
			record_usage(stderr);
			return -EINVAL;
		}
	}
	/* The URI is the one operand, or -o's argument (as perf record's). */
	if (optind != argc - (o->uri ? 0 : 1)) {
		record_usage(stderr);
		return -EINVAL;
	}
	if (!o->uri)
		o->uri = argv[optind];
	if (sink__is_archive_uri(o->uri))
		o->archive = true;
	o->archive_opts.stream = ARCHIVE_STREAM_ALL;
	if (o->archive) {
		if (netaddr__is_socket_uri(o->uri) || !strcmp(o->uri, "-"))
			return reader_err(-EINVAL, "an archive is written to a file, not %s",
					  o->uri);
		if (o->flight_secs || o->symbolize || o->reconnect)
			return reader_err(-EINVAL, "an archive takes none of --flight-recorder, --symbolize and --reconnect");
	}
	if (o->ntriggers && !o->flight_secs)
		return reader_err(-EINVAL, "--trigger needs --flight-recorder");
	if (o->flight_secs) {
		if (!symbolize_path(o->uri))
			return reader_err(-EINVAL, "--flight-recorder writes snapshot files: %s is not a directory or a file pattern",
					  o->uri);
		if (o->symbolize || o->reconnect)
			return reader_err(-EINVAL, "--flight-recorder takes neither --symbolize nor --reconnect");
	}
	if (o->symbolize) {
#ifndef FXTPROF_HAVE_SYMBOLS
		return reader_err(-EOPNOTSUPP, "--symbolize is not in this "
				  "build (it needs libdw): run fxtprof "
				  "symbolize on the host");
#endif
		if (!symbolize_path(o->uri))
			return reader_err(-EINVAL, "--symbolize needs a file "
					  "output, not %s: for a stream, run "
					  "fxtprof symbolize where it is "
					  "received", o->uri);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The source: the module's rings or the eBPF programs                 */
/* ------------------------------------------------------------------ */

static const char *source_name(enum record_source s)
{
	return s == SOURCE_BPF ? "bpf" : "module";
}

/* Open and configure the chosen source; 0 or a reported -errno. */
static int source_open(struct recorder *r)
{
	const struct record_opts *o = r->opts;
	const char *dev = o->device ? o->device : FXTPROF_DEVICE;
	struct fxtprof_config cfg;
	int ret;

	r->source = o->source;
	if (r->source == SOURCE_AUTO) {
		r->source = access(dev, F_OK) ? SOURCE_BPF : SOURCE_MODULE;
		if (!o->quiet)
			fprintf(stderr, "fxtprof: source %s (%s %s)\n",
				source_name(r->source), dev,
				r->source == SOURCE_BPF ? "does not exist" :
							  "exists");
	}
	cfg = o->cfg;
	if (r->source == SOURCE_BPF) {
		/* Annotations need the module's device: not in its default. */
		cfg.flags &= ~FXTPROF_CFG_ANNOTATE;
		if (o->sources && (ret = sources_resolve(NULL, o->sources,
							 &cfg.flags)))
			return ret;
		ret = bpf_source__open(&r->bsrc, NULL);
		if (!ret)
			ret = bpf_source__configure(&r->bsrc, &cfg);
		if (ret)
			return reader_err(ret, "%s", bpf_source__error(&r->bsrc));
		return 0;
	}
	ret = ring_source__open(&r->src, o->device);
	if (ret)
		return reader_err(ret, "cannot open %s (is fxtprof.ko loaded? "
				  "--source bpf needs no module)", dev);
	if (o->sources) {
		ret = sources_resolve(r->src.dev, o->sources, &cfg.flags);
		if (ret)
			return ret;
	}
	ret = ring_source__configure(&r->src, &cfg);
	if (ret)
		return reader_err(ret, "cannot configure the session");
	return 0;
}

static void source_close(struct recorder *r)
{
	if (r->source == SOURCE_BPF)
		bpf_source__close(&r->bsrc);
	else
		ring_source__close(&r->src);
}

static int source_fd(const struct recorder *r)
{
	return r->source == SOURCE_BPF ? bpf_source__fd(&r->bsrc) :
					 ring_source__fd(&r->src);
}

static int source_start(struct recorder *r)
{
	int ret;

	if (r->source != SOURCE_BPF)
		return ring_source__start(&r->src);
	ret = bpf_source__start(&r->bsrc);
	if (ret)
		reader_err(ret, "%s", bpf_source__error(&r->bsrc));
	return ret;
}

static int source_stop(struct recorder *r)
{
	return r->source == SOURCE_BPF ? bpf_source__stop(&r->bsrc) :
					 ring_source__stop(&r->src);
}

/* *seq: the module's flush number; 0 for bpf, complete once drained. */
static int source_flush(struct recorder *r, __u64 *seq)
{
	*seq = 0;
	return r->source == SOURCE_BPF ? bpf_source__flush(&r->bsrc) :
					 ring_source__flush(&r->src, seq);
}

static bool source_flush_done(struct recorder *r, __u64 seq)
{
	return r->source == SOURCE_BPF || ring_source__flush_done(&r->src, seq);
}

static void source_stats(struct recorder *r, struct fxtprof_stats *total,
			 FILE *report)
{
	if (r->source == SOURCE_BPF)
		bpf_source__stats(&r->bsrc, total, report);
	else
		ring_source__stats(&r->src, total, report);
}

/* ------------------------------------------------------------------ */
/* Draining                                                            */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* The flight recorder's snapshots                                     */
/* ------------------------------------------------------------------ */

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
static int flight_check_uri(const char *base)
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

static void flight_request(struct recorder *r, const char *name, size_t len,
			   uint64_t ts)
{
	struct flight_req *q;

	if (r->npending == MAX_PENDING) {
		r->snapshots_missed++;
		reader_err(-EBUSY, "trigger '%.*s': %d snapshots are waiting already; not taken",
			   (int)len, name, MAX_PENDING);
		return;
	}
	q = &r->pending[r->npending++];
	memset(q, 0, sizeof(*q));
	memcpy(q->name, name, len < sizeof(q->name) ? len : sizeof(q->name) - 1);
	q->ts = ts;
	q->turn = r->turn;
}

/* One snapshot, synced; says what it holds.  0 or -errno (reported). */
static int flight_write(struct recorder *r, const struct flight_req *q)
{
	const struct record_opts *o = r->opts;
	uint64_t window = (uint64_t)(o->flight_secs * 1e9);
	uint64_t from = q->ts > window ? q->ts - window : 0, t0 = now_boottime();
	struct flight_snapshot_stats st;
	char path[PATH_MAX], stamp[32];
	unsigned int attempt = 1;
	int fd, ret;

	utc_stamp(stamp, sizeof(stamp));
	for (;;) {
		ret = snapshot_path(symbolize_path(o->uri), q->name, stamp,
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
	ret = flight_window__snapshot(r->win, fd, from, &st);
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
			(double)(now_boottime() - t0) / 1e6,
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
static void flight_service(struct recorder *r, bool all)
{
	unsigned int i, kept = 0;

	for (i = 0; i < r->npending; i++) {
		struct flight_req *q = &r->pending[i];

		if (!all && q->turn + 2 > r->turn) {
			r->pending[kept++] = *q;
			continue;
		}
		if (flight_write(r, q))
			r->snapshots_failed++;
		else
			r->snapshots++;
	}
	r->npending = kept;
}

/* The rings' records: the state's, and triggers noticed on the way. */
static int record_rec(void *ctx, const struct fxtprof_rec_hdr *rec)
{
	struct recorder *r = ctx;
	const struct fxtprof_trigger_rec *t = (const void *)rec;
	unsigned int i;

	stream_state__record(&r->state, rec);
	if (rec->type != FXTPROF_REC_TRIGGER || !r->win)
		return 0;
	for (i = 0; i < r->opts->ntriggers; i++) {
		const char *n = r->opts->triggers[i];

		if (strlen(n) == t->name_len && !memcmp(n, t->name, t->name_len)) {
			flight_request(r, t->name, t->name_len, t->hdr.time_ns);
			return 0;
		}
	}
	r->triggers_ignored++;
	return 0;
}

/* The in-band notices, before each turn's records; retried until taken. */
static void announce(struct recorder *r)
{
	uint64_t now = now_boottime();

	stream_state__announce_errors(&r->state, now);
	stream_state__announce_gap(&r->state, now);
}

static int drain_rings(struct recorder *r)
{
	unsigned int cpu;
	int ret;

	announce(r);
	/*
	 * Mappings first: a sample's mapping was created before the sample,
	 * so it is in the side-band by now and goes out ahead of it.
	 */
	if (r->perf.nr && !r->perf_broken) {
		ret = perf_mmap_source__drain(&r->perf, stream_state__record,
					      &r->state);
		if (ret) {
			/* Said once; the recording goes on without it. */
			reader_err(ret, "a perf side-band ring is corrupt: mappings made from now on will be missing");
			r->perf_broken = true;
		}
	}
	if (r->source == SOURCE_BPF) {
		ret = bpf_source__drain(&r->bsrc, record_rec, r, &cpu);
		if (ret < 0)
			return reader_err(ret, "%s (CPU %u)",
					  bpf_source__error(&r->bsrc), cpu);
	} else {
		ret = ring_source__drain(&r->src, record_rec, r, &cpu);
		if (ret < 0)
			return reader_err(ret, "ring of CPU %u is corrupt", cpu);
	}
	sink__flush(r->out);
	if (r->flush_pending && source_flush_done(r, r->flush_seq)) {
		r->flush_pending = false;
		if (!r->opts->quiet)
			fprintf(stderr, "fxtprof: flush %llu complete after %.3f ms\n",
				(unsigned long long)r->flush_seq,
				(double)(now_boottime() - r->flush_ns) / 1e6);
	}
	r->turn++;
	if (r->npending)
		flight_service(r, false);
	return 0;
}

/*
 * SIGUSR1: everything committed until now goes to the output, and the
 * recording goes on.  A flush asked for while one is pending supersedes
 * it: its marker comes later on every ring.
 */
static void request_flush(struct recorder *r)
{
	uint64_t now = now_boottime();
	__u64 seq;
	int ret = source_flush(r, &seq);

	if (ret) {
		reader_err(ret, "flush failed; recording goes on");
		return;
	}
	if (!r->opts->quiet)
		fprintf(stderr, "fxtprof: flush %llu requested (SIGUSR1)\n",
			(unsigned long long)seq);
	r->flush_pending = true;
	r->flush_seq = seq;
	r->flush_ns = now;
	if (drain_rings(r))
		r->stop = true;
}

/* ------------------------------------------------------------------ */
/* Event handlers                                                      */
/* ------------------------------------------------------------------ */

static void arm_poll(struct recorder *r)
{
	struct io_uring_sqe *sqe = evloop__sqe(&r->loop, &r->poll_h);

	if (sqe)
		io_uring_prep_poll_multishot(sqe, source_fd(r), POLLIN);
}

static void arm_tick(struct recorder *r)
{
	struct io_uring_sqe *sqe = evloop__sqe(&r->loop, &r->tick_h);

	r->tick.tv_sec = 0;
	r->tick.tv_nsec = TICK_MS * 1000000ll;
	if (sqe)
		io_uring_prep_timeout(sqe, &r->tick, 0, 0);
}

static void arm_signal(struct recorder *r)
{
	struct io_uring_sqe *sqe = evloop__sqe(&r->loop, &r->sig_h);

	if (sqe)
		io_uring_prep_read(sqe, r->sigfd, &r->si, sizeof(r->si), 0);
}

static void on_poll(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct recorder *r = (void *)((char *)h - offsetof(struct recorder,
							    poll_h));

	if (cqe->res < 0 && cqe->res != -ECANCELED) {
		r->error = reader_err(cqe->res, "poll on the device failed");
		r->stop = true;
		return;
	}
	if (drain_rings(r))
		r->stop = true;
	if (!(cqe->flags & IORING_CQE_F_MORE) && !r->stop)
		arm_poll(r);
}

static void print_status(struct recorder *r, uint64_t now)
{
	const struct sink_stats *os = sink__stats(r->out);
	uint64_t samples = r->state.st.records[FXTPROF_REC_SAMPLE];
	double dt = (double)(now - r->last_status_ns) / 1e9;

	double out_mb = (double)os->sent_bytes / 1e6;

	/* A flight recorder sends nothing: what its window holds instead. */
	if (r->win) {
		struct flight_window_stats ws;

		flight_window__stats(r->win, &ws);
		out_mb = (double)ws.held_bytes / 1e6;
	}
	fprintf(stderr, "\r\033[Kfxtprof: %.0f samples/s, kernel lost %" PRIu64
		" records, %s %.1f MB, dropped %" PRIu64,
		dt > 0 ? (double)(samples - r->last_samples) / dt : 0.0,
		r->state.st.kernel_lost_records, r->win ? "window" : "out",
		out_mb, os->dropped_records);
	r->last_samples = samples;
	r->last_status_ns = now;
}

static void on_tick(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct recorder *r = (void *)((char *)h - offsetof(struct recorder,
							    tick_h));
	uint64_t now = now_boottime();

	(void)cqe;
	if (drain_rings(r))
		r->stop = true;
	if (r->status_line && now - r->last_status_ns >= 1000000000u)
		print_status(r, now);
	if (r->opts->duration > 0 &&
	    (double)(now - r->start_ns) >= r->opts->duration * 1e9)
		r->stop = true;
	if (!r->stop)
		arm_tick(r);
}

static void on_signal(struct ev_handler *h, const struct io_uring_cqe *cqe)
{
	struct recorder *r = (void *)((char *)h - offsetof(struct recorder,
							    sig_h));

	if (cqe->res == (int)sizeof(r->si) && r->si.ssi_signo == SIGUSR1) {
		request_flush(r);
		if (!r->stop)
			arm_signal(r);
		return;
	}
	if (cqe->res == (int)sizeof(r->si) && r->si.ssi_signo == SIGUSR2 &&
	    r->win) {
		flight_request(r, "sigusr2", 7, now_boottime());
		if (!r->stop)
			arm_signal(r);
		return;
	}
	r->stop = true;
}

/* ------------------------------------------------------------------ */
/* Session                                                             */
/* ------------------------------------------------------------------ */

static int setup_signals(struct recorder *r, sigset_t *old)
{
	sigset_t set;

	r->sigfd = reader_signalfd(old);
	if (r->sigfd < 0)
		return r->sigfd;
	/*
	 * The stop signals, SIGUSR1 for a flush and, with the flight
	 * recorder, SIGUSR2 for a snapshot (the fd's mask is replaced, not
	 * added to).
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	if (r->win)
		sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, NULL) ||
	    signalfd(r->sigfd, &set, SFD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

/*
 * Stop, then flush: the marker is the last record of every ring, and
 * once the drains pass it on every ring nothing committed is left.  The
 * flush also writes any pending LOST record, so the counts end exact.
 */
static int stop_and_flush(struct recorder *r)
{
	uint64_t deadline;
	__u64 seq;
	int ret;

	ret = source_stop(r);
	if (ret)
		return reader_err(ret, "cannot stop the session");
	ret = source_flush(r, &seq);
	if (ret)
		return reader_err(ret, "cannot flush the session");
	deadline = now_boottime() + 5 * 1000000000ull;
	for (;;) {
		ret = drain_rings(r);
		if (ret)
			return ret;
		if (source_flush_done(r, seq))
			return 0;
		if (now_boottime() >= deadline)
			return reader_err(-ETIMEDOUT, "flush %llu at stop did not complete: the end of the recording is missing",
					  (unsigned long long)seq);
		evloop__run_once(&r->loop, TICK_MS);
	}
}

/* Stop sampling and drain to the very end: nothing committed is lost. */
static int finish(struct recorder *r, struct fxtprof_stats *total)
{
	uint64_t deadline;
	int ret;

	ret = stop_and_flush(r);
	if (ret)
		return ret;
	/* Triggers seen in the last turns: every ring is drained now. */
	if (r->npending)
		flight_service(r, true);

	source_stats(r, total, r->opts->quiet ? NULL : stderr);
	stream_state__final_stats(&r->state, now_boottime(), total);
	/*
	 * The last notice carries the final totals: wait (within the linger
	 * time) for room to write it, so the stream's count is exact.
	 */
	deadline = now_boottime() + (uint64_t)(r->opts->linger * 1e9);
	for (;;) {
		announce(r);
		sink__flush(r->out);
		if (!sink__gap_records(r->out) || sink__error(r->out) ||
		    now_boottime() >= deadline)
			break;
		evloop__run_once(&r->loop, TICK_MS);
	}

	/* Flush and close, bounded: a stuck peer must not hold us. */
	if (sink__linger(r->out, (int64_t)(r->opts->linger * 1e3)) &&
	    !r->opts->quiet)
		fprintf(stderr, "fxtprof: output not drained after %.1f s\n",
			r->opts->linger);
	return 0;
}

/*
 * --ready-file: the session samples and its first drain is armed, so a
 * workload started from now on is recorded.  Written beside and renamed,
 * so that whoever waits for the file never reads it half written.
 */
static int write_ready_file(const char *path)
{
	char tmp[PATH_MAX], pid[32];
	int fd, n, ret = 0;
	ssize_t w;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return reader_err(-ENAMETOOLONG, "--ready-file: %s", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return reader_err(-errno, "--ready-file: cannot create %s",
				  tmp);
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	w = write(fd, pid, (size_t)n);
	if (w != n)
		ret = w < 0 ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return reader_err(ret, "--ready-file: cannot write %s", path);
	}
	return 0;
}

/* The reader's own cost: make bench-reader quotes this line. */
static void reader_cpu_line(double secs)
{
	struct rusage ru;
	double u, k;

	if (getrusage(RUSAGE_SELF, &ru) || !(secs > 0))
		return;
	u = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	k = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	fprintf(stderr, "fxtprof: reader CPU %.3f s user + %.3f s system = "
		"%.2f%% of one core over %.1f s\n", u, k,
		100.0 * (u + k) / secs, secs);
}

/* ------------------------------------------------------------------ */
/* What symbolization needs                                            */
/* ------------------------------------------------------------------ */

static int ksym_lookup(void *ctx, uint64_t ip, struct stream_ksym *out)
{
	const struct kernel_info *ki = ctx;
	const struct ksym_entry *e = kernel_info__lookup(ki, ip);

	if (!e)
		return 0;
	out->addr = e->addr;
	out->size = e->size;
	out->name = kernel_info__name(ki, e);
	return 1;
}

/*
 * Before sampling starts: the kernel's images, the side-band events for
 * mappings to come, then the mappings that exist (in that order, so that
 * none falls between the sweep and the events).
 */
static void capture_symbols(struct recorder *r)
{
	const struct record_opts *o = r->opts;
	int ret, n;

	ret = kernel_info__load(&r->kinfo, NULL);
	if (ret) {
		reader_err(ret, "cannot read /proc/kallsyms: no kernel images or symbols in the stream");
	} else if (r->kinfo.restricted) {
		fprintf(stderr, "fxtprof: /proc/kallsyms shows no addresses (kptr_restrict, or no CAP_SYSLOG): no kernel images or symbols in the stream\n");
	} else {
		n = kernel_info__write_kmods(&r->kinfo, NULL, now_boottime(),
					     stream_state__record, &r->state);
		r->kmods = n > 0 ? (uint64_t)n : 0;
		if (!o->no_ksyms)
			stream_state__set_ksym_lookup(&r->state, ksym_lookup,
						      &r->kinfo);
	}
	if (o->no_mmap)
		return;
	ret = perf_mmap_source__open(&r->perf, 0);
	if (ret)
		reader_err(ret, "cannot open perf side-band events (needs CAP_PERFMON or perf_event_paranoid <= 0): mappings made while recording will be missing");
	ret = proc_maps__sweep(NULL, now_boottime(), stream_state__record,
			       &r->state, &r->sweep);
	if (ret)
		reader_err(ret, "cannot read /proc: no mappings at start");
}

static void symbols_summary(struct recorder *r)
{
	const struct stream_stats *ts = &r->state.st;

	if (r->opts->no_mmap)
		fprintf(stderr, "fxtprof: mappings: off (--no-mmap)\n");
	else
		fprintf(stderr, "fxtprof: mappings: %" PRIu64 " written (%"
			PRIu64 " at start, %" PRIu64 " while recording), "
			"lost mapping records: %" PRIu64 "%s\n",
			ts->records[FXTPROF_REC_MMAP], r->sweep.mappings,
			r->perf.mappings, r->perf.lost,
			r->perf.nr ? "" : " (no side-band: later mappings missing)");
	fprintf(stderr, "fxtprof: kernel: %" PRIu64 " images, %" PRIu64
		" symbols written%s", r->kmods, ts->ksyms,
		r->opts->no_ksyms ? " (--no-ksyms)" :
		r->kinfo.restricted ? " (kallsyms restricted)" : "");
	if (ts->ksym_misses)
		fprintf(stderr, ", %" PRIu64 " kernel frames in no text symbol",
			ts->ksym_misses);
	fputc('\n', stderr);
}

static void flight_summary(struct recorder *r)
{
	struct flight_window_stats ws;

	flight_window__stats(r->win, &ws);
	fprintf(stderr, "fxtprof: flight recorder: %" PRIu64 " snapshots written"
		" to %s, %" PRIu64 " failed, %" PRIu64 " not taken; %" PRIu64
		" triggers not in --trigger\n", r->snapshots, r->opts->uri,
		r->snapshots_failed, r->snapshots_missed, r->triggers_ignored);
	fprintf(stderr, "fxtprof: window: held at most %.1f MB (bound %.1f MB"
		"%s), %" PRIu64 " segments; evicted %" PRIu64 " records by age,"
		" %" PRIu64 " for the bound; refused %" PRIu64 "\n",
		(double)ws.held_max / 1e6, (double)r->opts->max_window_bytes / 1e6,
		ws.over_bound ? ", exceeded by one segment's names and symbols" : "",
		ws.segments_begun, ws.evicted_time, ws.evicted_bytes, ws.refused);
}

static void summary(struct recorder *r, const struct fxtprof_stats *total)
{
	const struct stream_stats *ts = &r->state.st;
	double secs = (double)(now_boottime() - r->start_ns) / 1e9;

	if (r->status_line)
		fputc('\n', stderr);
	fprintf(stderr,
		"fxtprof: %.1f s: %" PRIu64 " samples, %" PRIu64 " forks, %"
		PRIu64 " execs, %" PRIu64 " exits, %" PRIu64 " threads at start\n",
		secs, ts->records[FXTPROF_REC_SAMPLE],
		ts->records[FXTPROF_REC_FORK], ts->records[FXTPROF_REC_EXEC],
		ts->records[FXTPROF_REC_EXIT], ts->records[FXTPROF_REC_SNAPSHOT]);
	if (ts->records[FXTPROF_REC_SWITCH] || ts->records[FXTPROF_REC_WAKEUP])
		fprintf(stderr, "fxtprof: %" PRIu64 " context switches, %"
			PRIu64 " wakeups\n", ts->records[FXTPROF_REC_SWITCH],
			ts->records[FXTPROF_REC_WAKEUP]);
	/* The bpf source's one ring buffer is a kernel ring too. */
	if (total->lost_records)
		fprintf(stderr, "fxtprof: kernel rings lost %llu records"
			" (%llu bytes); try a larger -m\n",
			(unsigned long long)total->lost_records,
			(unsigned long long)total->lost_bytes);
	else
		fprintf(stderr, "fxtprof: kernel rings lost nothing\n");
	if (ts->encode_errors)
		fprintf(stderr, "fxtprof: %" PRIu64 " records could not be"
			" encoded (last: %s); they are not output drops\n",
			ts->encode_errors, strerror(-ts->last_encode_error));
	else
		fprintf(stderr, "fxtprof: encoder errors: none\n");
	symbols_summary(r);
	if (r->win)
		flight_summary(r);
	else
		cmd_delivery_summary(r->out, r->opts->uri, false);
	if (total->handler_calls)
		fprintf(stderr, "fxtprof: sampling handler %.1f us on average\n",
			(double)total->handler_ns / (double)total->handler_calls / 1e3);
	reader_cpu_line(secs);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts opts;
	struct recorder r;
	struct sink_opts sopts = { 0 };
	struct fxtprof_stats total;
	sigset_t oldmask;
	char err[256];
	int ret, status = CMD_EXIT_OK;

	ret = parse_opts(argc, argv, &opts);
	if (ret)
		return ret > 0 ? CMD_EXIT_OK : CMD_EXIT_USAGE;

	memset(&r, 0, sizeof(r));
	r.opts = &opts;
	r.sigfd = -1;
	r.poll_h.complete = on_poll;
	r.tick_h.complete = on_tick;
	r.sig_h.complete = on_signal;
	r.status_line = !opts.quiet && isatty(STDERR_FILENO);

	ret = source_open(&r);
	if (ret)
		goto out_close_source;
	ret = evloop__init(&r.loop, 64);
	if (ret) {
		reader_err(ret, "cannot set up io_uring");
		goto out_close_source;
	}
	sopts.max_buffered = opts.max_buffered;
	sopts.reconnect = opts.reconnect;
	sopts.file_mode = opts.file_mode;
	sopts.archive = opts.archive;
	sopts.archive_opts = opts.archive_opts;
	sopts.archive_flush_ms = opts.archive_flush_ms;
	if (opts.flight_secs) {
		struct flight_window_opts wo = {
			.window_ns = (uint64_t)(opts.flight_secs * 1e9),
			.max_bytes = opts.max_window_bytes,
		};

		ret = flight_check_uri(symbolize_path(opts.uri));
		if (!ret) {
			ret = sink__open_window(&r.out, &wo);
			if (ret)
				reader_err(ret, "cannot set up the flight recorder's window");
		}
		if (ret)
			goto out_fini_loop;
		r.win = sink__window(r.out);
	} else {
		ret = sink__open(&r.out, opts.uri, &r.loop, &sopts, err,
				 sizeof(err));
		if (ret) {
			reader_err(ret, "%s", err);
			goto out_fini_loop;
		}
	}
	ret = fxt_encoder__new(&r.enc, r.out);
	if (ret) {
		reader_err(ret, "cannot create the FXT encoder");
		goto out_close_sink;
	}
	stream_state__init(&r.state, fxt_encoder__encoder(r.enc), r.out);
	stream_state__anchor_wall_clock(&r.state);
	ret = stream_state__sync(&r.state);
	if (ret) {
		reader_err(ret, "cannot write the trace prologue");
		goto out_free_encoder;
	}
	ret = setup_signals(&r, &oldmask);
	if (ret) {
		reader_err(ret, "cannot set up signals");
		goto out_free_encoder;
	}

	capture_symbols(&r);
	ret = source_start(&r);
	if (ret) {
		reader_err(ret, "cannot start the session");
		goto out_restore_signals;
	}
	r.start_ns = r.last_status_ns = now_boottime();
	arm_poll(&r);
	arm_tick(&r);
	arm_signal(&r);
	if (opts.ready_file) {
		ret = evloop__submit(&r.loop);
		if (ret)
			r.error = reader_err(ret, "cannot submit to io_uring");
		else
			r.error = write_ready_file(opts.ready_file);
		r.stop = r.error != 0;
	}
	while (!r.stop) {
		ret = evloop__run_once(&r.loop, -1);
		if (ret < 0) {
			r.error = reader_err(ret, "event loop failed");
			break;
		}
	}
	ret = finish(&r, &total);
	if (!opts.quiet)
		summary(&r, &total);
	if (!ret)
		ret = r.error;
	status = ret ? CMD_EXIT_FAILED : CMD_EXIT_OK;
	/*
	 * A recording with holes, whether the encoder or the output made
	 * them, is not a success: the output is incomplete.
	 */
	if (!ret && (r.state.st.encode_errors || !sink__complete(r.out) ||
		     r.snapshots_failed || r.snapshots_missed)) {
		if (opts.quiet)
			reader_err(-EIO, "the output to %s is incomplete",
				   opts.uri);
		status = CMD_EXIT_INCOMPLETE;
	}

out_restore_signals:
	close(r.sigfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out_free_encoder:
	perf_mmap_source__close(&r.perf);
	kernel_info__fini(&r.kinfo);
	stream_state__fini(&r.state);
	fxt_encoder__free(r.enc);
out_close_sink:
	sink__close(r.out);
out_fini_loop:
	evloop__fini(&r.loop);
out_close_source:
	source_close(&r);
	if (ret)
		return CMD_EXIT_FAILED;
#ifdef FXTPROF_HAVE_SYMBOLS
	/* After sink__close(): the file is whole and synced. */
	if (opts.symbolize && symbolize_recording(&opts) != CMD_EXIT_OK)
		return CMD_EXIT_FAILED;
#endif
	return status;
}

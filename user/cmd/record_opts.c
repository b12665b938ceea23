// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_opts.c - `fxtprof record`'s command line: its usage, the parser
 * and the checks across options, and the table of record sources that
 * --source names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "opt_value.h"
#include "push_cli.h"
#include "record_flight.h"
#include "record_opts.h"
#include "sink/sink.h"
#include "source/source.h"
#include "transport/netaddr.h"

/*
 * The record sources, by the name --source gives; auto takes the first
 * whose probe says yes, in this order.
 */
static const struct source_ops *const record_sources[] = {
	&ring_source_ops,
	&bpf_source_ops,
};

#define NR_RECORD_SOURCES \
	(sizeof(record_sources) / sizeof(record_sources[0]))

/* --source NAME: *ops, NULL for auto; or -EINVAL, said. */
static int find_source(const char *name, const struct source_ops **ops)
{
	char names[128] = "";
	size_t n = 0;
	unsigned int i;

	*ops = NULL;
	if (!strcmp(name, "auto"))
		return 0;
	for (i = 0; i < NR_RECORD_SOURCES; i++) {
		if (!strcmp(name, record_sources[i]->name)) {
			*ops = record_sources[i];
			return 0;
		}
		if (n < sizeof(names))
			n += (size_t)snprintf(names + n, sizeof(names) - n,
					      "%s, ", record_sources[i]->name);
	}
	/* "module, bpf or auto" */
	if (n >= 2 && n < sizeof(names))
		names[n - 2] = 0;
	return reader_err(-EINVAL, "bad --source '%s' (%s or auto)", name,
			  names);
}

const struct source_ops *record_opts__source(const struct record_opts *o)
{
	const struct source_opts so = { .device = o->device };
	const struct source_ops *ops = NULL;
	char why[PATH_MAX + 32] = "";
	unsigned int i;

	if (o->source)
		return o->source;
	for (i = 0; i < NR_RECORD_SOURCES; i++) {
		ops = record_sources[i];
		if (!ops->probe || ops->probe(&so, why, sizeof(why)))
			break;
	}
	if (!o->quiet)
		fprintf(stderr, "fxtprof: source %s (%s)\n", ops->name, why);
	return ops;
}

/*
 * The rings' size when -m is not given: FXTPROF_DEFAULT_RING_SIZE (1 MiB)
 * a CPU up to 2.5 kHz, which holds about 3 s of deep stacks at a board's
 * 1 kHz; doubled for each doubling of the rate above it, up to
 * RECORD_MAX_DEFAULT_RING (4 MiB at 10 kHz held 4 s in the VM's
 * bench-memory); and that most for stack copies, 8 KiB or more a sample.
 * The rings are kernel memory for the whole recording, and each page the
 * reader has read stays in its resident set.
 */
#define RECORD_RING_STEP_HZ	2500
#define RECORD_MAX_DEFAULT_RING	(8u << 20)

/*
 * Waits shorter than this are not recorded by default: a busy machine
 * switches tens of thousands of times a second, mostly for microseconds,
 * and a profile of where time goes waiting loses little without them.
 */
#define RECORD_DEFAULT_OFFCPU_MIN_NS	1000000ull

static uint64_t default_ring_size(const struct fxtprof_config *c)
{
	uint32_t freq = c->freq_hz ? c->freq_hz : FXTPROF_DEFAULT_FREQ;
	uint64_t size = FXTPROF_DEFAULT_RING_SIZE;

	if (c->flags & FXTPROF_CFG_STACK_COPY)
		return RECORD_MAX_DEFAULT_RING;
	while (size < RECORD_MAX_DEFAULT_RING &&
	       size / FXTPROF_DEFAULT_RING_SIZE * RECORD_RING_STEP_HZ < freq)
		size *= 2;
	return size;
}

static void record_usage(FILE *f)
{
	char push_usage[2048] = "";
	FILE *pf = fmemopen(push_usage, sizeof(push_usage) - 1, "w");

	if (pf) {
		push_cli__usage(pf);
		fclose(pf);
	}
	fprintf(f,
"usage: fxtprof record [options] URI\n"
"       fxtprof record [options] -o URI\n"
"  URI: PATH, file:///PATH, - (stdout), tcp://HOST:PORT, unix:///PATH\n"
"  -F, --freq HZ          samples per second per CPU (%d..%d, default %d)\n"
"  -C, --cpu LIST         sample only these CPUs, e.g. 0,2-3 (default all)\n"
"  -d, --duration SECS    stop after SECS seconds (default: at SIGINT/SIGTERM)\n"
"  -g, --call-graph WHAT  stacks to record: kernel,user (default), kernel,\n"
"                         user or none; and how user stacks are walked:\n"
"                         cfi (default: unwind tables built from each\n"
"                         file's CFI, frame pointers where there are none)\n"
"                         or fp (frame pointers only), or dwarf[,SIZE]\n"
"                         (copy the registers and SIZE bytes of user\n"
"                         stack, default %uK, at most %uK, and unwind\n"
"                         them on the host; the module only); fp, cfi or\n"
"                         dwarf alone mean kernel,user\n"
"      --unwind-memory SIZE  unwind tables the source may hold (default\n"
"                         %uM); what does not fit is counted\n"
"      --max-stack N      frames per stack kind (1..%d, default %d)\n"
"  -m, --ring-size SIZE   ring bytes per CPU, power of two, K/M suffix\n"
"                         (default %uK up to 2.5 kHz, doubled for each\n"
"                         doubling of -F, at most %uK; that most with\n"
"                         dwarf)\n"
"      --skip-idle        do not record samples of idle CPUs\n"
"      --off-cpu          also record where threads wait: the stacks a\n"
"                         thread had when it left its CPU, with how long\n"
"                         it waited, in what state and who woke it (adds\n"
"                         sched.switch; the bpf source for now)\n"
"      --off-cpu-min TIME  the shortest wait recorded (ns, or with a unit:\n"
"                         us, ms, s; default 1ms)\n"
"      --no-tasks         no fork/exec/exit/rename records\n"
"      --no-mmap          no executable mappings (user frames cannot be\n"
"                         symbolized later)\n"
"      --no-ksyms         no kernel symbols (kernel frames stay addresses)\n"
"      --collect DIR      copy each mapped file that has a build id, while\n"
"                         its process lives, into DIR/.build-id/xx/rest\n"
"                         (files 0600, directories 0700), for report\n"
"                         --debug-dir DIR: a container's files, gone later;\n"
"                         the word 'stream' sends them inside the stream\n"
"                         instead, for receive --collect DIR (./stream is\n"
"                         a directory of that name)\n"
"      --collect-max SIZE --collect stream: send at most this many bytes\n"
"                         of files (default 256M); files past it are\n"
"                         skipped and counted\n"
"      --no-shared-stacks write every sample's frames (by default a file or\n"
"                         a socket gets each distinct stack once per segment,\n"
"                         samples naming it; readers other than fxtprof's\n"
"                         may want the Fuchsia sampler's one blob a sample)\n"
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
"  -v, --verbose          the summary also accounts for the recorder's\n"
"                         memory, part by part, as does each SIGUSR1\n"
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
"Pushing to Grafana Pyroscope (Documentation/receive.md, \"Fleet\"): with a\n"
"plain file URI, the file is also cut into intervals while it is written:\n"
"%s"
"\n"
"Signals: SIGINT or SIGTERM stop (with a flush: nothing committed is lost);\n"
"SIGUSR1 flushes and goes on: everything recorded until then reaches the\n"
"output, and a line on stderr says when (unless -q); with the flight\n"
"recorder, SIGUSR2 writes a snapshot of the window.\n"
"\n"
"Exit status: 0 when every record was delivered and confirmed (a socket\n"
"peer's acknowledgement, a synced file); 1 when the recording could not\n"
"start or stopped on an error; 2 for bad arguments; 3 when it ran to the\n"
"end but output was lost (dropped, unconfirmed, or the output failed),\n"
"or --push lost an interval (dropped, refused).\n"
"Records the kernel rings lost are reported, in the stream and here, and\n"
"do not change the status.\n",
		FXTPROF_MIN_FREQ, FXTPROF_MAX_FREQ, FXTPROF_DEFAULT_FREQ,
		FXTPROF_DEFAULT_STACK_COPY >> 10, FXTPROF_MAX_STACK_COPY >> 10,
		FXTPROF_DEFAULT_UNWIND_MEMORY >> 20, FXTPROF_MAX_STACK_DEPTH, FXTPROF_DEFAULT_STACK_DEPTH,
		FXTPROF_DEFAULT_RING_SIZE >> 10, RECORD_MAX_DEFAULT_RING >> 10,
		SINK_DEFAULT_MAX_BUFFERED >> 20,
		FXTPROF_DEVICE,
		(unsigned long long)(ARCHIVE_DEFAULT_WINDOW_NS / 1000000),
		ARCHIVE_DEFAULT_CHUNK_BYTES >> 10, ARCHIVE_DEFAULT_CHUNK_RECORDS,
		ARCHIVE_DEFAULT_FLUSH_MS, FLIGHT_DEFAULT_WINDOW_BYTES >> 20,
		FLIGHT_MIN_BYTES >> 20, push_usage);
}

/*
 * dwarf's optional SIZE: the token after it, if it starts with a digit.
 * *len becomes that token's length, 0 without one.
 */
static int parse_stack_copy_size(struct record_opts *o, const char *p,
				 size_t *len)
{
	char tok[32];
	uint64_t size;

	*len = 0;
	if (*p < '0' || *p > '9')
		return 0;
	*len = strcspn(p, ",");
	if (*len >= sizeof(tok))
		return -EINVAL;
	memcpy(tok, p, *len);
	tok[*len] = '\0';
	if (reader_parse_size(tok, &size) || !size || size % 8 ||
	    size > FXTPROF_MAX_STACK_COPY)
		return -EINVAL;
	o->stack_copy_size = (uint32_t)size;
	return 0;
}

/*
 * -g's list: the stacks (kernel, user, none) and the user walk (cfi, fp,
 * dwarf[,SIZE], which alone mean kernel,user as perf's --call-graph fp
 * does).
 */
static int parse_call_graph(struct record_opts *o, const char *list)
{
	uint32_t stacks = 0;
	bool walk = false, none = false;
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == 6 && !memcmp(p, "kernel", 6)) {
			stacks |= FXTPROF_CFG_KSTACK;
		} else if (len == 4 && !memcmp(p, "user", 4)) {
			stacks |= FXTPROF_CFG_USTACK;
		} else if (len == 4 && !memcmp(p, "none", 4)) {
			none = true;
		} else if (len == 3 && !memcmp(p, "cfi", 3)) {
			o->ustack_walk = RECORD_USTACK_TABLES;
			walk = true;
		} else if (len == 2 && !memcmp(p, "fp", 2)) {
			o->ustack_walk = RECORD_USTACK_FP;
			walk = true;
		} else if (len == 5 && !memcmp(p, "dwarf", 5)) {
			o->ustack_walk = RECORD_USTACK_DWARF;
			walk = true;
			p += len + (p[len] == ',');
			if (parse_stack_copy_size(o, p, &len))
				return -EINVAL;
			if (!len)
				continue;
		} else {
			return -EINVAL;
		}
		p += len + (p[len] == ',');
	}
	if (walk && !stacks && !none)
		stacks = FXTPROF_CFG_KSTACK | FXTPROF_CFG_USTACK;
	if (!stacks && !none)
		return -EINVAL;
	o->cfg.flags &= ~(FXTPROF_CFG_KSTACK | FXTPROF_CFG_USTACK);
	o->cfg.flags |= stacks;
	return 0;
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
const char *record_opts__path(const char *uri)
{
	if (!strncmp(uri, "file://", 7))
		return uri + 7;
	if (!strcmp(uri, "-") || strstr(uri, "://"))
		return NULL;
	return uri;
}

int record_opts__parse(struct record_opts *o, int argc, char **argv)
{
	enum { OPT_MAX_STACK = 256, OPT_SKIP_IDLE, OPT_NO_TASKS,
	       OPT_MAX_BUFFERED, OPT_LINGER, OPT_DEVICE, OPT_RECONNECT,
	       OPT_MODE, OPT_NO_MMAP, OPT_NO_KSYMS, OPT_SOURCE, OPT_SYMBOLIZE,
	       OPT_SOURCES, OPT_FLIGHT, OPT_MAX_WINDOW, OPT_TRIGGER,
	       OPT_ARCHIVE, OPT_LIVE_ARCHIVE, OPT_CHUNK_MS, OPT_CHUNK_BYTES,
	       OPT_CHUNK_RECORDS, OPT_FLUSH_MS, OPT_READY_FILE,
	       OPT_UNWIND_MEMORY, OPT_NO_SHARED_STACKS, OPT_OFF_CPU,
	       OPT_OFF_CPU_MIN, OPT_COLLECT, OPT_COLLECT_MAX };
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "unwind-memory", required_argument, NULL, OPT_UNWIND_MEMORY },
		{ "ring-size", required_argument, NULL, 'm' },
		{ "skip-idle", no_argument, NULL, OPT_SKIP_IDLE },
		{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
		{ "off-cpu-min", required_argument, NULL, OPT_OFF_CPU_MIN },
		{ "no-tasks", no_argument, NULL, OPT_NO_TASKS },
		{ "no-mmap", no_argument, NULL, OPT_NO_MMAP },
		{ "no-ksyms", no_argument, NULL, OPT_NO_KSYMS },
		{ "no-shared-stacks", no_argument, NULL, OPT_NO_SHARED_STACKS },
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
		{ "verbose", no_argument, NULL, 'v' },
		{ "ready-file", required_argument, NULL, OPT_READY_FILE },
		{ "collect", required_argument, NULL, OPT_COLLECT },
		{ "collect-max", required_argument, NULL, OPT_COLLECT_MAX },
		{ "help", no_argument, NULL, 'h' },
		PUSH_CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	size_t tb = 0;
	uint64_t size;
	char *end;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->max_window_bytes = FLIGHT_DEFAULT_WINDOW_BYTES;
	o->cfg.size = sizeof(o->cfg);
	o->cfg.flags = FXTPROF_CFG_DEFAULT;
	o->cfg.offcpu_min_ns = RECORD_DEFAULT_OFFCPU_MIN_NS;
	o->unwind_memory = FXTPROF_DEFAULT_UNWIND_MEMORY;
	o->linger = 5;
	o->max_buffered = SINK_DEFAULT_MAX_BUFFERED;
	push_opts__init(&o->push);
	o->push.sym.lines = true;
	o->push.sym.inlines = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "F:C:d:g:m:o:qvh", longopts,
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
			if (parse_call_graph(o, optarg))
				return reader_err(-EINVAL,
						  "bad --call-graph '%s'", optarg);
			break;
		case OPT_UNWIND_MEMORY:
			if (reader_parse_size(optarg, &size) ||
			    size > FXTPROF_MAX_UNWIND_MEMORY)
				return reader_err(-EINVAL,
						  "bad --unwind-memory '%s' (at most %uM)",
						  optarg,
						  FXTPROF_MAX_UNWIND_MEMORY >> 20);
			o->unwind_memory = size;
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
		case OPT_NO_SHARED_STACKS:
			o->no_shared_stacks = true;
			break;
		case OPT_MAX_BUFFERED:
			if (opt_value__size("max-buffered", optarg, 4096,
					    &o->max_buffered))
				return -EINVAL;
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
			if (opt_value__linger(optarg, &o->linger))
				return -EINVAL;
			break;
		case OPT_DEVICE:
			o->device = optarg;
			break;
		case OPT_SOURCE:
			ret = find_source(optarg, &o->source);
			if (ret)
				return ret;
			break;
		case OPT_SOURCES:
			o->sources = optarg;
			break;
		case OPT_OFF_CPU:
			o->off_cpu = true;
			break;
		case OPT_OFF_CPU_MIN: {
			uint64_t ns;

			if (opt_value__duration_ns("off-cpu-min", optarg, &ns))
				return -EINVAL;
			o->cfg.offcpu_min_ns = ns;
			break;
		}
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
				if (o->ntriggers == RECORD_MAX_TRIGGERS)
					return reader_err(-E2BIG, "--trigger: at most %d names",
							  RECORD_MAX_TRIGGERS);
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
		case 'v':
			o->verbose = true;
			break;
		case OPT_READY_FILE:
			o->ready_file = optarg;
			break;
		case OPT_COLLECT:
			o->collect_dir = optarg;
			break;
		case OPT_COLLECT_MAX:
			if (opt_value__size("collect-max", optarg, 1,
					    &o->collect_max))
				return 2;
			break;
		case 'h':
			record_usage(stdout);
			return 1;
		default:
			ret = push_cli__option(c, optarg, &o->push);
			if (!ret)
				break;
			if (ret == -ENOENT)
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
	if (o->collect_max && !record_opts__collect_stream(o))
		return reader_err(-EINVAL, "--collect-max bounds --collect stream");
	if (record_opts__collect_stream(o) && o->flight_secs)
		return reader_err(-EINVAL, "--collect stream sends the files in the stream: the flight recorder keeps a window, not files");
	/* The pusher tails the file as it grows: a plain FXT file. */
	if (o->push.url && (o->archive || o->flight_secs ||
			    !record_opts__path(o->uri)))
		return reader_err(-EINVAL, "--push reads the recording's file "
				  "as it is written: it needs a plain file "
				  "URI, not an archive, a socket, stdout or "
				  "the flight recorder");
	/*
	 * dwarf: the module copies the stack and walks only to the leaf, so
	 * that a tool that reads no copy still sees where a sample hit.
	 */
	if (o->ustack_walk == RECORD_USTACK_DWARF &&
	    (o->cfg.flags & FXTPROF_CFG_USTACK)) {
		o->cfg.flags |= FXTPROF_CFG_STACK_COPY;
		o->cfg.stack_copy_size = o->stack_copy_size;
		o->cfg.ustack_depth = 1;
	}
	if (!o->cfg.ring_size)
		o->cfg.ring_size = default_ring_size(&o->cfg);
	if (o->flight_secs) {
		if (!record_opts__path(o->uri))
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
		if (!record_opts__path(o->uri))
			return reader_err(-EINVAL, "--symbolize needs a file "
					  "output, not %s: for a stream, run "
					  "fxtprof symbolize where it is "
					  "received", o->uri);
	}
	return 0;
}


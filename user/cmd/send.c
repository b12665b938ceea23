// SPDX-License-Identifier: GPL-2.0-only
/*
 * send.c - `fxtprof send FILE URI`: replay a recorded FXT stream to a
 * destination through the same writer as `record`.
 *
 * The file is cut into records by the FXT reader's incremental framing,
 * so only whole records are ever queued.  Unlike the drain loop, this
 * command may wait: it queues a record only when the writer has room for
 * it, so a slow peer slows the replay down instead of losing records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "archive_input.h"
#include "opt_value.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "sink/sink.h"
#include "transport/clock.h"
#include "transport/evloop.h"

#define SEND_READ_CHUNK	(64u << 10)

struct send_opts {
	const char *file;
	const char *uri;
	double linger;
	struct sink_opts out;
	bool quiet;
};

static void send_usage(FILE *f)
{
	fprintf(f,
"usage: fxtprof send [options] FILE URI\n"
"  Replay the FXT stream in FILE (- for stdin) to URI (tcp://HOST:PORT,\n"
"  unix:///PATH or a file), record by record, waiting for the destination.\n"
"      --max-buffered SIZE  output queue cap (default %uM)\n"
"      --sndbuf SIZE      SO_SNDBUF of the socket (default: the system's)\n"
"      --linger SECS      wait at most SECS for the output at the end\n"
"                         (default 30)\n"
"      --mode OCTAL       mode of a file URI (default 0600)\n"
"  -q, --quiet            no summary\n"
"\n"
"Exit status: 0 when every record was delivered and confirmed; 1 when it\n"
"could not start (the file, the destination) or stopped on an error; 2 for\n"
"bad arguments; 3 when output was lost (not confirmed, dropped, or records\n"
"that could not be passed on whole).\n", SINK_DEFAULT_MAX_BUFFERED >> 20);
}

static int send_parse(int argc, char **argv, struct send_opts *o)
{
	enum { OPT_MAX_BUFFERED = 256, OPT_SNDBUF, OPT_LINGER, OPT_MODE };
	static const struct option longopts[] = {
		{ "max-buffered", required_argument, NULL, OPT_MAX_BUFFERED },
		{ "sndbuf", required_argument, NULL, OPT_SNDBUF },
		{ "linger", required_argument, NULL, OPT_LINGER },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->linger = 30;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MAX_BUFFERED:
			if (opt_value__size("max-buffered", optarg, 65536, &v))
				return -EINVAL;
			o->out.max_buffered = v;
			break;
		case OPT_SNDBUF:
			if (reader_parse_size(optarg, &v) || v > (1u << 30))
				return reader_err(-EINVAL, "bad --sndbuf '%s'",
						  optarg);
			o->out.sndbuf = (int)v;
			break;
		case OPT_LINGER:
			if (opt_value__linger(optarg, &o->linger))
				return -EINVAL;
			break;
		case OPT_MODE:
			if (reader_parse_mode(optarg, &o->out.file_mode))
				return reader_err(-EINVAL, "bad --mode '%s'",
						  optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			send_usage(stdout);
			return 1;
		default:
			send_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 2) {
		send_usage(stderr);
		return -EINVAL;
	}
	o->file = argv[optind];
	o->uri = argv[optind + 1];
	return 0;
}

/*
 * Records send could not pass on whole, apart from output drops: larger
 * than the queue (no amount of waiting makes room) or refused as not a
 * record by the output.
 */
struct send_errors {
	uint64_t records;
	int last;		/* -errno */
	uint64_t announced;
};

/*
 * The in-band notice of those errors, a counter "fxtprof:encode_errors".
 * Strings and the thread are inline: the replayed stream owns the string
 * table and its indices must not be disturbed.
 */
static int send_error_notice(struct sink *out, struct send_errors *e)
{
	static const char cat[] = "fxtprof", name[] = "fxtprof:encode_errors",
			  k_rec[] = "records", k_err[] = "errno";
	uint64_t words[64];
	struct fxt_arg args[2] = {
		{ .name = fxt_sref_inline(k_rec, sizeof(k_rec) - 1),
		  .type = FXT_ARG_UINT64, .v.u64 = e->records },
		{ .name = fxt_sref_inline(k_err, sizeof(k_err) - 1),
		  .type = FXT_ARG_UINT32, .v.u32 = (uint32_t)-e->last },
	};
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER,
		.thread = fxt_tref_inline((uint64_t)getpid(),
					  (uint64_t)gettid()),
		.category = fxt_sref_inline(cat, sizeof(cat) - 1),
		.name = fxt_sref_inline(name, sizeof(name) - 1),
		.args = args, .nargs = 2,
	};
	int n;

	if (e->records == e->announced)
		return 0;
	ev.ts = clock_ns(CLOCK_BOOTTIME);
	n = fxt_enc_event(words, sizeof(words) / 8, &ev);
	if (n < 0)
		return n;
	n = sink__write(out, words, (size_t)n * 8, FXT_REC_EVENT);
	if (!n)
		e->announced = e->records;
	return n;
}

static void send_count_error(struct send_errors *e, int err)
{
	e->records++;
	e->last = err;
}

/* Queue one record, running the loop until the writer has room. */
static int send_record(struct evloop *loop, struct sink *out,
		       const struct fxt_record *rec, struct send_errors *e)
{
	size_t len = (size_t)rec->size * 8;
	int ret;

	if (len > sink__capacity(out)) {
		send_count_error(e, -EMSGSIZE);
		return 0;
	}
	if (!sink__fits(out, len))
		sink__flush(out);
	while (!sink__fits(out, len)) {
		if (sink__error(out))
			return -sink__error(out);
		if (evloop__run_once(loop, 100) < 0)
			return -EIO;
	}
	ret = sink__write(out, rec->words, len, rec->type);
	if (ret == -EINVAL) {
		send_count_error(e, ret);
		return 0;
	}
	if (!ret)
		send_error_notice(out, e);	/* retried after each record */
	return ret;
}

/* Feed the file to the framing and queue what it cuts out. */
static int send_stream(int fd, struct evloop *loop, struct sink *out,
		       struct send_errors *e)
{
	static unsigned char buf[SEND_READ_CHUNK];
	struct fxt_reader *rd;
	struct fxt_record rec;
	int ret;

	/* Lenient: send ships bytes; only the framing must hold. */
	ret = fxt_reader__new(FXT_READER_LENIENT, &rd);
	if (ret)
		return reader_err(ret, "cannot create the FXT reader");
	for (;;) {
		ssize_t n;

		ret = fxt_reader__next(rd, &rec);
		if (ret > 0) {
			ret = send_record(loop, out, &rec, e);
			/*
			 * The output failed for good: stop reading.  That is a
			 * lost output, which the delivery summary reports, not
			 * an error of send's own.
			 */
			if (ret && sink__error(out)) {
				ret = 0;
				break;
			}
			if (ret) {
				reader_err(ret, "cannot send");
				break;
			}
			continue;
		}
		if (ret < 0) {
			const struct fxt_error *e = fxt_reader__error(rd);

			reader_err(ret, "malformed input at byte %" PRIu64
				   " (%s: %s)", e->offset, e->rule, e->msg);
			break;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = reader_err(-errno, "cannot read the input");
			break;
		}
		if (!n) {
			ret = fxt_reader__finish(rd);
			if (ret)
				reader_err(ret, "the input ends inside a record;"
					   " the partial record was not sent");
			break;
		}
		sink__flush(out);	/* keep the socket busy while reading */
		ret = fxt_reader__feed(rd, buf, (size_t)n);
		if (ret) {
			reader_err(ret, "cannot buffer the input");
			break;
		}
	}
	fxt_reader__free(rd);
	return ret;
}

int cmd_send(int argc, char **argv)
{
	struct send_opts opts;
	struct archive_input ain;
	struct send_errors errs = { 0 };
	const struct sink_stats *st;
	struct evloop loop;
	struct sink *out;
	char err[256];
	int fd, ret, status = CMD_EXIT_FAILED;

	ret = send_parse(argc, argv, &opts);
	if (ret)
		return ret > 0 ? CMD_EXIT_OK : CMD_EXIT_USAGE;
	/* An archive is replayed as the FXT stream it holds. */
	if (archive_input__open(&ain, &opts.file, 0, UINT64_MAX) < 0)
		return CMD_EXIT_FAILED;
	fd = strcmp(opts.file, "-") ? open(opts.file, O_RDONLY | O_CLOEXEC) :
				      STDIN_FILENO;
	if (fd < 0) {
		reader_err(-errno, "cannot open %s", opts.file);
		return CMD_EXIT_FAILED;
	}
	ret = evloop__init(&loop, 64);
	if (ret) {
		reader_err(ret, "cannot set up io_uring");
		goto out_close_file;
	}
	ret = sink__open(&out, opts.uri, &loop, &opts.out, err, sizeof(err));
	if (ret) {
		reader_err(ret, "%s", err);
		goto out_fini_loop;
	}

	ret = send_stream(fd, &loop, out, &errs);
	if (errs.records > errs.announced && sink__fits(out, 512))
		send_error_notice(out, &errs);
	if (sink__linger(out, (int64_t)(opts.linger * 1e3)) && !opts.quiet)
		fprintf(stderr, "fxtprof: %s did not take everything in %.1f s\n",
			opts.uri, opts.linger);
	st = sink__stats(out);
	if (!opts.quiet)
		fprintf(stderr, "fxtprof: read %" PRIu64 " records (%" PRIu64
			" bytes) from %s; %" PRIu64 " could not be passed on whole\n",
			st->committed_records + errs.records, st->committed_bytes,
			opts.file, errs.records);
	if (!opts.quiet && errs.records)
		fprintf(stderr, "fxtprof: %" PRIu64 " records could not be"
			" passed on whole (last: %s); they are not output"
			" drops\n", errs.records, strerror(-errs.last));
	status = ret ? CMD_EXIT_FAILED : CMD_EXIT_OK;
	if (!cmd_delivery_summary(out, opts.uri, opts.quiet) || errs.records) {
		if (opts.quiet)
			reader_err(-EIO, "the output to %s is incomplete", opts.uri);
		if (!ret)
			status = CMD_EXIT_INCOMPLETE;
	}
	sink__close(out);
out_fini_loop:
	evloop__fini(&loop);
out_close_file:
	if (fd != STDIN_FILENO)
		close(fd);
	if (archive_input__close(&ain) && !ret) {
		reader_err(-EIO, "%s could not be read whole: the output is "
			   "incomplete", ain.path);
		status = CMD_EXIT_INCOMPLETE;
	}
	return ret ? CMD_EXIT_FAILED : status;
}

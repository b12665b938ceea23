// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_cmd.c - the commands of the archive (.fxtz,
 * Documentation/archive-format.md):
 *   fxtprof info X.fxtz                   its summary sections, read from
 *                                         the trailer: no chunk is
 *                                         decompressed
 *   fxtprof extract X.fxtz --from T --to T -o OUT|URI
 *                                         one time range as a
 *                                         self-contained FXT stream
 *   fxtprof archive repair X.fxtz         write the trailer of an archive
 *                                         that was never finished
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "archive/archive.h"
#include "archive/archive_extract.h"
#include "fxt/fxt_reader.h"
#include "sink/sink.h"
#include "transport/evloop.h"

#define TOP_DEFAULT	10

/* ---- time arguments ------------------------------------------------ */

/*
 * T: nanoseconds of the trace clock as `fxtprof dump` prints them
 * ("123456789"), or seconds from the recording's start with an "s"
 * suffix ("1.5s").  0 or -EINVAL.
 */
static int parse_t(const char *opt, const char *s, uint64_t start,
		   uint64_t *out)
{
	size_t len = strlen(s);
	char *end;

	if (len > 1 && s[len - 1] == 's') {
		char buf[64];
		double d;

		if (len >= sizeof(buf))
			goto bad;
		memcpy(buf, s, len - 1);
		buf[len - 1] = 0;
		d = strtod(buf, &end);
		if (*end || end == buf || !(d >= 0) || d > 1e10)
			goto bad;
		*out = start + (uint64_t)(d * 1e9 + 0.5);
		return 0;
	}
	if (len && s[0] >= '0' && s[0] <= '9') {
		unsigned long long v;

		errno = 0;
		v = strtoull(s, &end, 10);
		if (!*end && !errno) {
			*out = v;
			return 0;
		}
	}
bad:
	reader_err(-EINVAL, "%s wants nanoseconds of the trace clock (as dump "
		   "prints them, e.g. 123456789) or seconds from the "
		   "recording's start with an 's' (e.g. 1.5s), not '%s'", opt,
		   s);
	return -EINVAL;
}

/* @err, and the errno unless @err names it already. */
static void archive_cmd_err(int ret, const char *err)
{
	reader_err(strstr(err, strerror(-ret)) ? 0 : ret, "%s", err);
}

static int open_archive(const char *path, unsigned int flags,
			struct archive_reader **a)
{
	char err[256];
	int ret = archive_reader__open(a, path, flags, err, sizeof(err));

	if (ret == -ENOTSUP)
		reader_err(ret, "%s is not an archive (.fxtz) this fxtprof "
			   "reads: %s", path, err);
	else if (ret)
		archive_cmd_err(ret, err);
	return ret;
}

/* ---- info ------------------------------------------------------------ */

static double secs(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) / 1e9 : 0;
}

static void info_chunks(const struct archive_reader *a, FILE *f)
{
	size_t i, n = archive_reader__nchunks(a);

	fprintf(f, "chunks:\n  %6s %12s %10s %10s %20s %20s %8s %s\n", "#",
		"offset", "compressed", "bytes", "first ns", "last ns",
		"records", "flags");
	for (i = 0; i < n; i++) {
		const struct archive_chunk_info *c = archive_reader__chunk(a, i);

		fprintf(f, "  %6zu %12" PRIu64 " %10u %10u %20" PRIu64 " %20"
			PRIu64 " %8u %s%s\n", i, c->offset, c->compressed,
			c->uncompressed, c->t_first, c->t_last, c->records,
			c->flags & ARCHIVE_CHUNK_CONTINUATION ? "cont " : "",
			c->flags & ARCHIVE_CHUNK_FLUSHED ? "flushed" : "");
	}
}

/* What the manifest (or the scan) alone says. */
static void info_manifest(const struct archive_reader *a, FILE *f)
{
	size_t i, n = archive_reader__nchunks(a);
	uint64_t comp = 0, bytes = 0, recs = 0, t0 = 0, t1 = 0, cont = 0;

	for (i = 0; i < n; i++) {
		const struct archive_chunk_info *c = archive_reader__chunk(a, i);

		comp += c->compressed;
		bytes += c->uncompressed;
		recs += c->records;
		cont += !!(c->flags & ARCHIVE_CHUNK_CONTINUATION);
		if (c->t_last) {
			if (!t0 || c->t_first < t0)
				t0 = c->t_first;
			if (c->t_last > t1)
				t1 = c->t_last;
		}
	}
	fprintf(f, "chunks: %zu (%" PRIu64 " continuation), largest %u bytes\n",
		n, cont, archive_reader__max_chunk(a));
	fprintf(f, "time: %" PRIu64 " .. %" PRIu64 " ns (%.3f s)\n", t0, t1,
		secs(t0, t1));
	fprintf(f, "records: %" PRIu64 ", %" PRIu64 " bytes of FXT in %" PRIu64
		" compressed (%.2fx)\n", recs, bytes, comp,
		comp ? (double)bytes / (double)comp : 0);
}

static void info_metrics(const struct archive_metrics *m, FILE *f)
{
	unsigned int k;

	fprintf(f, "samples: %" PRIu64 "; segments: %" PRIu64 "\n",
		m->samples, m->segments);
	fprintf(f, "records by type:\n");
	for (k = 0; k < 16; k++)
		if (m->records_by_kind[k])
			fprintf(f, "  %-17s %10" PRIu64 " records %12" PRIu64
				" bytes\n", fxt_record_type__name(k),
				m->records_by_kind[k], m->bytes_by_kind[k]);
	fprintf(f, "lost: kernel %" PRIu64 " records (%" PRIu64 " bytes), "
		"delivery %" PRIu64 " records (%" PRIu64 " bytes), archive "
		"sink %" PRIu64 " records (%" PRIu64 " bytes)\n",
		m->kernel_lost_records, m->kernel_lost_bytes,
		m->output_dropped_records, m->output_dropped_bytes,
		m->sink_dropped_records, m->sink_dropped_bytes);
	if (m->bad_chunks)
		fprintf(f, "bad chunks (found by repair): %" PRIu64 "\n",
			m->bad_chunks);
}

static int cmp_thread(const void *x, const void *y)
{
	const struct archive_thread_count *a = *(const void *const *)x;
	const struct archive_thread_count *b = *(const void *const *)y;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_process(const void *x, const void *y)
{
	const struct archive_process_count *a = *(const void *const *)x;
	const struct archive_process_count *b = *(const void *const *)y;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* The last name @pid/@tid held (kind: process or thread), or NULL. */
static const struct archive_name *name_of(const struct archive_name *v,
					  size_t n, uint32_t kind,
					  uint64_t pid, uint64_t tid)
{
	const struct archive_name *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (v[i].kind == kind && v[i].pid == pid &&
		    (kind == ARCHIVE_NAME_PROCESS || v[i].tid == tid) &&
		    (!best || v[i].t_from >= best->t_from))
			best = &v[i];
	return best;
}

/*
 * Pointers to the @n elements (@size bytes each) of @base, sorted by @cmp,
 * which compares two such pointers; NULL when there are none or no memory.
 */
static const void **sorted_refs(const void *base, size_t n, size_t size,
				int (*cmp)(const void *, const void *))
{
	const void **order;
	size_t i;

	if (!n || !(order = calloc(n, sizeof(*order))))
		return NULL;
	for (i = 0; i < n; i++)
		order[i] = (const char *)base + i * size;
	qsort(order, n, sizeof(*order), cmp);
	return order;
}

static void info_top(const struct archive_reader *a, FILE *f,
		     unsigned int top)
{
	const struct archive_process_count *pv;
	const struct archive_thread_count *tv;
	const struct archive_name *names = NULL;
	const void **order;
	size_t np = 0, nt = 0, nn = 0, i;

	archive_reader__names(a, &names, &nn);
	if (!archive_reader__processes(a, &pv, &np) &&
	    (order = sorted_refs(pv, np, sizeof(*pv), cmp_process))) {
		fprintf(f, "top processes by samples (of %zu):\n", np);
		for (i = 0; i < np && i < top; i++) {
			const struct archive_process_count *p = order[i];
			const struct archive_name *nm =
				name_of(names, nn, ARCHIVE_NAME_PROCESS,
					p->pid, 0);

			fprintf(f, "  %10" PRIu64 "  pid %-8" PRIu64 " %.*s\n",
				p->samples, p->pid, nm ? (int)nm->name_len : 0,
				nm ? nm->name : "");
		}
		free(order);
	}
	if (!archive_reader__threads(a, &tv, &nt) &&
	    (order = sorted_refs(tv, nt, sizeof(*tv), cmp_thread))) {
		fprintf(f, "top threads by samples (of %zu):\n", nt);
		for (i = 0; i < nt && i < top; i++) {
			const struct archive_thread_count *t = order[i];
			const struct archive_name *nm =
				name_of(names, nn, ARCHIVE_NAME_THREAD,
					t->pid, t->tid);

			fprintf(f, "  %10" PRIu64 "  %" PRIu64 "/%-8" PRIu64
				" %.*s\n", t->samples, t->pid, t->tid,
				nm ? (int)nm->name_len : 0, nm ? nm->name : "");
		}
		free(order);
	}
}

static void info_windows(const struct archive_reader *a, FILE *f)
{
	struct archive_windows w;
	uint64_t peak = 0;
	uint32_t busy = 0;

	if (archive_reader__windows(a, &w) || !w.window_ns)
		return;
	for (uint32_t i = 0; i < w.nwindows; i++) {
		uint64_t s = 0;

		for (uint32_t c = 0; c < w.ncpus; c++)
			s += w.samples[(uint64_t)i * w.ncpus + c];
		busy += s > 0;
		if (s > peak)
			peak = s;
	}
	fprintf(f, "windows: %u of %.0f ms from %" PRIu64 " ns, %u CPUs; %u "
		"with samples, at most %" PRIu64 " samples in one\n",
		w.nwindows, (double)w.window_ns / 1e6, w.t0, w.ncpus, busy,
		peak);
	fprintf(f, "samples per CPU:");
	for (uint32_t c = 0; c < w.ncpus; c++) {
		uint64_t s = 0;

		for (uint32_t i = 0; i < w.nwindows; i++)
			s += w.samples[(uint64_t)i * w.ncpus + c];
		fprintf(f, " %u:%" PRIu64, c, s);
	}
	fputc('\n', f);
}

static void info_tables(const struct archive_reader *a, FILE *f)
{
	const struct archive_name *nv;
	const struct archive_mapping *mv;
	const struct archive_kimage *kv;
	const struct archive_ksym *sv;
	size_t nn = 0, nm = 0, nk = 0, ns = 0, i, nids;
	uint32_t ids[64];

	archive_reader__names(a, &nv, &nn);
	archive_reader__mappings(a, &mv, &nm);
	archive_reader__kimages(a, &kv, &nk);
	archive_reader__ksyms(a, &sv, &ns);
	fprintf(f, "name tables: %zu process and thread names, %zu mappings, "
		"%zu kernel images, %zu kernel symbols\n", nn, nm, nk, ns);
	nids = archive_reader__section_ids(a, ids, 64);
	fprintf(f, "sections:");
	for (i = 0; i < nids && i < 64; i++) {
		const void *d;
		size_t len = 0;

		archive_reader__section(a, ids[i], &d, &len);
		fprintf(f, " %u (%zu bytes%s)", ids[i], len,
			ids[i] > ARCHIVE_SEC_KSYMS ? ", unknown: skipped" : "");
	}
	fputc('\n', f);
}

static int info_usage(FILE *f)
{
	fprintf(f,
"usage: fxtprof info [--chunks] [-n N] X.fxtz\n"
"  The archive's summary: time range, records by type, losses, the top N\n"
"  processes and threads by samples (default %d), samples per CPU, the name\n"
"  tables; from the trailer, without decompressing any chunk.  An archive\n"
"  never finished has none: its chunk headers are listed instead (run\n"
"  fxtprof archive repair to write its trailer).\n"
"  --chunks   also one line per chunk, from the manifest\n",
		TOP_DEFAULT);
	return f == stdout ? CMD_EXIT_OK : CMD_EXIT_USAGE;
}

int cmd_info(int argc, char **argv)
{
	const char *path = NULL;
	struct archive_reader *a;
	struct archive_metrics m;
	unsigned int top = TOP_DEFAULT;
	bool chunks = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return info_usage(stdout);
		if (!strcmp(argv[i], "--chunks")) {
			chunks = true;
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || !*argv[i] || v > 100000)
				return reader_err(-EINVAL, "-n wants a count, "
						  "not '%s'", argv[i]),
				       CMD_EXIT_USAGE;
			top = (unsigned int)v;
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			return info_usage(stderr);
		}
	}
	if (!path)
		return info_usage(stderr);
	if (open_archive(path, 0, &a))
		return CMD_EXIT_FAILED;
	printf("%s: ", path);
	if (archive_reader__index(a) == ARCHIVE_INDEX_FOOTER) {
		printf("finished archive\n");
	} else {
		printf("never finished (no trailer): %zu complete chunks found "
		       "by scanning, %" PRIu64 " bytes after them; fxtprof "
		       "archive repair writes its trailer\n",
		       archive_reader__nchunks(a),
		       archive_reader__tail_bytes(a));
	}
	info_manifest(a, stdout);
	if (!archive_reader__metrics(a, &m)) {
		info_metrics(&m, stdout);
		info_top(a, stdout, top);
		info_windows(a, stdout);
		info_tables(a, stdout);
	}
	if (chunks)
		info_chunks(a, stdout);
	archive_reader__close(a);
	return fflush(stdout) ? CMD_EXIT_FAILED : CMD_EXIT_OK;
}

/* ---- extract --------------------------------------------------------- */

struct extract_out {
	struct evloop loop;
	struct sink *sink;
};

/* Queue one record, running the loop until the sink has room (as send). */
static int extract_emit(void *ctx, const void *rec, size_t len,
			unsigned int kind)
{
	struct extract_out *o = ctx;

	if (len > sink__capacity(o->sink))
		return -EMSGSIZE;
	if (!sink__fits(o->sink, len))
		sink__flush(o->sink);
	while (!sink__fits(o->sink, len)) {
		if (sink__error(o->sink))
			return -sink__error(o->sink);
		if (evloop__run_once(&o->loop, 100) < 0)
			return -EIO;
	}
	return sink__write(o->sink, rec, len, kind);
}

/* Bytes this process has read with read(2)/pread(2) (rchar), or 0. */
static uint64_t io_read_bytes(void)
{
	unsigned long long v = 0;
	char line[128];
	FILE *f = fopen("/proc/self/io", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int extract_usage(FILE *f)
{
	fprintf(f,
"usage: fxtprof extract X.fxtz [--from T] [--to T] -o OUT|URI [-q]\n"
"  Write the records of [FROM, TO] (both included) as one self-contained\n"
"  FXT stream: the prologue, the names, threads, mappings and kernel\n"
"  symbols they refer to, and every event with FROM <= ts <= TO (a stack\n"
"  blob goes with its sample).  Only the chunks that overlap the range are\n"
"  decompressed.  A range with no event gives a valid empty stream.\n"
"  T: nanoseconds of the trace clock, as fxtprof dump prints them\n"
"     (123456789), or seconds from the recording's start with an 's'\n"
"     (1.5s).  Default: the whole recording.\n"
"  -o OUT|URI   a file (mode 0600), -, file:///PATH, tcp://HOST:PORT or\n"
"               unix:///PATH\n"
"  -q           no summary\n");
	return f == stdout ? CMD_EXIT_OK : CMD_EXIT_USAGE;
}

int cmd_extract(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path, *from_s = NULL, *to_s = NULL, *out = NULL;
	struct archive_extract_stats st;
	struct extract_out o = { 0 };
	struct archive_reader *a;
	uint64_t from = 0, to = UINT64_MAX, start, rchar0, rchar, size = 0;
	bool quiet = false;
	struct stat sb;
	char err[256];
	int c, ret, status = CMD_EXIT_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': from_s = optarg; break;
		case 't': to_s = optarg; break;
		case 'o': out = optarg; break;
		case 'q': quiet = true; break;
		case 'h': return extract_usage(stdout);
		default: return extract_usage(stderr);
		}
	}
	if (optind != argc - 1 || !out) {
		if (!out)
			reader_err(0, "extract needs -o OUT|URI");
		return extract_usage(stderr);
	}
	path = argv[optind];
	rchar0 = io_read_bytes();
	if (open_archive(path, 0, &a))
		return CMD_EXIT_FAILED;
	start = archive_extract__start(a);
	if ((from_s && parse_t("--from", from_s, start, &from)) ||
	    (to_s && parse_t("--to", to_s, start, &to))) {
		archive_reader__close(a);
		return CMD_EXIT_USAGE;
	}
	if (from > to) {
		reader_err(-EINVAL, "--from %s is after --to %s: the range is "
			   "[FROM, TO] with FROM <= TO", from_s, to_s);
		archive_reader__close(a);
		return CMD_EXIT_USAGE;
	}
	if (!stat(path, &sb))
		size = (uint64_t)sb.st_size;
	ret = evloop__init(&o.loop, 64);
	if (ret) {
		reader_err(ret, "cannot set up io_uring");
		goto out_close;
	}
	ret = sink__open(&o.sink, out, &o.loop, &(struct sink_opts){ 0 }, err,
			 sizeof(err));
	if (ret) {
		reader_err(ret, "%s", err);
		goto out_fini;
	}
	ret = archive_extract(a, from, to, extract_emit, &o, &st, err,
			      sizeof(err));
	rchar = io_read_bytes() - rchar0;
	if (ret)
		archive_cmd_err(ret, err);
	if (ret == -EBADMSG)
		reader_err(0, "%s: %" PRIu64 " chunks failed their checksum and "
			   "were left out (with the continuation chunks after "
			   "them); the rest was extracted", path, st.chunks_bad);
	sink__linger(o.sink, 30000);
	if (!quiet) {
		fprintf(stderr, "fxtprof: extracted %" PRIu64 " records (%"
			PRIu64 " events, %" PRIu64 " bytes) of [%" PRIu64 ", %"
			PRIu64 "] ns from %" PRIu64 " of %zu chunks\n",
			st.records, st.events, st.bytes, from, to,
			st.chunks_read, archive_reader__nchunks(a));
		if (st.events)
			fprintf(stderr, "fxtprof: its events span %.6f s .. "
				"%.6f s from the recording's start\n",
				secs(start, st.first_ns),
				secs(start, st.last_ns));
		if (rchar)
			fprintf(stderr, "fxtprof: read %" PRIu64 " bytes of "
				"the archive (%.3f%% of its %" PRIu64 " bytes), "
				"%" PRIu64 " of them chunk payloads\n", rchar,
				size ? 100.0 * (double)rchar / (double)size : 0,
				size, st.bytes_read);
	}
	if (!cmd_delivery_summary(o.sink, out, quiet) && !ret)
		ret = -EIO;
	status = !ret ? CMD_EXIT_OK : ret == -EBADMSG ? CMD_EXIT_INCOMPLETE :
		 CMD_EXIT_FAILED;
	sink__close(o.sink);
out_fini:
	evloop__fini(&o.loop);
out_close:
	archive_reader__close(a);
	return status;
}

/* ---- archive repair -------------------------------------------------- */

static int archive_usage(FILE *f)
{
	fprintf(f,
"usage: fxtprof archive repair X.fxtz\n"
"  Make an archive that was never finished (kill -9, power loss, a live\n"
"  archive) whole: keep every complete chunk, cut the torn tail after the\n"
"  last one, and write the manifest, the summaries and the footer.  An\n"
"  archive already finished is left as it is.\n");
	return f == stdout ? CMD_EXIT_OK : CMD_EXIT_USAGE;
}

int cmd_archive(int argc, char **argv)
{
	struct archive_repair_stats st;
	char err[256];
	int ret;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return archive_usage(stdout);
	if (argc != 3 || strcmp(argv[1], "repair"))
		return archive_usage(stderr);
	ret = archive__repair(argv[2], &st, err, sizeof(err));
	if (ret) {
		archive_cmd_err(ret, err);
		return CMD_EXIT_FAILED;
	}
	if (st.was_finished) {
		printf("%s: already finished, left as it was\n", argv[2]);
		return CMD_EXIT_OK;
	}
	printf("%s: repaired: %" PRIu64 " complete chunks kept, %" PRIu64
	       " torn bytes cut, trailer written\n", argv[2], st.chunks,
	       st.cut_bytes);
	if (st.bad_chunks) {
		printf("%s: %" PRIu64 " of those chunks fail their checksum: "
		       "they are listed, and left out of the summaries\n",
		       argv[2], st.bad_chunks);
		return CMD_EXIT_INCOMPLETE;
	}
	return CMD_EXIT_OK;
}

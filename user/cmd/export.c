// SPDX-License-Identifier: GPL-2.0-only
/*
 * export.c - `fxtprof export --format pprof FILE -o OUT.pb.gz`, and what
 * `export` and `symbolize` share (export.h).
 *
 * Both read the whole recording into memory: `symbolize` copies its
 * records, and both need every sample before they write anything.  The
 * output is written only once it is complete, and removed if writing it
 * fails, so a failed run never leaves a half file behind.  Outputs hold
 * kernel addresses: mode 0600 unless --mode says otherwise
 * (Documentation/security.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd.h"
#include "archive_input.h"
#include "copy_unwind.h"
#include "export.h"
#include "export/pprof.h"
#include "profile/profile.h"
#include "transport/fd_io.h"

#define READ_CHUNK	(1 << 20)

int export_fxt_records(const uint8_t *data, size_t len,
		       int (*fn)(void *ctx, const uint8_t *rec, size_t len),
		       void *ctx, uint64_t *bad)
{
	size_t off = 0;

	while (off < len) {
		uint64_t h, words;
		int err;

		if (len - off < 8) {
			*bad = off;
			return -EPROTO;
		}
		memcpy(&h, data + off, 8);
		/* Large records (type 15) have a 32-bit size field. */
		words = (h & 0xf) == 15 ? (h >> 4) & 0xffffffffu :
					  (h >> 4) & 0xfff;
		if (!words || words > (len - off) / 8) {
			*bad = off;
			return -EPROTO;
		}
		if (fn) {
			err = fn(ctx, data + off, (size_t)words * 8);
			if (err)
				return err;
		}
		off += (size_t)words * 8;
	}
	return 0;
}

static int read_all(const char *path, uint8_t **out, size_t *out_len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
				     STDIN_FILENO;
	size_t len = 0, cap = 0;
	uint8_t *buf = NULL;
	int err = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (cap - len < READ_CHUNK) {
			uint8_t *b = realloc(buf, cap + READ_CHUNK * 4);

			if (!b) {
				err = -ENOMEM;
				break;
			}
			buf = b;
			cap += READ_CHUNK * 4;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

/*
 * --time: keep the records of the range (the samples, and every
 * definition), timed from the first sample of the whole recording.
 */
static int export_clip_time(struct export_cmd *c)
{
	struct profile_error perr = { 0 };
	uint64_t from, to, first = 0;
	uint8_t *data;
	size_t len;
	int err;

	if (profile__nr_samples(c->profile))
		first = profile__sample(c->profile, 0)->ts;
	err = archive_time_spec__parse(c->time, first, &from, &to);
	if (!err)
		err = archive_input__clip_buffer(c->data, c->len, from, to,
						 &data, &len);
	if (err)
		return err;
	free(c->data);
	c->data = data;
	c->len = len;
	profile__free(c->profile);
	c->profile = NULL;
	err = profile__load_buffer(c->data, c->len, &c->profile, &perr);
	if (err)
		return reader_err(err, "%s: at byte %" PRIu64 " of its range: %s",
				  c->input, perr.offset, perr.msg);
	return 0;
}

/*
 * Where the recording ends, on both clocks: its last sample (before
 * --time; an archive read through --time holds only the range), and the
 * input's mtime, the recorder's last write.
 */
static void note_input_end(struct export_cmd *c)
{
	size_t n = profile__nr_samples(c->profile);
	struct stat st;

	if (n)
		c->last_sample_ns = profile__sample(c->profile, n - 1)->ts;
	if (strcmp(c->input, "-") && !stat(c->input, &st) &&
	    S_ISREG(st.st_mode) && st.st_mtim.tv_sec > 0)
		c->input_mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
				    (uint64_t)st.st_mtim.tv_nsec;
}

/*
 * The wall clock of the first sample, for pprof's time_nanos: from the
 * recording's clock object (the recorder's CLOCK_BOOTTIME and
 * CLOCK_REALTIME read together).  A recording made before there was one
 * has only CLOCK_BOOTTIME: the input's mtime is then taken as the time of
 * its last sample, less the distance from the first sample to that one;
 * 0 (none) from standard input.
 */
static uint64_t first_sample_wall_ns(const struct export_cmd *c)
{
	uint64_t first, span, wall;

	if (!profile__nr_samples(c->profile))
		return 0;
	first = profile__sample(c->profile, 0)->ts;
	if (profile__wall_clock(c->profile, first, &wall))
		return wall;
	if (!c->input_mtime_ns)
		return 0;
	span = c->last_sample_ns > first ? c->last_sample_ns - first : 0;
	return span < c->input_mtime_ns ? c->input_mtime_ns - span : 0;
}

int export_cmd__load(struct export_cmd *c)
{
	struct profile_error perr = { 0 };
	struct archive_input ain;
	const char *input = c->input;
	uint64_t bad = 0;
	int err;

	/* An archive: only the chunks --time needs, through a pipe. */
	if (archive_input__open_profile(&ain, &input, &c->time) < 0)
		return -EINVAL;
	err = read_all(input, &c->data, &c->len);
	if (archive_input__close(&ain) && !err)
		return reader_err(-EIO, "%s could not be read whole", c->input);
	if (err)
		return reader_err(err, "cannot read %s", c->input);
	if (!c->len)
		return reader_err(-EPROTO, "%s is empty, not an FXT recording",
				  c->input);
	err = export_fxt_records(c->data, c->len, NULL, NULL, &bad);
	if (err) {
		reader_err(0, "%s: truncated or malformed FXT at byte %" PRIu64
			   " of %zu: the record there is cut or has no size",
			   c->input, bad, c->len);
		return err;
	}
	err = profile__load_buffer(c->data, c->len, &c->profile, &perr);
	if (err)
		return reader_err(err, "%s: at byte %" PRIu64 ": %s", c->input,
				  perr.offset, perr.msg[0] ? perr.msg :
				  "cannot load the recording");
	note_input_end(c);
	if (c->time && (err = export_clip_time(c)))
		return err;
	err = copy_unwind__apply(c->profile, &c->sym);
	if (err)
		return err;
	err = symbolizer__new(&c->sym, &c->symbolizer);
	if (err)
		return reader_err(err, "cannot start the symbolizer");
	return 0;
}

void export_cmd__release(struct export_cmd *c)
{
	symbolizer__free(c->symbolizer);
	profile__free(c->profile);
	free(c->data);
	c->symbolizer = NULL;
	c->profile = NULL;
	c->data = NULL;
}

int export_cmd__write(const struct export_cmd *c, const void *data,
		      size_t len)
{
	const char *path = c->output;
	struct stat st = { 0 };
	int fd, err;

	if (!strcmp(path, "-")) {
		err = fd__write_all(STDOUT_FILENO, data, len);
		return err ? reader_err(err, "cannot write to stdout") : 0;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, c->mode);
	if (fd < 0)
		return reader_err(-errno, "cannot create %s", path);
	/* O_CREAT's mode applies to a new file only. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777) != c->mode && fchmod(fd, c->mode)) {
		err = reader_err(-errno, "cannot make %s mode %04o", path,
				 c->mode);
		goto out_remove;
	}
	err = fd__write_all(fd, data, len);
	if (!err && fsync(fd) && errno != EINVAL)
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	fd = -1;
	if (err) {
		reader_err(err, "cannot write %s", path);
		goto out_remove;
	}
	return 0;
out_remove:
	if (fd >= 0)
		close(fd);
	if (S_ISREG(st.st_mode))
		unlink(path);
	return err;
}

FILE *export_cmd__info(const struct export_cmd *c)
{
	return strcmp(c->output, "-") ? stdout : stderr;
}

void export_cmd__print_unresolved(const struct export_cmd *c,
				  const struct export_stats *st)
{
	FILE *f = export_cmd__info(c);
	struct profile_stats ps;
	const char *sep = " (";

	fprintf(f, "fxtprof: %" PRIu64 " of %" PRIu64 " frames unresolved",
		st->unresolved, st->frames);
	for (int i = 1; i < SYM__NR; i++) {
		if (!st->by_status[i])
			continue;
		fprintf(f, "%s%s: %" PRIu64, sep,
			sym_status__name((enum sym_status)i),
			st->by_status[i]);
		sep = ", ";
	}
	fprintf(f, "%s\n", *sep == ',' ? ")" : "");
	profile__stats(c->profile, &ps);
	if (ps.samples && !ps.has_mappings)
		fprintf(f, "fxtprof: %s has no mapping records (recorded before "
			"ABI 2?): user frames cannot be named\n", c->input);
	if (ps.samples && !ps.has_kernel && !c->sym.vmlinux &&
	    !c->sym.system_map && st->by_status[SYM_NO_KERNEL])
		fprintf(f, "fxtprof: %s has no kernel symbols: give --vmlinux or "
			"--system-map to name kernel frames\n", c->input);
	fflush(f);
	symbolizer__print_problems(c->symbolizer, stderr);
}

/* export's annotation filters (report_annot.h). */
enum {
	OPT_ANNOT_REGION = 512,
	OPT_ANNOT_KERNEL,
	OPT_ANNOT_SECTION,
};

enum {
	OPT_DEBUG_DIR = 256,
	OPT_SYMFS,
	OPT_VMLINUX,
	OPT_SYSTEM_MAP,
	OPT_MODE,
	OPT_NO_LINES,
	OPT_NO_INLINES,
	OPT_TIME,
	OPT_DIFF_BASE,
	OPT_OFF_CPU,
};

static const struct option export_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "region", required_argument, NULL, OPT_ANNOT_REGION },
	{ "kernel", required_argument, NULL, OPT_ANNOT_KERNEL },
	{ "section", required_argument, NULL, OPT_ANNOT_SECTION },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "system-map", required_argument, NULL, OPT_SYSTEM_MAP },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "no-lines", no_argument, NULL, OPT_NO_LINES },
	{ "no-inlines", no_argument, NULL, OPT_NO_INLINES },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "diff-base", required_argument, NULL, OPT_DIFF_BASE },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void export_usage(FILE *f, const char *cmd)
{
	bool pprof = !strcmp(cmd, "export");

	if (pprof)
		fprintf(f, "usage: fxtprof export --format pprof FILE -o OUT.pb.gz\n\n"
			"Write the recording's samples as one gzipped pprof profile\n"
			"(profile.proto), named by the symbolizer: values samples/count\n"
			"and cpu/nanoseconds, labels pid, tid, cpu, comm, thread_comm,\n"
			"and cgroup and nspid where the recording knows them.\n"
			"Read it with `go tool pprof`, speedscope or Perfetto.\n\n");
	else
		fprintf(f, "usage: fxtprof symbolize FILE -o OUT.fxt\n\n"
			"Copy the recording's FXT records unchanged and append its CPU\n"
			"profile as Perfetto TracePackets in FXT blob records (blob type\n"
			"3): interned names, mappings, frames and callstacks, and a\n"
			"PerfSample per sample.  The Perfetto UI then shows call stacks\n"
			"and flame graphs from the .fxt file alone.\n\n");
	fprintf(f, "options:\n");
	if (pprof)
		fprintf(f, "  -f, --format pprof     the output format (pprof only)\n");
	if (pprof)
		fprintf(f, "      --region GLOB, --kernel GLOB, --section GLOB\n"
			"                         only the samples taken inside "
			"the\n"
			"                         application's annotations so "
			"named\n"
			"                         (repeatable; Documentation/"
			"reports.md)\n");
	fprintf(f,
		"  -o, --output FILE      where to write (\"-\" = stdout); required\n"
		"      --debug-dir DIR    debug files by build id (default\n"
		"                         /usr/lib/debug/.build-id)\n"
		"      --symfs DIR        the target's root filesystem, on this host\n"
		"                         (then debuginfod: DEBUGINFOD_URLS,\n"
		"                         DEBUGINFOD_TIMEOUT default 10 s)\n"
		"      --vmlinux FILE     kernel symbols from this ELF\n"
		"      --system-map FILE  kernel symbols from this System.map\n"
		"      --mode OCTAL       the output file's mode (default 0600:\n"
		"                         profiles hold kernel addresses)\n");
	if (pprof)
		fprintf(f, "      --no-lines         no source files and lines\n"
			"      --time FROM,TO     only the samples with FROM <= ts <= TO:\n"
			"                         seconds from the first sample (0.5,2\n"
			"                         or ,1.5), or absolute ns ('123ns')\n"
			"      --diff-base BASE   a differential profile, as go tool "
			"pprof\n"
			"                         -diff_base builds it: BASE's "
			"samples negated\n"
			"                         (label pprof::base=true) and "
			"scaled to FILE's\n"
			"                         number, so totals are FILE minus "
			"BASE by share\n"
			"      --off-cpu          the recording's off-CPU waits "
			"(record --off-cpu),\n"
			"                         not its samples: values waits "
			"and off-cpu\n"
			"                         nanoseconds, labels state and "
			"waker\n");
	fprintf(f,
		"      --no-inlines       no inline frames\n"
		"  -h, --help             this text\n\n"
		"FILE \"-\" reads stdin.  Exit status: 0 written, 1 failed (unreadable or\n"
		"malformed input, a write error), 2 bad arguments.\n");
}

/*
 * Options common to both commands; *format gets --format (export only).
 * Returns -1 to go on, else the exit status.
 */
int export_cmd__parse(struct export_cmd *c, int argc, char **argv,
		      const char *cmd, const char **format)
{
	bool pprof = !strcmp(cmd, "export");
	unsigned long v;
	char *end;
	int opt;

	memset(c, 0, sizeof(*c));
	c->mode = 0600;
	c->sym.lines = pprof;
	c->sym.inlines = true;
	optind = 1;
	while ((opt = getopt_long(argc, argv, pprof ? "f:o:h" : "o:h",
				  export_longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (!pprof)
				goto bad;
			*format = optarg;
			break;
		case OPT_ANNOT_REGION:
		case OPT_ANNOT_KERNEL:
		case OPT_ANNOT_SECTION:
			if (!pprof || rt_annot__add(&c->annot,
					opt == OPT_ANNOT_REGION ? "region" :
					opt == OPT_ANNOT_KERNEL ? "kernel" :
					"section", optarg))
				goto bad;
			break;
		case 'o':
			c->output = optarg;
			break;
		case OPT_DEBUG_DIR:
			c->sym.debug_dir = optarg;
			break;
		case OPT_SYMFS:
			c->sym.symfs = optarg;
			break;
		case OPT_VMLINUX:
			c->sym.vmlinux = optarg;
			break;
		case OPT_SYSTEM_MAP:
			c->sym.system_map = optarg;
			break;
		case OPT_MODE:
			errno = 0;
			v = strtoul(optarg, &end, 8);
			if (!*optarg || *end || errno || v > 0777) {
				reader_err(0, "bad mode '%s': octal, at most 0777",
					   optarg);
				return CMD_EXIT_USAGE;
			}
			c->mode = (unsigned int)v;
			break;
		case OPT_NO_LINES:
			if (!pprof)
				goto bad;
			c->sym.lines = false;
			break;
		case OPT_NO_INLINES:
			c->sym.inlines = false;
			break;
		case OPT_TIME:
			if (!pprof)
				goto bad;
			c->time = optarg;
			break;
		case OPT_DIFF_BASE:
			if (!pprof)
				goto bad;
			c->diff_base = optarg;
			break;
		case OPT_OFF_CPU:
			if (!pprof)
				goto bad;
			c->off_cpu = true;
			break;
		case 'h':
			export_usage(stdout, cmd);
			return CMD_EXIT_OK;
		default:
			goto bad;
		}
	}
	if (optind + 1 != argc) {
		reader_err(0, "%s needs exactly one input FILE", cmd);
		goto bad;
	}
	c->input = argv[optind];
	if (!c->output) {
		reader_err(0, "%s needs -o OUTPUT", cmd);
		goto bad;
	}
	return -1;
bad:
	export_usage(stderr, cmd);
	return CMD_EXIT_USAGE;
}

/* --region and the like: the samples the patterns keep, counted. */
struct export_region {
	const struct rt_annot_opts *o;
	struct rt_annot_result res;
	const struct profile *p;
	uint64_t kept;
};

static bool export_region__keep(void *ctx, size_t i)
{
	struct export_region *r = ctx;

	if (!rt_annot__keeps(r->o, &r->res, r->p, i))
		return false;
	r->kept++;
	return true;
}

/*
 * --diff-base: BASE loaded as FILE is, and the two encoded as one
 * differential profile.  0 or -errno, with a sentence printed.
 */
static int export_diff(struct export_cmd *c, struct pprof_input *in,
		       struct pb_buf *gz, struct export_stats *base_st)
{
	struct export_cmd b = *c;
	struct export_region reg = { .o = &c->annot };
	struct pprof_filter filter = { export_region__keep, &reg };
	struct pprof_input base_in = { .st = base_st };
	double scale = 0;
	int err;

	b.input = c->diff_base;
	b.data = NULL;
	b.profile = NULL;
	b.symbolizer = NULL;
	err = export_cmd__load(&b);
	if (err)
		goto out_release;
	reg.p = b.profile;
	/* The same --region patterns select BASE's samples too. */
	err = rt_annot__check(&c->annot, b.profile, b.input, &reg.res);
	if (err)
		goto out_release;
	base_in.p = b.profile;
	base_in.s = b.symbolizer;
	base_in.f = c->annot.nr_pats ? &filter : NULL;
	err = pprof__encode_diff(in, &base_in, first_sample_wall_ns(c), gz,
				 &scale);
	if (err == -ENODATA)
		reader_err(err, "%s: no samples to compare",
			   profile__nr_samples(b.profile) ? c->input : b.input);
	else if (err)
		reader_err(err, "cannot build the pprof profile");
	else
		fprintf(export_cmd__info(c), "fxtprof: %s: %" PRIu64
			" samples, negated and scaled by %.4f (FILE's samples / "
			"BASE's) to compare by share\n", b.input,
			base_st->samples, scale);
out_release:
	rt_annot__release(&reg.res);
	export_cmd__release(&b);
	return err;
}

int cmd_export(int argc, char **argv)
{
	struct export_region reg = { 0 };
	struct pprof_filter filter = { export_region__keep, &reg };
	struct export_cmd c;
	struct export_stats st = { 0 }, base_st = { 0 };
	struct pb_buf gz = PB_BUF_INIT;
	const char *format = "pprof";
	int ret, err;

	ret = export_cmd__parse(&c, argc, argv, "export", &format);
	if (ret >= 0)
		return ret;
	if (strcmp(format, "pprof")) {
		reader_err(0, "unknown format '%s': only pprof", format);
		return CMD_EXIT_USAGE;
	}
	ret = CMD_EXIT_FAILED;
	if (export_cmd__load(&c))
		goto out_release;
	reg.o = &c.annot;
	reg.p = c.profile;
	if (rt_annot__check(&c.annot, c.profile, c.input, &reg.res))
		goto out_release;
	if (c.off_cpu && (c.diff_base || c.annot.nr_pats)) {
		reader_err(0, "--off-cpu takes neither --diff-base nor "
			   "--region, --kernel or --section (they select samples)");
		goto out_release;
	}
	if (c.off_cpu) {
		struct pprof_input in = {
			.p = c.profile, .s = c.symbolizer, .st = &st,
		};

		err = pprof__encode_waits(&in, first_sample_wall_ns(&c), &gz);
		if (err == -ENODATA) {
			reader_err(0, "%s holds no off-CPU waits: record them "
				   "with fxtprof record --off-cpu", c.input);
			goto out_release;
		}
		if (err) {
			reader_err(err, "cannot build the pprof profile");
			goto out_release;
		}
	} else if (c.diff_base) {
		struct pprof_input in = {
			.p = c.profile, .s = c.symbolizer, .st = &st,
			.f = c.annot.nr_pats ? &filter : NULL,
		};

		if (export_diff(&c, &in, &gz, &base_st))
			goto out_release;
	} else {
		err = pprof__encode_filtered(c.profile, c.symbolizer,
					     c.annot.nr_pats ? &filter : NULL,
					     first_sample_wall_ns(&c), &gz,
					     &st);
		if (err) {
			reader_err(err, "cannot build the pprof profile");
			goto out_release;
		}
	}
	if (export_cmd__write(&c, gz.data, gz.len))
		goto out_release;
	if (c.off_cpu)
		fprintf(export_cmd__info(&c), "fxtprof: wrote %s: pprof, %zu "
			"bytes gzipped: %" PRIu64 " off-CPU waits, %" PRIu64
			" locations, %" PRIu64 " functions, %" PRIu64
			" mappings; off-cpu is the time waited, in ns\n",
			c.output, gz.len, st.samples, st.locations,
			st.functions, st.mappings);
	else
		fprintf(export_cmd__info(&c), "fxtprof: wrote %s: pprof, %zu "
			"bytes gzipped: %" PRIu64 " samples, %" PRIu64
			" locations, %" PRIu64 " functions, %" PRIu64
			" mappings; cpu time = samples x %" PRIu64 " ns\n",
			c.output, gz.len, st.samples, st.locations,
			st.functions, st.mappings, st.period_ns);
	if (c.annot.nr_pats) {
		fputs("fxtprof:", export_cmd__info(&c));
		rt_annot__print_kept(&c.annot, &reg.res, reg.kept,
				     profile__nr_samples(c.profile),
				     export_cmd__info(&c));
	}
	export_cmd__print_unresolved(&c, &st);
	ret = CMD_EXIT_OK;
out_release:
	rt_annot__release(&reg.res);
	pb_buf__release(&gz);
	export_cmd__release(&c);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * buildid_archive_cmd.c - `fxtprof buildid-archive RECORDING -o FILE.tar`:
 * on the board, every file the recording's mappings name, by build id,
 * in a tar for the host (user/buildid/buildid_archive.h), as `perf
 * archive` does.  The tar is written to FILE.tar.tmp, mode 0600, and
 * renamed when whole; a skipped file is named on stderr and makes the
 * exit status CMD_EXIT_INCOMPLETE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_input.h"
#include "buildid/buildid_archive.h"
#include "cmd.h"
#include "profile/profile.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fxtprof buildid-archive RECORDING -o FILE.tar\n"
		"\n"
		"Pack every file that RECORDING's mappings name (FXT, .fxtz or -)\n"
		"into FILE.tar (mode 0600), by build id: .build-id/xx/yyyy, where xx\n"
		"is the first byte of the build id in hex and yyyy the rest.  Run it\n"
		"where the recording was made; on the host, extract it into DIR and\n"
		"serve it with 'debuginfod -F DIR', or give --debug-dir DIR/.build-id\n"
		"to report, flamegraph, export and symbolize.\n"
		"\n"
		"A file whose build id is no longer the recorded one (rebuilt or\n"
		"upgraded since) is skipped, as is one that cannot be read: each is\n"
		"named on stderr, and the exit status is then 3.\n"
		"\n"
		"  -o, --output FILE   the tar to write (required)\n"
		"  -q, --quiet         no summary line\n"
		"  -h, --help          this text\n");
}

static void note_skipped(void *ctx, const char *path, int err,
			 const char *why)
{
	(void)ctx;
	if (err)
		fprintf(stderr, "fxtprof: buildid-archive: %s %s: %s: skipped\n",
			path, why, strerror(-err));
	else
		fprintf(stderr, "fxtprof: buildid-archive: %s %s: skipped\n",
			path, why);
}

static int write_tar(const struct profile *p, const char *out, bool quiet)
{
	struct buildid_archive_stats st;
	size_t len = strlen(out) + 5;
	char *tmp = malloc(len);
	int fd, err;

	if (!tmp)
		return reader_err(-ENOMEM, "buildid-archive"), CMD_EXIT_FAILED;
	snprintf(tmp, len, "%s.tmp", out);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) != 0) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		reader_err(err, "cannot create %s", tmp);
		free(tmp);
		return CMD_EXIT_FAILED;
	}
	err = buildid_archive__write(p, fd, note_skipped, NULL, &st);
	if (!err && fsync(fd) != 0)
		err = -errno;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, out) != 0)
		err = -errno;
	if (err) {
		reader_err(err, "cannot write %s", out);
		unlink(tmp);
		free(tmp);
		return CMD_EXIT_FAILED;
	}
	free(tmp);
	if (!quiet)
		fprintf(stderr, "fxtprof: buildid-archive: wrote %s: %u files, "
			"%llu bytes; skipped %u changed, %u unreadable; %u "
			"mappings without a build id\n", out, st.files,
			(unsigned long long)st.bytes, st.changed, st.unreadable,
			st.no_build_id);
	return st.changed || st.unreadable ? CMD_EXIT_INCOMPLETE : CMD_EXIT_OK;
}

int cmd_buildid_archive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct archive_input ain;
	struct profile_error perr = { 0 };
	struct profile *p = NULL;
	const char *out = NULL, *path;
	bool quiet = false;
	int c, err, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return CMD_EXIT_OK;
		default:
			usage(stderr);
			return CMD_EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !out) {
		fprintf(stderr, "fxtprof: buildid-archive: %s\n", !out ?
			"-o FILE.tar is required" : "one RECORDING is required");
		usage(stderr);
		return CMD_EXIT_USAGE;
	}
	path = argv[optind];
	if (archive_input__open(&ain, &path, 0, UINT64_MAX) < 0)
		return CMD_EXIT_FAILED;
	err = profile__load(path, &p, &perr);
	if (archive_input__close(&ain) && !err)
		err = -EIO;
	if (err) {
		/* perr.msg names the file itself when it could not be opened. */
		reader_err(err, "buildid-archive: not a readable recording, at "
			   "byte %llu: %s", (unsigned long long)perr.offset,
			   perr.msg[0] ? perr.msg : argv[optind]);
		profile__free(p);
		return CMD_EXIT_FAILED;
	}
	ret = write_tar(p, out, quiet);
	profile__free(p);
	return ret;
}

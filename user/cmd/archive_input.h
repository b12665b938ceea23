/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * archive_input.h - how the commands that read a recording (dump, check,
 * send, report, flamegraph, export) also read an archive (.fxtz): a child
 * process extracts the stream, or only a time range of it, into a pipe
 * that becomes the command's stdin, and the command reads "-" as it reads
 * any FXT stream.  Only the chunks the range needs are decompressed
 * (user/archive/archive_extract.h).
 *
 * A file is taken for an FXT stream when it starts with the FXT magic
 * record; otherwise it is opened as an archive, and if it is not one
 * either, the command gets it unchanged and reports the error it reports
 * for bad FXT.
 */
#ifndef FXTPROF_CMD_ARCHIVE_INPUT_H
#define FXTPROF_CMD_ARCHIVE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct archive_reader;

struct archive_input {
	pid_t pid;		/* the extracting child, 0: none */
	const char *path;	/* the archive */
	char spec[64];		/* a --time rewritten in absolute ns */
};

/*
 * Open @path as an archive if it is one: 1 (and *@a), 0 if it is not
 * (plain FXT, "-", or not an archive), -errno if it is an archive that
 * cannot be read (a sentence was printed).
 */
int archive_input__probe(const char *path, struct archive_reader **a);

/*
 * If *@path names an archive, start the child writing [@from_ns, @to_ns]
 * of it to the pipe now on stdin and set *@path to "-": 1.  0 if it is
 * not an archive (nothing changed), -errno (printed) on failure.
 */
int archive_input__open(struct archive_input *in, const char **path,
			uint64_t from_ns, uint64_t to_ns);
struct archive_extract_stats;
/*
 * Write [@from_ns, @to_ns] of @a to @fd (buffered writes): 0, -EBADMSG
 * (chunks left out, the rest written) or -errno, @err saying why.
 */
int archive_input__extract_fd(const struct archive_reader *a, int fd,
			      uint64_t from_ns, uint64_t to_ns,
			      struct archive_extract_stats *st, char *err,
			      size_t errlen);

/*
 * After the command read its input: close it and wait for the child.
 * 0 if it wrote everything, -EBADMSG if chunks failed their checksum (the
 * rest was written), -EIO otherwise; the child printed why.
 */
int archive_input__close(struct archive_input *in);

/*
 * `--time FROM,TO` as report, flamegraph and export take it (seconds from
 * the first sample, or absolute with an "ns" suffix; an end may be
 * empty): 0 and the inclusive range in absolute ns, or -EINVAL (a
 * sentence was printed).
 */
int archive_time_spec__parse(const char *spec, uint64_t first_sample,
			     uint64_t *from_ns, uint64_t *to_ns);

/*
 * report, flamegraph, export: like archive_input__open(), and when
 * *@spec (a --time, or NULL) is given the child extracts only that range
 * and *@spec becomes the same range in absolute ns, so that the command
 * selects exactly the samples it selects in the plain FXT: seconds count
 * from the recording's first sample, which is found by decompressing the
 * one summary window that holds it.  Needs the profile loader.
 */
int archive_input__open_profile(struct archive_input *in, const char **path,
				const char **spec);

/*
 * The records of the FXT stream in @data that [@from_ns, @to_ns] keeps
 * (user/archive/archive_extract.h's clip), in a new buffer (*@out, to
 * free): 0 or -errno (printed).  Needs the profile loader's build.
 */
int archive_input__clip_buffer(const void *data, size_t len, uint64_t from_ns,
			       uint64_t to_ns, uint8_t **out, size_t *out_len);

#endif /* FXTPROF_CMD_ARCHIVE_INPUT_H */

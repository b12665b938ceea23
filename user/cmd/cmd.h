/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd.h - what the fxtprof subcommands share.
 */
#ifndef FXTPROF_CMD_H
#define FXTPROF_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct sink;

/* The exit status of every subcommand (Documentation/commands.md). */
enum {
	CMD_EXIT_OK = 0,	 /* done; record and send: all of it delivered */
	CMD_EXIT_FAILED = 1,	 /* could not start, or stopped by an error */
	CMD_EXIT_USAGE = 2,	 /* bad arguments */
	CMD_EXIT_INCOMPLETE = 3, /* ran to the end, but output was lost */
};

/* The helpers of cmd_helpers.c. */

/* Print "fxtprof: <message>: <strerror(-err)>" and return @err. */
int reader_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "4096", "64K", "2M", "1G" -> bytes.  Returns 0 or -EINVAL. */
int reader_parse_size(const char *s, uint64_t *out);

/*
 * Block SIGINT and SIGTERM (the old mask goes to @old) and return a
 * signalfd that reads them, or -errno: the event loops wait on it.
 */
int reader_signalfd(sigset_t *old);

/* "0600" -> 0600, octal, at most 0777.  Returns 0 or -EINVAL. */
int reader_parse_mode(const char *s, unsigned int *mode);

/*
 * After sink__linger(): print what reached @uri and what was lost (unless
 * @quiet); true when everything committed was delivered and confirmed.
 */
bool cmd_delivery_summary(const struct sink *s, const char *uri, bool quiet);

int cmd_record(int argc, char **argv);
int cmd_trigger(int argc, char **argv);
/* 1 if @name is a valid trigger name (the module's rule), else 0. */
int cmd_trigger_name_ok(const char *name);
int cmd_report(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_send(int argc, char **argv);
int cmd_receive(int argc, char **argv);
/* The archive's commands (archive_cmd.c). */
int cmd_info(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_archive(int argc, char **argv);
/* dump and check, reading archives too (archive_input.c). */
int cmd_dump(int argc, char **argv);
int cmd_check(int argc, char **argv);
/* An ELF file's unwind table (unwind.c). */
int cmd_unwind(int argc, char **argv);
/* A recording's mapped files by build id, in a tar (buildid_archive_cmd.c). */
int cmd_buildid_archive(int argc, char **argv);

#endif /* FXTPROF_CMD_H */

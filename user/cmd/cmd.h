/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd.h - what the fxtprof subcommands share.
 */
#ifndef FXTPROF_CMD_H
#define FXTPROF_CMD_H

#include <signal.h>
#include <stdint.h>

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

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_send(int argc, char **argv);
int cmd_receive(int argc, char **argv);

#endif /* FXTPROF_CMD_H */

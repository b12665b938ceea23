/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * push_cli.h - the --push options that `receive` and `record` share
 * (user/push/push.h): their getopt entries, their parser and their
 * usage lines.
 */
#ifndef FXTPROF_PUSH_CLI_H
#define FXTPROF_PUSH_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "push/push.h"

/* Option values of their own, above every command's. */
enum {
	PUSH_CLI_URL = 0x700,
	PUSH_CLI_INTERVAL,
	PUSH_CLI_APP,
	PUSH_CLI_LABELS,
	PUSH_CLI_QUEUE,
	PUSH_CLI_TIMEOUT,
};

#define PUSH_CLI_LONGOPTS						\
	{ "push", required_argument, NULL, PUSH_CLI_URL },		\
	{ "push-interval", required_argument, NULL, PUSH_CLI_INTERVAL }, \
	{ "push-app", required_argument, NULL, PUSH_CLI_APP },		\
	{ "push-labels", required_argument, NULL, PUSH_CLI_LABELS },	\
	{ "push-queue", required_argument, NULL, PUSH_CLI_QUEUE },	\
	{ "push-timeout", required_argument, NULL, PUSH_CLI_TIMEOUT }

/*
 * getopt's @opt with @arg into @o: 0; -ENOENT when @opt is no push
 * option; -EINVAL after saying what is wrong with @arg.
 */
int push_cli__option(int opt, const char *arg, struct push_opts *o);
/* The options' lines of a usage text. */
void push_cli__usage(FILE *f);

#endif /* FXTPROF_PUSH_CLI_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * trigger.c - `fxtprof trigger NAME`: fire a trigger into the running
 * session through /dev/fxtprof-annotate (FXTPROF_IOC_TRIGGER).  A flight
 * recorder whose --trigger list has NAME writes a snapshot when it drains
 * the record (Documentation/flight-recorder.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include <linux/fxtprof.h>

static void trigger_usage(FILE *f)
{
	fprintf(f,
"usage: fxtprof trigger [--device PATH] NAME\n"
"  Fire trigger NAME (1..%d characters of A-Z a-z 0-9 . _ -) into the\n"
"  running recording, as a TRIGGER record on this thread and CPU.\n"
"      --device PATH   the annotation device (default %s)\n"
"Exit status: 0 fired; 1 no module, not permitted, or no recording\n"
"running; 2 bad arguments.\n",
		FXTPROF_TRIGGER_NAME_MAX, FXTPROF_ANNOTATE_DEVICE);
}

int cmd_trigger_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > FXTPROF_TRIGGER_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '.' && c != '_' && c != '-')
			return 0;
	}
	return 1;
}

int cmd_trigger(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = FXTPROF_ANNOTATE_DEVICE, *name;
	struct fxtprof_trigger t;
	int c, fd, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			dev = optarg;
			break;
		case 'h':
			trigger_usage(stdout);
			return CMD_EXIT_OK;
		default:
			trigger_usage(stderr);
			return CMD_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		trigger_usage(stderr);
		return CMD_EXIT_USAGE;
	}
	name = argv[optind];
	if (!cmd_trigger_name_ok(name)) {
		reader_err(-EINVAL, "bad trigger name '%s' (1..%d characters of A-Z a-z 0-9 . _ -)",
			   name, FXTPROF_TRIGGER_NAME_MAX);
		return CMD_EXIT_USAGE;
	}
	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	memcpy(t.name, name, strlen(name));

	fd = open(dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			reader_err(ret, "cannot open %s (is fxtprof.ko loaded?)",
				   dev);
		else if (ret == -EACCES || ret == -EPERM)
			reader_err(ret, "cannot open %s: not permitted (root only, unless the module's group= parameter names a group of yours; see Documentation/security.md)",
				   dev);
		else
			reader_err(ret, "cannot open %s", dev);
		return CMD_EXIT_FAILED;
	}
	ret = ioctl(fd, FXTPROF_IOC_TRIGGER, &t) ? -errno : 0;
	close(fd);
	if (ret == -ESRCH) {
		reader_err(ret, "trigger '%s' not fired: no recording is running (start fxtprof record first)",
			   name);
		return CMD_EXIT_FAILED;
	}
	if (ret) {
		reader_err(ret, "trigger '%s' not fired", name);
		return CMD_EXIT_FAILED;
	}
	return CMD_EXIT_OK;
}

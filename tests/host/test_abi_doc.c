// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_abi_doc.c - the ioctl table of Documentation/abi.md says what the
 * uapi header says: for every ioctl, the number and the argument's size,
 * and no row for an ioctl the header does not have.  A caller who follows
 * the table must not get EINVAL.  The table's path is the first argument.
 * TAP on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fxtprof.h>

struct abi_ioctl {
	const char *name;
	unsigned long nr;
	unsigned int size;	/* 0: no argument */
};

#define IOCTL(n, s) { #n, n, s }
static const struct abi_ioctl ioctls[] = {
	IOCTL(FXTPROF_IOC_GET_INFO, sizeof(struct fxtprof_info)),
	IOCTL(FXTPROF_IOC_CONFIGURE, sizeof(struct fxtprof_config)),
	IOCTL(FXTPROF_IOC_START, 0),
	IOCTL(FXTPROF_IOC_STOP, 0),
	IOCTL(FXTPROF_IOC_FLUSH, sizeof(struct fxtprof_flush)),
	IOCTL(FXTPROF_IOC_GET_STATS, sizeof(struct fxtprof_stats)),
	IOCTL(FXTPROF_IOC_ATTACH, sizeof(struct fxtprof_attach)),
	IOCTL(FXTPROF_IOC_DETACH, 0),
	IOCTL(FXTPROF_IOC_SYNC, sizeof(struct fxtprof_sync)),
	IOCTL(FXTPROF_IOC_GET_SOURCE, sizeof(struct fxtprof_source)),
};
#define NR_IOCTLS (sizeof(ioctls) / sizeof(ioctls[0]))

/* A table row: "| `NAME` | `_IO...(...)` = `0xNUMBER` | what, N bytes |". */
static int parse_row(const char *line, char *name, size_t namelen,
		     unsigned long *nr, unsigned int *size)
{
	const char *p = line, *q;

	if (strncmp(p, "| `FXTPROF_IOC_", 15))
		return 0;
	p += 3;
	q = strchr(p, '`');
	if (!q || (size_t)(q - p) >= namelen)
		return -1;
	memcpy(name, p, q - p);
	name[q - p] = '\0';
	p = strstr(q, "= `0x");
	if (!p || sscanf(p, "= `0x%lx`", nr) != 1)
		return -1;
	p = strchr(p + 4, '|');
	if (!p)
		return -1;
	if (strstr(p, "| none |"))
		*size = 0;
	else if (!(q = strstr(p, " bytes |")) ||
		 sscanf(strrchr(p, ',') ? strrchr(p, ',') + 1 : p, "%u", size) != 1)
		return -1;
	return 1;
}

int main(int argc, char **argv)
{
	int seen[NR_IOCTLS] = { 0 }, n = 0, failed = 0;
	char line[512], name[64];
	unsigned long nr;
	unsigned int size;
	size_t i;
	FILE *f;

	printf("TAP version 13\n1..%zu\n", NR_IOCTLS + 2);
	f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f) {
		printf("not ok %d the ioctl table can be read\n", ++n);
		printf("Bail out! no %s\n", argc > 1 ? argv[1] : "path given");
		return 1;
	}
	printf("ok %d the ioctl table can be read\n", ++n);
	while (fgets(line, sizeof(line), f)) {
		int r = parse_row(line, name, sizeof(name), &nr, &size);

		if (!r)
			continue;
		for (i = 0; i < NR_IOCTLS; i++)
			if (r > 0 && !strcmp(name, ioctls[i].name))
				break;
		if (r < 0 || i == NR_IOCTLS) {
			printf("# a row the header does not have, or cannot be read: %s", line);
			failed = 1;
			continue;
		}
		seen[i]++;
		if (nr != ioctls[i].nr || size != ioctls[i].size) {
			printf("# %s: the table says 0x%lx, %u bytes; the header 0x%lx, %u bytes\n",
			       name, nr, size, ioctls[i].nr, ioctls[i].size);
			seen[i] = -1;
		}
	}
	fclose(f);
	printf("%s %d no row for an ioctl the header lacks\n", failed ? "not ok" : "ok", ++n);
	for (i = 0; i < NR_IOCTLS; i++) {
		printf("%s %d %s: 0x%lx, %u bytes, in the table once\n",
		       seen[i] == 1 ? "ok" : "not ok", ++n, ioctls[i].name,
		       ioctls[i].nr, ioctls[i].size);
		failed |= seen[i] != 1;
	}
	return failed;
}

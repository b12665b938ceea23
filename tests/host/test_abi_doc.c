// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_abi_doc.c - the ioctl table of Documentation/abi.md says what the
 * uapi header says: for every ioctl, the number and the argument's size,
 * and no row for an ioctl the header does not have.  A caller who follows
 * the table must not get EINVAL.  The configuration flag table likewise:
 * every FXTPROF_CFG_* bit once, at its bit number, together
 * FXTPROF_CFG_ALL.  The file's path is the first argument.  TAP on stdout.
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
	IOCTL(FXTPROF_IOC_UNWIND_LOAD, sizeof(struct fxtprof_unwind_table)),
	IOCTL(FXTPROF_IOC_UNWIND_MAP, sizeof(struct fxtprof_unwind_map)),
	IOCTL(FXTPROF_IOC_UNWIND_UNLOAD, sizeof(struct fxtprof_unwind_unload)),
	IOCTL(FXTPROF_IOC_KSYM, sizeof(struct fxtprof_ksym_query)),
};
#define NR_IOCTLS (sizeof(ioctls) / sizeof(ioctls[0]))

#define CFG(n) { #n, n }
static const struct abi_flag {
	const char *name;
	unsigned int value;
} cfg_flags[] = {
	CFG(FXTPROF_CFG_SAMPLE),
	CFG(FXTPROF_CFG_KSTACK),
	CFG(FXTPROF_CFG_USTACK),
	CFG(FXTPROF_CFG_SKIP_IDLE),
	CFG(FXTPROF_CFG_TASKS),
	CFG(FXTPROF_CFG_SNAPSHOT),
	CFG(FXTPROF_CFG_SCHED),
	CFG(FXTPROF_CFG_ANNOTATE),
	CFG(FXTPROF_CFG_UNWIND),
	CFG(FXTPROF_CFG_STACK_COPY),
	CFG(FXTPROF_CFG_OFFCPU),
};
#define NR_CFG_FLAGS (sizeof(cfg_flags) / sizeof(cfg_flags[0]))

/*
 * A flag row: "| `FXTPROF_CFG_NAME` | BIT | effect |".  Checks it against
 * cfg_flags; returns the bit it stands for, or 0 after saying why not.
 */
static unsigned int check_flag_row(const char *line)
{
	const char *p = line + 3, *q = strchr(p, '`');
	unsigned int bit;
	size_t i;

	if (!q || sscanf(q, "` | %u |", &bit) != 1 || bit > 31) {
		printf("# a flag row that cannot be read: %s", line);
		return 0;
	}
	for (i = 0; i < NR_CFG_FLAGS; i++)
		if (strlen(cfg_flags[i].name) == (size_t)(q - p) &&
		    !memcmp(cfg_flags[i].name, p, q - p))
			break;
	if (i == NR_CFG_FLAGS) {
		printf("# a flag the header does not have: %s", line);
		return 0;
	}
	if (cfg_flags[i].value != 1u << bit) {
		printf("# %s: the table says bit %u, the header 0x%x\n",
		       cfg_flags[i].name, bit, cfg_flags[i].value);
		return 0;
	}
	return 1u << bit;
}

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
	unsigned int flags_seen = 0, flag, all = 0;
	int seen[NR_IOCTLS] = { 0 }, n = 0, failed = 0, flags_ok = 1;
	char line[512], name[64];
	unsigned long nr;
	unsigned int size;
	size_t i;
	FILE *f;

	printf("TAP version 13\n1..%zu\n", NR_IOCTLS + 3);
	f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f) {
		printf("not ok %d the ioctl table can be read\n", ++n);
		printf("Bail out! no %s\n", argc > 1 ? argv[1] : "path given");
		return 1;
	}
	printf("ok %d the ioctl table can be read\n", ++n);
	while (fgets(line, sizeof(line), f)) {
		int r;

		if (!strncmp(line, "| `FXTPROF_CFG_", 15)) {
			flag = check_flag_row(line);
			if (flags_seen & flag)
				printf("# a flag row twice: %s", line);
			if (!flag || (flags_seen & flag))
				flags_ok = 0;
			flags_seen |= flag;
			continue;
		}
		r = parse_row(line, name, sizeof(name), &nr, &size);
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
	for (i = 0; i < NR_CFG_FLAGS; i++)
		all |= cfg_flags[i].value;
	flags_ok &= flags_seen == FXTPROF_CFG_ALL && all == FXTPROF_CFG_ALL;
	printf("%s %d the flag table: every FXTPROF_CFG_* bit once, at its bit, "
	       "0x%x of FXTPROF_CFG_ALL 0x%x\n", flags_ok ? "ok" : "not ok",
	       ++n, flags_seen, FXTPROF_CFG_ALL);
	failed |= !flags_ok;
	return failed;
}

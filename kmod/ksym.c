// SPDX-License-Identifier: GPL-2.0-only
/*
 * ksym.c - FXTPROF_IOC_KSYM: the kernel text symbol that holds an
 * address, for a reader that names the kernel frames of its samples as
 * they come instead of holding a copy of /proc/kallsyms.
 *
 * kallsyms_lookup() is not exported; sprint_symbol() is, and it prints
 * what a reader needs: "function+0xoff/0xsize [module]", or the bare
 * address where no symbol holds it.  It covers what /proc/kallsyms
 * lists: the image, modules, BPF programs and trampolines, as they are
 * now.
 */
#include <linux/capability.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "fxtprof_module.h"

/*
 * Split sprint_symbol()'s @buf (modified) into @q's name and range.
 * "name+0xoff/0xsize" may be followed by " [module]"; the name ends at
 * the last '+' before it (names have none of their own, but may have
 * dots: "foo.cold").
 */
static int fxtprof_ksym_parse(char *buf, unsigned long addr,
			      struct fxtprof_ksym_query *q)
{
	char *mod = strstr(buf, " [");
	unsigned long off, size;
	char *plus, *slash;

	if (mod)
		*mod++ = '\0';		/* mod: "[module]" */
	plus = strrchr(buf, '+');
	if (!plus || plus == buf)
		return -ENOENT;		/* "0x...": in no symbol */
	*plus = '\0';
	slash = strchr(plus + 1, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if (kstrtoul(plus + 1, 0, &off) || kstrtoul(slash + 1, 0, &size) ||
	    off > addr || !size)
		return -ENOENT;
	q->start = addr - off;
	q->len = size;
	if (mod)
		scnprintf(q->name, sizeof(q->name), "%s %s", buf, mod);
	else
		strscpy(q->name, buf, sizeof(q->name));
	return 0;
}

int fxtprof_ksym_lookup(struct fxtprof_ksym_query *q)
{
	char *buf;
	int ret;

	if (q->flags)
		return -EINVAL;
	/* What /proc/kallsyms asks before it shows an address. */
	if (!capable(CAP_SYSLOG))
		return -EPERM;
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	sprint_symbol(buf, (unsigned long)q->addr);
	memset(q->name, 0, sizeof(q->name));
	ret = fxtprof_ksym_parse(buf, (unsigned long)q->addr, q);
	kfree(buf);
	return ret;
}

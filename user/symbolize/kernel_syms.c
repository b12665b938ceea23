// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel_syms.c - load a vmlinux or a System.map into a sorted table.
 * System.map has no sizes: a symbol ends where the next begins.
 */
#include "symbolize/kernel_syms.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* An empty table that remembers @path, or NULL. */
static struct kernel_syms *kernel_syms__alloc(const char *path)
{
	struct kernel_syms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->path = strdup(path);
	if (!k->path) {
		free(k);
		return NULL;
	}
	return k;
}

/*
 * What both loaders end with: a table of at least one symbol goes to
 * *@out; on an earlier error (@err) or an empty table @k is freed.
 */
static int kernel_syms__publish(struct kernel_syms *k, int err,
				struct kernel_syms **out)
{
	if (!err) {
		sym_table__finish(&k->table);
		if (!k->table.nr)
			err = -ENOEXEC;
	}
	if (err) {
		kernel_syms__free(k);
		return err;
	}
	*out = k;
	return 0;
}

int kernel_syms__load_vmlinux(const char *path, struct kernel_syms **out)
{
	struct kernel_syms *k;
	int err;

	*out = NULL;
	k = kernel_syms__alloc(path);
	if (!k)
		return -ENOMEM;
	err = elf_image__open(path, &k->img);
	if (!err)
		err = sym_table__add_image(&k->table, k->img);
	if (!err)
		k->has_stext = elf_image__symbol_value(k->img, "_stext",
						       &k->stext);
	return kernel_syms__publish(k, err, out);
}

static int read_all(const char *path, char **out)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int err = 0;

	*out = NULL;
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto close_f;
	}
	do {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 65536 + 1);

			if (!nb) {
				err = -ENOMEM;
				goto close_f;
			}
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		err = -EIO;
		goto close_f;
	}
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
close_f:
	free(buf);
	fclose(f);
	return err;
}

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* System.map's text symbols into @k's table; names are cut in k->text. */
static int kernel_syms__parse_system_map(struct kernel_syms *k)
{
	char *line, *next;
	int err;

	for (line = k->text; line && *line; line = next) {
		char *end, *name;
		unsigned long long addr;
		char type;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!isxdigit((unsigned char)line[0]))
			continue;
		addr = strtoull(line, &end, 16);
		if (*end != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		name = end + 3;
		name[strcspn(name, " \t\r")] = '\0';
		if (!name[0])
			continue;
		if (!strcmp(name, "_stext")) {
			k->has_stext = true;
			k->stext = addr;
		}
		if (!is_text_type(type))
			continue;
		err = sym_table__add(&k->table, addr, 0, UINT64_MAX, name,
				     type == 'T' ? 3 : type == 't' ? 2 : 1);
		if (err)
			return err;
	}
	return 0;
}

int kernel_syms__load_system_map(const char *path, struct kernel_syms **out)
{
	struct kernel_syms *k;
	int err;

	*out = NULL;
	k = kernel_syms__alloc(path);
	if (!k)
		return -ENOMEM;
	/* The table points into k->text, which lives as long as @k. */
	err = read_all(path, &k->text);
	if (!err)
		err = kernel_syms__parse_system_map(k);
	return kernel_syms__publish(k, err, out);
}

void kernel_syms__free(struct kernel_syms *k)
{
	if (!k)
		return;
	sym_table__release(&k->table);
	elf_image__free(k->img);
	free(k->text);
	free(k->path);
	free(k);
}

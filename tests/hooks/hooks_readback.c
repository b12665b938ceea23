// SPDX-License-Identifier: GPL-2.0-only
/*
 * hooks_readback.c - check and read back a trace of libfxtprof-hooks
 * (hooks_readback.h).  FXTPROF_BIN is the fxtprof command of this build.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fxt_reader.h"
#include "hooks_readback.h"

int rb_check(const char *path)
{
	char cmd[4096];
	int st;

	snprintf(cmd, sizeof(cmd), "%s check '%s' >/dev/null", FXTPROF_BIN,
		 path);
	st = system(cmd);
	if (st < 0)
		return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void copy_str(char *dst, size_t cap, const struct fxt_str *s)
{
	size_t n = s->len < cap - 1 ? s->len : cap - 1;

	memcpy(dst, s->data, n);
	dst[n] = '\0';
}

static int add_event(struct rb_trace *t, const struct fxt_record *r)
{
	struct rb_event *e;
	char cat[16];

	copy_str(cat, sizeof(cat), &r->event.category);
	if (r->event.name.len == 19 &&
	    !memcmp(r->event.name.data, "fxtprof:kernel_lost", 19)) {
		t->lost_notices++;
		for (unsigned int i = 0; i < r->nargs; i++)
			if (r->args[i].name.len == 7 &&
			    !memcmp(r->args[i].name.data, "records", 7))
				t->lost_records = r->args[i].v.u64;
		return 0;
	}
	if (strcmp(cat, "region") && strcmp(cat, "section") &&
	    strcmp(cat, "kernel") && strcmp(cat, "event"))
		return 0;
	if (!(t->n & 1023)) {
		e = realloc(t->ev, (t->n + 1024) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		t->ev = e;
	}
	e = &t->ev[t->n++];
	memset(e, 0, sizeof(*e));
	e->type = r->subtype;
	e->pid = r->thread.pid;
	e->tid = r->thread.tid;
	e->ts = r->ts;
	memcpy(e->category, cat, sizeof(cat));
	copy_str(e->name, sizeof(e->name), &r->event.name);
	e->name_len = (uint16_t)r->event.name.len;
	e->id = r->event.has_payload ? r->event.payload : 0;
	for (unsigned int i = 0; i < r->nargs; i++) {
		if (r->args[i].name.len == 9 &&
		    !memcmp(r->args[i].name.data, "kernel_id", 9)) {
			e->has_kernel_id = true;
			e->kernel_id = r->args[i].v.u64;
		}
	}
	return 0;
}

static int add_name(struct rb_trace *t, const struct fxt_record *r)
{
	struct rb_name *nm;

	if (!(t->threads_named & 63)) {
		nm = realloc(t->names, (t->threads_named + 64) * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		t->names = nm;
	}
	nm = &t->names[t->threads_named++];
	nm->tid = r->kobj.koid;
	copy_str(nm->name, sizeof(nm->name), &r->kobj.name);
	nm->after = t->n;
	return 0;
}

int rb_load(const char *path, struct rb_trace *t)
{
	struct fxt_reader *r;
	struct fxt_record rec;
	char buf[65536];
	size_t n;
	FILE *f;
	int ret;

	memset(t, 0, sizeof(*t));
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	ret = fxt_reader__new(0, &r);
	if (ret)
		goto out_close;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		ret = fxt_reader__feed(r, buf, n);
		while (!ret && (ret = fxt_reader__next(r, &rec)) == 1) {
			ret = 0;
			if (rec.type == FXT_REC_EVENT)
				ret = add_event(t, &rec);
			else if (rec.type == FXT_REC_KERNEL_OBJ &&
				 rec.subtype == FXT_KOBJ_THREAD)
				ret = add_name(t, &rec);
		}
		if (ret < 0)
			break;
	}
	if (!ret)
		ret = fxt_reader__finish(r);
	if (ret < 0) {
		fprintf(stderr, "# %s: %s\n", path, fxt_reader__error(r)->msg);
		ret = -EPROTO;
	}
	fxt_reader__free(r);
out_close:
	fclose(f);
	return ret;
}

void rb_free(struct rb_trace *t)
{
	free(t->ev);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

unsigned int rb_names_of(const struct rb_trace *t, uint64_t tid,
			 const struct rb_name **out, unsigned int cap)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < t->threads_named; i++) {
		if (t->names[i].tid != tid)
			continue;
		if (n < cap)
			out[n] = &t->names[i];
		n++;
	}
	return n;
}

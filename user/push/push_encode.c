// SPDX-License-Identifier: GPL-2.0-only
/*
 * push_encode.c - an interval's profiles as ingest requests
 * (push_encode.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "push_encode.h"
#include "export/pprof.h"
#include "profile/profile.h"

#define SCHEME		"pyroscope+"
#define SERIES_MAX	256		/* label text of one process */

/* Pyroscope's label names: [A-Za-z0-9_.], not empty. */
static bool label_name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.", s[i]))
			return false;
	return true;
}

/* App names: label name characters, '-' and '/'. */
static bool app_name_ok(const char *s)
{
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz-/"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.", *s))
			return false;
	return true;
}

/*
 * ",name=value" appended to @buf (@n used of @cap): the value's ',', '{',
 * '}', '=' and control characters become '_', which the parser would
 * otherwise take for syntax.  The new length; @cap - 1 at most.
 */
static size_t label_add(char *buf, size_t cap, size_t n, const char *name,
			const char *value)
{
	int w;
	char *v;

	if (!value || !*value)
		return n;
	w = snprintf(buf + n, cap - n, ",%s=", name);
	if (w < 0 || (size_t)w >= cap - n)
		return n;
	v = buf + n + w;
	for (; *value && (size_t)(v - buf) < cap - 1; value++)
		*v++ = strchr(",{}=", *value) ||
		       (unsigned char)*value < 0x20 ? '_' : *value;
	*v = '\0';
	return (size_t)(v - buf);
}

int push_target__init(struct push_target *t, const struct push_opts *o,
		      char *err, size_t errlen)
{
	const char *url = o->url, *l, *comma, *eq;
	size_t n = 0, blen;

	memset(t, 0, sizeof(*t));
	if (strncmp(url, SCHEME "http://", strlen(SCHEME "http://")) &&
	    strncmp(url, SCHEME "https://", strlen(SCHEME "https://"))) {
		snprintf(err, errlen, "--push '%s': want "
			 "pyroscope+http://HOST:PORT (or pyroscope+https://)",
			 url);
		return -EINVAL;
	}
	url += strlen(SCHEME);
	blen = strlen(url);
	while (blen && url[blen - 1] == '/')
		blen--;
	if (blen >= sizeof(t->base) || blen <= strlen("https://")) {
		snprintf(err, errlen, "--push '%s': no host, or too long",
			 o->url);
		return -EINVAL;
	}
	memcpy(t->base, url, blen);
	t->app = o->app;
	if (!*t->app || !app_name_ok(t->app)) {
		snprintf(err, errlen, "--push-app '%s': letters, digits and "
			 "_ . - / only (Pyroscope's service names)", t->app);
		return -EINVAL;
	}
	for (l = o->labels; l && *l; l = comma ? comma + 1 : l + strlen(l)) {
		char name[64], value[256];
		size_t nl, vl;

		comma = strchr(l, ',');
		eq = strchr(l, '=');
		vl = comma ? (size_t)(comma - l) : strlen(l);
		if (!eq || eq >= l + vl) {
			snprintf(err, errlen, "--push-labels: '%.*s' is not "
				 "NAME=VALUE", (int)vl, l);
			return -EINVAL;
		}
		nl = (size_t)(eq - l);
		vl -= nl + 1;
		if (!label_name_ok(l, nl) || nl >= sizeof(name) ||
		    !vl || vl >= sizeof(value) || memchr(eq + 1, '}', vl) ||
		    memchr(eq + 1, '{', vl)) {
			snprintf(err, errlen, "--push-labels: '%.*s': names "
				 "are letters, digits, _ and .; values are not "
				 "empty and hold no braces", (int)(nl + vl + 1),
				 l);
			return -EINVAL;
		}
		memcpy(name, l, nl);
		name[nl] = '\0';
		memcpy(value, eq + 1, vl);
		value[vl] = '\0';
		n = label_add(t->labels, sizeof(t->labels), n, name, value);
	}
	t->sym = o->sym;
	return 0;
}

/*
 * The labels that tell one process's series from another's, for sample
 * @smp: its name, and its container's cgroup when the recording has it.
 */
static size_t series_labels(const struct profile *p,
			    const struct profile_sample *smp, char *buf,
			    size_t cap)
{
	const struct profile_process *proc = profile__process(p, smp->pid);
	size_t n;

	buf[0] = '\0';
	n = label_add(buf, cap, 0, "process",
		      smp->process ? smp->process : "unknown");
	if (proc && proc->cgroup)
		n = label_add(buf, cap, n, "cgroup", proc->cgroup);
	return n;
}

/* The machine's labels, from the recording. */
static size_t machine_labels(const struct profile *p, char *buf, size_t cap)
{
	const struct profile_machine *m = profile__machine(p);
	size_t n = 0;

	buf[0] = '\0';
	n = label_add(buf, cap, n, "arch", m->arch);
	n = label_add(buf, cap, n, "host", m->host);
	return label_add(buf, cap, n, "kernel_release", m->kernel_release);
}

/* RFC 3986's unreserved characters stay, the rest is %XX. */
static void pct_encode(char *out, size_t cap, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *s && n + 4 < cap; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("-._~", ch)) {
			out[n++] = (char)ch;
		} else {
			out[n++] = '%';
			out[n++] = hex[ch >> 4];
			out[n++] = hex[ch & 15];
		}
	}
	out[n] = '\0';
}

/* The processes of an interval, and which one each sample is. */
struct series_set {
	char (*labels)[SERIES_MAX];
	size_t n, cap;
	uint32_t *of_sample, *of_wait;	/* UINT32_MAX: not pushed */
	uint32_t want;			/* what the filter keeps */
};

static uint32_t series_find(struct series_set *ss, const char *labels)
{
	size_t i;

	for (i = ss->n; i-- > 0;)
		if (!strcmp(ss->labels[i], labels))
			return (uint32_t)i;
	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? 2 * ss->cap : 16;
		void *l = realloc(ss->labels, cap * sizeof(*ss->labels));

		if (!l)
			return UINT32_MAX - 1;
		ss->labels = l;
		ss->cap = cap;
	}
	snprintf(ss->labels[ss->n], SERIES_MAX, "%s", labels);
	return (uint32_t)ss->n++;
}

/* Each sample's (waits: @waits) series: 0 or -ENOMEM. */
static int series_assign(struct series_set *ss, const struct profile *p,
			 bool waits, uint32_t **out)
{
	size_t n = waits ? profile__nr_waits(p) : profile__nr_samples(p), i;
	uint32_t *of = calloc(n ? n : 1, sizeof(*of));
	char labels[SERIES_MAX];

	if (!of)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct profile_sample *smp = waits ? profile__wait(p, i) :
						   profile__sample(p, i);

		of[i] = UINT32_MAX;
		/* The idle task is no process's time. */
		if (!smp->pid)
			continue;
		series_labels(p, smp, labels, sizeof(labels));
		of[i] = series_find(ss, labels);
		if (of[i] == UINT32_MAX - 1) {
			free(of);
			return -ENOMEM;
		}
	}
	*out = of;
	return 0;
}

static bool keep_sample(void *ctx, size_t i)
{
	struct series_set *ss = ctx;

	return ss->of_sample[i] == ss->want;
}

static bool keep_wait(void *ctx, size_t i)
{
	struct series_set *ss = ctx;

	return ss->of_wait[i] == ss->want;
}

void push_item__free(struct push_item *it)
{
	struct push_request *r, *next;

	if (!it)
		return;
	for (r = it->reqs; r; r = next) {
		next = r->next;
		free(r->url);
		free(r->body);
		free(r);
	}
	free(it);
}

/* One request appended to @it: 0 or -ENOMEM.  Takes @gz's memory. */
static int item_add(struct push_item *it, struct push_request ***tail,
		    const struct push_target *t, const char *type,
		    const char *labels, uint64_t from_s, uint64_t until_s,
		    unsigned int hz, struct pb_buf *gz)
{
	char name[2048], enc[6144];
	struct push_request *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	/* labels begin with ','; Pyroscope's {} takes the first away. */
	snprintf(name, sizeof(name), "%s.%s{%s}", t->app, type, labels + 1);
	pct_encode(enc, sizeof(enc), name);
	if (asprintf(&r->url, "%s/ingest?name=%s&from=%" PRIu64 "&until=%"
		     PRIu64 "&format=pprof&sampleRate=%u&spyName=fxtprof",
		     t->base, enc, from_s, until_s, hz) < 0) {
		free(r);
		return -ENOMEM;
	}
	r->body = gz->data;
	r->len = gz->len;
	*gz = (struct pb_buf)PB_BUF_INIT;
	it->bytes += r->len + strlen(r->url);
	**tail = r;
	*tail = &r->next;
	return 0;
}

int push_encode__interval(const struct push_target *t,
			  const unsigned char *fxt, size_t len,
			  uint64_t from_s, uint64_t until_s,
			  struct push_item **out)
{
	struct profile_error perr = { 0 };
	struct series_set ss = { 0 };
	struct pprof_filter fs = { keep_sample, &ss }, fw = { keep_wait, &ss };
	struct push_request **tail;
	struct symbolizer *sym = NULL;
	struct profile *p = NULL;
	struct push_item *it = NULL;
	struct pb_buf gz = PB_BUF_INIT;
	char machine[768], labels[1536];
	unsigned int hz;
	uint64_t period, time_nanos = from_s * 1000000000ull;
	size_t m, ns;
	int ret;

	*out = NULL;
	ret = profile__load_buffer(fxt, len, &p, &perr);
	if (ret)
		return ret;
	ns = profile__nr_samples(p);
	if (!ns && !profile__nr_waits(p))
		goto out_free;
	ret = series_assign(&ss, p, false, &ss.of_sample);
	if (!ret)
		ret = series_assign(&ss, p, true, &ss.of_wait);
	if (ret || !ss.n)
		goto out_free;
	ret = symbolizer__new(&t->sym, &sym);
	if (ret)
		goto out_free;
	it = calloc(1, sizeof(*it));
	if (!it) {
		ret = -ENOMEM;
		goto out_free;
	}
	tail = &it->reqs;
	if (ns)
		it->span_ns = profile__sample(p, ns - 1)->ts -
			      profile__sample(p, 0)->ts;
	period = profile__sample_period_ns(p);
	hz = period ? (unsigned int)((1000000000ull + period / 2) / period) : 0;
	machine_labels(p, machine, sizeof(machine));
	for (m = 0; m < ss.n; m++) {
		struct export_stats st = { 0 };
		struct pprof_input in = {
			.p = p, .s = sym, .f = &fw, .st = &st,
		};

		snprintf(labels, sizeof(labels), "%s%s%s", machine,
			 ss.labels[m], t->labels);
		ss.want = (uint32_t)m;
		ret = pprof__encode_filtered(p, sym, &fs, time_nanos, &gz, &st);
		/* A process with waits only has an empty CPU profile. */
		if (!ret && st.samples)
			ret = item_add(it, &tail, t, "cpu", labels, from_s,
				       until_s, hz, &gz);
		if (ret)
			goto out_free;
		memset(&st, 0, sizeof(st));
		ret = pprof__encode_waits(&in, time_nanos, &gz);
		if (ret == -ENODATA)
			ret = 0;
		else if (!ret)
			ret = item_add(it, &tail, t, "off_cpu", labels, from_s,
				       until_s, hz, &gz);
		if (ret)
			goto out_free;
	}
	if (it->reqs) {
		*out = it;
		it = NULL;
	}
out_free:
	push_item__free(it);
	pb_buf__release(&gz);
	symbolizer__free(sym);
	profile__free(p);
	free(ss.labels);
	free(ss.of_sample);
	free(ss.of_wait);
	return ret;
}

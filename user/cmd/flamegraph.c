// SPDX-License-Identifier: GPL-2.0-only
/*
 * flamegraph.c - `fxtprof flamegraph FILE -o out.svg`: one self-contained
 * interactive SVG (hover details, click to zoom, search), written from
 * the tree of report_tree.c: "all", then the comm, then frames root
 * first; children in alphabetical order, widths by samples.  Kernel
 * frames are orange, user frames warm reds and yellows, idle grey.
 * `--folded` prints the folded stacks instead (comm;root;...;leaf N).
 * `--diff BASE` draws the differential flame graph of BASE and FILE, as
 * Brendan Gregg's difffolded convention has it: the frames and widths are
 * FILE's, and each frame is red where its share of the samples grew from
 * BASE, blue where it shrank, the deeper the more it changed.
 *
 * Our own SVG and script: FlameGraph's are CDDL and not used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "tree_cmd.h"
#include "report/report_diff.h"
#include "report/report_offcpu.h"
#include "report/report_tree.h"

#define FRAME_H		16
#define PAD_TOP		40
#define PAD_BOTTOM	34
#define PAD_SIDE	10
#define MIN_WIDTH	0.1	/* px: narrower frames are left out */
#define MAX_DEPTH	1024

struct flame_opts {
	struct rt_opts rt;
	const char *path, *out, *title;
	const char *diff_base;		/* --diff BASE, or NULL */
	bool folded;
	unsigned int width;
};

static int usage(FILE *f)
{
	fprintf(f,
		"usage: fxtprof flamegraph [options] FILE|- -o OUT.svg\n"
		"       fxtprof flamegraph --folded [options] FILE|- [-o OUT]\n"
		"  an interactive flame graph (SVG), or folded stacks\n"
		"  (comm;root;...;leaf COUNT) for FlameGraph, inferno, "
		"speedscope\n"
		"  -o FILE       output (--folded: default stdout)\n"
		"  --title TEXT  the graph's title\n"
		"  --width PX    image width (default 1200)\n"
		"  --diff BASE   a differential flame graph: FILE's frames "
		"and widths,\n"
		"                red where a frame's share grew from BASE, "
		"blue where it\n"
		"                shrank (--folded: comm;root;...;leaf BASE "
		"NEW, BASE\n"
		"                scaled to FILE's samples)\n");
	rt_opts__usage(f);
	return f == stdout ? 0 : CMD_EXIT_USAGE;
}

static void put_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* XML 1.0 forbids most control characters. */
			if ((unsigned char)*s < 0x20)
				fputc('?', f);
			else
				fputc(*s, f);
		}
	}
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Colours stay the same for a name from one graph to the next. */
static void colour(char *buf, size_t len, const char *name, int kind)
{
	uint32_t h = name_hash(name);
	unsigned int a = h & 0xff, b = (h >> 8) & 0xff, c = (h >> 16) & 0xff;

	switch (kind) {
	case 0:		/* all, comm */
		snprintf(buf, len, "rgb(%u,%u,%u)", 190 + a % 30, 190 + a % 30,
			 220 + b % 30);
		break;
	case 1:		/* kernel: orange */
		snprintf(buf, len, "rgb(%u,%u,%u)", 225 + a % 30, 110 + b % 50,
			 20 + c % 40);
		break;
	case 2:		/* idle: grey */
		snprintf(buf, len, "rgb(%u,%u,%u)", 180 + a % 30, 180 + a % 30,
			 180 + a % 30);
		break;
	case 4:		/* --by-region's regions and kernels: pale green */
		snprintf(buf, len, "rgb(%u,%u,%u)", 150 + a % 30, 210 + b % 30,
			 150 + c % 30);
		break;
	case 5:		/* --off-cpu's states and wakers: blues */
		snprintf(buf, len, "rgb(%u,%u,%u)", 80 + a % 40, 130 + b % 50,
			 215 + c % 40);
		break;
	default:	/* user: warm reds to yellows */
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + a % 50, b % 200,
			 c % 55);
	}
}

static const char script[] =
"var W, FW, frames, details, resetb, matchedt, searchb, searching = false;\n"
"function num(e, n) { return parseFloat(e.getAttribute(n)); }\n"
"function fname(g) {\n"
"  return g.getElementsByTagName('title')[0].textContent\n"
"    .replace(/ \\([0-9]+ samples, [0-9.]+%\\)$/, '');\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.getElementsByTagName('rect')[0];\n"
"  var t = g.getElementsByTagName('text')[0];\n"
"  r.setAttribute('x', x); r.setAttribute('width', w);\n"
"  t.setAttribute('x', x + 3);\n"
"  var n = fname(g), fit = Math.floor((w - 6) / 7);\n"
"  if (fit < 3) t.textContent = '';\n"
"  else if (n.length <= fit) t.textContent = n;\n"
"  else t.textContent = n.substring(0, fit - 2) + '..';\n"
"}\n"
"function init(evt) {\n"
"  W = num(document.documentElement, 'width');\n"
"  FW = W - 2 * " "10" ";\n"
"  frames = document.getElementById('frames').getElementsByTagName('g');\n"
"  details = document.getElementById('details');\n"
"  resetb = document.getElementById('reset');\n"
"  matchedt = document.getElementById('matched');\n"
"  searchb = document.getElementById('search');\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var g = frames[i];\n"
"    g.onclick = function () { zoom(this); };\n"
"    g.onmouseover = function () {\n"
"      details.textContent = this.getElementsByTagName('title')[0]"
".textContent;\n"
"    };\n"
"    g.onmouseout = function () { details.textContent = ' '; };\n"
"    place(g, num(g, 'data-x'), num(g, 'data-w'));\n"
"  }\n"
"  resetb.onclick = unzoom;\n"
"  searchb.onclick = function () { if (searching) clear_search(); "
"else ask(); };\n"
"  window.addEventListener('keydown', function (e) {\n"
"    if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) {\n"
"      e.preventDefault(); ask();\n"
"    }\n"
"  });\n"
"}\n"
"function zoom(z) {\n"
"  var zx = num(z, 'data-x'), zw = num(z, 'data-w'), zd = num(z, 'data-d');\n"
"  var k = FW / zw, eps = 0.0001;\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var g = frames[i], x = num(g, 'data-x'), w = num(g, 'data-w'),\n"
"        d = num(g, 'data-d');\n"
"    if (d < zd && x <= zx + eps && x + w >= zx + zw - eps) {\n"
"      g.style.display = ''; g.style.opacity = '0.6';\n"
"      place(g, 10, FW);\n"
"    } else if (d >= zd && x >= zx - eps && x + w <= zx + zw + eps) {\n"
"      g.style.display = ''; g.style.opacity = '';\n"
"      place(g, 10 + (x - zx) * k, w * k);\n"
"    } else {\n"
"      g.style.display = 'none';\n"
"    }\n"
"  }\n"
"  resetb.style.display = '';\n"
"}\n"
"function unzoom() {\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var g = frames[i];\n"
"    g.style.display = ''; g.style.opacity = '';\n"
"    place(g, num(g, 'data-x'), num(g, 'data-w'));\n"
"  }\n"
"  resetb.style.display = 'none';\n"
"}\n"
"function clear_search() {\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var r = frames[i].getElementsByTagName('rect')[0];\n"
"    r.setAttribute('fill', r.getAttribute('data-c'));\n"
"  }\n"
"  matchedt.textContent = ' '; searchb.textContent = 'Search';\n"
"  searching = false;\n"
"}\n"
"function ask() {\n"
"  var term = prompt('Search for (regular expression):', '');\n"
"  if (term) search(term);\n"
"}\n"
"function search(term) {\n"
"  var re, spans = [];\n"
"  try { re = new RegExp(term); } catch (e) { return; }\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var g = frames[i], r = g.getElementsByTagName('rect')[0];\n"
"    if (re.test(fname(g))) {\n"
"      r.setAttribute('fill', 'rgb(230,0,230)');\n"
"      spans.push([num(g, 'data-x'), num(g, 'data-w')]);\n"
"    } else {\n"
"      r.setAttribute('fill', r.getAttribute('data-c'));\n"
"    }\n"
"  }\n"
"  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
"  var sum = 0, end = -1;\n"
"  for (var j = 0; j < spans.length; j++) {\n"
"    var s = spans[j][0], e = s + spans[j][1];\n"
"    if (e <= end) continue;\n"
"    sum += e - Math.max(s, end); end = e;\n"
"  }\n"
"  matchedt.textContent = 'Matched: ' + (100 * sum / FW).toFixed(1) + '%';\n"
"  searchb.textContent = 'Reset Search'; searching = true;\n"
"}\n";

/*
 * --diff: for each of FILE's nodes, its share of FILE's samples minus the
 * share of BASE's that the same path of frames has there.
 */
struct svg_diff {
	double *change;
	double max_change;	/* the largest |change|, for the colours */
};

struct svg {
	FILE *f;
	const struct rtree *t;
	const struct rt_flame *fl;
	const struct svg_diff *diff;	/* or NULL */
	double px_per_sample;
	unsigned int height, max_depth;
};

/* Red for more, blue for less, white for no change. */
static void diff_colour(char *buf, size_t len, double change, double max)
{
	unsigned int v = max > 0 ? (unsigned int)(220 * (change < 0 ? -change :
							 change) / max) : 0;

	if (change > 0)
		snprintf(buf, len, "rgb(255,%u,%u)", 235 - v, 235 - v);
	else if (change < 0)
		snprintf(buf, len, "rgb(%u,%u,255)", 235 - v, 235 - v);
	else
		snprintf(buf, len, "rgb(235,235,235)");
}

static unsigned int depth_of(const struct rt_flame *fl, uint32_t node,
			     unsigned int d, double px, double min)
{
	unsigned int best = d;
	uint32_t c;

	if (d >= MAX_DEPTH)
		return d;
	for (c = fl->nodes[node].child; c; c = fl->nodes[c].next) {
		unsigned int cd;

		if ((double)fl->nodes[c].count * px < min)
			continue;
		cd = depth_of(fl, c, d + 1, px, min);
		if (cd > best)
			best = cd;
	}
	return best;
}

static const char *node_name(const struct svg *s, uint32_t n)
{
	if (s->fl->comm[n])
		return s->fl->comm[n];
	return s->t->syms[s->fl->nodes[n].sym].name;
}

static const struct svg *cmp_svg;

static int by_name(const void *a, const void *b)
{
	return strcmp(node_name(cmp_svg, *(const uint32_t *)a),
		      node_name(cmp_svg, *(const uint32_t *)b));
}

static int emit(struct svg *s, uint32_t node, double x, unsigned int d)
{
	const struct rt_flame *fl = s->fl;
	const struct rt_node *n = &fl->nodes[node];
	double w = (double)n->count * s->px_per_sample;
	double total = (double)fl->nodes[1].count;
	const char *name = node_name(s, node);
	uint32_t *kids = NULL, c;
	size_t nk = 0, i;
	char fill[32];
	int kind;

	if (w < MIN_WIDTH || d > MAX_DEPTH)
		return 0;
	if (fl->comm[node])
		kind = fl->idle[node] ? 2 : 0;
	else if (fl->idle[node])
		kind = 2;
	else if (!strcmp(s->t->syms[n->sym].dso, RT_ANNOT_DSO))
		kind = 4;
	else if (!strcmp(s->t->syms[n->sym].dso, RT_OFFCPU_DSO))
		kind = 5;
	else
		kind = s->t->syms[n->sym].kernel ? 1 : 3;
	if (s->diff)
		diff_colour(fill, sizeof(fill), s->diff->change[node],
			    s->diff->max_change);
	else
		colour(fill, sizeof(fill), name, kind);
	fprintf(s->f, "<g class=\"f\" data-x=\"%.2f\" data-w=\"%.2f\" "
		"data-d=\"%u\"><title>", x, w, d);
	put_xml(s->f, name);
	if (!fl->comm[node] && s->t->syms[n->sym].kernel)
		fputs(" [k]", s->f);
	if (s->t->weigh)
		fprintf(s->f, " (%.3f ms, %.2f%%",
			(double)n->count / 1e6,
			total ? 100.0 * (double)n->count / total : 0);
	else
		fprintf(s->f, " (%" PRIu64 " samples, %.2f%%", n->count,
			total ? 100.0 * (double)n->count / total : 0);
	if (s->diff)
		fprintf(s->f, "; BASE %.2f%%, %+.2f points",
			100.0 * ((double)n->count / total -
				 s->diff->change[node]),
			100.0 * s->diff->change[node]);
	fputs(")</title>", s->f);
	fprintf(s->f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
		"fill=\"%s\" data-c=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%u\">"
		"</text></g>\n", x, s->height - PAD_BOTTOM - (d + 1) * FRAME_H,
		w, FRAME_H - 1, fill, fill, x + 3,
		s->height - PAD_BOTTOM - d * FRAME_H - 4);
	for (c = n->child; c; c = fl->nodes[c].next)
		nk++;
	if (!nk)
		return 0;
	kids = malloc(nk * sizeof(*kids));
	if (!kids)
		return -ENOMEM;
	for (nk = 0, c = n->child; c; c = fl->nodes[c].next)
		kids[nk++] = c;
	cmp_svg = s;
	qsort(kids, nk, sizeof(*kids), by_name);
	for (i = 0; i < nk; i++) {
		int ret = emit(s, kids[i], x, d + 1);

		if (ret) {
			free(kids);
			return ret;
		}
		x += (double)fl->nodes[kids[i]].count * s->px_per_sample;
	}
	free(kids);
	return 0;
}

static int write_svg(FILE *f, const struct rtree *t, const struct rt_flame *fl,
		     const struct svg_diff *diff, const struct flame_opts *o)
{
	struct svg s = { .f = f, .t = t, .fl = fl, .diff = diff };
	double total = fl->nr_nodes > 1 ? (double)fl->nodes[1].count : 0;
	unsigned int width = o->width;

	s.px_per_sample = total ? (width - 2.0 * PAD_SIDE) / total : 0;
	s.max_depth = fl->nr_nodes > 1 ?
		      depth_of(fl, 1, 0, s.px_per_sample, MIN_WIDTH) : 0;
	s.height = PAD_TOP + PAD_BOTTOM + (s.max_depth + 1) * FRAME_H;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"onload=\"init(evt)\">\n", width, s.height, width, s.height);
	fprintf(f, "<style type=\"text/css\">\n"
		"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
		".f text { pointer-events: none; }\n"
		".f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
		".btn { cursor: pointer; fill: #036; }\n"
		"</style>\n");
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		script);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
		"fill=\"#f6f6f0\"/>\n", width, s.height);
	fprintf(f, "<text x=\"%u\" y=\"24\" text-anchor=\"middle\" "
		"style=\"font-size: 16px\">", width / 2);
	put_xml(f, o->title ? o->title :
		   diff ? "Differential Flame Graph" : "Flame Graph");
	if (diff) {
		fprintf(f, "</text>\n<text x=\"%u\" y=\"%u\" "
			"text-anchor=\"middle\">widths: ", width / 2,
			PAD_TOP - 4);
		put_xml(f, o->path);
		fputs("; red: a larger share than in ", f);
		put_xml(f, o->diff_base);
		fputs(", blue: a smaller one", f);
	}
	fprintf(f, "</text>\n<text id=\"reset\" class=\"btn\" x=\"%d\" y=\"24\" "
		"style=\"display: none\">Reset Zoom</text>\n", PAD_SIDE);
	fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n", width - PAD_SIDE);
	fprintf(f, "<text id=\"matched\" x=\"%u\" y=\"%u\" "
		"text-anchor=\"end\"> </text>\n", width - PAD_SIDE,
		s.height - 10);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		PAD_SIDE, s.height - 10);
	fprintf(f, "<g id=\"frames\">\n");
	if (total && emit(&s, 1, PAD_SIDE, 0))
		return -ENOMEM;
	fprintf(f, "</g>\n</svg>\n");
	return 0;
}

/* flamegraph's own options (tree_cmd_args.own_opt). */
static int flame_opt(void *ctx, int argc, char **argv, int *i)
{
	struct flame_opts *o = ctx;
	const char *a = argv[*i];

	if (!strcmp(a, "-o") && *i + 1 < argc) {
		o->out = argv[++*i];
	} else if (!strcmp(a, "--folded")) {
		o->folded = true;
	} else if (!strcmp(a, "--diff") && *i + 1 < argc) {
		o->diff_base = argv[++*i];
	} else if (!strcmp(a, "--title") && *i + 1 < argc) {
		o->title = argv[++*i];
	} else if (!strcmp(a, "--width") && *i + 1 < argc) {
		char *end;
		unsigned long v = strtoul(argv[++*i], &end, 10);

		if (*end || v < 100 || v > 100000)
			return -EINVAL;
		o->width = (unsigned int)v;
	} else {
		return 0;
	}
	return 1;
}

static int parse_args(struct flame_opts *o, int argc, char **argv)
{
	const struct tree_cmd_args ta = {
		.name = "flamegraph", .usage = usage,
		.own_opt = flame_opt, .ctx = o,
		.rt = &o->rt, .path = &o->path,
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->width = 1200;
	ret = tree_cmd__parse(&ta, argc, argv);
	if (!ret && !o->folded && !o->out)
		return usage(stderr);
	return ret;
}

/* --diff: BASE's flame tree matched against FILE's; 0 or -errno. */
static int diff_prepare(struct svg_diff *d, const struct rtree *bt,
			const struct rt_flame *fl, const struct rtree *t)
{
	struct rt_flame bfl = { 0 };
	uint32_t *base_of = NULL;
	int ret;

	ret = rt_flame__build(&bfl, bt);
	if (!ret)
		ret = rt_flame__match(fl, t, &bfl, bt, &base_of);
	if (!ret && !(d->change = calloc(fl->nr_nodes, sizeof(*d->change))))
		ret = -ENOMEM;
	for (uint32_t i = 1; !ret && i < fl->nr_nodes; i++) {
		uint32_t b = base_of[i];
		double c = (double)fl->nodes[i].count /
			   (double)fl->nodes[1].count -
			   (b ? (double)bfl.nodes[b].count /
				(double)bt->total : 0);

		d->change[i] = c;
		if ((c < 0 ? -c : c) > d->max_change)
			d->max_change = c < 0 ? -c : c;
	}
	free(base_of);
	rt_flame__free(&bfl);
	return ret;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct flame_opts o;
	struct rt_flame fl = { 0 };
	struct svg_diff diff = { 0 };
	struct rtree t, base;
	FILE *out = stdout;
	int ret, status = CMD_EXIT_FAILED;

	ret = parse_args(&o, argc, argv);
	if (ret)
		return ret < 0 ? CMD_EXIT_OK : ret;
	if (tree_cmd__load(&t, o.path, &o.rt))
		return CMD_EXIT_FAILED;
	if (o.diff_base && tree_cmd__load(&base, o.diff_base, &o.rt)) {
		o.diff_base = NULL;
		goto out_tree;
	}
	if (o.diff_base &&
	    rt_diff__check_inputs(&base, o.diff_base, &t, o.path))
		goto out_tree;
	if (o.out && strcmp(o.out, "-") && !(out = fopen(o.out, "w"))) {
		reader_err(-errno, "%s", o.out);
		out = NULL;
		goto out_tree;
	}
	if (o.folded && o.diff_base) {
		ret = rt_diff__print_folded(&base, &t, out);
	} else if (o.folded) {
		ret = rtree__print_folded(&t, out);
	} else {
		ret = rt_flame__build(&fl, &t);
		if (!ret && o.diff_base)
			ret = diff_prepare(&diff, &base, &fl, &t);
		if (!ret)
			ret = write_svg(out, &t, &fl, o.diff_base ? &diff : NULL,
					&o);
	}
	if (ret)
		reader_err(ret, "flamegraph");
	else
		status = CMD_EXIT_OK;
	if (out && out != stdout && fclose(out)) {
		reader_err(-errno, "%s", o.out);
		status = CMD_EXIT_FAILED;
	} else if (out == stdout && fflush(stdout)) {
		status = CMD_EXIT_FAILED;
	}
	free(diff.change);
	rt_flame__free(&fl);
out_tree:
	if (o.diff_base)
		rtree__free(&base);
	rtree__free(&t);
	return status;
}

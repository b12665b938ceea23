# SPDX-License-Identifier: GPL-2.0-only
# soak-plot.awk - the plot of scripts/soak.sh: its samples (CSV: t, who,
# pid, rss_kb, fds, cpu_ticks; run with -F,) as an SVG of two panels over
# time, RSS in MiB and open fds, one line per process (the receive's
# restarts are one line).  Variable: title.

function x(sec) { return left + (tmax ? sec / tmax : 0) * width }
function y(val, vmax, top) { return top + height - (vmax ? val / vmax : 0) * height }

# One panel: axes, grid, and a polyline per process of field @col.
function panel(top, col, vmax, label,   w, i, pts, gy, k) {
	printf "<text x=\"%d\" y=\"%d\" font-size=\"13\">%s</text>\n", left, top - 8, label
	printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
		left, top, width, height
	for (k = 0; k <= 4; k++) {
		gy = top + height - k * height / 4
		printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			left, gy, left + width, gy
		printf "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.4g</text>\n",
			left - 4, gy + 4, vmax * k / 4
	}
	for (k = 0; k <= 4; k++)
		printf "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d s</text>\n",
			x(tmax * k / 4), top + height + 14, tmax * k / 4
	for (w = 1; w <= nwho; w++) {
		pts = ""
		for (i = 1; i <= n[w]; i++)
			pts = pts sprintf(" %.1f,%.1f", x(ts[w, i]), y(val[w, i, col], vmax, top))
		printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>\n",
			color[w], pts
	}
}

BEGIN {
	left = 70; width = 700; height = 220
	split("#d62728 #1f77b4 #2ca02c #9467bd", palette, " ")
}

NR > 1 {
	who = $2
	if (!(who in idx)) { idx[who] = ++nwho; names[nwho] = who; color[nwho] = palette[nwho] }
	w = idx[who]
	i = ++n[w]
	ts[w, i] = $1
	val[w, i, "rss"] = $4 / 1024
	val[w, i, "fds"] = $5
	if ($1 > tmax) tmax = $1
	if ($4 / 1024 > rmax) rmax = $4 / 1024
	if ($5 > fmax) fmax = $5
}

END {
	rmax = rmax ? rmax * 1.1 : 1
	fmax = fmax ? fmax + 2 : 1
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\">\n",
		left + width + 140, 2 * height + 140
	printf "<text x=\"%d\" y=\"20\" font-size=\"15\">%s</text>\n", left, title
	panel(50, "rss", rmax, "resident set (MiB)")
	panel(height + 100, "fds", fmax, "open file descriptors")
	for (w = 1; w <= nwho; w++) {
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			left + width + 15, 60 + 20 * w, left + width + 40, 60 + 20 * w, color[w]
		printf "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n",
			left + width + 45, 64 + 20 * w, names[w]
	}
	print "</svg>"
}

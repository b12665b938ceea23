# SPDX-License-Identifier: GPL-2.0-only
# soak-judge.awk - the pass rules of scripts/soak.sh, applied to what
# tests/soak/soak.vm.sh printed.  Variables: vmrc (the VM's status),
# warmup (seconds of samples left out of the RSS and fd rules), cfg.
# Prints TAP, its plan first and fixed, with the figures as comments.

function kv(   i, p) {
	delete v
	for (i = 2; i <= NF; i++) {
		p = index($i, "=")
		if (p) v[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
}

function tap(ok, what) {
	n_tap++
	print (ok ? "ok " : "not ok ") n_tap " - soak-" cfg ": " what
	failed += !ok
}

# Mean RSS of samples [a, b] of @who.
function mean_rss(who, a, b,   i, s) {
	s = 0
	for (i = a; i <= b; i++) s += rss[who, i]
	return b >= a ? s / (b - a + 1) : 0
}

# The RSS, fd and CPU rules of one recorder.
function judge_recorder(who,   m, third, first, last, cpu, base, i) {
	m = ns[who]
	if (m < 3) {
		tap(0, who ": RSS flat (only " m " samples after " warmup " s)")
		tap(0, who ": no fd leaked (too few samples)")
		return
	}
	third = int(m / 3)
	first = mean_rss(who, 1, third)
	last = mean_rss(who, m - third + 1, m)
	printf "# %s: RSS %.2f MiB in the first third, %.2f MiB in the last (%+.1f %%), peak %.2f MiB\n",
		who, first / 1024, last / 1024, (last - first) * 100 / first, peak[who] / 1024
	tap(last <= first * 1.05, who ": RSS flat (the last third within 5 % of the first)")
	# A sample may catch a socket between connections, or a snapshot's
	# file open: the end must hold no more than the first third's most.
	base = 0
	for (i = 1; i <= third; i++) if (fds[who, i] + 0 > base) base = fds[who, i] + 0
	printf "# %s: at most %d fds in the first third, %d at the end\n", who, base, fds[who, m]
	tap(fds[who, m] + 0 <= base, who ": no fd leaked")
	if (t[who, m] > t[who, 1]) {
		cpu = (ticks[who, m] - ticks[who, 1]) / (t[who, m] - t[who, 1])
		printf "# %s: CPU %.1f %% of one core\n", who, cpu
	}
}

BEGIN { print "TAP version 13"; print "1..12" }

/^SOAK-INFO / { sub(/^SOAK-INFO /, ""); info = $0 }

/^SOAK-SAMPLE / {
	kv()
	if (!("rss_kb" in v)) { gone[v["who"]] = 1; next }
	who = v["who"]
	if (who ~ /^receive/) {
		if (v["rss_kb"] + 0 > recv_peak) recv_peak = v["rss_kb"] + 0
		# Its first sample may come before the recorder reconnected;
		# sends are over by the time of a sample.
		if (v["pid"] != recv_pid) { recv_pid = v["pid"]; recv_fds0[v["pid"]] = v["fds"] }
		if (v["fds"] + 0 > recv_fds0[v["pid"]] + 1) recv_fd_grew++
		next
	}
	if (v["rss_kb"] + 0 > peak[who]) peak[who] = v["rss_kb"] + 0
	if (v["t"] + 0 < warmup + 0) next
	i = ++ns[who]
	t[who, i] = v["t"] + 0; rss[who, i] = v["rss_kb"] + 0
	fds[who, i] = v["fds"] + 0; ticks[who, i] = v["cpu_ticks"] + 0
}

/^SOAK-RC / { kv(); rc[v["who"]] = v["rc"]; if (v["who"] ~ /^receive/) { nrecv++; if (v["rc"] != 0) recv_bad++ } }
/^SOAK-SENT / { kv(); if (v["rc"] == 0) sent[v["file"]] = 1; else send_bad++ }
/^SOAK-SNAPSHOT / {
	kv(); nsnap++
	if (v["check"] + 0 != 0 || v["has"] + 0 < v["records"] + 0) {
		snap_bad++
		print "# snapshot " v["file"] ": the recorder said " v["records"] " records, fxtprof check found " v["has"] " (status " v["check"] ")"
	}
	has[v["file"]] = v["has"]
}
/^SOAK-RECEIVED / { kv(); received += v["records"]; nstreams++ }
/^SOAK-STREAM / { kv(); delivered += v["delivered_records"]; have_delivered = 1 }
/^forker: / { forker = $0 }
/^SOAK-DMESG / { dmesg = dmesg "\n#   " $0; ndmesg++ }
/^soak: / { died = died " " $0 }

END {
	if (info != "") print "# " info
	tap(vmrc == 0 && ("stream" in rc) && died == "",
	    "the soak ran to its end" (died != "" ? " (" died ")" : vmrc ? " (the VM's status " vmrc ")" : ""))
	judge_recorder("stream")
	tap(rc["stream"] == 0 || rc["stream"] == 3,
	    "the stream recorder exits 0, or 3 for the output its restarted peer lost (" rc["stream"] ")")
	judge_recorder("flight")
	tap(rc["flight"] == 0, "the flight recorder exits 0 (" rc["flight"] ")")
	tap(nsnap > 0 && !snap_bad,
	    nsnap " snapshots, each passing fxtprof check with the records the recorder said it wrote")
	for (f in sent) sent_records += has[f]
	printf "# receive: %d streams, %d records; the stream recorder delivered %d, the snapshots sent hold %d\n",
		nstreams, received, delivered, sent_records
	tap(have_delivered && !send_bad && received >= delivered + sent_records,
	    "receive wrote every record the stream recorder delivered and every snapshot sent")
	printf "# receive: %d instances, peak RSS %.2f MiB\n", nrecv, recv_peak / 1024
	tap(nrecv > 0 && !recv_bad && !recv_fd_grew,
	    "every receive exits 0, never holding more than its first fds and the recorder's connection")
	if (forker != "") print "# " forker
	tap(forker ~ /forked [1-9]/, "the workload forked")
	if (ndmesg) print "# the kernel said:" dmesg
	tap(!ndmesg, "dmesg clean")
	print "# plan: planned 12 ran " n_tap
	exit failed != 0
}

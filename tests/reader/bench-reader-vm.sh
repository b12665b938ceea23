#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The VM half of `make bench-reader`: the reader's own CPU cost while it
# records every CPU at 1 kHz, with a busy workload so that samples carry
# user and kernel stacks.  fxtprof prints its getrusage() at exit; stderr
# goes to a file (not the serial console, whose every byte is a trap under
# TCG, and no status line).  Two runs, 2 s and 10 s: their difference
# over 8 s is the steady-state cost without setup and teardown (mapping
# and zeroing the rings, the thread snapshot).
[ "$FXTPROF_LOADED" = 1 ] || { echo "bench-reader: fxtprof.ko did not load"; exit 1; }
echo "bench-reader-vm: $(grep -c ^processor /proc/cpuinfo) CPUs, fxtprof record -F 1000"
rc=0
for d in 2 10; do
	rec_workload -t $((d * 1000 + 500)) > /dev/null &
	wl=$!
	fxtprof record -F 1000 -d $d /tmp/bench-$d.fxt 2> /tmp/rec-$d.err || rc=1
	wait $wl
	echo "-- fxtprof record -F 1000 -d $d"
	cat /tmp/rec-$d.err
	fxtprof report --summary /tmp/bench-$d.fxt | grep '^samples per CPU'
done
# The ternary is parenthesised: a bare '>' in printf's arguments is a
# redirection to a file, and the line silently went there.
awk 'BEGIN { n = 0 }
     /reader CPU/ { u[n] = $4; s[n] = $8; w[n] = $(NF - 1); n++ }
     END { if (n == 2) { c = (u[1] + s[1]) - (u[0] + s[0]); t = w[1] - w[0];
	   printf "bench-reader-vm: steady state %.3f s CPU over %.1f s = %.2f%% of one core\n",
		  c, t, (t > 0 ? 100 * c / t : 0) } }' /tmp/rec-2.err /tmp/rec-10.err
exit $rc

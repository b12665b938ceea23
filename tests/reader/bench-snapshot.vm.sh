#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-snapshot.vm.sh: the VM side of scripts/bench-snapshot.sh.  Fills a
# 10 s flight-recorder window (sampling at $FREQ on every CPU, a spinner
# per CPU), takes SNAPSHOT_REPS snapshots by SIGUSR2 and, as the baseline
# of each, copies the snapshot it wrote with dd conv=fdatasync (the same
# bytes to the same tmpfs, synced).  Prints one line per snapshot:
#   SNAP ms=<snapshot ms> mb=<MB> copy_ms=<baseline ms>
FREQ=${FREQ:-1000}
REPS=${SNAPSHOT_REPS:-3}
dir=/tmp/snaps
mkdir -p $dir
n=$(grep -c ^processor /proc/cpuinfo)
i=0
while [ $i -lt "$n" ]; do
	( while :; do :; done ) &
	i=$((i + 1))
done
fxtprof record -F "$FREQ" --flight-recorder 10 -d 600 \
	--ready-file /tmp/rec.ready $dir 2>/tmp/rec.err &
rec=$!
fxt-wait-ready /tmp/rec.ready $rec 120 || exit 1
sleep 10	# the workload: sampling fills the 10 s window
# Until record says it wrote snapshot N (written and synced), for at most
# 120 s while it runs.
wait_snapshots() {	# wait_snapshots N
	i=0
	while [ "$(grep -c '^fxtprof: snapshot /.* MB in ' /tmp/rec.err)" -lt "$1" ]; do
		kill -0 $rec 2>/dev/null && [ $i -lt 1200 ] || return 1
		sleep 0.1	# the poll interval
		i=$((i + 1))
	done
}
r=0
while [ $r -lt "$REPS" ]; do
	kill -USR2 $rec
	r=$((r + 1))
	wait_snapshots $r || { cat /tmp/rec.err; exit 1; }
done
kill -INT $rec
wait $rec
grep '^fxtprof: snapshot /' /tmp/rec.err | while read -r _ _ path _; do
	path=${path%:}
	line=$(grep "snapshot $path:" /tmp/rec.err)
	mb=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) MB in \([0-9.]*\) ms.*/\1/p')
	ms=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) MB in \([0-9.]*\) ms.*/\2/p')
	t0=$(cut -d' ' -f1 /proc/uptime)
	dd if="$path" of=/tmp/copy.fxt bs=1M conv=fdatasync 2>/dev/null
	t1=$(cut -d' ' -f1 /proc/uptime)
	copy_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
	echo "SNAP ms=$ms mb=$mb copy_ms=$copy_ms"
	fxtprof check "$path" >/dev/null || echo "SNAP-CHECK-FAILED $path"
done
grep 'window: held' /tmp/rec.err

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-archive.vm.sh - the in-VM half of `make bench-archive`, run by
# tests/vm/init.sh in command mode from the initramfs that
# scripts/bench-archive.sh assembles.  In one boot, with the same
# workload (rec_workload: one child per CPU, two spinning threads each):
#   1. a long recording at FREQ Hz streamed to the host's
#      `fxtprof receive` (tcp://10.0.2.2:PORT): the bytes the host-side
#      compression figures are measured on;
#   2. REPS times, alternating: `fxtprof record` of SECS s to a plain FXT
#      file and to an archive (X.fxtz), and `perf record -z` of the same
#      length: the reader's CPU, the output bytes and the samples of each.
# Prints one line per run:
#   BENCH cfg=plain|archive|perf rep=R secs=S samples=N bytes=B cpu=C
# (cpu: user+system seconds of the recording process; perf's from /proc
# when it is told to stop).  Measurements only: nothing here passes or
# fails on a number.  /bench/bench.conf sets PORT, BIG_SECS, SECS, REPS
# and FREQ; /bench has the host's perf (its libraries at their paths).

. /bench/bench.conf
PERF=/bench/perf

die() { echo "bench-archive: $*"; exit 1; }

[ "$FXTPROF_LOADED" = 1 ] || die "fxtprof.ko is not loaded"
"$PERF" --version >/dev/null 2>&1 ||
	die "perf does not run in the VM: $("$PERF" --version 2>&1 | head -3)"
sk=/proc/sys/kernel
echo -1 > $sk/perf_event_paranoid
echo 100000 > $sk/perf_event_max_sample_rate
echo 0 > $sk/perf_cpu_time_max_percent
echo "BENCH-INFO kernel=$(uname -r) ncpu=$(grep -c ^processor /proc/cpuinfo)" \
	"perf=$("$PERF" --version)"

# "fxtprof: 10.0 s: 12345 samples, ..." and "reader CPU U s user + S s
# system = ..." from a recording's stderr.
fxt_samples() { sed -n 's/^fxtprof: [0-9.]* s: \([0-9]*\) samples.*/\1/p' "$1"; }
fxt_cpu() {
	awk '/reader CPU/ { printf "%.3f", $4 + $8 }' "$1"
}

# 1. The long recording, to the host.
rec_workload -t $((BIG_SECS * 1000 + 1000)) > /dev/null &
wl=$!
fxtprof record -F "$FREQ" -g kernel,user -d "$BIG_SECS" \
	"tcp://10.0.2.2:$PORT" 2> /tmp/big.err
rc=$?
wait $wl
cat /tmp/big.err | grep -v '^$' | sed 's/^/BENCH-BIG /'
[ $rc = 0 ] || die "the long recording to the host failed (rc=$rc)"

# 2. Plain, archive, perf: SECS s each, REPS times.
run_fxtprof() {	# CFG REP OUTPUT
	rm -f "$3"
	rec_workload -t $((SECS * 1000 + 1000)) > /dev/null &
	wl=$!
	fxtprof record -F "$FREQ" -g kernel,user -d "$SECS" "$3" \
		2> /tmp/rec.err || { cat /tmp/rec.err; die "fxtprof record $3 failed"; }
	wait $wl
	echo "BENCH cfg=$1 rep=$2 secs=$SECS samples=$(fxt_samples /tmp/rec.err)" \
		"bytes=$(wc -c < "$3") cpu=$(fxt_cpu /tmp/rec.err)"
	[ "$1" = archive ] && fxtprof info "$3" | sed 's/^/BENCH-INFO-ARCHIVE /'
	rm -f "$3"
}

run_perf() {	# REP
	f=/tmp/bench.perf
	rm -f $f
	rec_workload -t $((SECS * 1000 + 1000)) > /dev/null &
	wl=$!
	# -z: zstd-compressed records (perf's own default level); -N: no
	# build-id cache.  sleep bounds it like fxtprof's -d.
	"$PERF" record -z -a -g -F "$FREQ" -e cpu-clock -N -o $f -- \
		sleep "$SECS" > /tmp/perf.out 2> /tmp/perf.err ||
		{ cat /tmp/perf.err; die "perf record failed"; }
	wait $wl
	# With -z, "Captured and wrote" gives no sample count: perf report
	# --stats counts the SAMPLE records (it decompresses them).
	samples=$("$PERF" report -i $f --stats 2>/dev/null |
		awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }')
	[ -n "$samples" ] || { cat /tmp/perf.err; die "perf report --stats gave no sample count"; }
	echo "BENCH cfg=perf rep=$1 secs=$SECS samples=$samples bytes=$(wc -c < $f) cpu=-"
	grep -i compress /tmp/perf.err | sed 's/^/BENCH-PERF /'
	rm -f $f
}

rep=1
while [ $rep -le "$REPS" ]; do
	if [ $((rep % 2)) = 1 ]; then
		run_fxtprof plain $rep /tmp/bench.fxt
		run_fxtprof archive $rep /tmp/bench.fxtz
	else
		run_fxtprof archive $rep /tmp/bench.fxtz
		run_fxtprof plain $rep /tmp/bench.fxt
	fi
	run_perf $rep
	rep=$((rep + 1))
done
dmesg | grep -i -e 'perf:' -e fxtprof | sed 's/^/BENCH-DMESG /' | tail -20
exit 0

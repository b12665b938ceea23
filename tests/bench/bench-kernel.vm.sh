#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-kernel.vm.sh - the in-VM half of `make bench-kernel`: run by
# tests/vm/init.sh in command mode (after insmod) from the initramfs that
# scripts/bench-kernel.sh assembles.  It runs the fixed workload
# (/tests/fxt-bench-workload) bare, under `fxtprof record` and under
# `perf record -a` at each frequency, REPS times with the order rotated
# every repetition (so slow drift of the host does not always hit the
# same configuration), and prints one line per run:
#   BENCH rep=R cfg=bare|fxtprof|perf freq=F wall_ns=N samples=S secs=T
#         handler_ns=H lost=L throttle=X [bytes=B reader_cpu=C]
# (handler_ns: fxtprof's mean sampling-handler cost; reader_cpu: CPU
# seconds the recording process used until it was told to stop; - where
# unknown).
# scripts/bench-kernel.sh turns those into the table.  Measurements only:
# nothing here passes or fails on a number.
#
# /bench/bench.conf sets ROUNDS (workload -r), REPS and FREQS; /bench has
# perf (the host's binary; its libraries sit at their host paths) and
# fxtprof.

. /bench/bench.conf
W=/tests/fxt-bench-workload
PERF=/bench/perf
FXTPROF=/bench/fxtprof
NCPU=$(grep -c ^processor /proc/cpuinfo)
CHECKSUM=

die() { echo "bench-kernel: $*"; exit 1; }

[ "$FXTPROF_LOADED" = 1 ] || die "fxtprof.ko is not loaded"
[ -x "$W" ] || die "no $W"
"$PERF" --version >/dev/null 2>&1 || die "perf does not run in the VM: $("$PERF" --version 2>&1 | head -3)"
"$FXTPROF" record --help >/dev/null 2>&1 || die "fxtprof does not run in the VM"

# perf: root may do anything, but the kernel also caps the sampling rate
# (perf_event_max_sample_rate, and lowers it further when handlers look
# slow, perf_cpu_time_max_percent).  Lift both so perf runs at the asked
# frequency like fxtprof does; the achieved rate is reported either way.
sk=/proc/sys/kernel
echo "BENCH-INFO kernel=$(uname -r) ncpu=$NCPU perf=$("$PERF" --version)" \
	"max_sample_rate=$(cat $sk/perf_event_max_sample_rate)" \
	"cpu_time_max_percent=$(cat $sk/perf_cpu_time_max_percent)" \
	"pmus=$(ls /sys/bus/event_source/devices | tr '\n' ,)" \
	"clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo -1 > $sk/perf_event_paranoid
echo 100000 > $sk/perf_event_max_sample_rate	# refused once the next is 0
echo 0 > $sk/perf_cpu_time_max_percent

# Wait (at most 20 s) until FILE is non-empty, i.e. the profiler is set up.
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

# CPU seconds (user + system) process $1 has used so far, all threads.
cpu_secs() {
	awk -v hz=100 '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
}

# Run the workload; sets WALL (ns) and checks the checksum never changes.
workload() {
	out=$("$W" -r "$ROUNDS") || die "workload failed: $out"
	WALL=$(echo "$out" | sed -n 's/.*wall_ns=\([0-9]*\).*/\1/p')
	sum=$(echo "$out" | sed -n 's/.*checksum=\(0x[0-9a-f]*\).*/\1/p')
	[ -z "$CHECKSUM" ] && CHECKSUM=$sum
	[ "$sum" = "$CHECKSUM" ] || die "workload checksum changed: $sum != $CHECKSUM"
}

run_bare() {
	workload
	echo "BENCH rep=$1 cfg=bare freq=0 wall_ns=$WALL samples=- secs=- handler_ns=- lost=- throttle=-"
}

run_fxtprof() {
	rep=$1 freq=$2 f=/tmp/bench.fxt
	rm -f $f
	"$FXTPROF" record -F "$freq" -g kernel,user "$f" 2>/tmp/fxtprof.err &
	pid=$!
	wait_file $f || { cat /tmp/fxtprof.err; die "fxtprof record did not start"; }
	sleep 0.5
	workload
	rcpu=$(cpu_secs $pid)
	kill -TERM $pid
	wait $pid || { cat /tmp/fxtprof.err; die "fxtprof record failed"; }
	e=/tmp/fxtprof.err
	# "fxtprof: 6.2 s: 12345 samples, ..." / "sampling handler 3.1 us on average"
	samples=$(sed -n 's/^fxtprof: [0-9.]* s: \([0-9]*\) samples.*/\1/p' $e)
	secs=$(sed -n 's/^fxtprof: \([0-9.]*\) s: .*/\1/p' $e)
	hus=$(sed -n 's/.*sampling handler \([0-9.]*\) us on average.*/\1/p' $e)
	lost=$(sed -n 's/.*kernel rings lost \([0-9]*\) records.*/\1/p' $e)
	echo "BENCH rep=$rep cfg=fxtprof freq=$freq wall_ns=$WALL samples=${samples:--}" \
		"secs=${secs:--} handler_ns=$(awk -v u="$hus" 'BEGIN { if (u == "") print "-"; else printf "%.0f", u * 1000 }')" \
		"lost=${lost:-0} throttle=- bytes=$(wc -c < $f) reader_cpu=$rcpu"
	rm -f $f
}

run_perf() {
	rep=$1 freq=$2 f=/tmp/bench.perf
	rm -f $f
	# -N: no build-id cache under ~/.debug.  Build-ids are still read
	# (after the run) because that pass is what counts the samples.
	"$PERF" record -a -g -F "$freq" -e cpu-clock -N -o $f >/tmp/perf.out 2>/tmp/perf.err &
	pid=$!
	wait_file $f || { cat /tmp/perf.err; die "perf record did not start"; }
	sleep 0.5
	workload
	# INT, not TERM: perf re-raises the signal after writing, and the
	# shell would report a TERM death.
	rcpu=$(cpu_secs $pid)
	kill -INT $pid
	wait $pid
	# "[ perf record: Captured and wrote 1.2 MB /tmp/bench.perf (12345 samples) ]"
	samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' /tmp/perf.err)
	[ -n "$samples" ] || { cat /tmp/perf.err; die "perf record printed no sample count"; }
	ms=$("$PERF" report -i $f --header-only 2>/dev/null |
		sed -n 's/^# sample duration : *\([0-9.]*\) ms.*/\1/p')
	stats=$("$PERF" report -i $f --stats 2>/dev/null)
	lost=$(echo "$stats" | awk '$1 == "LOST" { print $3; exit }')
	thr=$(echo "$stats" | awk '$1 == "THROTTLE" { print $3; exit }')
	echo "BENCH rep=$rep cfg=perf freq=$freq wall_ns=$WALL samples=$samples" \
		"secs=$(awk -v m="$ms" 'BEGIN { if (m == "") print "-"; else printf "%.3f", m / 1000 }')" \
		"handler_ns=- lost=${lost:-0} throttle=${thr:-0} bytes=$(wc -c < $f)" \
		"reader_cpu=$rcpu"
	rm -f $f
}

# One warm-up run (page cache, first-touch of the binary) that is not
# reported.
workload
echo "BENCH-INFO warmup wall_ns=$WALL checksum=$CHECKSUM rounds=$ROUNDS"

configs="bare"
for freq in $FREQS; do configs="$configs fxtprof:$freq perf:$freq"; done
nconf=$(echo $configs | wc -w)

rep=1
while [ $rep -le "$REPS" ]; do
	# Rotate the order by one configuration every repetition.
	set -- $configs
	k=1
	while [ $k -lt $rep ] && [ $k -lt $nconf ]; do
		first=$1; shift; set -- "$@" "$first"; k=$((k + 1))
	done
	for c in "$@"; do
		case $c in
		bare) run_bare $rep ;;
		fxtprof:*) run_fxtprof $rep ${c#*:} ;;
		perf:*) run_perf $rep ${c#*:} ;;
		esac
	done
	rep=$((rep + 1))
done

# Anything the kernel said about perf or fxtprof throttling/overruns.
dmesg | grep -i -e 'perf:' -e fxtprof | sed 's/^/BENCH-DMESG /' | tail -20
exit 0

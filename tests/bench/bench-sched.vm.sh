#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-sched.vm.sh - the in-VM half of scripts/bench-sched.sh: run by
# tests/vm/init.sh in command mode (after insmod).  The workload is
# /tests/fxt_pingpong 1 ROUNDS: two threads on CPU 1 handing a byte back
# and forth, two context switches and two wakeups per round.  It runs bare,
# under `fxtprof record --sources sched.switch` and under `perf sched
# record`; and for the stacks of waits, under `fxtprof record --off-cpu`
# (the default recording with waits: every wait written, offmin0, and
# the default 1 ms threshold, off1ms) and under `perf record -e
# sched:sched_switch -g -a` (perfoff), REPS times with the order rotated
# every repetition, and prints one line per run:
#   BENCH rep=R cfg=bare|fxtprof|perf|offmin0|off1ms|perfoff wall_ns=N
#         switches=S wakeups=W bytes=B reader_cpu=C lost=L
# (switches/wakeups: what the recorder wrote over its whole session, for
# the off-CPU runs the waits written and -; - where unknown).  Measurements only: nothing here passes or fails on a
# number.  /bench/bench.conf sets ROUNDS and REPS; /bench has perf and
# fxtprof.

. /bench/bench.conf
W=/tests/fxt_pingpong
PERF=/bench/perf
FXTPROF=/bench/fxtprof

die() { echo "bench-sched: $*"; exit 1; }

[ "$FXTPROF_LOADED" = 1 ] || die "fxtprof.ko is not loaded"
[ -x "$W" ] || die "no $W"
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] || die "needs 2 CPUs (the ping-pong runs on CPU 1)"
"$PERF" --version >/dev/null 2>&1 || die "perf does not run in the VM: $("$PERF" --version 2>&1 | head -3)"
[ -d /sys/kernel/tracing/events/sched ] || die "no tracefs sched events (perf sched needs them)"
echo -1 > /proc/sys/kernel/perf_event_paranoid
echo "BENCH-INFO kernel=$(uname -r) perf=$("$PERF" --version) rounds=$ROUNDS" \
	"clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

cpu_secs() {
	awk -v hz=100 '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
}

workload() {
	out=$("$W" 1 "$ROUNDS") || die "ping-pong failed: $out"
	WALL=$(echo "$out" | awk '{ print $4 }')
}

run_bare() {
	workload
	echo "BENCH rep=$1 cfg=bare wall_ns=$WALL switches=- wakeups=- bytes=- reader_cpu=- lost=-"
}

run_fxtprof() {
	f=/tmp/bench.fxt e=/tmp/fxtprof.err
	rm -f $f
	"$FXTPROF" record --sources sched.switch -m 8M "$f" 2>$e &
	pid=$!
	wait_file $f || { cat $e; die "fxtprof record did not start"; }
	sleep 0.5
	workload
	rcpu=$(cpu_secs $pid)
	kill -TERM $pid
	wait $pid || { cat $e; die "fxtprof record failed"; }
	sw=$(sed -n 's/^fxtprof: \([0-9]*\) context switches, .*/\1/p' $e)
	wk=$(sed -n 's/^fxtprof: [0-9]* context switches, \([0-9]*\) wakeups.*/\1/p' $e)
	lost=$(sed -n 's/.*kernel rings lost \([0-9]*\) records.*/\1/p' $e)
	echo "BENCH rep=$1 cfg=fxtprof wall_ns=$WALL switches=${sw:--} wakeups=${wk:--}" \
		"bytes=$(wc -c < $f) reader_cpu=$rcpu lost=${lost:-0}"
	rm -f $f
}

# run_offcpu REP CFG MIN: fxtprof record --off-cpu --off-cpu-min MIN.
run_offcpu() {
	f=/tmp/bench.fxt e=/tmp/fxtprof.err
	rm -f $f /tmp/bench.ready
	"$FXTPROF" record --off-cpu --off-cpu-min "$3" -m 8M \
		--ready-file /tmp/bench.ready "$f" 2>$e &
	pid=$!
	fxt-wait-ready /tmp/bench.ready $pid 120 || { cat $e; die "fxtprof record --off-cpu did not start"; }
	workload
	rcpu=$(cpu_secs $pid)
	kill -INT $pid
	wait $pid || { cat $e; die "fxtprof record --off-cpu failed"; }
	waits=$(sed -n 's/^fxtprof: \([0-9]*\) off-CPU waits.*/\1/p' $e)
	lost=$(sed -n 's/.*kernel rings lost \([0-9]*\) records.*/\1/p' $e)
	echo "BENCH rep=$1 cfg=$2 wall_ns=$WALL switches=${waits:--} wakeups=-" \
		"bytes=$(wc -c < $f) reader_cpu=$rcpu lost=${lost:-0}"
	rm -f $f
}

# perf's off-CPU stacks: a kernel and user stack at every switch.
run_perfoff() {
	f=/tmp/bench.perf
	rm -f $f
	"$PERF" record -e sched:sched_switch -g -a -o $f >/tmp/perf.out 2>/tmp/perf.err &
	pid=$!
	wait_file $f || { cat /tmp/perf.err; die "perf record did not start"; }
	sleep 0.5
	workload
	rcpu=$(cpu_secs $pid)
	kill -INT $pid
	wait $pid
	sw=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' /tmp/perf.err)
	lost=$("$PERF" report -i $f --stats 2>/dev/null | awk '$1 == "LOST" { print $3; exit }')
	echo "BENCH rep=$1 cfg=perfoff wall_ns=$WALL switches=${sw:--} wakeups=-" \
		"bytes=$(wc -c < $f) reader_cpu=$rcpu lost=${lost:-0}"
	rm -f $f
}

run_perf() {
	f=/tmp/bench.perf
	rm -f $f
	# perf sched record: sched_switch, sched_wakeup(_new), migrations,
	# forks and the sched_stat events the kernel has, -a -R -c 1.
	"$PERF" sched record -N -o $f >/tmp/perf.out 2>/tmp/perf.err &
	pid=$!
	wait_file $f || { cat /tmp/perf.err; die "perf sched record did not start"; }
	sleep 0.5
	workload
	rcpu=$(cpu_secs $pid)
	kill -INT $pid
	wait $pid
	stats=$("$PERF" report -i $f --stats 2>/dev/null)
	lost=$(echo "$stats" | awk '$1 == "LOST" { print $3; exit }')
	sw=$("$PERF" script -i $f -F event 2>/dev/null | grep -c 'sched:sched_switch')
	wk=$("$PERF" script -i $f -F event 2>/dev/null | grep -c -e 'sched:sched_wakeup' -e 'sched:sched_waking')
	echo "BENCH rep=$1 cfg=perf wall_ns=$WALL switches=$sw wakeups=$wk" \
		"bytes=$(wc -c < $f) reader_cpu=$rcpu lost=${lost:-0}"
	rm -f $f
}

workload
echo "BENCH-INFO warmup wall_ns=$WALL"

configs="bare fxtprof perf offmin0 off1ms perfoff"
nconfigs=6
rep=1
while [ $rep -le "$REPS" ]; do
	set -- $configs
	k=1
	while [ $k -lt $rep ] && [ $k -lt $nconfigs ]; do
		first=$1; shift; set -- "$@" "$first"; k=$((k + 1))
	done
	for c in "$@"; do
		case $c in
		bare) run_bare $rep ;;
		fxtprof) run_fxtprof $rep ;;
		perf) run_perf $rep ;;
		offmin0) run_offcpu $rep offmin0 0 ;;
		off1ms) run_offcpu $rep off1ms 1ms ;;
		perfoff) run_perfoff $rep ;;
		esac
	done
	rep=$((rep + 1))
done
dmesg | grep -i -e 'perf:' -e fxtprof | sed 's/^/BENCH-DMESG /' | tail -20
exit 0

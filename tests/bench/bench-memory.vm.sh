#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-memory.vm.sh - the in-VM half of scripts/bench-memory.sh, run by
# tests/vm/init.sh in command mode (after insmod).  Beside a CPU-bound
# workload on every CPU (/tests/fxt-bench-workload), each recorder runs
# SECS seconds at each rate of RATES:
#   fxtprof  the static `fxtprof record -F HZ -v` (the module, tasks and
#            mappings on, the default rings) to a `fxtprof receive` on
#            loopback, the board's way;
#   perf     `perf record -a -g -F HZ` to a file (when /bench/perf runs).
# Each run prints
#   BENCH cfg=NAME hz=HZ rss_kb=K hwm_kb=K cpu_pct=C secs=S
# the resident set (smaps_rollup's Rss) and VmHWM at the run's end, and
# the recorder's CPU time over the last SECS as a share of one core;
# fxtprof's memory account follows (BENCH-ACCOUNT lines).
# Measurements only.  /bench/bench.conf sets WARM, SECS and RATES.

. /bench/bench.conf
F=$(command -v fxtprof || echo /tests/fxtprof)
W=/tests/fxt-bench-workload
PERF=/bench/perf
PORT=4809

die() { echo "bench-memory: $*"; exit 1; }

[ "$FXTPROF_LOADED" = 1 ] || die "fxtprof.ko is not loaded"
[ -x "$W" ] || die "no $W"
echo -1 > /proc/sys/kernel/perf_event_paranoid
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo "BENCH-INFO kernel=$(uname -r) arch=$(uname -m) cpus=$(grep -c ^processor /proc/cpuinfo) warm=$WARM secs=$SECS rates=$RATES"

ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

# measure NAME HZ PID: after WARM s (the first minute: tables, rings and
# names fill), the CPU over SECS s, then the memory of PID.  Ticks are
# USER_HZ (100): ticks a second are percent of one core.
measure() {
	sleep "$WARM"
	t0=$(ticks "$3")
	sleep "$SECS"
	t1=$(ticks "$3")
	rss=$(awk '/^Rss:/ { print $2 }' "/proc/$3/smaps_rollup")
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$3/status")
	echo "BENCH cfg=$1 hz=$2 rss_kb=$rss hwm_kb=$hwm" \
		"cpu_pct=$(awk -v d=$((t1 - t0)) -v s="$SECS" 'BEGIN { printf "%.1f", d / s }')" \
		"secs=$SECS"
}

nr=$(grep -c ^processor /proc/cpuinfo)
i=0
while [ $i -lt "$nr" ]; do
	"$W" -r 1000000 > /dev/null 2>&1 &
	i=$((i + 1))
done

for hz in $RATES; do
	rm -rf /tmp/recv
	"$F" receive "tcp://127.0.0.1:$PORT" -o /tmp/recv > /tmp/recv.out 2>&1 &
	rpid=$!
	while ! grep -q '^listening' /tmp/recv.out 2>/dev/null; do
		kill -0 $rpid 2>/dev/null || die "receive did not start: $(cat /tmp/recv.out)"
		sleep 0.1
	done
	rm -f /tmp/ready
	"$F" record -F "$hz" -v --ready-file /tmp/ready "tcp://127.0.0.1:$PORT" \
		2> /tmp/rec.err &
	pid=$!
	while [ ! -s /tmp/ready ]; do
		kill -0 $pid 2>/dev/null || die "record did not start: $(cat /tmp/rec.err)"
		sleep 0.1
	done
	measure fxtprof "$hz" $pid
	kill -INT $pid
	wait $pid
	kill -INT $rpid
	wait $rpid
	grep -E '^fxtprof: (memory|[0-9.]* s:|kernel rings|delivered|lost)' /tmp/rec.err |
		sed "s/^/BENCH-ACCOUNT hz=$hz /"
	rm -rf /tmp/recv

	if "$PERF" --version > /dev/null 2>&1; then
		rm -f /tmp/perf.data
		"$PERF" record -a -g -F "$hz" -o /tmp/perf.data > /tmp/perf.out 2>&1 &
		pid=$!
		while [ ! -s /tmp/perf.data ]; do
			kill -0 $pid 2>/dev/null || die "perf did not start: $(cat /tmp/perf.out)"
			sleep 0.1
		done
		measure perf "$hz" $pid
		kill -INT $pid
		wait $pid
		grep 'perf record' /tmp/perf.out | sed "s/^/BENCH-ACCOUNT hz=$hz /"
		rm -f /tmp/perf.data
	fi
done
exit 0

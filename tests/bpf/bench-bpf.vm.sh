#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-bpf.vm.sh - the in-VM half of `BENCH_VM=1 make bench-bpf`:
# scripts/bench-kernel.sh runs it instead of tests/bench/bench-kernel.vm.sh
# (BENCH_KERNEL_SCRIPT), in the same x86_64 TCG VM with the same /bench
# files, so the module, the eBPF source and perf are measured side by
# side on one workload.  It prints bench-kernel.vm.sh's lines, cfg=fxtprof
# being the module (which bench-kernel.sh's table reads), plus cfg=bpf
# lines for `fxtprof record --source bpf` (which scripts/bench-bpf.sh
# reads).  Then, if /bench/fxt-bench-interruptions is there, the same four
# configurations IRQ_REPS times under the interruption probe
# (tests/bench/interruptions.c), BENCH-IRQ lines.  Measurements only.
. /bench/bench.conf
W=/tests/fxt-bench-workload
PROBE=/bench/fxt-bench-interruptions
# Under TCG a loop of clock reads takes up to a few us and an interrupt
# some tens: the host's thresholds would count the loop as interrupts.
PROBE_ARGS="-t 5000 -l 2000000"
PERF=/bench/perf
FXTPROF=/bench/fxtprof
NCPU=$(grep -c ^processor /proc/cpuinfo)
CHECKSUM=

die() { echo "bench-bpf: $*"; exit 1; }

[ "$FXTPROF_LOADED" = 1 ] || die "fxtprof.ko is not loaded"
"$PERF" --version >/dev/null 2>&1 || die "perf does not run in the VM"
sk=/proc/sys/kernel
echo "BENCH-INFO kernel=$(uname -r) ncpu=$NCPU perf=$("$PERF" --version)" \
	"clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo -1 > $sk/perf_event_paranoid
echo 100000 > $sk/perf_event_max_sample_rate
echo 0 > $sk/perf_cpu_time_max_percent

wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}
cpu_secs() {
	awk -v hz=100 '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
}
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

# run_fxtprof REP FREQ CFG SOURCE: CFG fxtprof (the module) or bpf.
run_fxtprof() {
	rep=$1 freq=$2 cfg=$3 f=/tmp/bench.fxt e=/tmp/fxtprof.err
	rm -f $f
	"$FXTPROF" record --source "$4" -F "$freq" -g kernel,user "$f" 2>$e &
	pid=$!
	wait_file $f || { cat $e; die "fxtprof record --source $4 did not start"; }
	sleep 0.5
	workload
	rcpu=$(cpu_secs $pid)
	kill -TERM $pid
	wait $pid || { cat $e; die "fxtprof record --source $4 failed"; }
	samples=$(sed -n 's/^fxtprof: [0-9.]* s: \([0-9]*\) samples.*/\1/p' $e)
	secs=$(sed -n 's/^fxtprof: \([0-9.]*\) s: .*/\1/p' $e)
	hus=$(sed -n 's/.*sampling handler \([0-9.]*\) us on average.*/\1/p' $e)
	lost=$(sed -n 's/.*kernel rings lost \([0-9]*\) records.*/\1/p' $e)
	echo "BENCH rep=$rep cfg=$cfg freq=$freq wall_ns=$WALL samples=${samples:--}" \
		"secs=${secs:--} handler_ns=$(awk -v u="$hus" 'BEGIN { if (u == "") print "-"; else printf "%.0f", u * 1000 }')" \
		"lost=${lost:-0} throttle=- bytes=$(wc -c < $f) reader_cpu=$rcpu"
	rm -f $f
}

run_perf() {
	rep=$1 freq=$2 f=/tmp/bench.perf
	rm -f $f
	"$PERF" record -a -g -F "$freq" -e cpu-clock -N -o $f >/tmp/perf.out 2>/tmp/perf.err &
	pid=$!
	wait_file $f || { cat /tmp/perf.err; die "perf record did not start"; }
	sleep 0.5
	workload
	rcpu=$(cpu_secs $pid)
	kill -INT $pid
	wait $pid
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

# run_irq REP CFG FREQ: the probe bare, or under one profiler (CFG
# fxtprof for the module, bpf, perf).
run_irq() {
	rep=$1 cfg=$2 freq=$3 f=/tmp/bench.irq e=/tmp/irq.err
	rm -f $f
	case $cfg in
	fxtprof|bpf)
		src=module; [ "$cfg" = bpf ] && src=bpf
		"$FXTPROF" record --source $src -F "$freq" -g kernel,user "$f" 2>$e & ;;
	perf)
		"$PERF" record -a -g -F "$freq" -e cpu-clock -N -o $f >/dev/null 2>$e & ;;
	esac
	if [ "$cfg" != bare ]; then
		pid=$!
		wait_file $f || { cat $e; die "$cfg did not start for the probe"; }
		sleep 0.5
	fi
	o=$("$PROBE" -s "$IRQ_SECS" $PROBE_ARGS) || die "the probe failed: $o"
	if [ "$cfg" != bare ]; then
		if [ "$cfg" = perf ]; then
			# perf's status after SIGINT is not its success.
			kill -INT $pid; wait $pid || true
		else
			kill -TERM $pid
			wait $pid || { cat $e; die "$cfg failed under the probe"; }
		fi
	fi
	echo "BENCH-IRQ rep=$rep cfg=$cfg freq=$freq ${o#interruptions: }"
	rm -f $f
}

workload
echo "BENCH-INFO warmup wall_ns=$WALL checksum=$CHECKSUM rounds=$ROUNDS"

configs="bare"
for freq in $FREQS; do configs="$configs fxtprof:$freq bpf:$freq perf:$freq"; done
nconf=$(echo $configs | wc -w)
# rotated FN REPS: FN REP CONFIG for every configuration, REPS times, the
# order rotated by one every repetition.  (The run_* functions set only
# their own variables, none of these.)
rotated() {
	fn=$1 reps=$2 r=1
	while [ $r -le "$reps" ]; do
		set -- $configs
		k=1
		while [ $k -lt $r ] && [ $k -lt $nconf ]; do
			first=$1; shift; set -- "$@" "$first"; k=$((k + 1))
		done
		for c in "$@"; do "$fn" $r "$c"; done
		r=$((r + 1))
	done
}
one_run() {
	case $2 in
	bare) run_bare $1 ;;
	fxtprof:*) run_fxtprof $1 ${2#*:} fxtprof module ;;
	bpf:*) run_fxtprof $1 ${2#*:} bpf bpf ;;
	perf:*) run_perf $1 ${2#*:} ;;
	esac
}
one_irq() {
	case $2 in
	bare) run_irq $1 bare 0 ;;
	*) run_irq $1 ${2%%:*} ${2#*:} ;;
	esac
}

rotated one_run "$REPS"
[ -x "$PROBE" ] || exit 0
rotated one_irq "${IRQ_REPS:-5}"
exit 0

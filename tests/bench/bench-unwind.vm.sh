#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-unwind.vm.sh - the in-VM half of `make bench-unwind`
# (scripts/bench-unwind.sh, which assembles the initramfs): run by
# tests/vm/init.sh in command mode after insmod.  One copy per vCPU of the
# FP-less workload /bench/fxt-bench-unwind (tests/bench/unwind.c) runs
# bare, under `fxtprof record -g user` (the module, tables by default) and
# under `perf record -a --call-graph dwarf --user-callchains`, REPS times
# with the order rotated, and each run prints the line the host script
# reads (the host's definitions, the same fields):
#   BENCH where=vm rep=R cfg=bare|module|dwarf wall_ns=N cpu_ns=N
#         [rec_cpu_ns=N defer_cpu_ns=N|- handler_ns=N|- samples=N bytes=N
#         wsamples=N ...]
# (handler_ns: the module's mean sampling-handler time, from its stats).
# Measurements only: nothing here passes or fails on a number.
#
# /bench/unwind.conf sets ROUNDS, REPS and FREQ; /bench holds perf and
# fxtprof (the host's, their libraries at the host's paths), the workload
# and the two awk programs of tests/bench/.

. /bench/unwind.conf
W=/bench/fxt-bench-unwind
PERF=/bench/perf
FXTPROF=/bench/fxtprof
COMM=fxt-bench-unwin
NCPU=$(grep -c ^processor /proc/cpuinfo)
HZ=100
CHECKSUM=

die() { echo "bench-unwind: $*"; exit 1; }

[ "$FXTPROF_LOADED" = 1 ] || die "fxtprof.ko is not loaded"
"$PERF" --version >/dev/null 2>&1 || die "perf does not run in the VM: $("$PERF" --version 2>&1 | head -3)"
"$W" -r 1 >/dev/null || die "$W does not run in the VM"

sk=/proc/sys/kernel
echo "BENCH-INFO where=vm kernel=$(uname -r) ncpu=$NCPU" \
	"clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo -1 > $sk/perf_event_paranoid
echo 100000 > $sk/perf_event_max_sample_rate	# refused once the next is 0
echo 0 > $sk/perf_cpu_time_max_percent

# CPU ticks of process $1 (all threads), or of the children this shell
# waited for.
ticks() {
	if [ "$1" = children ]; then
		awk '{ sub(/^.*\) /, ""); print $14 + $15 }' /proc/$$/stat
	else
		awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
	fi
}
now_ns() { awk '{ printf "%.0f", $1 * 1e9 }' /proc/uptime; }

# One copy per vCPU; sets WALL, CPU (ns) and RTICKS (the recorder's, if
# PID is set).
workload() {
	r0=0
	[ -n "$PID" ] && r0=$(ticks "$PID")
	c0=$(ticks children)
	t0=$(now_ns)
	(
		i=1
		while [ $i -le "$NCPU" ]; do
			"$W" -r "$ROUNDS" > /tmp/w.$i &
			i=$((i + 1))
		done
		wait
	)
	WALL=$(( $(now_ns) - t0 ))
	CPU=$(( ($(ticks children) - c0) * 1000000000 / HZ ))
	RTICKS=0
	[ -n "$PID" ] && RTICKS=$(( $(ticks "$PID") - r0 ))
	for f in /tmp/w.*; do
		sum=$(sed -n 's/.*checksum=\(0x[0-9a-f]*\).*/\1/p' "$f")
		[ -z "$CHECKSUM" ] && CHECKSUM=$sum
		[ "$sum" = "$CHECKSUM" ] || die "workload checksum changed: '$sum' != $CHECKSUM"
	done
}

run() {
	rep=$1 cfg=$2
	PID=
	case $cfg in
	bare)
		workload
		echo "BENCH where=vm rep=$rep cfg=bare wall_ns=$WALL cpu_ns=$CPU"
		return ;;
	module)
		F=/tmp/bench.fxt
		rm -f $F /tmp/ready
		"$FXTPROF" record -F "$FREQ" -g user --ready-file /tmp/ready \
			-o $F 2>/tmp/rec.err &
		PID=$!
		fxt-wait-ready /tmp/ready $PID 120 ||
			{ cat /tmp/rec.err; die "fxtprof record did not start"; } ;;
	dwarf)
		F=/tmp/bench.perf
		rm -f $F /tmp/ctl /tmp/ack
		mkfifo /tmp/ctl /tmp/ack
		# Its events disabled (-D -1) until it acknowledges "enable".
		"$PERF" record -a -e cpu-clock -F "$FREQ" --user-callchains \
			--call-graph dwarf -N -o $F -D -1 \
			--control fifo:/tmp/ctl,/tmp/ack >/dev/null 2>/tmp/rec.err &
		PID=$!
		exec 3<>/tmp/ctl 4<>/tmp/ack
		echo enable >&3
		ack=
		read -r -t 60 ack <&4 || true
		exec 3>&- 4<&-
		[ "$ack" = ack ] || { cat /tmp/rec.err; die "perf record did not start"; } ;;
	esac
	workload
	DEFER=-
	HANDLER=-
	if [ "$cfg" = module ]; then
		kill -TERM $PID
		wait $PID || { cat /tmp/rec.err; die "fxtprof record failed"; }
		samples=$(sed -n 's/^fxtprof: [0-9.]* s: \([0-9]*\) samples.*/\1/p' /tmp/rec.err)
		# The module's own mean handler time, the walk included.
		HANDLER=$(sed -n 's/.*sampling handler \([0-9.]*\) us on average.*/\1/p' \
			/tmp/rec.err | awk '{ printf "%.0f", $1 * 1000 }')
		grep -e 'unwind tables' -e 'user frames' /tmp/rec.err |
			sed "s/^/BENCH-NOTE where=vm rep=$rep cfg=module /"
		"$FXTPROF" flamegraph --folded --comm $COMM $F > /tmp/folded ||
			die "fxtprof flamegraph failed"
	else
		kill -INT $PID
		wait $PID
		samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' /tmp/rec.err)
		c0=$(ticks children)
		if [ -z "$samples" ] || ! "$PERF" script -i $F --no-inline --comms $COMM \
			-F comm,ip,sym > /tmp/script 2>/tmp/script.err; then
			echo "BENCH-FAIL where=vm rep=$rep cfg=$cfg $(tail -1 /tmp/rec.err)" \
				"$(tail -3 /tmp/script.err | tr '\n' ' ')"
			rm -f $F /tmp/script
			return
		fi
		DEFER=$(( ($(ticks children) - c0) * 1000000000 / HZ ))
		awk -f /bench/unwind-fold.awk /tmp/script > /tmp/folded
		rm -f /tmp/script
	fi
	[ -n "$samples" ] || { cat /tmp/rec.err; die "$cfg: no sample count"; }
	echo "BENCH where=vm rep=$rep cfg=$cfg wall_ns=$WALL cpu_ns=$CPU" \
		"rec_cpu_ns=$((RTICKS * 1000000000 / HZ)) defer_cpu_ns=$DEFER" \
		"handler_ns=${HANDLER:--}" \
		"samples=$samples bytes=$(wc -c < $F)" \
		"$(awk -v comm=$COMM -f /bench/unwind-rate.awk /tmp/folded)"
	rm -f $F /tmp/folded
	PID=
}

PID=
workload	# warm-up, not reported
echo "BENCH-INFO where=vm warmup wall_ns=$WALL cpu_ns=$CPU checksum=$CHECKSUM rounds=$ROUNDS copies=$NCPU"

rep=1
while [ $rep -le "$REPS" ]; do
	# The order rotated by one every repetition.
	case $((rep % 3)) in
	1) order="bare module dwarf" ;;
	2) order="module dwarf bare" ;;
	0) order="dwarf bare module" ;;
	esac
	for c in $order; do run $rep $c; done
	rep=$((rep + 1))
done
dmesg | grep -i -e 'perf:' -e fxtprof | sed 's/^/BENCH-DMESG /' | tail -20
exit 0

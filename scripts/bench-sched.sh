#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The cost of the sched.switch source at a high context-switch rate, next
# to `perf sched record`, and of the module's stacks of waits next to
# perf's, in one x86_64 QEMU TCG VM boot: a two-thread ping-pong on CPU 1
# (tests/vm/fxt_pingpong.c, two switches and two wakeups per round) bare,
# under `fxtprof record --sources sched.switch`, under `perf sched
# record`, under `fxtprof record --off-cpu` (every wait written, and the
# default 1 ms threshold) and under `perf record -e sched:sched_switch -g
# -a`, BENCH_REPS times (default 3) in rotated order.  Prints the medians: slowdown = wall time under the recorder /
# bare, fxt/perf = the ratio of the two, and the cost per context switch
# = (recorded - bare) / switches of the ping-pong (each switch's wakeup
# included).  See Documentation/performance.md.
#
# Environment: BENCH_REPS, BENCH_ROUNDS (ping-pong rounds, default 20000),
# BENCH_KERNEL_ARGS (guest command line, as scripts/bench-kernel.sh:
# default "clocksource=tsc tsc=reliable"), PERF (the perf ELF), VM_TIMEOUT
# (900), BENCH_NOBUILD=1 (use what is built).  CFG must be x86_64 (perf
# comes from the host).  Raw output: build/results/bench-sched.out.
# make bench-flush (scripts/bench-flush.sh) runs this script too.
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/bench-lib.sh"

cfg=${1:-x86_64}
[ $# -gt 0 ] && shift
if [ "$cfg" != x86_64 ]; then
	echo "bench-sched: only CFG=x86_64 is supported (perf comes from the host), not '$cfg'" >&2
	exit 2
fi
reps=${BENCH_REPS:-3}
rounds=${BENCH_ROUNDS:-20000}
kargs=${BENCH_KERNEL_ARGS-clocksource=tsc tsc=reliable}
B=$FXT_BUILD/$cfg
pingpong=$B/tests/vm/fxt_pingpong
fxtprof=$B/bin/fxtprof

if [ "${BENCH_NOBUILD:-0}" != 1 ]; then
	make -C "$FXT_ROOT" --no-print-directory ARCH=$cfg CFG=$cfg module
	make -C "$FXT_ROOT" --no-print-directory ARCH=$cfg \
		"${fxtprof#$FXT_ROOT/}" "${pingpong#$FXT_ROOT/}"
fi
for f in "$pingpong" "$fxtprof" "$B/kmod/fxtprof.ko"; do
	[ -f "$f" ] || { echo "bench-sched: $f is missing (make ARCH=$cfg)" >&2; exit 1; }
done

bench_find_perf bench-sched

bench_vm_files "$perf:/bench/perf" "$fxtprof:/bench/fxtprof"

mkdir -p "$B/bench-sched"
echo "$pingpong" > "$B/bench-sched/vm-tests.list"
conf=$B/bench-sched/bench.conf
printf 'ROUNDS=%s\nREPS=%s\n' "$rounds" "$reps" > "$conf"

mkdir -p "$FXT_RESULTS"
out=$FXT_RESULTS/bench-sched.out
echo "bench-sched: perf $perf; $reps reps of bare, fxtprof, perf sched;" \
	"$rounds ping-pong rounds; guest args '$kargs'; raw output in $out" >&2
VM_TIMEOUT=${VM_TIMEOUT:-900} bench_run_vm bench-sched "$cfg" \
	"$FXT_ROOT/tests/bench/bench-sched.vm.sh" "$B/bench-sched/vm-tests.list" "$out" \
	"${files[@]}" "$conf:/bench/bench.conf" "$@" -- $kargs

echo
echo "Runs (wall time of $rounds ping-pong rounds):"
awk "$BENCH_AWK"'$1 == "BENCH" {
	bench_fields()
	printf "  rep %s  %-8s %8.3f s  switches %8s  wakeups %8s  MB %6s  reader CPU %s s  lost %s\n",
		v["rep"], v["cfg"], v["wall_ns"] / 1e9, v["switches"], v["wakeups"],
		v["bytes"] == "-" ? "-" : sprintf("%.2f", v["bytes"] / 1e6), v["reader_cpu"], v["lost"]
}' "$out"

echo
awk -v rounds="$rounds" "$BENCH_AWK"'
$1 == "BENCH" {
	bench_fields()
	add(v["cfg"], v["wall_ns"])
	add(v["cfg"] ":mb", v["bytes"] == "-" ? "-" : v["bytes"] / 1e6)
	add(v["cfg"] ":rcpu", v["reader_cpu"])
	add(v["cfg"] ":lost", v["lost"])
}
END {
	bare = median("bare"); fx = median("fxtprof"); pf = median("perf")
	sw = 2 * rounds
	printf "sched.switch cost at a high switch rate, medians of %d runs (bare %.3f s, %.2f us per switch):\n",
		cnt["bare"], bare / 1e9, bare / sw / 1000
	printf "  %-10s %9s %14s %10s %14s\n", "recorder", "slowdown", "cost/switch", "output MB", "recorder CPU s"
	printf "  %-10s %8.3fx %11.2f us %10.2f %14.2f\n", "fxtprof", fx / bare, (fx - bare) / sw / 1000,
		median("fxtprof:mb"), median("fxtprof:rcpu")
	printf "  %-10s %8.3fx %11.2f us %10.2f %14.2f\n", "perf sched", pf / bare, (pf - bare) / sw / 1000,
		median("perf:mb"), median("perf:rcpu")
	printf "  fxt/perf   %8.3f  (slowdown ratio; <= 1: fxtprof costs no more than perf sched record)\n",
		(fx / bare) / (pf / bare)
	printf "  cost/switch = (recorded - bare wall time) / %d switches of the ping-pong, its wakeup included.\n", sw
	o0 = median("offmin0"); o1 = median("off1ms"); po = median("perfoff")
	printf "\nstacks of waits, medians of %d runs:\n", cnt["perfoff"]
	printf "  %-28s %9s %14s %12s %10s %14s\n", "recorder", "slowdown", "cost/switch", "bytes/switch", "vs perf", "recorder CPU s"
	printf "  %-28s %8.3fx %11.2f us %12.0f %10.2f %14.2f\n", "fxtprof --off-cpu-min 0", o0 / bare,
		(o0 - bare) / sw / 1000, median("offmin0:mb") * 1e6 / sw, (o0 - bare) / (po - bare), median("offmin0:rcpu")
	printf "  %-28s %8.3fx %11.2f us %12.0f %10.2f %14.2f\n", "fxtprof --off-cpu (1 ms)", o1 / bare,
		(o1 - bare) / sw / 1000, median("off1ms:mb") * 1e6 / sw, (o1 - bare) / (po - bare), median("off1ms:rcpu")
	printf "  %-28s %8.3fx %11.2f us %12.0f %10.2f %14.2f\n", "perf record sched_switch -g", po / bare,
		(po - bare) / sw / 1000, median("perfoff:mb") * 1e6 / sw, 1, median("perfoff:rcpu")
	printf "  vs perf = the ratio of the costs per switch (the goal: <= 0.5); bytes/switch: the whole output / the ping-pong'"'"'s switches.\n"
	for (k in cnt) if (k ~ /:lost$/ && median(k) > 0)
		printf "  note: %s median %s\n", k, median(k)
}' "$out"

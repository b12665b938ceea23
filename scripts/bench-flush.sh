#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-flush.sh [CFG] [SRC:DEST ...]    (make bench-flush)
# Flush latency of fxtprof.ko, in one QEMU TCG VM: from the
# FXTPROF_IOC_FLUSH call until the reader has drained past the marker on
# every ring (libfxtprof's fxtprof_dev__flush_done()), with every CPU
# spinning and sampled at 1 and 10 kHz (BENCH_FREQS), next to the baseline
# of the same session with sampling off and the CPUs idle (frequency 0),
# in the same boot (tests/bench/bench-flush.vm.sh runs
# tests/bench/flush.c).  Prints the raw runs, then medians over the
# repetitions of each run's median, 90th percentile and maximum, and the
# ratio of each to the baseline's.  See Documentation/performance.md.
#
# Then, if they exist, the other two benchmarks of the protocol issue:
# scripts/bench-sched.sh (sched.switch against perf sched) and
# scripts/bench-snapshot.sh (one flight-recorder snapshot).
# Env: BENCH_REPS (3), BENCH_FREQS ("1000 10000"), BENCH_FLUSHES (200 per
# run), VM_TIMEOUT (600), BENCH_NOBUILD=1 (use what is built).
# Raw output: build/results/bench-flush.out (VM log next to it).
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/bench-lib.sh"

cfg=${1:-x86_64}
[ $# -gt 0 ] && shift
reps=${BENCH_REPS:-3}
freqs="0 ${BENCH_FREQS:-1000 10000}"
count=${BENCH_FLUSHES:-200}
B=$FXT_BUILD/$cfg
probe=$B/tests/bench/fxt-bench-flush

if [ "${BENCH_NOBUILD:-0}" != 1 ]; then
	arch=x86_64
	case $cfg in arm64*) arch=arm64 ;; esac
	make -C "$FXT_ROOT" --no-print-directory ARCH=$arch CFG=$cfg module
	make -C "$FXT_ROOT" --no-print-directory ARCH=$arch "${probe#$FXT_ROOT/}"
fi
for f in "$probe" "$B/kmod/fxtprof.ko"; do
	[ -f "$f" ] || { echo "bench-flush: $f is missing (make CFG=$cfg)" >&2; exit 1; }
done

mkdir -p "$B/bench" "$FXT_RESULTS"
echo "$probe" > "$B/bench/vm-tests-flush.list"
conf=$B/bench/bench-flush.conf
printf 'REPS=%s\nFREQS="%s"\nCOUNT=%s\n' "$reps" "$freqs" "$count" > "$conf"
out=$FXT_RESULTS/bench-flush.out
echo "bench-flush: $reps reps of $count flushes at $freqs Hz ($cfg); raw output in $out" >&2
bench_run_vm bench-flush "$cfg" "$FXT_ROOT/tests/bench/bench-flush.vm.sh" \
	"$B/bench/vm-tests-flush.list" "$out" "$conf:/bench/bench.conf" "$@"

echo
echo "Runs (flush latency, call to completion on every ring, in us):"
awk "$BENCH_AWK"'$1 == "BENCH" {
	bench_fields()
	printf "  rep %s  %6s Hz  median %9.1f  p90 %9.1f  max %9.1f  samples %8s  lost %s\n",
		v["rep"], v["freq"], v["median_ns"] / 1e3, v["p90_ns"] / 1e3,
		v["max_ns"] / 1e3, v["samples"], v["lost"]
}' "$out"

echo
awk -v freqlist="$freqs" -v ncpu="$(sed -n 's/.*ncpu=\([0-9]*\).*/\1/p' "$out" | head -1)" "$BENCH_AWK"'
$1 == "BENCH" {
	bench_fields()
	f = v["freq"]
	add(f ":med", v["median_ns"]); add(f ":p90", v["p90_ns"]); add(f ":max", v["max_ns"])
	add(f ":lost", v["lost"])
}
END {
	b = median("0:med"); bp = median("0:p90")
	printf "Flush latency on %s CPUs, medians of %d runs (baseline: sampling off, CPUs idle):\n", ncpu, cnt["0:med"]
	printf "  %10s  %10s  %10s  %10s  %12s  %12s\n", "freq", "median us", "p90 us", "max us", "median/base", "p90/base"
	n = split(freqlist, fs, " ")
	for (i = 1; i <= n; i++) {
		f = fs[i]
		# Outside printf: there, "b > 0" would be an output redirection.
		label = (f == 0) ? "baseline" : (f " Hz")
		rm = (b > 0) ? median(f ":med") / b : 0
		rp = (bp > 0) ? median(f ":p90") / bp : 0
		printf "  %10s  %10.1f  %10.1f  %10.1f  %11.2fx  %11.2fx\n", label,
			median(f ":med") / 1e3, median(f ":p90") / 1e3, median(f ":max") / 1e3, rm, rp
	}
	print "  latency = FXTPROF_IOC_FLUSH call until the reader drained past its marker on every ring."
	for (i = 1; i <= n; i++) if (median(fs[i] ":lost") > 0)
		printf "  note: %s Hz lost %s records (median)\n", fs[i], median(fs[i] ":lost")
}' "$out"

# The rest of the protocol issue's benchmarks, where written.
for other in bench-sched bench-snapshot; do
	if [ -x "$FXT_ROOT/scripts/$other.sh" ]; then
		echo
		"$FXT_ROOT/scripts/$other.sh" "$cfg"
	fi
done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-kernel.sh [CFG] [SRC:DEST ...]    (make bench-kernel)
# Sampling overhead of fxtprof.ko against perf, in one x86_64 QEMU TCG VM:
# the fixed workload tests/bench/workload.c runs bare, under
# `fxtprof record -F N -g kernel,user` and under
# `perf record -a -g -F N -e cpu-clock` for N in BENCH_FREQS, BENCH_REPS
# times (tests/bench/bench-kernel.vm.sh, order rotated per repetition).
# Prints the raw runs, then a table of medians: slowdown = wall time under
# the profiler / bare wall time, fxt/perf = fxtprof's slowdown / perf's,
# fxtprof's mean handler cost per sample, and the sampling rate each
# profiler achieved per CPU.  See Documentation/performance.md.
#
# The host's perf (Debian linux-perf; /usr/bin/perf, or the perf_X.Y it
# wraps) is copied into the initramfs with every library ldd lists, at the
# same paths, so it needs no rebuild.  x86_64 only.
# Env: BENCH_REPS (3), BENCH_FREQS ("1000 10000"), BENCH_ROUNDS (workload
# -r, sized for ~3-5 s bare under TCG), BENCH_IRQ_REPS and BENCH_IRQ_SECS
# (passed on in bench.conf, for a VM script with an interruption probe
# such as tests/bpf/bench-bpf.vm.sh), PERF (the perf ELF to use),
# BENCH_KERNEL_ARGS (guest kernel arguments, default "clocksource=tsc
# tsc=reliable": under TCG the guest marks its TSC unstable and falls back
# to HPET, whose every read is an emulated MMIO access; real machines and
# KVM guests read the TSC, so the default keeps clock reads at their real
# relative cost; set it empty to measure the HPET case),
# BENCH_KERNEL_SCRIPT (the VM script), VM_TIMEOUT (600), BENCH_NOBUILD=1
# (use what is built).  Builds the module, fxtprof and the workload first
# (only those: the rest of `make user` is not needed).  CFG must be x86_64
# (the Makefile passes its CFG); SRC:DEST pairs go to the initramfs.
# Raw output: build/results/bench-kernel.out (VM log next to it).
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/bench-lib.sh"

cfg=${1:-x86_64}
[ $# -gt 0 ] && shift
if [ "$cfg" != x86_64 ]; then
	echo "bench-kernel: only CFG=x86_64 is supported (perf comes from the host), not '$cfg'" >&2
	exit 2
fi
reps=${BENCH_REPS:-3}
kargs=${BENCH_KERNEL_ARGS-clocksource=tsc tsc=reliable}
freqs=${BENCH_FREQS:-1000 10000}
rounds=${BENCH_ROUNDS:-250}
vmscript=${BENCH_KERNEL_SCRIPT:-$FXT_ROOT/tests/bench/bench-kernel.vm.sh}
B=$FXT_BUILD/$cfg
workload=$B/tests/bench/fxt-bench-workload
fxtprof=$B/bin/fxtprof

if [ "${BENCH_NOBUILD:-0}" != 1 ]; then
	make -C "$FXT_ROOT" --no-print-directory ARCH=$cfg CFG=$cfg module
	make -C "$FXT_ROOT" --no-print-directory ARCH=$cfg \
		"${fxtprof#$FXT_ROOT/}" "${workload#$FXT_ROOT/}"
fi
for f in "$workload" "$fxtprof" "$B/kmod/fxtprof.ko"; do
	[ -f "$f" ] || { echo "bench-kernel: $f is missing (make ARCH=$cfg)" >&2; exit 1; }
done

bench_find_perf bench-kernel

bench_vm_files "$perf:/bench/perf" "$fxtprof:/bench/fxtprof"

# Only the workload goes to /tests: the suite's programs are not needed.
mkdir -p "$B/bench"
echo "$workload" > "$B/bench/vm-tests.list"
conf=$B/bench/bench.conf
printf 'ROUNDS=%s\nREPS=%s\nFREQS="%s"\nIRQ_REPS=%s\nIRQ_SECS=%s\n' \
	"$rounds" "$reps" "$freqs" "${BENCH_IRQ_REPS:-5}" "${BENCH_IRQ_SECS:-3}" > "$conf"

mkdir -p "$FXT_RESULTS"
out=$FXT_RESULTS/bench-kernel.out
echo "bench-kernel: perf $perf, ${#files[@]} files; $reps reps of bare +" \
	"fxtprof/perf at $freqs Hz; guest args '$kargs'; raw output in $out" >&2
bench_run_vm bench-kernel "$cfg" "$vmscript" "$B/bench/vm-tests.list" "$out" \
	"${files[@]}" "$conf:/bench/bench.conf" "$@" -- $kargs

echo
echo "Runs (wall time of the workload in s):"
awk "$BENCH_AWK"'$1 == "BENCH" {
	bench_fields()
	printf "  rep %s  %-8s %6s Hz  %8.3f s  samples %6s  handler %5s ns  reader CPU %s s\n",
		v["rep"], v["cfg"], v["freq"], v["wall_ns"] / 1e9, v["samples"],
		v["handler_ns"], v["reader_cpu"] == "" ? "-" : v["reader_cpu"]
}' "$out"

echo
awk -v ncpu="$(sed -n 's/.*ncpu=\([0-9]*\).*/\1/p' "$out" | head -1)" \
	-v freqlist="$freqs" "$BENCH_AWK"'
$1 == "BENCH" {
	bench_fields()
	k = v["cfg"] ":" v["freq"]
	add(k, v["wall_ns"])
	if (v["samples"] != "-" && v["secs"] != "-" && v["secs"] > 0)
		add(k ":rate", v["samples"] / v["secs"] / ncpu)
	add(k ":handler", v["handler_ns"])
	add(k ":rcpu", v["reader_cpu"])
	add(k ":mb", v["bytes"] == "" ? "" : v["bytes"] / 1e6)
	add(k ":lost", v["lost"])
	add(k ":throttle", v["throttle"])
}
END {
	bare = median("bare:0")
	printf "Kernel sampling overhead, medians of %d runs (bare %.3f s):\n", cnt["bare:0"], bare / 1e9
	printf "  %8s  %9s  %9s  %8s  %11s  %13s  %15s\n", "", "slowdown", "slowdown", "",
		"fxtprof", "samples/CPU-s", "cost/sample us"
	printf "  %8s  %9s  %9s  %8s  %11s  %13s  %15s\n", "freq", "fxtprof", "perf", "fxt/perf",
		"handler us", "fxtprof perf", "fxtprof perf"
	n = split(freqlist, fs, " ")
	for (i = 1; i <= n; i++) {
		f = fs[i]
		fx = median("fxtprof:" f) / bare
		pf = median("perf:" f) / bare
		ratio = pf > 0 ? fx / pf : 0
		h = cnt["fxtprof:" f ":handler"] ? sprintf("%.2f", median("fxtprof:" f ":handler") / 1000) : "-"
		rf = cnt["fxtprof:" f ":rate"] ? median("fxtprof:" f ":rate") : 0
		rp = cnt["perf:" f ":rate"] ? median("perf:" f ":rate") : 0
		# CPU time lost per sample: the fraction of the run the
		# profiler took, over the samples per CPU-second it took.
		cf = rf > 0 ? (fx - 1) / fx / rf * 1e6 : 0
		cp = rp > 0 ? (pf - 1) / pf / rp * 1e6 : 0
		printf "  %8s  %8.3fx  %8.3fx  %8.3f  %11s  %6.0f %6.0f  %7.1f %7.1f\n", f " Hz",
			fx, pf, ratio, h, rf, rp, cf, cp
	}
	printf "  %8s  %24s  %24s\n", "", "recorder CPU s", "output MB"
	printf "  %8s  %11s  %11s  %11s  %11s\n", "freq", "fxtprof", "perf", "fxtprof", "perf"
	for (i = 1; i <= n; i++) {
		f = fs[i]
		printf "  %8s  %11.2f  %11.2f  %11.2f  %11.2f\n", f " Hz",
			median("fxtprof:" f ":rcpu"), median("perf:" f ":rcpu"),
			median("fxtprof:" f ":mb"), median("perf:" f ":mb")
	}
	print "  slowdown = workload wall time under the profiler / bare; fxt/perf <= 1 means fxtprof costs no more than perf."
	print "  samples/CPU-s = samples each profiler actually took per CPU and second (fxtprof: over"
	print "  its whole session; perf: first..last sample); cost/sample = (1 - 1/slowdown) / that rate."
	print "  recorder CPU = user+system time of the recording process until it was stopped (whole session)."
	for (k in cnt) if (k ~ /:(lost|throttle)$/ && median(k) > 0)
		printf "  note: %s median %s\n", k, median(k)
}' "$out"

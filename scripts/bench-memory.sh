#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench-memory.sh [CFG] - `make bench-memory`: the recorder's steady-state
# memory and CPU in one VM boot (QEMU TCG, CFG x86_64 or arm64), next to
# `perf record -a -g` at the same rates (x86_64 only: perf comes from the
# host).  tests/bench/bench-memory.vm.sh runs in the VM: beside a
# CPU-bound workload on every CPU, the static `fxtprof record -F HZ` (the
# module, tasks and mappings on, to a `fxtprof receive` on loopback) and
# perf, each BENCH_WARM s (60) and then BENCH_SECS s (30) at each rate of
# BENCH_RATES ("1000 10000").  Prints RSS and VmHWM at the end and CPU as
# a share of one core over the last BENCH_SECS, and the ratios to perf.
# Measurements only.  Raw output: build/results/bench-memory-CFG.out.
# Environment: BENCH_WARM, BENCH_SECS, BENCH_RATES, PERF, BENCH_NOBUILD=1.
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/bench-lib.sh"

cfg=${1:-x86_64}
case $cfg in
x86_64|arm64) ;;
*) echo "bench-memory: CFG must be x86_64 or arm64, not '$cfg'" >&2; exit 2 ;;
esac
B=$FXT_BUILD/$cfg
fxtprof=$B/user/cmd/vm/fxtprof
workload=$B/tests/bench/fxt-bench-workload

bench_build bench-memory "$cfg" "${BENCH_NOBUILD:-0}" "$fxtprof" "$workload"

files=()
if [ "$cfg" = x86_64 ]; then
	bench_find_perf bench-memory
	bench_vm_files "$perf:/bench/perf"
else
	echo "bench-memory: no perf for $cfg (the host's perf is x86_64): fxtprof alone" >&2
fi

mkdir -p "$B/bench-memory"
printf '%s\n' "$fxtprof" "$workload" > "$B/bench-memory/vm-tests.list"
conf=$B/bench-memory/bench.conf
printf 'WARM=%s\nSECS=%s\nRATES="%s"\n' "${BENCH_WARM:-60}" "${BENCH_SECS:-30}" \
	"${BENCH_RATES:-1000 10000}" > "$conf"
out=$FXT_RESULTS/bench-memory-$cfg.out
echo "bench-memory: $cfg, $(tr '\n' ' ' < "$conf"); raw output in $out" >&2
# No test begins in the VM for the whole run.
VM_MEM=${VM_MEM:-2G} VM_STALL_TIMEOUT=${VM_STALL_TIMEOUT:-1800} \
VM_TIMEOUT=${VM_TIMEOUT:-2400} bench_run_vm bench-memory "$cfg" \
	"$FXT_ROOT/tests/bench/bench-memory.vm.sh" "$B/bench-memory/vm-tests.list" \
	"$out" "${files[@]}" "$conf:/bench/bench.conf"

echo
awk "$BENCH_AWK"'
$1 == "BENCH" {
	bench_fields()
	rss[v["cfg"], v["hz"]] = v["rss_kb"] / 1024
	hwm[v["cfg"], v["hz"]] = v["hwm_kb"] / 1024
	cpu[v["cfg"], v["hz"]] = v["cpu_pct"]
	if (!(v["hz"] in seen)) { seen[v["hz"]] = 1; hz[++n] = v["hz"] }
}
END {
	printf "%-8s %7s %10s %10s %8s %10s %10s\n", "rate", "", "RSS MiB", "HWM MiB", "CPU %", "RSS/perf", "CPU/perf"
	for (i = 1; i <= n; i++)
		for (c = 1; c <= 2; c++) {
			who = c == 1 ? "fxtprof" : "perf"
			if (!((who, hz[i]) in rss)) continue
			r = "-"; p = "-"
			if (who == "fxtprof" && (("perf", hz[i]) in rss)) {
				r = sprintf("%.2fx", rss["fxtprof", hz[i]] / rss["perf", hz[i]])
				if (cpu["perf", hz[i]] > 0)
					p = sprintf("%.2fx", cpu["fxtprof", hz[i]] / cpu["perf", hz[i]])
			}
			printf "%-8s %7s %10.2f %10.2f %8s %10s %10s\n", hz[i] " Hz", who,
				rss[who, hz[i]], hwm[who, hz[i]], cpu[who, hz[i]], r, p
		}
}' "$out"

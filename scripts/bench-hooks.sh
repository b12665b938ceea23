#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-hooks.sh [CFG]    (make bench-hooks)
# The cost of one begin-plus-end region pair through libfxtprof-hooks
# (tests/hooks/bench_hooks.c), next to a bare clock_gettime() pair (the
# floor) and one write() to /dev/null of the bytes of one annotation,
# each measured in the same run as the pair:
#  - standalone (file://) on this host;
#  - in one QEMU TCG VM (tests/hooks/bench-hooks.vm.sh): fxtprof: with
#    nothing recording, fxtprof: under `fxtprof record`, and standalone.
# Prints the raw lines, then a table in ns and as ratios to the clock pair
# and to the /dev/null write of the same run.  See
# Documentation/performance.md.
# Env: BENCH_BATCHES (200 batches of 1000 pairs), VM_TIMEOUT (600),
# BENCH_NOBUILD=1 (use what is built).
# Raw output: build/results/bench-hooks.out (VM log next to it).
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:-x86_64}
batches=${BENCH_BATCHES:-200}
B=$FXT_BUILD/$cfg
HB=$FXT_BUILD/x86_64
arch=x86_64
case $cfg in arm64*) arch=arm64 ;; esac
host_bench=$HB/tests/hooks/fxt-bench-hooks
vm_bench=$FXT_BUILD/$arch/tests/hooks/vm/fxt-bench-hooks

if [ "${BENCH_NOBUILD:-0}" != 1 ]; then
	make -C "$FXT_ROOT" --no-print-directory ARCH=$arch CFG="$cfg" module
	make -C "$FXT_ROOT" --no-print-directory ARCH=$arch \
		"${vm_bench#$FXT_ROOT/}" user
	make -C "$FXT_ROOT" --no-print-directory ARCH=x86_64 \
		"${host_bench#$FXT_ROOT/}"
fi
for f in "$host_bench" "$vm_bench" "$B/kmod/fxtprof.ko"; do
	[ -f "$f" ] || { echo "bench-hooks: $f is missing (make CFG=$cfg)" >&2; exit 1; }
done

mkdir -p "$B/bench" "$FXT_RESULTS"
out=$FXT_RESULTS/bench-hooks.out
: > "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "bench-hooks: $batches batches of 1000 pairs; host, then the VM ($cfg); raw output in $out" >&2
"$host_bench" "file://$tmp/host.fxt" "$batches" 2>"$tmp/host.err" |
	sed 's/$/ where=host session=-/' >> "$out" || {
	cat "$tmp/host.err" >&2; echo "bench-hooks: the host run failed" >&2; exit 1; }
"$FXT_ROOT/build/x86_64/bin/fxtprof" check "$tmp/host.fxt" >/dev/null ||
	{ echo "bench-hooks: the host's standalone trace does not pass fxtprof check" >&2; exit 1; }

conf=$B/bench/bench-hooks.conf
printf 'BATCHES=%s\n' "$batches" > "$conf"
rc=0
VM_TIMEOUT=${VM_TIMEOUT:-600} "$FXT_ROOT/scripts/vm-cmd.sh" "$cfg" \
	"$FXT_ROOT/tests/hooks/bench-hooks.vm.sh" "$conf:/bench/bench.conf" \
	"$vm_bench:/bench/fxt-bench-hooks" >> "$out" || rc=$?
grep -v '^BENCH ' "$out" || true
if [ $rc -ne 0 ] || [ "$(grep -c '^BENCH ' "$out")" -ne 4 ]; then
	echo "bench-hooks: the VM script failed (rc=$rc); see $out and the VM log in $FXT_RESULTS" >&2
	exit 1
fi

echo
echo "ns per operation (median of $batches batches of 1000), and the pair's ratios:"
printf '  %-5s %-26s %10s %10s %10s %9s %9s  %s\n' where mode clock_pair devnull_wr pair "/clock" "/write" notes
awk '$1 == "BENCH" {
	delete v
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	mode = v["uri"] ~ /^fxtprof:/ ? "fxtprof:" : "standalone (file://)"
	if (v["session"] == "none") mode = mode " no session"
	if (v["session"] == "record") mode = mode " recording"
	notes = "annotations=" v["annotations"] " dropped=" v["dropped"]
	if (v["no_session"] > 0) notes = notes " no_session=" v["no_session"]
	if (v["recorded_events"] != "") notes = notes " events_in_trace=" v["recorded_events"] " kernel_lost=" v["kernel_lost"]
	printf "  %-5s %-26s %10.1f %10.1f %10.1f %8.2fx %8.2fx  %s\n",
		v["where"], mode, v["clock_pair_ns"], v["devnull_write_ns"],
		v["pair_ns"], v["pair_ns"] / v["clock_pair_ns"],
		v["pair_ns"] / v["devnull_write_ns"], notes
}' "$out"

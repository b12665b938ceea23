#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-snapshot.sh [CFG]    (called by make bench-flush)
# The cost of one flight-recorder snapshot of a 10 s window, in one QEMU
# TCG VM with the module: `fxtprof record --flight-recorder 10` at
# 1000 Hz on every CPU with every CPU busy, then 3 snapshots by SIGUSR2
# (tests/reader/bench-snapshot.vm.sh, whose FREQ and SNAPSHOT_REPS
# defaults set those).
# Prints each snapshot's time (from the request being served to the file
# synced, as fxtprof record reports it) and size, and, as the baseline in
# the same boot, the time dd conv=fdatasync takes to copy that same file:
# ratio = snapshot ms / copy ms.  BENCH_NOBUILD=1 uses what is built.
# Raw output: build/results/bench-snapshot.out.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cfg=${1:-x86_64}
out=$FXT_RESULTS/bench-snapshot.out
mkdir -p "$FXT_RESULTS"
if [ -z "${BENCH_NOBUILD:-}" ]; then
	make -C "$FXT_ROOT" CFG="$cfg" all >/dev/null
fi
"$FXT_ROOT/scripts/vm-cmd.sh" "$cfg" \
	"$FXT_ROOT/tests/reader/bench-snapshot.vm.sh" > "$out" 2>&1 ||
	{ cat "$out"; exit 1; }
cat "$out"
if grep -q SNAP-CHECK-FAILED "$out"; then
	echo "bench-snapshot: a snapshot failed fxtprof check" >&2
	exit 1
fi
awk '{ gsub(/\r/, "") } /^SNAP ms=/ {
	for (i = 2; i <= 4; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	n++; printf "snapshot %d: %.1f ms, %.1f MB; copy %.1f ms; ratio %.2f\n",
		n, v["ms"], v["mb"], v["copy_ms"],
		(v["copy_ms"] > 0 ? v["ms"] / v["copy_ms"] : 0) }
     END { if (!n) { print "bench-snapshot: no snapshot measured"; exit 1 } }' "$out"

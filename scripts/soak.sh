#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# soak.sh [CFG] - `make soak`: leave the recorders running in one VM boot
# (QEMU TCG, CFG x86_64 by default, or arm64) under a workload that forks
# forever, and fail if they grow.  tests/soak/soak.vm.sh runs in the VM:
# a recorder streaming over TCP (the module, --reconnect) to a `receive`
# restarted every SOAK_RESTART s, a flight recorder (the bpf source)
# triggered every SOAK_TRIGGER s, and fxt-soak-forker forking SOAK_RATE
# processes a second.  Every SOAK_SAMPLE s it samples each one's RSS, fds
# and CPU time.
#
# It fails (exit 1, and a failing TAP line in build/results/soak-CFG.tap)
# if, for either recorder:
#  - the mean RSS of the last third of the samples is more than 5 % over
#    that of the first third (the samples before SOAK_WARMUP s left out:
#    rings and tables fill then);
#  - its fd count at the end differs from the first sample after warm-up;
#  - it exits with a status other than 0 (or 3 for the stream recorder,
#    whose peer goes away at each restart: output lost and said so);
# or if a snapshot fails `fxtprof check` or holds fewer records than the
# recorder said it wrote, if the receive's streams of the stream recorder
# hold fewer records than it said it delivered, or if the kernel logged
# a warning.  The samples go to build/results/soak-CFG.csv and a plot to
# build/results/soak-CFG.svg (scripts/soak-plot.awk).
#
# Environment: SOAK_SECS (1800), SOAK_WARMUP (60), SOAK_SAMPLE (10),
# SOAK_TRIGGER (60), SOAK_RESTART (300), SOAK_RATE (1000), SOAK_THREADS
# (4), SOAK_FREQ (1000), SOAK_NOBUILD=1 (use what is built).  make check
# runs a short one: scripts/check.sh sets SOAK_SECS=150, SOAK_WARMUP=30
# and shorter periods.
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/bench-lib.sh"

cfg=${1:-x86_64}
case $cfg in
x86_64|arm64) ;;
*) echo "soak: CFG must be x86_64 or arm64, not '$cfg'" >&2; exit 2 ;;
esac
secs=${SOAK_SECS:-1800}
warmup=${SOAK_WARMUP:-60}
B=$FXT_BUILD/$cfg
fxtprof=$B/user/cmd/vm/fxtprof
forker=$B/tests/soak/fxt-soak-forker

bench_build soak "$cfg" "${SOAK_NOBUILD:-0}" "$fxtprof" "$forker"

mkdir -p "$B/soak" "$FXT_RESULTS"
printf '%s\n' "$fxtprof" "$forker" > "$B/soak/vm-tests.list"
conf=$B/soak/soak.conf
printf 'SECS=%s\nSAMPLE=%s\nTRIGGER=%s\nRESTART=%s\nRATE=%s\nTHREADS=%s\nFREQ=%s\n' \
	"$secs" "${SOAK_SAMPLE:-10}" "${SOAK_TRIGGER:-60}" "${SOAK_RESTART:-300}" \
	"${SOAK_RATE:-1000}" "${SOAK_THREADS:-4}" "${SOAK_FREQ:-1000}" > "$conf"

out=$FXT_RESULTS/soak-$cfg.out
tap=$FXT_RESULTS/soak-$cfg.tap
csv=$FXT_RESULTS/soak-$cfg.csv
svg=$FXT_RESULTS/soak-$cfg.svg
rm -f "$tap" "$csv" "$svg"
echo "soak: $cfg for ${secs}s ($(tr '\n' ' ' < "$conf")); output in $out" >&2
rc=0
# The soak begins no test for its whole length: the stall watchdog waits
# that long, and the VM's own limit is the soak plus its boot.
VM_TESTS_LIST=$B/soak/vm-tests.list VM_STALL_TIMEOUT=$((secs + 600)) \
	VM_TIMEOUT=$((secs + 1200)) \
	"$FXT_ROOT/scripts/vm-cmd.sh" "$cfg" "$FXT_ROOT/tests/soak/soak.vm.sh" \
	"$conf:/soak/soak.conf" > "$out" || rc=$?

awk '/^SOAK-SAMPLE / && !/ gone$/ {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print v["t"] "," v["who"] "," v["pid"] "," v["rss_kb"] "," v["fds"] "," v["cpu_ticks"]
}' "$out" | { echo "t,who,pid,rss_kb,fds,cpu_ticks"; cat; } > "$csv"
awk -F, -v title="fxtprof soak, $cfg, ${secs} s" -f "$FXT_ROOT/scripts/soak-plot.awk" \
	"$csv" > "$svg"

awk -v vmrc=$rc -v warmup="$warmup" -v cfg="$cfg" -f "$FXT_ROOT/scripts/soak-judge.awk" \
	"$out" > "$tap" || true
grep -E '^(not )?ok|^#' "$tap" >&2
echo "soak: samples $csv, plot $svg" >&2
! grep -q '^not ok' "$tap"

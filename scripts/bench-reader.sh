#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-reader.sh - `make bench-reader`:
#   1. on this host, build/x86_64/bin/bench_reader: ring_sim rings full of
#      16-frame samples drained + translated on one thread by the reader's
#      own code, into memory and into a file, next to memcpy;
#   2. in the CFG VM (default x86_64), the reader's CPU time while it
#      records every CPU at 1 kHz for 10 s (tests/reader/bench-reader-vm.sh).
# The figures go to stdout and build/results/bench-reader.txt;
# Documentation/performance.md quotes them.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FXT_ROOT"
cfg=${1:-x86_64}
res=$FXT_RESULTS/bench-reader.txt
mkdir -p "$FXT_RESULTS"
{
	echo "== host: $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	"$FXT_BUILD/x86_64/bin/bench_reader" -n "${BENCH_RECORDS:-4000000}"
	echo
	echo "== VM ($cfg, TCG): reader CPU at 1 kHz on all CPUs"
	"$FXT_ROOT/scripts/vm-cmd.sh" "$cfg" tests/reader/bench-reader-vm.sh
} 2>&1 | tee "$res"

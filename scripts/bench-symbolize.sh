#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-symbolize.sh - the symbolizer's throughput, on this host:
# tests/symbolize/bench_symbolize names N distinct addresses (default
# 20000) of libc.so.6 and of a test binary (fxtprof itself, -g), cold
# (first lookup, file open included; then with lines and inline frames)
# and warm (ROUNDS more passes, default 50, cache hits), next to one
# eu-addr2line -f process given the same addresses, with the ratios.
# Goal: >= 2 M frames/s warm.  The figures go to stdout and
# build/results/bench-symbolize.txt; Documentation/symbolizer.md quotes
# them; then the stream bytes per sample with and without the symbol
# records, and scripts/bench-report.sh.  Builds what it runs.
# BENCH_SYM_N, BENCH_SYM_ROUNDS and
# BENCH_SYM_FILES override the defaults.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FXT_ROOT"
make -j2 ARCH=x86_64 build/x86_64/tests/symbolize/bench_symbolize \
	build/x86_64/bin/fxtprof >/dev/null
libc=$(gcc -print-file-name=libc.so.6)
[ -e "$libc" ] || libc=/lib/x86_64-linux-gnu/libc.so.6
libc=$(readlink -f "$libc")
files=${BENCH_SYM_FILES:-"$libc $FXT_BUILD/x86_64/bin/fxtprof"}
res=$FXT_RESULTS/bench-symbolize.txt
mkdir -p "$FXT_RESULTS"
{
	echo "== host: $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "== $(eu-addr2line --version | head -1)"
	# shellcheck disable=SC2086 # files is a list
	"$FXT_BUILD/x86_64/tests/symbolize/bench_symbolize" \
		-n "${BENCH_SYM_N:-20000}" -r "${BENCH_SYM_ROUNDS:-50}" $files
} 2>&1 | tee "$res"

# What the symbol records cost the stream: bytes per sample of a
# recording of this machine (the bpf source) with and without them.
overhead() {	# overhead LABEL OPTIONS...: "LABEL bytes/sample"
	local label=$1 f rc=0
	shift
	f=$(mktemp /tmp/fxtprof-bench.XXXXXX)
	"$FXT_BUILD/x86_64/bin/fxtprof" record --source bpf -q -F 1000 -d 3 \
		-o "$f" "$@" & rec=$!
	"$FXT_BUILD/x86_64/tests/symbols/sym_chain" 2500 >/dev/null
	wait $rec || rc=$?
	"$FXT_BUILD/x86_64/bin/fxtprof" report --summary "$f" |
		awk -v l="$label" -v b="$(stat -c %s "$f")" '
			/^kernel statistics/ { n = $4 }
			END { printf "  %-34s %9d bytes %7d samples %7.1f bytes/sample\n", l, b, n, n ? b / n : 0 }'
	rm -f "$f"
	return $rc
}
make -j2 ARCH=x86_64 build/x86_64/tests/symbols/sym_chain >/dev/null
{
	echo "== stream bytes per sample, this host, bpf source, -F 1000 -d 3"
	overhead "without mappings and symbols" --no-mmap --no-ksyms
	overhead "with mappings and kernel symbols"
} 2>&1 | tee -a "$res"

# The other half of the issue's bench: `fxtprof report` against
# `perf report --stdio` on about a million samples of the same program.
"$FXT_ROOT/scripts/bench-report.sh"

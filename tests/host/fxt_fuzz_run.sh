#!/bin/sh
# SPDX-License-Identifier: MIT
# fxt_fuzz_run.sh FUZZER|none GEN CORPUS SECONDS
# Bounded libFuzzer run of the FXT decoder, reported as one TAP test.
fuzz=$1 gen=$2 corpus=$3 secs=$4
echo "TAP version 13"
echo "1..1"
if [ "$fuzz" = none ] || [ ! -x "$fuzz" ]; then
	# Part of the plan: a missing fuzzer is a missing install step.
	echo "not ok 1 fuzz_fxt_reader: libFuzzer unavailable (scripts/setup.sh installs clang and libclang-rt-14-dev)"
	exit 1
fi
mkdir -p "$corpus" && "$gen" "$corpus" || { echo "not ok 1 fuzz_fxt_reader # corpus"; exit 1; }
log=$(mktemp) || exit 1
if "$fuzz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 "$corpus" >"$log" 2>&1; then
	grep -E '^stat::number_of_executed_units' "$log" | sed 's/^/# /'
	echo "ok 1 fuzz_fxt_reader"
	rm -f "$log"
	exit 0
fi
tail -n 60 "$log" | sed 's/^/# /'
rm -f "$log"
echo "not ok 1 fuzz_fxt_reader"
exit 1

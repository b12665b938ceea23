#!/bin/sh
# SPDX-License-Identifier: MIT
# fxt_fuzz_run.sh NAME FUZZER|none GEN CORPUS SECONDS
# Bounded libFuzzer run of one parser's target NAME (tests/host/NAME.c),
# reported as one TAP test.  GEN writes the seed corpus into CORPUS,
# which the run then grows.
name=$1 fuzz=$2 gen=$3 corpus=$4 secs=$5
echo "TAP version 13"
echo "1..1"
if [ "$fuzz" = none ] || [ ! -x "$fuzz" ]; then
	# Part of the plan: a missing fuzzer is a missing install step.
	echo "not ok 1 $name: libFuzzer unavailable (scripts/setup.sh installs clang and libclang-rt-14-dev)"
	exit 1
fi
mkdir -p "$corpus" && "$gen" "$corpus" || { echo "not ok 1 $name # corpus"; exit 1; }
log=$(mktemp) || exit 1
# A crashing input goes next to the corpus, never into the caller's cwd.
if "$fuzz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$corpus.crash-" -print_final_stats=1 "$corpus" \
	>"$log" 2>&1; then
	grep -E '^stat::number_of_executed_units' "$log" | sed 's/^/# /'
	echo "ok 1 $name"
	rm -f "$log"
	exit 0
fi
tail -n 60 "$log" | sed 's/^/# /'
echo "# the input is in $corpus.crash-*"
rm -f "$log"
echo "not ok 1 $name"
exit 1

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-flush.vm.sh - the in-VM half of `make bench-flush`: run by
# tests/vm/init.sh in command mode (after insmod).  Runs
# /tests/fxt-bench-flush at each frequency of FREQS (0 first: the
# baseline, sampling off and the CPUs idle), REPS times in a rotated
# order, COUNT flushes per run, and passes its BENCH lines through.
# scripts/bench-flush.sh turns them into the table.
. /bench/bench.conf
B=/tests/fxt-bench-flush

[ "$FXTPROF_LOADED" = 1 ] || { echo "bench-flush: fxtprof.ko is not loaded"; exit 1; }
[ -x "$B" ] || { echo "bench-flush: no $B"; exit 1; }
echo "BENCH-INFO kernel=$(uname -r) ncpu=$(grep -c ^processor /proc/cpuinfo)"
rep=1
while [ $rep -le "$REPS" ]; do
	list=$FREQS
	i=1
	while [ $i -lt $rep ]; do
		first=${list%% *}
		list="${list#* } $first"
		i=$((i + 1))
	done
	for f in $list; do
		line=$("$B" "$f" "$COUNT") || { echo "bench-flush: run at $f Hz failed"; exit 1; }
		echo "$line rep=$rep"
	done
	rep=$((rep + 1))
done

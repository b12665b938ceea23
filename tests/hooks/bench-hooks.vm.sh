#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-hooks.vm.sh - the in-VM half of `make bench-hooks`: run by
# tests/vm/init.sh in command mode (after insmod).  Runs
# /bench/fxt-bench-hooks in fxtprof: mode with nothing recording (every
# write is refused with ESRCH), then under `fxtprof record` (every write
# becomes a record in a ring, drained by the recorder), then standalone to
# a file in the VM, and passes its BENCH lines through; the recording is
# checked, and the number of annotations it holds is reported.
. /bench/bench.conf
B=/bench/fxt-bench-hooks
FXTPROF=/tests/fxtprof

die() { echo "bench-hooks: $*"; exit 1; }

[ "$FXTPROF_LOADED" = 1 ] || die "fxtprof.ko is not loaded"
[ -x "$B" ] || die "no $B"
echo "BENCH-INFO kernel=$(uname -r) ncpu=$(grep -c ^processor /proc/cpuinfo)"

line=$("$B" fxtprof: "$BATCHES" 2>/tmp/bench.err) || { cat /tmp/bench.err; die "fxtprof: run without a session failed"; }
echo "$line where=vm session=none"

f=/tmp/hooks.fxt
# Sampling at a low rate: the figure is the annotation's, not the samples'.
"$FXTPROF" record -F 10 -g none --no-mmap --no-ksyms "$f" 2>/tmp/rec.err &
pid=$!
i=0
while [ ! -s "$f" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$f" ] || { cat /tmp/rec.err; die "fxtprof record did not start"; }
line=$("$B" fxtprof: "$BATCHES" 2>/tmp/bench.err) || { cat /tmp/bench.err; die "fxtprof: run under a recording failed"; }
kill -INT $pid
wait $pid || { cat /tmp/rec.err; die "fxtprof record failed"; }
"$FXTPROF" check "$f" >/tmp/check.out 2>&1 || { cat /tmp/check.out; die "the recording does not pass fxtprof check"; }
lost=$(sed -n 's/.*kernel rings lost \([0-9]*\) records.*/\1/p' /tmp/rec.err)
echo "$line where=vm session=record recorded_events=$(sed -n 's/^ *event *\([0-9]*\)$/\1/p' /tmp/check.out) kernel_lost=${lost:-0}"

line=$("$B" "file:///tmp/standalone.fxt" "$BATCHES" 2>/tmp/bench.err) || { cat /tmp/bench.err; die "standalone run failed"; }
echo "$line where=vm session=-"

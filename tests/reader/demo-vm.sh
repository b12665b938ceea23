#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The VM half of `make demo` (scripts/demo.sh runs it in command mode with
# @PORT@ replaced): record the whole system for 3 s to the host's listener
# (QEMU user networking: the host's 127.0.0.1 is 10.0.2.2) while a small
# multi-process workload runs (tests/reader/rec_workload.c).
set -e
[ "$FXTPROF_LOADED" = 1 ] || { echo "demo: fxtprof.ko did not load"; exit 1; }
echo "demo: fxtprof record -d 3 tcp://10.0.2.2:@PORT@"
rm -f /tmp/demo.ready
fxtprof record -d 3 --ready-file /tmp/demo.ready tcp://10.0.2.2:@PORT@ &
rec=$!
# The workload starts once the recorder records, not after a guess.
fxt-wait-ready /tmp/demo.ready $rec
echo "demo: rec_workload (forks, exec, named threads, exit codes)"
rec_workload -t 700 -c 4
wait $rec

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/bench-receive.sh CFG - `make bench-receive`: one `fxtprof
# receive` with 1, 16 and 64 senders next to `cat` of the same bytes, and
# the receiver's peak RSS (tests/socket/bench_receive.c), host-native.
# Prints the Markdown table that goes under "## Receive throughput (make
# bench-receive)" in Documentation/performance.md.  BENCH_RECEIVE_BYTES
# (default 256M) per run; the files go to a new directory in /tmp.
set -eu
ARCH=x86_64
case "${1:-x86_64}" in arm64*) echo "bench-receive: host-native, x86_64 only" >&2; exit 2;; esac
exec "build/$ARCH/tests/socket/bench_receive" -b "${BENCH_RECEIVE_BYTES:-256M}"

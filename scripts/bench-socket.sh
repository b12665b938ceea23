#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/bench-socket.sh CFG - `make bench-socket`: the socket writer's
# delivery throughput and stalled-peer latency, host-native (the writer
# needs no module).  Prints the Markdown table that goes under
# "## Socket delivery (make bench-socket)" in Documentation/performance.md.
set -eu
ARCH=x86_64
case "${1:-x86_64}" in arm64) echo "bench-socket: host-native, x86_64 only" >&2; exit 2;; esac
exec "build/$ARCH/tests/socket/bench_socket"

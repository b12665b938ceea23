#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/bench-receive.sh CFG - `make bench-receive`: one `fxtprof
# receive` with 1, 16 and 64 senders next to `cat` of the same bytes, and
# the receiver's peak RSS (tests/socket/bench_receive.c), host-native.
# Then the push row: 64 senders of a 60 s recording (tests/push's
# push_testgen) into one `receive`, without and with `--push` to a
# stand-in for Grafana Pyroscope (tests/push/capture_server.py on
# loopback).  Prints the Markdown tables that go under "## Receive
# throughput (make bench-receive)" in Documentation/performance.md.
# BENCH_RECEIVE_BYTES (default 256M) per run, BENCH_PUSH_SECS (default
# 60) per pushed recording; the files go to a new directory in /tmp.
set -eu
ARCH=x86_64
case "${1:-x86_64}" in arm64*) echo "bench-receive: host-native, x86_64 only" >&2; exit 2;; esac
B=build/$ARCH
T=$(mktemp -d /tmp/fxtprof-bench-push-XXXXXX)
SRV=
cleanup() {
	[ -z "$SRV" ] || kill "$SRV" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
"$B/tests/push/push_testgen" "$T/rec.fxt" "$B/tests/export/chain" \
	"${BENCH_PUSH_SECS:-60}" 1700000000250000000
mkdir "$T/srv"
/usr/bin/python3 tests/push/capture_server.py "$T/srv" ok &
SRV=$!
i=0
while [ ! -s "$T/srv/port" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
"$B/tests/socket/bench_receive" -b "${BENCH_RECEIVE_BYTES:-256M}" \
	-r "$T/rec.fxt" -u "pyroscope+http://127.0.0.1:$(cat "$T/srv/port")"

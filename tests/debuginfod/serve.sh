# SPDX-License-Identifier: GPL-2.0-only
# serve.sh: sourced by the debuginfod tests (tests/debuginfod,
# tests/symbols/check_symbols.sh).  Debian's debuginfod on loopback:
#   dbgd_start DIR WORK   serve DIR (debuginfod -F) on a free port; sets
#                         DBGD_URL and DBGD_PID; its database and log in WORK
#   dbgd_wait_id ID [SECS]  until it serves build id ID (its scan is done),
#                         asked over HTTP, not with debuginfod-find, whose
#                         misses would be cached; at most SECS (60) s
#   dbgd_stop             kill it and wait for it
#   free_port             a free loopback port
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
dbgd_start() {
	local dir=$1 work=$2 port
	port=$(free_port) || return 1
	mkdir -p "$work"
	debuginfod -F -p "$port" -d "$work/db.sqlite" "$dir" > "$work/debuginfod.log" 2>&1 &
	DBGD_PID=$!
	DBGD_URL=http://127.0.0.1:$port
}
# 0 once GET URL answers 200.
http_ok() {
	python3 - "$1" <<'PY'
import sys, urllib.request
try:
    sys.exit(urllib.request.urlopen(sys.argv[1], timeout=5).status != 200)
except Exception:
    sys.exit(1)
PY
}
dbgd_wait_id() {
	local i=0 max=$((${2:-60} * 10))
	until http_ok "$DBGD_URL/buildid/$1/executable"; do
		kill -0 "$DBGD_PID" 2>/dev/null && [ $i -lt $max ] || return 1
		sleep 0.1	# the poll interval
		i=$((i + 1))
	done
}
dbgd_stop() {
	[ -n "${DBGD_PID:-}" ] || return 0
	kill "$DBGD_PID" 2>/dev/null
	wait "$DBGD_PID" 2>/dev/null
	DBGD_PID=
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_debuginfod.sh B [FXTPROF] - the symbolizer's debuginfod client and `fxtprof
# buildid-archive`, on the host, with Debian's debuginfod serving a
# directory on loopback (tests/debuginfod/serve.sh) and a wrong server
# (wrong_server.py) that answers every build id with another file.  The
# recording is export_testgen's (tests/export): one mapping of a copy of
# tests/export/chain.c's program, samples in c <- b <- a <- main.  B is
# build/x86_64; FXTPROF the fxtprof under test (default B/bin/fxtprof; the
# ASan+UBSan one of tests/report for the sanitized run).  TAP.
set -u
B=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/scripts/tap.sh"
. "$SRC/tests/debuginfod/serve.sh"
T=$(mktemp -d)
WRONG_PID= SILENT_PID=
cleanup() {
	dbgd_stop
	[ -z "$WRONG_PID" ] || kill "$WRONG_PID" 2>/dev/null
	[ -z "$SILENT_PID" ] || kill "$SILENT_PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# timeout(1) and ^C end the test through cleanup too: no server is left.
trap 'exit 143' TERM INT
FXTPROF=${2:-$B/bin/fxtprof}
GEN=$B/tests/export/export_testgen
CHAIN=$B/tests/export/chain
OTHER=$B/tests/debuginfod/chain_other
# No debuginfod of the environment, no debug directory of this host.
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT
export DEBUGINFOD_CACHE_PATH=$T/cache-unused
echo "1..19"

bid() { readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'; }
mode() { stat -c %a "$1" 2>/dev/null; }
# report ARGS... > $T/report.txt: the recording's report, plain rows.
report() {
	"$FXTPROF" report "$T/rec.fxt" --no-children --debug-dir "$T/empty" "$@" \
		> "$T/report.txt" 2> "$T/report.err"
}
# The first [.] row of the report names c.
c_on_top() {
	local got
	got=$(sed -n 's/.*\[\.\] \{1,\}\([^ ]*\).*/\1/p' "$T/report.txt" | head -n 1)
	[ "$got" = c ] || { echo "top [.] row: '$got'"; cat "$T/report.txt" "$T/report.err"; return 1; }
}
no_c() {
	! grep -q '\[\.\] c$' "$T/report.txt" || { cat "$T/report.txt"; return 1; }
}
fresh_cache() { export DEBUGINFOD_CACHE_PATH=$T/cache-$1; }

mkdir -p "$T/bin" "$T/srv" "$T/empty"
ID=$(bid "$CHAIN")
cp "$CHAIN" "$T/bin/chain" && cp "$CHAIN" "$T/srv/chain.full" &&
	"$GEN" gen "$T/rec.fxt" "$T/bin/chain" > /dev/null &&
	strip -o "$T/stripped" "$CHAIN" && [ "$(bid "$T/stripped")" = "$ID" ] &&
	[ -n "$ID" ] && [ "$(bid "$OTHER")" != "$ID" ] &&
	cp "$T/stripped" "$T/bin/chain"
ok $? "a recording of chain (build id ${ID:-none}) whose file is now stripped; chain_other differs"

# ---- debuginfod names what no local place has ------------------------
dbgd_start "$T/srv" "$T/dbgd" && dbgd_wait_id "$ID" 60
ok $? "debuginfod -F serves the unstripped chain on $DBGD_URL"
export DEBUGINFOD_URLS=$DBGD_URL

fresh_cache stripped
t "stripped file, no --debug-dir: c named from debuginfod's debuginfo" \
	eval 'report && c_on_top'
t "one request, one file received, said in the report's notes" \
	grep -q 'debuginfod: 1 requests, 1 files received' "$T/report.txt" "$T/report.err"

rm -f "$T/bin/chain"
fresh_cache nofile
t "no local file at all: c named from debuginfod's executable" \
	eval 'report && c_on_top'

dbgd_stop
t "the server gone, the same cache still names c" eval 'report && c_on_top'

# ---- a server that answers with another file -------------------------
wrong() {	# wrong FILE: start wrong_server.py answering FILE
	: > "$T/wrong.log"
	rm -f "$T/wrong.port"
	python3 "$SRC/tests/debuginfod/wrong_server.py" "$T/wrong.port" "$1" "$T/wrong.log" &
	WRONG_PID=$!
	local i=0
	until [ -s "$T/wrong.port" ]; do
		kill -0 "$WRONG_PID" 2>/dev/null && [ $i -lt 300 ] || return 1
		sleep 0.1	# the poll interval
		i=$((i + 1))
	done
	export DEBUGINFOD_URLS=http://127.0.0.1:$(cat "$T/wrong.port")
}
mismatch_counted() {
	grep -Eq 'build id mismatch[: ]+[1-9]' "$T/report.txt" "$T/report.err" ||
		{ cat "$T/report.txt" "$T/report.err"; return 1; }
}
requests() {	# requests N: the wrong server was asked N times
	local got
	got=$(wc -l < "$T/wrong.log")
	[ "$got" = "$1" ] || { echo "requests: $got, wanted $1"; cat "$T/wrong.log"; return 1; }
}
cp "$T/stripped" "$T/bin/chain"
fresh_cache wrong1
wrong "$OTHER" && report
ok $? "a wrong server (chain_other for every build id): report runs"
t "wrong debuginfo: c is not named" no_c
t "wrong debuginfo: the frames are counted as build id mismatches" mismatch_counted
t "wrong debuginfo: asked once, for the debuginfo" requests 1

rm -f "$T/bin/chain"
fresh_cache wrong2
: > "$T/wrong.log"
report
t "no local file, wrong answers: c unnamed, mismatches counted, one request per kind" \
	eval 'no_c && mismatch_counted && requests 2 &&
	      grep -q "not used" "$T/report.txt" "$T/report.err"'
kill "$WRONG_PID"; wait "$WRONG_PID" 2>/dev/null; WRONG_PID=

# ---- a server that never answers: DEBUGINFOD_TIMEOUT bounds it -------
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(3600)' "$T/silent.port" &
SILENT_PID=$!
i=0
until [ -s "$T/silent.port" ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
fresh_cache silent
DEBUGINFOD_URLS=http://127.0.0.1:$(cat "$T/silent.port" 2>/dev/null) DEBUGINFOD_TIMEOUT=1 report
rc=$?
no_c > /dev/null && grep -q 'no file' "$T/report.txt" "$T/report.err"
ok $(( rc != 0 || $? != 0 )) "a server that never answers: report ends (DEBUGINFOD_TIMEOUT=1), the frames 'no file'"
kill "$SILENT_PID"; wait "$SILENT_PID" 2>/dev/null; SILENT_PID=
unset DEBUGINFOD_URLS

# ---- buildid-archive ---------------------------------------------------
cp "$CHAIN" "$T/bin/chain"
umask 022
"$FXTPROF" buildid-archive "$T/rec.fxt" -o "$T/ids.tar" 2> "$T/archive.err"
rc=$?
sed 's/^/# /' "$T/archive.err"
[ $rc = 0 ] && [ "$(mode "$T/ids.tar")" = 600 ]
ok $? "buildid-archive exits 0 and writes a tar of mode 0600"

layout() {
	tar tvf "$T/ids.tar" > "$T/tar.txt" || return 1
	cat "$T/tar.txt"
	# Plain files only (no symlinks), the file under .build-id/xx/yyyy.
	grep -q "^-.* \.build-id/${ID:0:2}/${ID:2}\$" "$T/tar.txt" &&
		! grep -q '^l' "$T/tar.txt" &&
		[ "$(grep -c '^-' "$T/tar.txt")" = 1 ] &&
		mkdir -p "$T/x" && tar xf "$T/ids.tar" -C "$T/x" &&
		cmp "$T/x/.build-id/${ID:0:2}/${ID:2}" "$CHAIN"
}
t "the tar holds chain as .build-id/${ID:0:2}/${ID:2}, a plain file, byte for byte" layout

rm -f "$T/bin/chain"
t "extracted, --debug-dir DIR/.build-id names c (no file at the recorded path)" \
	eval '"$FXTPROF" report "$T/rec.fxt" --no-children --debug-dir "$T/x/.build-id" > "$T/report.txt" 2> "$T/report.err" && c_on_top'

# Started here, not in t's subshell, so that dbgd_stop knows its pid.
dbgd_start "$T/x" "$T/dbgd2"
served() {
	dbgd_wait_id "$ID" 60 || return 1
	fresh_cache archive
	DEBUGINFOD_URLS=$DBGD_URL report && c_on_top
}
t "extracted, served by debuginfod -F: report names c with no --debug-dir" served
dbgd_stop

cp "$OTHER" "$T/bin/chain"
"$FXTPROF" buildid-archive "$T/rec.fxt" -o "$T/changed.tar" 2> "$T/changed.err"
rc=$?
sed 's/^/# /' "$T/changed.err"
[ $rc = 3 ] && grep -q "$T/bin/chain changed since the recording" "$T/changed.err" &&
	! tar tf "$T/changed.tar" | grep -q "${ID:2}"
ok $? "a file rebuilt since the recording: skipped, named, exit 3, not in the tar"

rm -f "$T/bin/chain"
"$FXTPROF" buildid-archive "$T/rec.fxt" -o "$T/gone.tar" 2> "$T/gone.err"
rc=$?
[ $rc = 3 ] && grep -q "$T/bin/chain cannot be opened.*No such file or directory" "$T/gone.err"
ok $? "a file gone since the recording: named with its errno, exit 3"

head -c 4096 /dev/urandom > "$T/bad.fxt"
"$FXTPROF" buildid-archive "$T/bad.fxt" -o "$T/bad.tar" 2> "$T/bad.err"
rc=$?
sed 's/^/# /' "$T/bad.err"
"$FXTPROF" buildid-archive "$T/none.fxt" -o "$T/none.tar" 2> "$T/none.err"
rc2=$?
[ $rc = 1 ] && [ $rc2 = 1 ] && grep -q 'not a readable recording' "$T/bad.err" &&
	grep -q 'No such file or directory' "$T/none.err" &&
	[ ! -e "$T/bad.tar" ] && [ ! -e "$T/none.tar" ]
ok $? "a bad or missing recording: a sentence with its errno, exit 1, no tar"
exit $failed

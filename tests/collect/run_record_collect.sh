#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_record_collect - a board's files through its stream, on this host
# (the bpf source: root, a kernel with BTF): `receive --collect DIR`
# listens on loopback, `record --collect stream` streams to it while a
# copy of collect_workload runs; the copy lands in DIR/.build-id under
# its build id, byte-identical, 0600, and once the copy is deleted
# `report --debug-dir DIR` still names its functions.  TAP.  Run from
# build/x86_64/tests/collect/.
here=$(dirname "$0")
bin=$here/../../bin/fxtprof
. "$here/tap.sh"
. "$here/wait.sh"
dir=$(mktemp -d /tmp/fxtprof-collect.XXXXXX)
trap 'kill $recv $rec 2>/dev/null; rm -rf "$dir"' EXIT
echo "1..8"
cp "$here/collect_workload" "$dir/wl"
id=$(readelf -n "$dir/wl" | sed -n 's/.*Build ID: *//p')
f=$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)

"$bin" receive tcp://127.0.0.1:0 -o "$dir/streams" --collect "$dir/col" \
	-n 1 >"$dir/recv.log" 2>&1 &
recv=$!
wait_line "$dir/recv.log" '^listening on ' $recv
addr=$(sed -n 's/^listening on //p' "$dir/recv.log")
[ -n "$addr" ]
ok $? "receive --collect listens ($addr)"

# --linger 2: files of the host's other processes still queued at the
# end are abandoned (and counted), the test's went first.
"$bin" record --source bpf --ready-file "$dir/ready" -d 120 --linger 2 \
	--collect stream -o "$addr" 2>"$dir/log" &
rec=$!
wait_file "$dir/ready" $rec
ok $? "record samples (its ready file)"
"$dir/wl" 2
# The copy lands once its last chunk came: no fixed wait.
wait_for $rec 60 test -e "$dir/col/.build-id/$f"
kill -INT $rec
wait $rec
rc=$?
sed 's/^/# record: /' "$dir/log"
ok $rc "record --collect stream stopped on SIGINT and exited 0"
wait $recv
sed 's/^/# receive: /' "$dir/recv.log"
grep -Eq '^stream .*: files: [1-9][0-9]* collected' "$dir/recv.log"
ok $? "receive's summary counts the files collected"

cmp -s "$dir/wl" "$dir/col/.build-id/$f"
ok $? "the program's file is in DIR/.build-id/$f, byte-identical"
[ "$(stat -c %a "$dir/col/.build-id/$f" 2>/dev/null)" = 600 ] &&
	[ "$(stat -c %a "$dir/col/.build-id" 2>/dev/null)" = 700 ]
ok $? "0600 in 0700 directories"

stream=$(ls "$dir"/streams/*.fxt)
"$bin" check "$stream" >"$dir/check" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# check: /' "$dir/check" | head -20
ok $rc "fxtprof check accepts the stream with its file blobs"

rm -f "$dir/wl"
"$bin" report --no-children --sort comm,sym --comm wl \
	--debug-dir "$dir/col" "$stream" >"$dir/named" 2>&1
if grep -q 'collect_leaf' "$dir/named"; then
	ok 0 "report --debug-dir names its functions, the original gone"
else
	ok 1 "report --debug-dir names its functions, the original gone"
	head -20 "$dir/named" | sed 's/^/# /'
fi
exit $failed

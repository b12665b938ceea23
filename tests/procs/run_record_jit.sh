#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_record_jit - JIT frames on this host (the bpf source: root, a kernel
# with BTF): node --perf-basic-prof runs jit_workload.js, whose hot
# function fxtprofJitHotFunction lives in code V8 compiled and listed in
# /tmp/perf-PID.map.  `fxtprof record --source bpf` collects the map
# when node exits; `fxtprof report` names the function from it, dso
# [jit].  A second node still runs when the recording ends: its map is
# read then, through its /proc/PID/root.  Skipped without node (Debian's
# nodejs).  TAP.  Run from build/x86_64/tests/procs/.
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../../bin/fxtprof
. "$here/tap.sh"
. "$here/wait.sh"
node=$(command -v node || command -v nodejs)
if [ -z "$node" ]; then
	echo "1..0 # SKIP no node (apt-get install nodejs)"
	exit 0
fi
dir=$(mktemp -d /tmp/fxtprof-jit.XXXXXX)
nodepid= live=
cleanup() {
	[ -n "$live" ] && kill $live 2>/dev/null
	rm -rf "$dir" "/tmp/perf-$nodepid.map" "/tmp/perf-$live.map"
}
trap cleanup EXIT
echo "1..7"

"$bin" record --source bpf --ready-file "$dir/ready" -d 60 \
	-o "$dir/out.fxt" 2>"$dir/log" &
rec=$!
wait_file "$dir/ready" $rec
ok $? "record samples (its ready file)"

# In the scratch directory: V8 leaves its isolate-*-v8.log in the cwd.
(cd "$dir" && exec "$node" --perf-basic-prof "$here/jit_workload.js" 2) &
nodepid=$!
wait $nodepid
ok $? "node ran the workload"
kill -INT $rec
wait $rec
rc=$?
sed 's/^/# record: /' "$dir/log"
ok $rc "record stopped on SIGINT and exited 0"
grep -Eq 'JIT maps: [1-9][0-9]* read, [1-9][0-9]* functions' "$dir/log"
ok $? "its summary counts the map and its functions"

"$bin" report --no-children --pid "$nodepid" "$dir/out.fxt" \
	>"$dir/report" 2>&1
grep -E '\[jit\] +\[\.\] .*fxtprofJitHotFunction' "$dir/report" >"$dir/hit"
if [ -s "$dir/hit" ]; then
	ok 0 "report names the JavaScript function from the map"
else
	ok 1 "report names the JavaScript function from the map"
	head -30 "$dir/report" | sed 's/^/# /'
fi

# A node that outlives the recording, which ends by itself (-d 3: its
# length is the measurement) while node spins; node is killed after.
rm -f "$dir/ready"
"$bin" record --source bpf --ready-file "$dir/ready" -d 3 \
	-o "$dir/live.fxt" 2>"$dir/log2" &
rec=$!
wait_file "$dir/ready" $rec
(cd "$dir" && exec "$node" --perf-basic-prof "$here/jit_workload.js" 60) &
live=$!
wait $rec
rc=$?
kill $live
wait $live 2>/dev/null
sed 's/^/# record: /' "$dir/log2"
ok $rc "a recording that ends (-d 3) while node runs exits 0"
"$bin" report --no-children --pid "$live" "$dir/live.fxt" \
	>"$dir/report2" 2>&1
if grep -Eq '\[jit\] +\[\.\] .*fxtprofJitHotFunction' "$dir/report2"; then
	ok 0 "its map, read at the end through /proc/PID/root, names it"
else
	ok 1 "its map, read at the end through /proc/PID/root, names it"
	head -30 "$dir/report2" | sed 's/^/# /'
fi
exit $failed

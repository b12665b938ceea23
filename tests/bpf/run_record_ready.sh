#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_record_ready - `fxtprof record --ready-file PATH` on this host (the
# bpf source: root, a kernel with BTF).  The file appears once the
# recorder samples, holds its pid, is 0600; a process started only after
# it appeared is recorded (its exec is in the recording); a path
# that cannot be created is an error, exit 1, that says why.  TAP.  Run
# from build/x86_64/tests/bpf/.
here=$(dirname "$0")
bin=$here/../../bin/fxtprof
dir=$(mktemp -d /tmp/fxtprof-ready.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# ok STATUS DESCRIPTION and wait_file FILE PID: tests/scripts/tap.sh and
# wait.sh, copied beside this test.
. "$here/tap.sh"
. "$here/wait.sh"
echo "1..5"

ready=$dir/ready
"$bin" record --source bpf --ready-file "$ready" -d 60 -o "$dir/out.fxt" \
	2>"$dir/log" &
rec=$!
wait_file "$ready" $rec
ok $? "the ready file appears while record runs"
pid=$(cat "$ready" 2>/dev/null)
mode=$(stat -c %a "$ready" 2>/dev/null)
if [ "$pid" = "$rec" ] && [ "$mode" = 600 ] && [ ! -e "$ready.tmp" ]; then
	ok 0 "it holds the recorder's pid, mode 0600, no temporary left"
else
	ok 1 "it holds the recorder's pid (got '$pid', want $rec), mode 0600 (got $mode)"
fi

# Started only now: without the ready file this is the race the demo lost.
/bin/true
kill -INT $rec
wait $rec
rec_rc=$?
sed 's/^/# record: /' "$dir/log"
ok $rec_rc "record stopped on SIGINT and exited 0"
"$bin" dump "$dir/out.fxt" 2>&1 |
	grep -q 'name: "exec", Instant, {filename: string("/bin/true")'
ok $? "a process started after the file appeared is recorded (its exec)"

"$bin" record --source bpf --ready-file "$dir/no/such/dir/ready" -d 5 \
	-o "$dir/out2.fxt" 2>"$dir/log2"
rc=$?
if [ $rc = 1 ] && grep -q -- '--ready-file: cannot create .*: No such file or directory' "$dir/log2"; then
	ok 0 "an uncreatable ready file: exit 1, says why"
else
	ok 1 "an uncreatable ready file: exit 1, says why (exit $rc)"
	sed 's/^/# /' "$dir/log2"
fi

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_record_diff - `fxtprof diff` on two real recordings (the bpf source,
# on this host) of tests/bpf/diff_workload, whose hot function changes
# between them: BASE spends 20 % of its calls in fxtdiff_a and 40 % in
# each of fxtdiff_b and fxtdiff_c, NEW 70 % in fxtdiff_a and 15 % in each
# of the others.  The functions are named by the host's symbolizer from
# two processes of one binary.  diff must rank fxtdiff_a first, up by
# 50 points give or take sampling and the loop around the calls
# (35 to 65 accepted); a recording with itself shows no change.  TAP; run
# from build/x86_64/tests/bpf/, as root (the bpf source).
here=$(dirname "$0")
bin=$here/../../bin/fxtprof
workload=$here/diff_workload
dir=$(mktemp -d /tmp/fxtprof-diff.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# ok STATUS DESCRIPTION and wait_file FILE PID: tests/scripts/tap.sh and
# wait.sh, copied beside this test.
. "$here/tap.sh"
. "$here/wait.sh"
echo "1..5"


# record NAME A B C: the workload for 1.5 s under the recorder.
record() {
	rm -f "$dir/ready"
	"$bin" record --source bpf -g user --ready-file "$dir/ready" \
		-o "$dir/$1.fxt" 2> "$dir/$1.log" &
	rec=$!
	wait_file "$dir/ready" $rec || { sed 's/^/# /' "$dir/$1.log"; return 1; }
	"$workload" 1500 "$2" "$3" "$4" || { echo "# the workload failed"; return 1; }
	kill -INT $rec
	wait $rec || { sed 's/^/# /' "$dir/$1.log"; return 1; }
}

record base 20 40 40 && record new 70 15 15
ok $? "two recordings of the workload, 20 % then 70 % in fxtdiff_a"

"$bin" diff --comm diff_workload "$dir/base.fxt" "$dir/new.fxt" \
	> "$dir/diff.out" 2> "$dir/diff.err"
ok $? "diff exits 0"
first=$(awk '!/^#/ && NF { print $NF, $1; exit }' "$dir/diff.out")
echo "# first: $first"
set -- $first
[ "$1" = fxtdiff_a ] && awk -v d="${2%\%}" 'BEGIN { exit !(d >= 35 && d <= 65) }'
rc=$?
ok $rc "fxtdiff_a ranks first, up by 35 to 65 points"
[ $rc = 0 ] || sed 's/^/# /' "$dir/diff.out" | tail -20

"$bin" diff --comm diff_workload "$dir/new.fxt" "$dir/new.fxt" > "$dir/self.out" 2>&1 &&
	grep -q "^# no function's share changed" "$dir/self.out"
ok $? "a recording diffed with itself shows no change"

"$bin" flamegraph --comm diff_workload --diff "$dir/base.fxt" "$dir/new.fxt" \
	-o "$dir/diff.svg" 2> "$dir/fg.err" &&
	grep -q "<title>fxtdiff_a ([0-9]* samples, [0-9.]*%; BASE [0-9.]*%, +[0-9.]* points)</title><rect[^>]*fill=\"rgb(255," "$dir/diff.svg"
ok $? "flamegraph --diff draws fxtdiff_a red"
exit $failed

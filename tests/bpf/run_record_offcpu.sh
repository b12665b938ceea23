#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run_record_offcpu - `fxtprof record --off-cpu` (the bpf source, on this
# host) of tests/offcpu/offcpu_workload, whose threads wait in known ways:
# in nanosleep, on a pipe another thread writes to every 20 ms, on a
# mutex another thread holds 15 ms at a time, and in fsync.  The
# workload times each wait itself (wall time less the thread's CPU time
# in the call), after a warm-up second in which the recorder loads its
# unwind tables.  The off-CPU profile of the measured part
# (`flamegraph --folded --off-cpu --time START`) must give each waiting
# function its wait within 10 %, the pipe's and the mutex's to the
# thread that woke them, in the state the thread left in; export's pprof
# too (read back by go tool pprof); a thread that runs 30 % and sleeps
# 70 % has its elapsed time in the wall-clock profile (--wall); and the
# reports refuse what they cannot do, with a sentence.  Every wait is
# recorded (--off-cpu-min 0: fsync's last well under the default's
# millisecond here).  TAP; run from build/x86_64/tests/bpf/, as root
# (the bpf source).
here=$(dirname "$0")
bin=$here/../../bin/fxtprof
workload=$here/../offcpu/offcpu_workload
dir=$(mktemp -d /var/tmp/fxtprof-offcpu.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# ok STATUS DESCRIPTION and wait_file FILE PID: tests/scripts/tap.sh and
# wait.sh, copied beside this test.
. "$here/tap.sh"
. "$here/wait.sh"
echo "1..12"

# The workload writes its file in $dir: /var/tmp is a disk, where fsync
# waits (a tmpfs fsync returns at once).
"$bin" record --source bpf --off-cpu --off-cpu-min 0 --unwind-memory 64M \
	--ready-file "$dir/ready" -o "$dir/oc.fxt" 2> "$dir/rec.log" &
rec=$!
if wait_file "$dir/ready" $rec &&
   "$workload" 1000 3000 "$dir" > "$dir/totals"; then
	kill -INT $rec
	wait $rec
else
	kill -INT $rec 2> /dev/null
	false
fi
rc=$?
ok $rc "record --off-cpu of the workload exits 0"
[ $rc = 0 ] || sed 's/^/# /' "$dir/rec.log"
sed 's/^/# /' "$dir/totals"
grep "off-CPU waits" "$dir/rec.log" | sed 's/^/# /'
start=$(awk '$1 == "start" { print $2 }' "$dir/totals")

# folded COMM: the measured part's waits of thread COMM, folded.
folded() {
	"$bin" flamegraph --folded --off-cpu --comm "$1" --time "${start}ns," \
		"$dir/oc.fxt" 2> "$dir/fg.err"
}

# ns COMM PATTERN: the nanoseconds of COMM's waits whose folded stack
# holds PATTERN (an awk regex).
ns() {
	folded "$1" | awk -v p="$2" '$0 ~ p { s += $NF } END { printf "%.0f\n", s }'
}

for w in oc-sleep:offcpu_nanosleep oc-pipe:offcpu_pipe_read \
	 oc-mutex:offcpu_mutex_lock oc-fsync:offcpu_fsync; do
	comm=${w%%:*}
	fn=${w#*:}
	want=$(awk -v c="$comm" '$1 == c { print $3 }' "$dir/totals")
	got=$(ns "$comm" ";$fn;")
	echo "# $comm: $fn waited ${want:-?} ns by its own clock, ${got:-?} ns in the profile"
	awk -v a="${got:-0}" -v b="${want:-0}" \
		'BEGIN { exit !(b > 0 && a >= 0.9 * b && a <= 1.1 * b) }'
	ok $? "$comm's waits in $fn are attributed to it within 10 %"
done

# Who woke them, and how they waited: at least 95 % of each function's
# time under the right state, and below the right waker where there is
# one.  (When the waker was taken at sched_wakeup, a wakeup queued to an
# idle CPU fired there, in the idle task, and a sixth of the mutex's
# waits had no waker.)
share() {
	all=$(ns "$1" ";$2;")
	part=$(ns "$1" "$3")
	echo "# $1: $part of $all ns match '$3'"
	awk -v a="$part" -v b="$all" 'BEGIN { exit !(b > 0 && a >= 0.95 * b) }'
}
share oc-pipe offcpu_pipe_read "^oc-pipe;off-cpu: sleeping;.*;offcpu_pipe_read;.*;woken by oc-writer "
ok $? "the pipe reader slept, woken by the writer"
share oc-mutex offcpu_mutex_lock "^oc-mutex;off-cpu: sleeping;.*;offcpu_mutex_lock;.*;woken by oc-holder "
ok $? "the mutex waiter slept, woken by the holder"
# fsync waits for the disk uninterruptibly (D), at least half the time.
all=$(ns oc-fsync ";offcpu_fsync;")
part=$(ns oc-fsync "^oc-fsync;off-cpu: blocked;")
echo "# oc-fsync: $part of $all ns blocked"
awk -v a="$part" -v b="$all" 'BEGIN { exit !(b > 0 && a >= 0.5 * b) }'
ok $? "fsync waits blocked (uninterruptible) for the most part"

# pprof: each wait's nanoseconds are the "off-cpu" value, read back by
# go tool pprof (in ms): nanosleep's within 10 % again.
"$bin" export --format pprof --off-cpu --time "${start}ns," "$dir/oc.fxt" \
	-o "$dir/oc.pb.gz" 2> "$dir/export.err"
rc=$?
ms=$(go tool pprof -top -unit=ms -sample_index=off-cpu -nodecount=5000 \
	"$dir/oc.pb.gz" 2> /dev/null |
	awk '$NF == "offcpu_nanosleep" { sub(/ms$/, "", $4); print $4 }')
want=$(awk '$1 == "oc-sleep" { print $3 }' "$dir/totals")
echo "# pprof: offcpu_nanosleep ${ms:-?} ms, its own clock ${want:-?} ns"
[ $rc = 0 ] && awk -v a="${ms:-0}" -v b="${want:-0}" \
	'BEGIN { exit !(b > 0 && a * 1e6 >= 0.9 * b && a * 1e6 <= 1.1 * b) }'
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$dir/export.err"
ok $rc "export --off-cpu: go tool pprof gives nanosleep its waits within 10 %"

# --wall: oc-wall runs 30 % and sleeps 70 %; its time on a CPU (by the
# context switches, over its samples) and its waits add up to the time it
# ran for, within 5 %.
set -- $(awk '$1 == "oc-wall" && NF == 4 { print $2, $3 }' "$dir/totals")
from=${1:-0} to=${2:-0}
got=$("$bin" flamegraph --folded --wall --comm oc-wall --time "${from}ns,${to}ns" \
	"$dir/oc.fxt" 2> "$dir/wall.err" |
	awk '{ s += $NF } END { printf "%.0f\n", s }')
echo "# oc-wall: ran $((to - from)) ns, the wall profile holds ${got:-?} ns"
awk -v a="${got:-0}" -v b="$((to - from))" \
	'BEGIN { exit !(b > 0 && a >= 0.95 * b && a <= 1.05 * b) }'
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$dir/wall.err"
ok $rc "--wall accounts for oc-wall's elapsed time within 5 %"

# report --off-cpu says what it weighs; bad requests get a sentence.
"$bin" report --off-cpu --comm oc-sleep "$dir/oc.fxt" > "$dir/report" 2>&1 &&
	grep -q "^# .*: [0-9]* off-CPU waits, [0-9]* selected, [0-9.]* s waited (weights are ns)" "$dir/report" &&
	grep -q "offcpu_nanosleep" "$dir/report"
ok $? "report --off-cpu names the waits and their functions"

"$bin" record --source bpf -d 0.2 -q -o "$dir/cpu.fxt" 2> /dev/null
"$bin" report --off-cpu "$dir/cpu.fxt" > /dev/null 2> "$dir/nowaits.err"
rc1=$?
"$bin" report --off-cpu --region x "$dir/oc.fxt" > /dev/null 2> "$dir/region.err"
rc2=$?
"$bin" export --format pprof --off-cpu "$dir/cpu.fxt" -o "$dir/x.pb.gz" \
	2> "$dir/export-nowaits.err"
rc5=$?
"$bin" record --source bpf --off-cpu --no-shared-stacks -d 0.2 -q \
	-o "$dir/bad.fxt" 2> "$dir/shared.err"
rc3=$?
"$bin" record --source bpf --off-cpu-min 1h1s -d 0.2 -q \
	-o "$dir/bad.fxt" 2> "$dir/min.err"
rc4=$?
cat "$dir/nowaits.err" "$dir/export-nowaits.err" "$dir/region.err" \
	"$dir/shared.err" "$dir/min.err" | sed 's/^/# /'
[ $rc1 != 0 ] && grep -q "no off-CPU waits: record them with fxtprof record --off-cpu" "$dir/nowaits.err" &&
	[ $rc5 != 0 ] && grep -q "holds no off-CPU waits: record them with fxtprof record --off-cpu" "$dir/export-nowaits.err" &&
	[ $rc2 != 0 ] && grep -q -- "--off-cpu takes no --region" "$dir/region.err" &&
	[ $rc3 != 0 ] && grep -q -- "cannot go with --no-shared-stacks" "$dir/shared.err" &&
	[ $rc4 != 0 ] && grep -q -- "bad --off-cpu-min '1h1s'" "$dir/min.err"
ok $? "a recording without waits, regions, unshared stacks and a bad minimum are refused with a sentence"
exit $failed

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test_bpf_record - `fxtprof record --source bpf` in the VM (installed as
# /tests/test_bpf_record, run by /init like every /tests/test_*), on each
# Debian kernel the suites boot: the end-to-end assertions of
# tests/reader/test_record, through the eBPF source, with the module
# loaded or not (--source bpf does not look at it).  While it records, a
# spinner runs on every CPU for a second and a child `sh` execs and exits
# with 7.  Checks: record exits 0; the output passes `fxtprof check`;
# samples from every online CPU; the child's
# fork, exec (its filename) and exit (status 7 << 8) are there with its
# pid; the recorder's loss line is "lost nothing" and the stream's final
# statistics agree.  Where the bpf source cannot run, a build without it
# (BPF_SOURCE=0) or a kernel without BTF (the debug kernel), it checks
# instead that record refuses with that reason, plus
# the auto check: 2 results (tests/bpf/suite.plan).  Last, with the module
# loaded, `--source auto` must take the module and say so; and both
# sources, recording one run of the workload (tests/bench/workload.c)
# at the same time, give the same top three functions by self time, each
# within 10 points (three runs on 6.12 under TCG differed by 1 to 5:
# the two timers disturb each other a little).  Then sched.switch through
# the bpf source, while a two-thread ping-pong runs: the recording passes
# `fxtprof check`, whose scheduling rules chain every CPU's switches and
# want each blocked thread woken before it runs again, and holds the
# ping-pong's switches and wakeups; and with --off-cpu, its waits with
# their stacks and wakers.  TAP.
cd /tmp || exit 1
fxtprof=${FXTPROF:-/tests/fxtprof}	# FXTPROF=: run it elsewhere
out=/tmp/bpf-rec.fxt
n=0
tap() {	# tap ok|"not ok" description
	n=$((n + 1))
	echo "$1 $n $2"
}
res() {	# res STATUS description: ok if STATUS is 0
	if [ "$1" = 0 ]; then tap ok "$2"; else tap "not ok" "$2 (status $1)"; fi
}
echo "TAP version 13"
rm -f "$out"

rm -f /tmp/bpf-rec.ready
"$fxtprof" record --source bpf -F 1000 -d 4 --ready-file /tmp/bpf-rec.ready \
	"$out" > /tmp/bpf-rec.log 2>&1 &
rec=$!
# auto with the module loaded: it takes the module, and says so.
auto_check() {
	if [ ! -e /dev/fxtprof ]; then
		tap ok "auto takes the module # SKIP no /dev/fxtprof"
		return
	fi
	"$fxtprof" record --source auto -d 1 /tmp/bpf-auto.fxt > /tmp/bpf-auto.log 2>&1
	rc=$?
	grep -q '^fxtprof: source module (/dev/fxtprof exists)' /tmp/bpf-auto.log ||
		rc=1
	[ $rc = 0 ] || sed 's/^/# auto: /' /tmp/bpf-auto.log
	res $rc "auto takes the module where /dev/fxtprof exists, and says so"
	rm -f /tmp/bpf-auto.fxt
}

# "SYMBOL PERCENT" of the top six self-time entries of the workload:
# each sample's leaf frame named from the workload's function table
# (made on the host with nm: the static workload is not PIE), as a share
# of the workload's samples.  `fxtprof report` would do it, but the
# board's arm64 build has no symbolizer; this way both arches count the
# same.
syms=/tests/fxt-bench-workload.syms
# Both sources record one run of the workload at once, each stopped after
# it ends: run to run, the workload's phases take different shares of the
# time under TCG, and a fixed duration could stop before the last phase.
# top3 reads each sample's leaf from the blob after it in the dump: no
# shared stacks.
record_both() {
	rm -f /tmp/bpf-top-module.fxt /tmp/bpf-top-bpf.fxt
	"$fxtprof" record --source module -F 1000 -q --no-shared-stacks \
		/tmp/bpf-top-module.fxt &
	pm=$!
	"$fxtprof" record --source bpf -F 1000 -q --no-shared-stacks \
		/tmp/bpf-top-bpf.fxt &
	pb=$!
	i=0
	while { [ ! -s /tmp/bpf-top-module.fxt ] || [ ! -s /tmp/bpf-top-bpf.fxt ]; } &&
	      [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	/tests/fxt-bench-workload -r 250 > /dev/null &
	w=$!
	wait $w
	kill -INT $pm $pb
	wait $pm || return 1
	wait $pb || return 1
}
top3() { # SOURCE: of record_both's recordings
	f=/tmp/bpf-top-$1.fxt
	"$fxtprof" dump $f | awk -v pid=$w -v syms=$syms '
		function hex(s,  i, n) {
			n = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++)
				n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n
		}
		function fn(pc,  a, b, m, r) {	# the function holding pc, or ""
			a = 1; b = ns; r = 0
			while (a <= b) {
				m = int((a + b) / 2)
				if (lo[m] <= pc) { r = m; a = m + 1 } else b = m - 1
			}
			return r && pc < hi[r] ? nm[r] : ""
		}
		BEGIN {
			while ((getline l < syms) > 0) {
				split(l, t, " "); ns++
				lo[ns] = hex(t[1]); hi[ns] = lo[ns] + hex(t[2]); nm[ns] = t[4]
			}
		}
		/name: "sample"/ {
			q = $0; sub(/.*pt: /, "", q); sub(/\/.*/, "", q)
			pend = q == pid; total += pend; next
		}
		pend && /^LargeBlob/ {
			d = $0; sub(/.*data: \[/, "", d); sub(/[],].*/, "", d)
			leaf[fn(hex(d))]++
		}
		{ pend = 0 }
		END {
			for (f in leaf)
				if (f != "") printf "%s %.2f\n", f, 100 * leaf[f] / total
		}' | sort -k2 -rn | head -6
	rm -f $f
}
same_top() {
	if [ ! -e /dev/fxtprof ] || [ -n "$1" ]; then
		tap ok "module and bpf give the same top functions # SKIP ${1:-no /dev/fxtprof}"
		return
	fi
	if ! record_both; then
		res 1 "module and bpf give the same top functions (a recorder failed)"
		return
	fi
	m=$(top3 module) b=$(top3 bpf)
	echo "# module:" $m
	echo "# bpf:   " $b
	# The same first function; every function in either's top three has
	# the same share in the other (0 if not in its top six) within 10
	# points: near-ties may swap places.
	printf '%s\n--\n%s\n' "$m" "$b" | awk '
		BEGIN { side = 0 }
		$1 == "--" { side = 1; rank = 0; next }
		NF == 2 { rank++; pct[side, $1] = $2; if (rank <= 3) top[$1] = 1
			  if (rank == 1) first[side] = $1 }
		END {
			ok = first[0] != "" && first[0] == first[1]
			for (f in top) {
				d = pct[0, f] - pct[1, f]; if (d < 0) d = -d
				if (d > 10) ok = 0
			}
			exit !ok
		}'
	res $? "module and bpf give the same top functions, within 10 points"
}

# Until it samples (at most 30 s: TCG), or exits refusing.
fxt-wait-ready /tmp/bpf-rec.ready $rec 30 2>/dev/null
# Where bpf cannot run, decided by the environment, not by the failure:
# the build says it has no bpf source, or the kernel has no BTF.
why=
if grep -q "built without the bpf source" /tmp/bpf-rec.log; then
	why="built without the bpf source"
elif [ ! -e /sys/kernel/btf/vmlinux ]; then
	why="BTF"
fi
if [ -n "$why" ]; then
	echo "1..2"
	wait $rec
	rc=$?
	sed 's/^/# record: /' /tmp/bpf-rec.log
	[ $rc = 1 ] && grep -q "$why" /tmp/bpf-rec.log
	res $? "record --source bpf is refused here, exit 1, saying why ($why)"
	auto_check
	exit 0
fi
echo "1..12"
ncpu=$(grep -c ^processor /proc/cpuinfo)
c=0
while [ $c -lt "$ncpu" ]; do
	timeout 1 sh -c 'while :; do :; done' &
	c=$((c + 1))
done
sh -c 'echo $$ > /tmp/bpf-child.pid; exit 7'
wait_rc=0
wait $rec || wait_rc=$?
wait
child=$(cat /tmp/bpf-child.pid)
sed 's/^/# record: /' /tmp/bpf-rec.log

res $wait_rc "record --source bpf -d 4 exits 0"
"$fxtprof" check "$out" > /tmp/bpf-check.log 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' /tmp/bpf-check.log
res $rc "output passes fxtprof check"

# Samples per CPU, from the stream itself (the board build has no
# `report --summary`).
"$fxtprof" dump "$out" > /tmp/bpf-dump.log 2>&1
line=$(grep 'name: "sample"' /tmp/bpf-dump.log |
	sed -n 's/.*{cpu: uint32(\([0-9]*\)).*/\1/p' | sort -n | uniq -c |
	awk '{ printf " cpu%s=%s", $2, $1 }')
echo "# samples per CPU:$line"
c=0 missing=
while [ $c -lt "$ncpu" ]; do
	echo "$line" | grep -Eq " cpu$c=[1-9]" || missing="$missing $c"
	c=$((c + 1))
done
if [ -z "$missing" ] && [ -n "$line" ]; then
	tap ok "samples from every CPU ($ncpu)"
else
	tap "not ok" "samples from every CPU ($ncpu): none on$missing"
fi

fork=$(grep -c "name: \"fork\".*child_pid: uint32($child)" /tmp/bpf-dump.log)
execs=$(grep "pt: $child/$child, .*name: \"exec\"" /tmp/bpf-dump.log)
exits=$(grep "pt: $child/$child, .*name: \"exit\"" /tmp/bpf-dump.log)
if [ "$fork" = 1 ] && [ -n "$execs" ] && [ -n "$exits" ]; then
	tap ok "the child's ($child) fork, exec and exit"
else
	tap "not ok" "the child's ($child) fork ($fork), exec and exit"
	echo "# exec: $execs"; echo "# exit: $exits"
fi
echo "$exits" | grep -q 'exit_code: int32(1792), group_dead: bool(true)'
res $? "exit status 7 << 8, group dead"

# The recorder's line, the stream's final statistics: nothing lost.
stats=$(grep 'name: "fxtprof:stats"' /tmp/bpf-dump.log | tail -n 1)
grep -q '^fxtprof: kernel rings lost nothing' /tmp/bpf-rec.log &&
	echo "$stats" | grep -Eq 'samples: uint64\([1-9][0-9]*\), .*lost_records: uint64\(0\), lost_unreported: uint64\(0\)'
rc=$?
[ $rc = 0 ] || echo "# final statistics: $stats"
res $rc "no loss, and the stream's statistics agree"
rm -f "$out" /tmp/bpf-dump.log
auto_check
same_top

# sched.switch through the bpf source, with a ping-pong on CPU 1.
rm -f /tmp/bpf-sched.fxt /tmp/bpf-sched.ready
"$fxtprof" record --source bpf --sources sched.switch,task.lifecycle \
	--ready-file /tmp/bpf-sched.ready /tmp/bpf-sched.fxt \
	> /tmp/bpf-sched.log 2>&1 &
rec=$!
fxt-wait-ready /tmp/bpf-sched.ready $rec 30 2>/dev/null
/tests/fxt_pingpong 1 500 > /tmp/bpf-pp.log 2>&1
pp=$?
kill -INT $rec
wait $rec
rc=$?
[ $pp = 0 ] || rc=$pp
"$fxtprof" check /tmp/bpf-sched.fxt > /tmp/bpf-check.log 2>&1 || rc=1
[ $rc = 0 ] || { sed 's/^/# record: /' /tmp/bpf-sched.log; sed 's/^/# /' /tmp/bpf-check.log | tail -5; }
res $rc "sched.switch: record exits 0, the output passes fxtprof check"
"$fxtprof" dump /tmp/bpf-sched.fxt > /tmp/bpf-dump.log 2>&1
# "pingpong TID_A TID_B NS": each round switches each thread out once at
# least, blocks one of them in read() (the other may be preempted by the
# wakeup instead) and wakes it.
set -- $(cat /tmp/bpf-pp.log)
a=${2:-x} b=${3:-x}
counts=$(awk -v a="$a" -v b="$b" '
	/^ContextSwitch\(/ && ($0 ~ ", out: " a "," || $0 ~ ", out: " b ",") {
		out++; if ($0 ~ /out_state: 3 /) blocked++
	}
	/^ThreadWakeup\(/ && ($0 ~ ", tid: " a "," || $0 ~ ", tid: " b ",") { woken++ }
	END { print out + 0, blocked + 0, woken + 0 }' /tmp/bpf-dump.log)
echo "# ping-pong $a and $b: switched out, blocked, woken: $counts"
set -- $counts
[ "$1" -ge 950 ] && [ "$2" -ge 475 ] && [ "$3" -ge 475 ]
res $? "sched.switch: the ping-pong's 500 rounds switch, block and wake"
rm -f /tmp/bpf-sched.fxt /tmp/bpf-dump.log

# Off-CPU waits through the bpf source (the kernel's verifier takes the
# stack walk in the switch program), every wait kept: each of the
# ping-pong's rounds leaves one thread waiting in read() for the other.
rm -f /tmp/bpf-off.fxt /tmp/bpf-off.ready
"$fxtprof" record --source bpf --off-cpu --off-cpu-min 0 \
	--ready-file /tmp/bpf-off.ready /tmp/bpf-off.fxt \
	> /tmp/bpf-off.log 2>&1 &
rec=$!
fxt-wait-ready /tmp/bpf-off.ready $rec 30 2>/dev/null
/tests/fxt_pingpong 1 500 > /tmp/bpf-pp.log 2>&1
pp=$?
kill -INT $rec
wait $rec
rc=$?
[ $pp = 0 ] || rc=$pp
"$fxtprof" check /tmp/bpf-off.fxt > /tmp/bpf-check.log 2>&1 || rc=1
[ $rc = 0 ] || { sed 's/^/# record: /' /tmp/bpf-off.log; sed 's/^/# /' /tmp/bpf-check.log | tail -5; }
res $rc "off-CPU: record --off-cpu exits 0, the output passes fxtprof check"
"$fxtprof" dump /tmp/bpf-off.fxt > /tmp/bpf-dump.log 2>&1
set -- $(cat /tmp/bpf-pp.log)
a=${2:-x} b=${3:-x}
# waits of either thread, those with kernel frames, those the other woke
counts=$(awk -v a="$a" -v b="$b" '
	/name: "off-cpu"/ && ($0 ~ "pt: [0-9]+/" a "," || $0 ~ "pt: [0-9]+/" b ",") {
		n++
		if ($0 ~ /kframes: uint32\([1-9]/) k++
		if ($0 ~ "waker_tid: uint32\\((" a "|" b ")\\)") w++
	}
	END { print n + 0, k + 0, w + 0 }' /tmp/bpf-dump.log)
echo "# ping-pong $a and $b: waits, with kernel frames, woken by the other: $counts"
set -- $counts
[ "$1" -ge 475 ] && [ "$2" -ge 475 ] && [ "$3" -ge 400 ]
res $? "off-CPU: the ping-pong's waits, with their stacks, woken by each other"
rm -f /tmp/bpf-off.fxt /tmp/bpf-dump.log
exit 0

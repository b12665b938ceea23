#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test_bpf_hotplug - the bpf source follows CPU hotplug, in the VM
# (installed as /tests/test_bpf_hotplug, run by /init like every
# /tests/test_*).  `fxtprof record --source bpf -F 1000` runs while a
# spinner per CPU keeps both busy; once CPU 1 has samples it goes offline
# for a second and comes back, and the recording goes on until CPU 1 has
# samples again (the source re-reads the online CPUs once a second and
# re-enables the event, which the kernel leaves off).  Two markers bound the gap on the
# recording's own clock: the exec of a `sh` started right after the
# offline write returned, and of one started right before the online
# write.  Checks: record exits 0; its output passes `fxtprof check`;
# CPU 1 has samples before the gap and after it, none inside it (within
# one period of its ends) while CPU 0 goes on; the recording lost
# nothing; and the kernel log has no warning since the test began (the
# suite scans it too, this says which test).  7 results.  Where the bpf
# source cannot run (a build without it, a kernel without BTF) it checks
# the refusal instead: 1 result (tests/bpf/suite.plan).  TAP.
cd /tmp || exit 1
fxtprof=${FXTPROF:-/tests/fxtprof}	# FXTPROF=: run it elsewhere
out=/tmp/bpf-hp.fxt
online=/sys/devices/system/cpu/cpu1/online
bad='WARNING:|BUG:|Oops|general protection fault|sleeping function called|stall|soft lockup|hung task|KASAN:|UBSAN:|kernel BUG'
period_ns=1000000	# -F 1000
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
dmesg_before=$(dmesg | wc -l)

"$fxtprof" record --source bpf -F 1000 "$out" > /tmp/bpf-hp.log 2>&1 &
rec=$!
# Wait (at most 30 s: TCG) for the first bytes: the programs are loaded.
i=0
while [ ! -s "$out" ] && [ $i -lt 300 ] && kill -0 $rec 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
# Where bpf cannot run, decided by the environment, as test_bpf_record.
why=
if grep -q "built without the bpf source" /tmp/bpf-hp.log; then
	why="built without the bpf source"
elif [ ! -e /sys/kernel/btf/vmlinux ]; then
	why="BTF"
fi
if [ -n "$why" ]; then
	echo "1..1"
	wait $rec
	rc=$?
	sed 's/^/# record: /' /tmp/bpf-hp.log
	[ $rc = 1 ] && grep -q "$why" /tmp/bpf-hp.log
	res $? "record --source bpf is refused here, exit 1, saying why ($why)"
	exit 0
fi
echo "1..7"
if [ ! -w "$online" ]; then
	# Said as failures: every VM this suite boots has a CPU 1 to unplug.
	kill -TERM $rec; wait $rec
	for t in 1 2 3 4 5 6 7; do tap "not ok" "no hotpluggable CPU 1 ($online)"; done
	exit 0
fi
# Until the recording holds a sample on CPU 1 later than the exec of
# PID (0: any), for at most 60 s while record runs.  record writes what
# it drained every pass, so the growing file tells.
wait_cpu1_after_exec() {	# wait_cpu1_after_exec PID
	i=0
	until "$fxtprof" dump "$out" 2>/dev/null | awk -v pid="$1" '
		/name: "exec"/ && index($0, "pt: " pid "/" pid ",") { t = $2 + 0; seen = 1 }
		/name: "sample"/ && /cpu: uint32\(1\)/ && $2 + 0 > last { last = $2 + 0 }
		END { exit !((seen || pid == 0) && last > t) }'; do
		kill -0 $rec 2>/dev/null && [ $i -lt 120 ] || return 1
		sleep 0.5	# the poll interval: each poll dumps the file
		i=$((i + 1))
	done
}
timeout 120 sh -c 'while :; do :; done' & s0=$!
timeout 120 sh -c 'while :; do :; done' & s1=$!
wait_cpu1_after_exec 0 || echo "# no sample on CPU 1 before the gap"
echo 0 > "$online"
off_rc=$?
sh -c 'echo $$ > /tmp/bpf-hp.m1'	# exec'd once CPU 1 is offline
sleep 1	# the gap itself: CPU 1 stays offline for a second
sh -c 'echo $$ > /tmp/bpf-hp.m2'	# exec'd while CPU 1 is still offline
echo 1 > "$online"
on_rc=$?
# The source re-reads the online CPUs once a second: until CPU 1 samples.
wait_cpu1_after_exec "$(cat /tmp/bpf-hp.m2)" ||
	echo "# no sample on CPU 1 after the gap"
kill -TERM $rec
wait_rc=0
wait $rec || wait_rc=$?
kill $s0 $s1 2>/dev/null
wait
sed 's/^/# record: /' /tmp/bpf-hp.log
[ $off_rc = 0 ] && [ $on_rc = 0 ] || echo "# offline write $off_rc, online write $on_rc"
[ "$(cat $online)" = 1 ] || echo 1 > "$online"

res $wait_rc "record --source bpf exits 0 across the hotplug"
"$fxtprof" check "$out" > /tmp/bpf-hp-check.log 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' /tmp/bpf-hp-check.log
res $rc "output passes fxtprof check"

# The markers' exec times and every sample's "ts cpu", on one clock.
"$fxtprof" dump "$out" > /tmp/bpf-hp-dump.log 2>&1
m1=$(cat /tmp/bpf-hp.m1) m2=$(cat /tmp/bpf-hp.m2)
exec_ts() {
	sed -n "s/^Event(ts: \([0-9]*\), pt: $1\/$1, .*name: \"exec\".*/\1/p" \
		/tmp/bpf-hp-dump.log | head -1
}
t1=$(exec_ts "$m1") t2=$(exec_ts "$m2")
echo "# gap markers: pid $m1 at ${t1:-?}, pid $m2 at ${t2:-?}"
sed -n 's/^Event(ts: \([0-9]*\), .*name: "sample".*cpu: uint32(\([0-9]*\)).*/\1 \2/p' \
	/tmp/bpf-hp-dump.log > /tmp/bpf-hp-samples
counts=$(awk -v t1="${t1:-0}" -v t2="${t2:-0}" -v p=$period_ns '
	$2 == 1 && $1 < t1 { b++ }
	$2 == 1 && $1 > t1 + p && $1 < t2 - p { g++ }
	$2 == 1 && $1 > t2 { a++ }
	$2 == 0 && $1 > t1 && $1 < t2 { z++ }
	END { printf "%d %d %d %d", b, g, a, z }' /tmp/bpf-hp-samples)
set -- $counts
echo "# CPU 1: $1 samples before the gap, $2 in it, $3 after; CPU 0: $4 in it"
if [ -n "$t1" ] && [ -n "$t2" ] && [ "$t1" -lt "$t2" ]; then
	[ "$1" -gt 0 ]
	res $? "CPU 1 has samples before it goes offline ($1)"
	[ "$2" = 0 ] && [ "$4" -gt 0 ]
	res $? "none on CPU 1 while it is offline ($2), CPU 0 goes on ($4)"
	[ "$3" -gt 0 ]
	res $? "CPU 1 has samples again once back online ($3)"
else
	for t in before gap after; do
		tap "not ok" "CPU 1 samples $t the gap: no marker exec in the recording"
	done
fi

grep -q '^fxtprof: kernel rings lost nothing' /tmp/bpf-hp.log
res $? "nothing lost"
dmesg | tail -n +"$((dmesg_before + 1))" > /tmp/bpf-hp-dmesg.log
grep -E "$bad" /tmp/bpf-hp-dmesg.log | sed 's/^/# dmesg: /'
! grep -Eq "$bad" /tmp/bpf-hp-dmesg.log
res $? "no kernel warning across the hotplug"
rm -f "$out" /tmp/bpf-hp-dump.log /tmp/bpf-hp-samples
exit 0

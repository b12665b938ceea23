#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test_symbols - the guest half of the symbol tests (tests/symbols/, run
# by /init like every /tests/test_*): record the whole system once with
# `fxtprof record` while every workload runs, check what the guest can
# check, and write the recording to the console between
#   FXTPROF-FILE-BEGIN sym.fxt gzip+base64
#   ... base64 of the gzip'd file ...
#   FXTPROF-FILE-END sym.fxt md5=MD5 bytes=N
# for the host half, tests/symbols/check_symbols.sh, which symbolizes it
# the way a user does: recorded on the board, named on the host.  Then
# the tar `fxtprof buildid-archive` makes of it, as sym-ids.tar the same
# way, which the host half serves with debuginfod.
#
# sym_stripped starts before the recording, so its mappings are those
# that exist when recording starts; the others start during it, so theirs
# are captured as they are created (the dlopen, and sym_short, which is
# gone some 30 ms later).
cd /tmp || exit 1
n=0
tap() {	# tap ok|"not ok" description
	n=$((n + 1))
	echo "$1 $n $2"
}
res() {	# res STATUS description: ok if STATUS is 0
	if [ "$1" = 0 ]; then tap ok "$2"; else tap "not ok" "$2 (status $1)"; fi
}

echo "TAP version 13"
echo "1..12"
out=/tmp/sym.fxt
rm -f "$out"

# Until PID runs NAME (its exec done, so its mappings are NAME's), for at
# most 30 s: 0 once it does.
wait_exec() {	# wait_exec PID NAME
	i=0
	until [ "$(basename "$(readlink /proc/$1/exe)")" = "$2" ]; do
		kill -0 "$1" 2>/dev/null && [ $i -lt 1500 ] || return 1
		sleep 0.02	# the poll interval
		i=$((i + 1))
	done
}

sym_stripped 60000 & strip_pid=$!
wait_exec $strip_pid sym_stripped || echo "# sym_stripped did not start"
# The clocks on either side of record's start, for its wall-clock anchor.
wall_before=$(date +%s) boot_before=$(cut -d. -f1 /proc/uptime)
fxtprof record -F 1000 --skip-idle -q "$out" > /tmp/sym-record.log 2>&1 &
rec=$!
# Under TCG record reads kallsyms and every process's mappings for a
# second or more before it samples: the workloads start once it does.
sym_wait "$out" 60; wait_rc=$?
wall_after=$(date +%s) boot_after=$(cut -d. -f1 /proc/uptime)
sym_chain 2000 & chain_pid=$!
sym_dlopen /tests/libsymtest.so 2000 & dl_pid=$!
sym_syscall 2000 & sc_pid=$!
wait $chain_pid; chain_rc=$?
wait $dl_pid; dl_rc=$?
wait $sc_pid; sc_rc=$?
kill $strip_pid
wait $strip_pid; strip_rc=$?
# Stopped by the TERM above, as meant, after 2 s or more of samples.
[ $strip_rc = 143 ] && strip_rc=0
# The short runs come last, alone, so that the emulator gives them a CPU.
short_rc=0 short_fast=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	life=$(sym_short 5) || short_rc=$?
	echo "# $life"
	ms=${life##*lived }; ms=${ms% ms}
	[ "$ms" -lt 50 ] 2>/dev/null && short_fast=$((short_fast + 1))
done
# Nothing to wait for: record's stop flushes and drains every ring before
# it exits, so the last run's samples and exit are in the file.
kill -INT $rec
wait $rec; rec_rc=$?
sed 's/^/# record: /' /tmp/sym-record.log

res $wait_rc "fxtprof record samples before the workloads start"
res $rec_rc "fxtprof record, stopped by SIGINT, exit status"
if [ -s "$out" ]; then
	tap ok "recording is not empty ($(wc -c < "$out") bytes)"
else
	tap "not ok" "recording is not empty"
fi
res $chain_rc "sym_chain ran"
res $dl_rc "sym_dlopen loaded libsymtest.so and ran"
# The host half checks the lifetimes in the recording and names the
# samples of the runs that lived under 50 ms; under TCG on a busy host
# some runs take longer (on a quiet one all take 15 to 40 ms).
res $short_rc "sym_short ran 10 times, $short_fast of them under 50 ms"
res $strip_rc "sym_stripped ran"
res $sc_rc "sym_syscall ran"
# "KernelObject(koid: 0, type: clock, ..., {boot_ns: uint64(B),
# realtime_ns: uint64(R)})": read between the clocks taken around the
# start (whole seconds: /proc/uptime is CLOCK_BOOTTIME).
clock=$(fxtprof dump "$out" 2>/dev/null |
	sed -n 's/.*type: clock,.*boot_ns: uint64(\([0-9]*\)).*realtime_ns: uint64(\([0-9]*\)).*/\1 \2/p' |
	head -n 1)
# None found fails this check alone: an empty $((...)) would end the script.
[ -n "$clock" ] && found=1 || { found=0; clock="0 0"; }
boot_s=$((${clock% *} / 1000000000)) wall_s=$((${clock#* } / 1000000000))
echo "# clock object: boot ${boot_s} s (uptime $boot_before..$boot_after), wall ${wall_s} s (date $wall_before..$wall_after)"
[ $found = 1 ] && [ "$boot_s" -ge "$boot_before" ] &&
	[ "$boot_s" -le $((boot_after + 1)) ] &&
	[ "$wall_s" -ge "$wall_before" ] && [ "$wall_s" -le $((wall_after + 1)) ]
res $? "the recording's clock object was read as recording began"

# The board's side of collecting its files: every file the recording's
# mappings name, by build id, for the host half to serve with debuginfod.
ids=/tmp/sym-ids.tar
fxtprof buildid-archive "$out" -o "$ids" > /tmp/sym-ids.log 2>&1
ids_rc=$?
sed 's/^/# buildid-archive: /' /tmp/sym-ids.log
res $ids_rc "fxtprof buildid-archive packed every mapped file ($(wc -c < "$ids" 2>/dev/null) bytes)"

echo "FXTPROF-FILE-BEGIN sym.fxt gzip+base64"
gzip -c "$out" | base64 && send_rc=0 || send_rc=1
echo "FXTPROF-FILE-END sym.fxt md5=$(md5sum < "$out" | cut -d' ' -f1) bytes=$(wc -c < "$out")"
res $send_rc "recording written to the console"
echo "FXTPROF-FILE-BEGIN sym-ids.tar gzip+base64"
gzip -c "$ids" | base64 && send_rc=0 || send_rc=1
echo "FXTPROF-FILE-END sym-ids.tar md5=$(md5sum < "$ids" | cut -d' ' -f1) bytes=$(wc -c < "$ids")"
res $send_rc "build-id tar written to the console"
rm -f "$out" "$ids"
exit 0

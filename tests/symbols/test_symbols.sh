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
# the way a user does: recorded on the board, named on the host.
#
# sym_stripped starts before the recording, so its mappings are those
# that exist when recording starts; the others start during it, so theirs
# are captured as they are created (the dlopen, and sym_short, which is
# gone some 35 ms later).
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
echo "1..8"
out=/tmp/sym.fxt
rm -f "$out"

sym_stripped 10000 & strip_pid=$!
sleep 0.3
fxtprof record -F 1000 -d 5 --skip-idle -q "$out" > /tmp/sym-record.log 2>&1 &
rec=$!
# What is recorded before the workloads start is only what was there:
# give record time to configure, start and snapshot under TCG.
sleep 1
sym_chain 2000 & chain_pid=$!
sym_dlopen /tests/libsymtest.so 2000 & dl_pid=$!
sym_syscall 2000 & sc_pid=$!
wait $chain_pid; chain_rc=$?
wait $dl_pid; dl_rc=$?
wait $sc_pid; sc_rc=$?
kill $strip_pid
wait $strip_pid; strip_rc=$?
# Stopped by the TERM above, as meant, after 3 s of spinning.
[ $strip_rc = 143 ] && strip_rc=0
# The short runs come last, alone, so that the emulator gives them a CPU.
short_rc=0 short_fast=0
for i in 1 2 3 4 5 6 7 8; do
	life=$(sym_short 10) || short_rc=$?
	echo "# $life"
	ms=${life##*lived }; ms=${ms% ms}
	[ "$ms" -lt 50 ] 2>/dev/null && short_fast=$((short_fast + 1))
	sleep 0.05
done
wait $rec; rec_rc=$?
sed 's/^/# record: /' /tmp/sym-record.log

res $rec_rc "fxtprof record -d 5 exit status"
if [ -s "$out" ]; then
	tap ok "recording is not empty ($(wc -c < "$out") bytes)"
else
	tap "not ok" "recording is not empty"
fi
res $chain_rc "sym_chain ran"
res $dl_rc "sym_dlopen loaded libsymtest.so and ran"
# Under TCG on a busy host (the emulator shares the CPUs with the host's
# work) a run can take 100 ms; most take 30 to 50: 2 of 8 will do.
if [ $short_rc = 0 ] && [ $short_fast -ge 2 ]; then
	tap ok "sym_short ran 8 times, $short_fast of them under 50 ms"
else
	tap "not ok" "sym_short ran 8 times, $short_fast of them under 50 ms (status $short_rc)"
fi
res $strip_rc "sym_stripped ran"
res $sc_rc "sym_syscall ran"

echo "FXTPROF-FILE-BEGIN sym.fxt gzip+base64"
gzip -c "$out" | base64 && send_rc=0 || send_rc=1
echo "FXTPROF-FILE-END sym.fxt md5=$(md5sum < "$out" | cut -d' ' -f1) bytes=$(wc -c < "$out")"
res $send_rc "recording written to the console"
rm -f "$out"
exit 0

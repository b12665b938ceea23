#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test_offcpu - the guest half of the module's off-CPU test (tests/offcpu/,
# run by /init like every /tests/test_*): `fxtprof record --source module
# --off-cpu --off-cpu-min 0` of offcpu_workload, whose threads wait in
# known functions and time each wait themselves.  Checks what the guest
# can (the recorder and the workload exit 0, the recording passes check
# and holds waits), then writes the recording and the workload's totals
# to the console, as tests/symbols/test_symbols.sh does, for the host
# half, tests/offcpu/check_offcpu.sh: the board's build has no symbolizer.
cd /tmp || exit 1
n=0
tap() {	# tap ok|"not ok" description
	n=$((n + 1))
	echo "$1 $n $2"
}
res() {	# res STATUS description: ok if STATUS is 0
	if [ "$1" = 0 ]; then tap ok "$2"; else tap "not ok" "$2 (status $1)"; fi
}
send() {	# send NAME FILE: the file, for the host half
	echo "FXTPROF-FILE-BEGIN $1 gzip+base64"
	gzip -c "$2" | base64 || return 1
	echo "FXTPROF-FILE-END $1 md5=$(md5sum < "$2" | cut -d' ' -f1) bytes=$(wc -c < "$2")"
}

echo "TAP version 13"
echo "1..5"
out=/tmp/oc.fxt
rm -f "$out" /tmp/oc.ready
fxtprof record --source module --off-cpu --off-cpu-min 0 \
	--ready-file /tmp/oc.ready -o "$out" > /tmp/oc-rec.log 2>&1 &
rec=$!
fxt-wait-ready /tmp/oc.ready $rec 60 2>/dev/null
# A warm-up second (the recorder loads the workload's unwind tables at
# its first waits), then three measured.  /tmp is the initramfs, where
# fsync() returns at once: the host half says so.
/tests/offcpu_workload 1000 3000 /tmp > /tmp/oc.totals 2> /tmp/oc-wl.log
wl=$?
kill -INT $rec
wait $rec
rc=$?
[ $rc = 0 ] || sed 's/^/# record: /' /tmp/oc-rec.log
res $rc "record --source module --off-cpu exits 0"
[ $wl = 0 ] || sed 's/^/# /' /tmp/oc-wl.log
res $wl "offcpu_workload ran"
sed 's/^/# /' /tmp/oc.totals
fxtprof check "$out" > /tmp/oc-check.log 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' /tmp/oc-check.log | tail -n 5
res $rc "the recording passes fxtprof check"
# "... N off-CPU waits ..." in the recorder's summary.
waits=$(sed -n 's/.* \([0-9][0-9]*\) off-CPU waits.*/\1/p' /tmp/oc-rec.log | head -n 1)
echo "# off-CPU waits written: ${waits:-none}"
[ "${waits:-0}" -ge 1000 ]
res $? "the module wrote the waits (at least 1000 in 4 s)"
send oc.totals /tmp/oc.totals && send oc.fxt "$out"
res $? "recording and totals written to the console"
rm -f "$out"
exit 0

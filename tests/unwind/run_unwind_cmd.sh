#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run_unwind_cmd.sh FXTPROF FIXTURES - `fxtprof unwind`: a program's table
# printed row by row with its counts, -s for the counts alone, the arm64
# busybox's with ra=lr rows, a file without CFI, a file that is not ELF
# (a sentence and exit 1) and no file (usage, exit 2).  Prints TAP.
fxtprof=$1 fix=$2
busybox=$(dirname "$0")/../../build/deps/arm64/root/bin/busybox
n=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
echo "TAP version 13"
echo "1..6"

out=$("$fxtprof" unwind "$fix/nofp")
rows=$(printf '%s\n' "$out" | sed -n 's/.* \([0-9]*\) rows,.*/\1/p')
lines=$(printf '%s\n' "$out" | grep -c '^  0x')
ok "$([ -n "$rows" ] && [ "$rows" -gt 10 ] && [ "$lines" -eq "$rows" ]; echo $?)" \
	"nofp: $rows rows, $lines printed"

out=$("$fxtprof" unwind -s "$fix/nofp" "$fix/throw")
ok "$([ "$(printf '%s\n' "$out" | grep -c '^  rows: cfa=sp [1-9]')" -eq 2 ] &&
	! printf '%s\n' "$out" | grep -q '^  0x'; echo $?)" "-s: the counts of two files, no rows"

out=$("$fxtprof" unwind "$busybox" | grep -c 'cfa=sp+0 ra=lr$')
ok "$([ "$out" -gt 100 ]; echo $?)" "arm64 busybox: $out rows with the return address in lr"

out=$("$fxtprof" unwind "$fix/nofp-no-eh")
ok "$(printf '%s\n' "$out" | grep -q 'no CFI.*, 0 rows'; echo $?)" "no .eh_frame: no rows, no error"

rc=0
err=$("$fxtprof" unwind "$0" 2>&1 >/dev/null) || rc=$?
ok "$([ "$rc" -eq 1 ] && printf '%s\n' "$err" | grep -q 'not an ELF file'; echo $?)" \
	"not ELF: exit $rc, '$err'"

rc=0
"$fxtprof" unwind >/dev/null 2>&1 || rc=$?
ok "$([ "$rc" -eq 2 ]; echo $?)" "no file: usage, exit $rc"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# parse-vm-log.sh LOG QEMU-RC|host PLAN > TAP
# Turn a VM serial log (see tests/vm/init.sh for its markers) into TAP.
# Kept separate from vm-suite.sh so a saved log can be re-parsed.
# "host" parses a host test's output wrapped in the same
# FXT-TEST-BEGIN/END markers (scripts/check.sh), without the VM checks.
#
# PLAN holds "PROGRAM TESTS" lines (scripts/plan.sh): every program the
# suite must run and how many results each must give.  A planned program
# that did not run, one that gave fewer or more results than planned
# (a skip is not a result), and a program that ran but is in no plan
# each add a failing line that names it.  The last comment line is
# "# plan: planned N ran M" for the summary.
#
# A VM that did not finish also gets "# console:" lines, the last lines
# it printed, and "# qemu:" lines, the reset QEMU logged
# (scripts/vm-run.sh writes LOG's .qemu.log): a silent reset is only
# explained there.  A VM that timed out also gets a "# qemu monitor:" line:
# each CPU's instruction pointer, flags and halt state, asked of QEMU's
# monitor before the kill (LOG's .monitor.log).
set -euo pipefail

usage="usage: parse-vm-log.sh LOG QEMU-RC|host PLAN"
log=${1:?$usage}
qrc=${2:?$usage}
plan=${3:?$usage}
[ -s "$plan" ] || { echo "parse-vm-log.sh: empty or missing plan $plan" >&2; exit 2; }
qlog=${log%.log}.qemu.log
# Power-on alone logs several resets (every CPU, then INIT and SIPI, and
# so does every CPU brought online), so what tells is a triple fault and
# the state each CPU's last reset found: QEMU logs a CPU's registers
# before it resets it, and a guest reset resets them all.
qreset=
if [ "$qrc" != host ] && [ -f "$qlog" ]; then
	qreset=$(awk '
		/Triple fault/ { t++ }
		/^CPU Reset/ { n++; cpu = $4; sub(/\)/, "", cpu); at[cpu] = "" }
		/^(RIP|EIP)=/ || /^ *PC=/ { at[cpu] = $1 }
		/^CR0=/ { at[cpu] = at[cpu] " " $2 " " $3 }
		END {
			printf "%d triple faults, %d CPU resets; last found", t, n
			for (c = 0; c in at; c++) printf "%s CPU %d at %s", c ? ";" : "", c, at[c]
		}' "$qlog")
fi
# A VM that timed out: where each CPU was when the monitor asked
# (scripts/vm-run.sh), and whether it was halted or took interrupts.
mlog=${log%.log}.monitor.log
qwhere=
if [ "$qrc" = 124 ] && [ -f "$mlog" ]; then
	qwhere=$(tr -d '\r' < "$mlog" | awk '
		/^CPU#[0-9]+/ { cpu = $1 }
		/^(RIP|EIP)=/ { printf "%s%s %s %s %s", sep, cpu, $1, $2, $NF; sep = "; " }
		/^ *PC=/ { printf "%s%s %s", sep, cpu, $1; sep = "; " }')
fi

# Kernel messages that mean the run is not clean, whatever the tests said.
bad='WARNING:|BUG:|Oops|general protection fault|sleeping function called|self-detected stall|RCU stall|rcu_sched detected stall|soft lockup|hung task|blocked for more than|KASAN:|UBSAN:|Kernel panic|kernel BUG|unreferenced object|invoked oom-killer|Out of memory'

echo "TAP version 13"
tr -d '\r' < "$log" | awk -v qrc="$qrc" -v bad="$bad" -v planfile="$plan" -v qreset="$qreset" -v qwhere="$qwhere" '
function res(status, desc) { n++; printf "%s - %s\n", status, desc }
BEGIN {
	while ((getline line < planfile) > 0) {
		split(line, f, " ")
		if (f[1] == "") continue
		order[++nplan] = f[1]; plan[f[1]] = f[2] + 0; planned += f[2]
	}
}
function plancheck(   i, p, total) {
	for (i = 1; i <= nplan; i++) {
		p = order[i]
		if (!(p in seen))
			res("not ok", p ": planned " plan[p] " tests, but the program did not run (missing from the suite?)")
		else if (ran[p] != plan[p])
			res("not ok", p ": planned " plan[p] " tests, ran " ran[p] + 0)
	}
	for (p in seen) if (!(p in plan))
		res("not ok", p ": ran, but is in no plan (add it to its folder'"'"'s suite.plan)")
	for (p in ran) total += ran[p]
	printf "# plan: planned %d ran %d\n", planned, total
}
# The kernel console and SeaBIOS can leave junk before a marker, so
# markers are matched anywhere in the line.
/FXT-TEST-BEGIN / { sub(/.*FXT-TEST-BEGIN /, ""); cur = $1; seen[cur] = 1; sawtap = sawfail = 0; lastrun = ""; next }
/FXT-TEST-END / {
	sub(/.*FXT-TEST-END /, ""); rc = $2; sub(/rc=/, "", rc)
	# kselftest exits 4 (KSFT_SKIP) when everything skipped.
	if (rc != 0 && rc != 4 && !sawfail)
		res("not ok", cur ": exit status " rc (rc == 137 ? " (killed: timeout?)" : ""))
	else if (!sawtap && rc != 4)
		res("not ok", cur ": no TAP output")
	cur = ""; next
}
/FXT-DMESG-BEGIN/ { indmesg = 1; sawdmesg = 1; next }
/FXT-DMESG-END/ { indmesg = 0; next }
/FXT-KMEMLEAK-BEGIN/ { inleak = 1; next }
/FXT-KMEMLEAK-END/ { inleak = 0; next }
/FXT-VM: done/ { done = 1 }
{ all[++nall] = $0 }
indmesg || inleak {
	if ($0 ~ bad) hits[++nhits] = $0
	next
}
cur != "" && /^#  RUN / { lastrun = $3; next }
cur != "" && /^(not )?ok [0-9]+/ {
	sawtap = 1
	status = ($1 == "not") ? "not ok" : "ok"
	desc = $0; sub(/^(not )?ok [0-9]+ ?/, "", desc)
	# The harness prints skips as "ok N # SKIP why": name them.
	if (desc ~ /^#/) desc = lastrun " " desc
	if (status == "not ok" && desc !~ /# (SKIP|TODO)/) sawfail = 1
	if (desc !~ /# *(SKIP|skip)/) ran[cur]++
	res(status, cur ": " desc)
	next
}
cur != "" && /^Bail out!/ { res("not ok", cur ": " $0); sawfail = 1; next }
END {
	if (qrc == "host") {
		if (cur != "") res("not ok", cur ": no end marker")
		plancheck()
		printf "1..%d\n", n
		exit
	}
	if (cur != "") res("not ok", cur ": VM died during this test")
	if (!done) {
		res("not ok", "vm finished (qemu rc=" qrc (qrc == 124 ? ", timed out" : "") ")")
		for (i = (nall > 10 ? nall - 9 : 1); i <= nall; i++) print "# console: " all[i]
		if (qreset != "") print "# qemu: " qreset
		if (qwhere != "") print "# qemu monitor: " qwhere
		# No dmesg section: look for the cause in the console output.
		if (!sawdmesg) for (i = 1; i <= nall; i++) if (all[i] ~ bad) hits[++nhits] = all[i]
	}
	if (nhits) {
		res("not ok", "dmesg clean (" hits[1] ")")
		for (i = 2; i <= nhits && i <= 20; i++) print "# " hits[i]
	} else if (sawdmesg) res("ok", "dmesg clean")
	else res("not ok", "dmesg clean (no dmesg in log)")
	plancheck()
	printf "1..%d\n", n
}'

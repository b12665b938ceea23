#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_plan.sh: the suites' plan check (scripts/plan.sh,
# scripts/parse-vm-log.sh) cannot be passed by running less.  A suite's
# serial log is made the way tests/vm/init.sh makes it, by running stand-in
# test programs between the same markers; then programs are taken out of
# the "initramfs", made to stop early or to skip, and the parsed suite
# must fail, naming the program.  TAP on stdout.
set -uo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
parse=$src/scripts/parse-vm-log.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

# A stand-in test program: prints kselftest-style TAP for N results,
# optionally skipping the last one.
mkprog() {	# mkprog NAME RESULTS [skip]
	local f=$tmp/tests/$1
	{ echo '#!/bin/sh'
	  echo 'echo "TAP version 13"; echo "1..'"$2"'"'
	  for i in $(seq "$2"); do
		if [ "${3:-}" = skip ] && [ "$i" -eq "$2" ]; then
			echo "echo '#  RUN           t.case$i ...'; echo 'ok $i # SKIP no reason'"
		else
			echo "echo 'ok $i t.case$i'"
		fi
	  done
	  echo 'exit 0'; } > "$f"
	chmod +x "$f"
}

# What /init prints, for the programs now in $tmp/tests.
mklog() {
	echo "FXT-VM: kernel test"
	echo "FXT-TEST-BEGIN init"; echo "TAP version 13"; echo "ok 1 insmod fxtprof.ko"; echo "FXT-TEST-END init rc=0"
	for t in "$tmp"/tests/test_*; do
		[ -x "$t" ] || continue
		echo "FXT-TEST-BEGIN ${t##*/}"
		"$t"
		echo "FXT-TEST-END ${t##*/} rc=$?"
	done
	echo "FXT-DMESG-BEGIN"; echo "[    0.000000] Linux version test"; echo "FXT-DMESG-END"
	echo "FXT-VM: done"
}

suite() {	# suite: parse the log of what is in $tmp/tests against the plan
	mklog > "$tmp/log"
	"$parse" "$tmp/log" 0 "$tmp/plan" > "$tmp/tap"
}

fresh() {
	rm -rf "$tmp/tests"
	mkdir -p "$tmp/tests"
	mkprog test_alpha 3
	mkprog test_beta 2
	printf 'init 1\ntest_alpha 3\ntest_beta 2\n' > "$tmp/plan"
}

echo "TAP version 13"
echo "1..13"

fresh
suite
ok "$(! grep -q '^not ok' "$tmp/tap" && grep -qx '# plan: planned 6 ran 6' "$tmp/tap"; echo $?)" \
	"a suite that runs its whole plan passes, planned 6 ran 6"

fresh
rm "$tmp/tests/test_beta"
suite
ok "$(grep -q '^not ok - test_beta: planned 2 tests, but the program did not run' "$tmp/tap"; echo $?)" \
	"a program removed from the initramfs fails the suite, by name"

fresh
mkprog test_alpha 2
suite
ok "$(grep -q '^not ok - test_alpha: planned 3 tests, ran 2' "$tmp/tap"; echo $?)" \
	"a program that gives fewer results than planned fails"

fresh
mkprog test_alpha 3 skip
suite
ok "$(grep -q '^not ok - test_alpha: planned 3 tests, ran 2' "$tmp/tap"; echo $?)" \
	"a skipped test is not a result"

fresh
mkprog test_gamma 1
suite
ok "$(grep -q '^not ok - test_gamma: ran, but is in no plan' "$tmp/tap"; echo $?)" \
	"a program in no plan fails"

fresh
: > "$tmp/plan"
mklog > "$tmp/log"
rc=0
"$parse" "$tmp/log" 0 "$tmp/plan" > "$tmp/tap" 2>/dev/null || rc=$?
ok "$([ "$rc" -ne 0 ]; echo $?)" "a suite without a plan is an error (rc $rc)"

# A guest that resets itself mid-program: the console just stops.  The
# suite names the program, shows the console's last lines and what
# QEMU's reset log (LOG's .qemu.log, scripts/vm-run.sh) says.
fresh
mklog | sed '/FXT-TEST-END test_beta/,$d' > "$tmp/died.log"
printf 'CPU Reset (CPU 0)\nEIP=0000fff0 EFL=00000002\nCR0=60000010 CR2=00000000 CR3=00000000\n' > "$tmp/died.qemu.log"
printf 'Triple fault\nCPU Reset (CPU 1)\nRIP=ffffffffc0a01234 RFL=00000046\nCR0=80050033 CR2=fffffe0000001ff8 CR3=000000000aa1c000\n' >> "$tmp/died.qemu.log"
"$parse" "$tmp/died.log" 0 "$tmp/plan" > "$tmp/tap"
ok "$(grep -q '^not ok - test_beta: VM died during this test' "$tmp/tap" &&
      grep -q '^# console: ok 2 t.case2$' "$tmp/tap" &&
      grep -q '^# qemu: 1 triple faults, 2 CPU resets; last found CPU 0 at EIP=0000fff0 CR2=00000000 CR3=00000000; CPU 1 at RIP=ffffffffc0a01234 CR2=fffffe0000001ff8 CR3=000000000aa1c000$' "$tmp/tap"
      echo $?)" "a VM that resets mid-program names it, with the console's tail and QEMU's triple fault"

# A guest that hangs until the timeout (rc 124): where each CPU was, as
# QEMU's monitor told scripts/vm-run.sh (LOG's .monitor.log).
printf '(qemu) info registers -a\r\nCPU#0\r\nRIP=ffffffff8100abcd RFL=00000002 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=0\r\nCPU#1\r\nRIP=ffffffff81001234 RFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=1\r\n' > "$tmp/died.monitor.log"
"$parse" "$tmp/died.log" 124 "$tmp/plan" > "$tmp/tap"
ok "$(grep -q '^not ok - vm finished (qemu rc=124, timed out)' "$tmp/tap" &&
      grep -q '^# qemu monitor: CPU#0 RIP=ffffffff8100abcd RFL=00000002 HLT=0; CPU#1 RIP=ffffffff81001234 RFL=00000246 HLT=1$' "$tmp/tap"
      echo $?)" "a VM that timed out says where each CPU was, from QEMU's monitor"

# A guest that dies while booting, before /init began any test, is one
# scripts/vm-suite.sh boots again (scripts/vm-boot-died.sh): its first
# word on it is named.  One that died after a test began is not.
died=$src/scripts/vm-boot-died.sh
printf 'SeaBIOS\r\n[    4.524682] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\r\n[    4.527050] Kernel panic - not syncing: Fatal exception\r\n' > "$tmp/boot.log"
why=$("$died" "$tmp/boot.log")
ok "$([ "$why" = "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" ]; echo $?)" \
	"a guest that died booting, before any test, is named for a second boot (got: $why)"
rc=0
"$died" "$tmp/died.log" > /dev/null || rc=$?
ok "$([ "$rc" = 1 ]; echo $?)" "a guest that died after a test began is not booted again (rc $rc)"

# scripts/plan.sh reads every tests/*/suite.plan of a tree.
mkdir -p "$tmp/tree/scripts" "$tmp/tree/tests/a"
cp "$src/scripts/env.sh" "$src/scripts/plan.sh" "$tmp/tree/scripts/"
printf '# comment\nvm test_a 4\nhost tests/a/test_h 2\n' > "$tmp/tree/tests/a/suite.plan"
out=$(FXTPROF_CACHE=$tmp/cache "$tmp/tree/scripts/plan.sh" vm 2>&1)
ok "$([ "$out" = "test_a 4" ]; echo $?)" "plan.sh gathers one kind's lines (got: $out)"

printf 'vm test_a 4\nvm@arm64,debug test_a 2\nvm test_b 1\n' > "$tmp/tree/tests/a/suite.plan"
a=$(FXTPROF_CACHE=$tmp/cache "$tmp/tree/scripts/plan.sh" vm arm64 2>&1 | tr '\n' ' ')
x=$(FXTPROF_CACHE=$tmp/cache "$tmp/tree/scripts/plan.sh" vm x86_64 2>&1 | tr '\n' ' ')
ok "$([ "$a" = "test_a 2 test_b 1 " ] && [ "$x" = "test_a 4 test_b 1 " ]; echo $?)" \
	"a vm@CFG line replaces the plain one for those configurations only (arm64: $a; x86_64: $x)"

printf 'vm test_a four\n' > "$tmp/tree/tests/a/suite.plan"
rc=0
FXTPROF_CACHE=$tmp/cache "$tmp/tree/scripts/plan.sh" vm > /dev/null 2>&1 || rc=$?
ok "$([ "$rc" -ne 0 ]; echo $?)" "a malformed plan line is an error (rc $rc)"

exit "$failed"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check.sh: what `make check` runs.  Setup; build the user programs for
# x86_64 and arm64 and the module for every kernel configuration; run the
# host tests, build and lint the Debian packages, then one VM suite per
# configuration and a short soak; then
# summarize every build/results/*.tap.  Steps keep going after a failure
# so one broken piece does not hide the others; a failed build is itself
# a failing TAP line.
#
# Every suite is held to its plan (tests/*/suite.plan, scripts/plan.sh):
# a planned program that is missing or gives fewer results fails, by name.
# The summary shows planned and ran for each suite, the time each phase
# took, and ends with the line "N passed, N failed"; the exit status is
# non-zero on any failure.
# CHECK_SUITES (default: every configuration of scripts/env.sh) limits
# the VM suites; the debug kernel is only built when "debug" is among them.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FXT_ROOT"

t0=$(date +%s)
phase= phase_t=$t0 phases=()
step() {	# step NAME: start a phase, closing the previous one
	local now
	now=$(date +%s)
	[ -z "$phase" ] || phases+=("$(printf '%-28s %5ss' "$phase" $((now - phase_t)))")
	phase=$* phase_t=$now
	[ -z "$phase" ] || echo "=== check: $phase (t+$((now - t0))s)"
}
rm -rf "$FXT_RESULTS"
mkdir -p "$FXT_RESULTS"
buildtap=$FXT_RESULTS/build.tap
echo "TAP version 13" > "$buildtap"
try() {	# try NAME CMD...: run CMD, record a TAP line for it
	local name=$1; shift
	if "$@" > "$FXT_RESULTS/$name.log" 2>&1; then
		echo "ok - $name" >> "$buildtap"
	else
		echo "not ok - $name (see build/results/$name.log)" >> "$buildtap"
		tail -n 30 "$FXT_RESULTS/$name.log"
	fi
}

suites=${CHECK_SUITES:-$FXT_CFGS}
want() { [[ " $suites " == *" $1 "* ]]; }

step setup
# Without what setup installs nothing below can be trusted: stop here.
scripts/setup.sh
if want debug; then
	# First: the long pole on a cold machine (cached afterwards).
	step "debug kernel"
	try build-debug-kernel scripts/build-debug-kernel.sh
fi
for arch in x86_64 arm64; do
	step "build $arch"
	try "build-$arch" make -k -j"$(nproc)" ARCH="$arch" user
done
step "build modules"
for cfg in $suites; do
	try "build-module-$cfg" make -k CFG="$cfg" module
done
if want x86_64; then
	step "sparse"
	try sparse-module-x86_64 scripts/sparse-module.sh x86_64
fi

step "host tests"
scripts/plan.sh host > "$FXT_RESULTS/host.plan"
# The plan says what must run; host-tests.list (written by make) says
# what was built.  Each program is its own suite, named for its path.
{ cut -d' ' -f1 "$FXT_RESULTS/host.plan"
  sed "s|^$FXT_BUILD/x86_64/||" build/x86_64/host-tests.list 2>/dev/null || true
} | awk '!seen[$0]++' | while read -r prog; do
	name=host-${prog//\//-}
	tap=$FXT_RESULTS/$name.tap
	line=$(grep -m1 "^$prog " "$FXT_RESULTS/host.plan" || true)
	if [ -z "$line" ]; then
		printf 'TAP version 13\nnot ok - %s: built, but is in no plan (add it to its folder'"'"'s suite.plan)\n1..1\n' "$prog" > "$tap"
		continue
	fi
	if [ ! -x "build/x86_64/$prog" ]; then
		printf 'TAP version 13\nnot ok - %s: planned %s tests, but the program was not built\n# plan: planned %s ran 0\n1..1\n' \
			"$prog" "${line#* }" "${line#* }" > "$tap"
		continue
	fi
	echo "$line" > "$FXT_RESULTS/$name.plan"
	rc=0
	{ echo "FXT-TEST-BEGIN $prog"
	  timeout -k 5 "${HOST_TEST_TIMEOUT:-300}" "build/x86_64/$prog" </dev/null 2>&1 || rc=$?
	  echo "FXT-TEST-END $prog rc=$rc"; } > "$FXT_RESULTS/$name.log"
	scripts/parse-vm-log.sh "$FXT_RESULTS/$name.log" host "$FXT_RESULTS/$name.plan" > "$tap"
done

# The Debian packages of debian/ (scripts/check-packages.sh): built with
# Debian's own libraries in a copy of the tree, linted, their contents
# and the DKMS-built, signed module checked.  After the host tests, whose
# recorders sample the whole machine and must not share it with a
# compiler.  Installing them in a fresh root is make check-packages-fresh.
step "packages"
scripts/check-packages.sh > "$FXT_RESULTS/packages.tap" 2> "$FXT_RESULTS/packages.log" || true
grep -qE '^(not )?ok' "$FXT_RESULTS/packages.tap" ||
	printf 'TAP version 13\nnot ok - packages: they were not built (see build/results/packages.log)\n1..1\n' \
		> "$FXT_RESULTS/packages.tap"

# One at a time: TCG already uses both cores, and tests that count
# samples must not share the CPU with another VM.  No fixed limit: a
# guest fails when no test has begun in it for VM_STALL_TIMEOUT seconds
# (scripts/vm-run.sh), however slowly a loaded host runs it.
for cfg in $suites; do
	step "vm suite $cfg"
	scripts/vm-suite.sh "$cfg" || true
done

# The short soak (scripts/soak.sh): two minutes of the recorders, after a
# warm-up, under a workload that forks forever, so that a leak cannot land.
if want x86_64; then
	step "soak x86_64"
	SOAK_NOBUILD=1 SOAK_SECS=150 SOAK_WARMUP=30 SOAK_TRIGGER=30 \
		SOAK_RESTART=60 scripts/soak.sh x86_64 > "$FXT_RESULTS/soak-x86_64.log" 2>&1 || true
	[ -f "$FXT_RESULTS/soak-x86_64.tap" ] ||
		printf 'TAP version 13\nnot ok - soak-x86_64: it did not run (see build/results/soak-x86_64.log)\n1..1\n' \
			> "$FXT_RESULTS/soak-x86_64.tap"
fi

step summary
pass=0 fail=0 skip=0
# planned and ran count the results of the suite's programs (a skip is
# not a result); passed and failed count the suite's own checks as well
# (a VM's insmod, rmmod and dmesg scan), so passed can exceed ran.
echo "planned/ran: the programs' results; passed/failed: those and the suite's own checks"
printf '%-40s %7s %5s %6s %6s %7s\n' suite planned ran passed failed skipped
for f in "$FXT_RESULTS"/*.tap; do
	p=$(grep -Ec '^ok\b' "$f" || true)
	s=$(grep -Ec '^(not )?ok\b.*# *(SKIP|skip)' "$f" || true)
	x=$(grep -E '^not ok\b' "$f" | grep -Evc '# *(SKIP|skip|TODO)' || true)
	p=$(( p - $(grep -Ec '^ok\b.*# *(SKIP|skip)' "$f" || true) ))
	read -r planned ran < <(sed -n 's/^# plan: planned \([0-9]*\) ran \([0-9]*\)$/\1 \2/p' "$f" | tail -n 1; echo "- -") || true
	printf '%-40s %7s %5s %6d %6d %7d\n' "$(basename "$f" .tap)" "${planned:--}" "${ran:--}" "$p" "$x" "$s"
	# A VM that died says how (scripts/parse-vm-log.sh), and one that
	# was booted twice why (scripts/vm-suite.sh): keep that too.
	grep -E '^not ok\b|^# (console|qemu|boot retried): ' "$f" | grep -Ev '^not ok.*# *(SKIP|skip|TODO)' | sed 's/^/    /' || true
	pass=$((pass + p)) fail=$((fail + x)) skip=$((skip + s))
done
step ""
echo
echo "time per phase:"
printf '  %s\n' "${phases[@]}"
echo "  total $(( $(date +%s) - t0 ))s"
# Nothing ran at all is a failure too.
[ $((pass + fail + skip)) -gt 0 ] || fail=$((fail + 1))
summary="$pass passed, $fail failed"
[ "$skip" -eq 0 ] || summary+=", $skip skipped"
echo "$summary" | tee "$FXT_RESULTS/summary"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check.sh: what `make check` runs.  Setup, build everything (x86_64,
# arm64 cross, debug kernel + module), run the host tests and the three
# VM suites, then summarize every build/results/*.tap.  Steps keep going
# after a failure so one broken piece does not hide the others; a build
# failure is itself a failing TAP line.  The last line printed is
# "N passed, N failed, N skipped"; exit status is non-zero on failure.
# CHECK_SUITES (default "x86_64 arm64 debug") limits the VM suites, and
# the debug kernel is only built when "debug" is among them.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FXT_ROOT"

t0=$(date +%s)
step() { echo "=== check: $* (t+$(( $(date +%s) - t0 ))s)"; }
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

suites=${CHECK_SUITES:-x86_64 arm64 debug}
want() { [[ " $suites " == *" $1 "* ]]; }

step setup
scripts/setup.sh
if want debug; then
	# First: the long pole on a cold machine (cached afterwards).
	step debug kernel
	try build-debug-kernel scripts/build-debug-kernel.sh
fi
step build x86_64
try build-x86_64 make -k ARCH=x86_64
step build arm64
try build-arm64 make -k ARCH=arm64
if want debug; then
	step build debug module
	try build-debug-module make -k ARCH=x86_64 CFG=debug module
fi

step host tests
if [ -f build/x86_64/host-tests.list ]; then
	while read -r t; do
		[ -x "$t" ] || continue
		# Unique per flavour: asan/tests/host/x and tests/host/x differ.
		name=${t#"$FXT_ROOT"/build/x86_64/}
		name=${name//\//-}
		rc=0
		{ echo "FXT-TEST-BEGIN $name"
		  timeout -k 5 "${HOST_TEST_TIMEOUT:-300}" "$t" </dev/null 2>&1 || rc=$?
		  echo "FXT-TEST-END $name rc=$rc"; } > "$FXT_RESULTS/host-$name.log"
		scripts/parse-vm-log.sh "$FXT_RESULTS/host-$name.log" host \
			> "$FXT_RESULTS/host-$name.tap"
	done < build/x86_64/host-tests.list
fi

# One at a time: TCG already uses both cores, and tests that count
# samples must not share the CPU with another VM.
export VM_TIMEOUT=${VM_TIMEOUT:-420}
for cfg in $suites; do
	step "vm suite $cfg"
	scripts/vm-suite.sh "$cfg" || true
done

step summary
pass=0 fail=0 skip=0
for f in "$FXT_RESULTS"/*.tap; do
	p=$(grep -Ec '^ok\b' "$f" || true)
	s=$(grep -Ec '^(not )?ok\b.*# *(SKIP|skip)' "$f" || true)
	x=$(grep -E '^not ok\b' "$f" | grep -Evc '# *(SKIP|skip|TODO)' || true)
	p=$(( p - $(grep -Ec '^ok\b.*# *(SKIP|skip)' "$f" || true) ))
	printf '%-24s %4d passed %4d failed %4d skipped\n' "$(basename "$f" .tap)" "$p" "$x" "$s"
	grep -E '^not ok\b' "$f" | grep -Ev '# *(SKIP|skip|TODO)' | sed 's/^/    /' || true
	pass=$((pass + p)) fail=$((fail + x)) skip=$((skip + s))
done
total=$((pass + fail + skip))
echo "check: $(( $(date +%s) - t0 ))s"
# Nothing ran at all is a failure too.
[ "$total" -gt 0 ] || fail=$((fail + 1))
echo "$pass passed, $fail failed, $skip skipped" | tee "$FXT_RESULTS/summary"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# vm-suite.sh CFG [KERNEL-ARGS...]
# Build the initramfs, boot it (scripts/vm-run.sh) and turn the serial
# log into build/results/vm-CFG.tap: every TAP result of every program,
# prefixed with the program's name, plus one "dmesg clean" line and a
# failing line if the VM did not finish, checked against the VM plan
# (scripts/plan.sh vm; PLAN=FILE names another).  Then the host halves
# of the tests whose recordings the board cannot name, the symbol tests
# (tests/symbols/check_symbols.sh) and the module's off-CPU test
# (tests/offcpu/check_offcpu.sh), read what the VM wrote to its console,
# into build/results/sym-CFG.tap, against the "sym" plan; SYM_CHECK=0
# leaves them out.  For debug, the kernel is then booted once more
# enforcing module signatures (scripts/vm-sig-enforce.sh, the "sig" plan,
# build/results/sig-debug.tap); SIG_CHECK=0 leaves that out.
# Exits non-zero on any failure.
#
# A guest that dies while it boots, before /init begins the first test
# (scripts/vm-boot-died.sh), is booted once more: nothing of ours has run
# by then.  The first boot's log is kept as vm-CFG.boot1.log, and the
# suite's TAP says why in a "# boot retried:" line that the summary of
# make check shows.  A death after the first test began is a failure.
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:?usage: vm-suite.sh CFG [KERNEL-ARGS...]}
shift
log=$FXT_RESULTS/vm-$cfg.log
tap=$FXT_RESULTS/vm-$cfg.tap
initrd=$FXT_BUILD/$cfg/initramfs.cpio.gz
mkdir -p "$FXT_RESULTS"
rm -f "$tap" "$log" "$FXT_RESULTS/sym-$cfg".{plan,log,tap}

planfile=$FXT_RESULTS/vm-$cfg.plan
if [ -n "${PLAN:-}" ]; then cp "$PLAN" "$planfile"; else "$FXT_ROOT/scripts/plan.sh" vm "$cfg" > "$planfile"; fi
"$FXT_ROOT/scripts/mkinitramfs.sh" "$cfg" "$initrd"
rc=0
"$FXT_ROOT/scripts/vm-run.sh" "$cfg" "$initrd" "$@" || rc=$?
retried=
if why=$("$FXT_ROOT/scripts/vm-boot-died.sh" "$log"); then
	for f in "$log" "${log%.log}.qemu.log" "${log%.log}.monitor.log"; do
		[ ! -f "$f" ] || mv "$f" "${f%.log}.boot1.log"
	done
	retried="# boot retried: the first boot died before any test ($why; ${log%.log}.boot1.log)"
	echo "vm-suite: $cfg: the guest died booting, before any test ($why): booting it once more"
	rc=0
	"$FXT_ROOT/scripts/vm-run.sh" "$cfg" "$initrd" "$@" || rc=$?
fi
"$FXT_ROOT/scripts/parse-vm-log.sh" "$log" "$rc" "$planfile" > "$tap"
[ -z "$retried" ] || echo "$retried" >> "$tap"
taps=("$tap")
if [ "${SYM_CHECK:-1}" != 0 ]; then
	# Recorded on the board, symbolized on the host, as a user does.
	sym=$FXT_RESULTS/sym-$cfg
	"$FXT_ROOT/scripts/plan.sh" sym > "$sym.plan"
	for half in symbols/check_symbols offcpu/check_offcpu; do
		name=${half#*/}
		src=0
		echo "FXT-TEST-BEGIN $name"
		timeout -k 5 "${SYM_CHECK_TIMEOUT:-300}" "$FXT_ROOT/tests/$half.sh" \
			"$log" "$FXT_BUILD/$cfg/${half%/*}" </dev/null 2>&1 || src=$?
		echo "FXT-TEST-END $name rc=$src"
	done > "$sym.log"
	"$FXT_ROOT/scripts/parse-vm-log.sh" "$sym.log" host "$sym.plan" > "$sym.tap"
	taps+=("$sym.tap")
fi
if [ "$cfg" = debug ] && [ "${SIG_CHECK:-1}" != 0 ]; then
	sig=$FXT_RESULTS/sig-$cfg
	rm -f "$sig.tap"
	"$FXT_ROOT/scripts/vm-sig-enforce.sh" "$cfg" > "$sig.out" 2>&1 || true
	[ -f "$sig.tap" ] ||
		printf 'TAP version 13\nnot ok - sig-%s: it did not run (see build/results/sig-%s.out)\n1..1\n' \
			"$cfg" "$cfg" > "$sig.tap"
	taps+=("$sig.tap")
fi
! grep -q '^not ok' "${taps[@]}"

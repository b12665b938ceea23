#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# vm-sig-enforce.sh [CFG]: the debug kernel enforcing module signatures.
# One more boot of the debug VM (CFG must be debug, the default), with
# module.sig_enforce=1 on its command line, running
# tests/vm/sig_enforce.vm.sh in command mode; scripts/vm-suite.sh runs it
# after the debug suite (so make check does, in the debug phase).
# The debug kernel trusts only the machine's test key
# (scripts/build-debug-kernel.sh), with which scripts/build-module.sh
# signed build/debug/kmod/fxtprof.ko and kept the unsigned file as
# fxtprof-unsigned.ko.  Here a copy of that one is signed with a second
# test key, one the kernel does not hold, and both go to /sig in the
# initramfs with kmod's modinfo of the signed files.
# The serial log, build/results/vm-CFG-sig_enforce.log, is parsed against
# the "sig" plan (scripts/plan.sh) into build/results/sig-CFG.tap; dmesg
# must be clean.  Exits non-zero on any failure.  A guest that dies while
# it boots is booted once more, as in scripts/vm-suite.sh.
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:-debug}
[ "$cfg" = debug ] || { echo "vm-sig-enforce.sh: only the debug kernel checks signatures, not $cfg" >&2; exit 2; }
fxt_cfg "$cfg" || exit 2
keys=$("$FXT_ROOT/scripts/build-debug-kernel.sh" --print-key-dir)
kmod=$FXT_BUILD/$cfg/kmod
dir=$FXT_BUILD/$cfg/sig
log=$FXT_RESULTS/vm-$cfg-sig_enforce.log
tap=$FXT_RESULTS/sig-$cfg.tap
plan=$FXT_RESULTS/sig-$cfg.plan
initrd=$FXT_BUILD/$cfg/initramfs-sig_enforce.cpio.gz
mkdir -p "$FXT_RESULTS"
rm -rf "$dir" "$tap" "$log"
mkdir -p "$dir"
"$FXT_ROOT/scripts/plan.sh" sig > "$plan"

# What the guest needs; a missing piece is a failing suite, not a crash.
if [ ! -f "$kmod/fxtprof-unsigned.ko" ] || [ ! -f "$keys/untrusted.key" ]; then
	printf 'TAP version 13\nnot ok 1 - sig_enforce: no %s or %s (make CFG=%s module)\n1..1\n' \
		"$kmod/fxtprof-unsigned.ko" "$keys/untrusted.key" "$cfg" > "$tap"
	cat "$tap"
	exit 1
fi
cp "$kmod/fxtprof-unsigned.ko" "$dir/unsigned.ko"
cp "$kmod/fxtprof-unsigned.ko" "$dir/untrusted.ko"
"$FXT_ROOT/scripts/sign-module.sh" "$keys/untrusted.key" "$keys/untrusted.crt" \
	"$dir/untrusted.ko" "$CFG_KDIR" > /dev/null
modinfo "$kmod/fxtprof.ko" > "$dir/fxtprof.modinfo"
modinfo "$dir/untrusted.ko" > "$dir/untrusted.modinfo"

"$FXT_ROOT/scripts/mkinitramfs.sh" "$cfg" "$initrd" \
	"$FXT_ROOT/tests/vm/sig_enforce.vm.sh:/cmd/sig_enforce" \
	"$FXT_ROOT/tests/scripts/tap.sh:/cmd/tap.sh" \
	"$dir/unsigned.ko:/sig/unsigned.ko" "$dir/untrusted.ko:/sig/untrusted.ko" \
	"$dir/fxtprof.modinfo:/sig/fxtprof.modinfo" \
	"$dir/untrusted.modinfo:/sig/untrusted.modinfo"
boot() {
	rc=0
	LOG=$log "$FXT_ROOT/scripts/vm-run.sh" "$cfg" "$initrd" \
		module.sig_enforce=1 fxtprof.run=/cmd/sig_enforce || rc=$?
}
boot
retried=
if why=$("$FXT_ROOT/scripts/vm-boot-died.sh" "$log"); then
	mv "$log" "${log%.log}.boot1.log"
	retried="# boot retried: the first boot died before any test ($why; ${log%.log}.boot1.log)"
	echo "vm-sig-enforce: the guest died booting, before any test ($why): booting it once more"
	boot
fi
"$FXT_ROOT/scripts/parse-vm-log.sh" "$log" "$rc" "$plan" > "$tap"
[ -z "$retried" ] || echo "$retried" >> "$tap"
cat "$tap"
! grep -q '^not ok' "$tap"

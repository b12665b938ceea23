#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# vm-suite.sh CFG [KERNEL-ARGS...]
# Build the initramfs, boot it (scripts/vm-run.sh) and turn the serial
# log into build/results/vm-CFG.tap: every TAP result of every program,
# prefixed with the program's name, plus one "dmesg clean" line and a
# failing line if the VM did not finish, checked against the VM plan
# (scripts/plan.sh vm; PLAN=FILE names another).  Exits non-zero on any
# failure.
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:?usage: vm-suite.sh CFG [KERNEL-ARGS...]}
shift
log=$FXT_RESULTS/vm-$cfg.log
tap=$FXT_RESULTS/vm-$cfg.tap
initrd=$FXT_BUILD/$cfg/initramfs.cpio.gz
mkdir -p "$FXT_RESULTS"
rm -f "$tap" "$log"

planfile=$FXT_RESULTS/vm-$cfg.plan
if [ -n "${PLAN:-}" ]; then cp "$PLAN" "$planfile"; else "$FXT_ROOT/scripts/plan.sh" vm > "$planfile"; fi
"$FXT_ROOT/scripts/mkinitramfs.sh" "$cfg" "$initrd"
rc=0
"$FXT_ROOT/scripts/vm-run.sh" "$cfg" "$initrd" "$@" || rc=$?
"$FXT_ROOT/scripts/parse-vm-log.sh" "$log" "$rc" "$planfile" > "$tap"
! grep -q '^not ok' "$tap"

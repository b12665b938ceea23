#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# vm-boot-died.sh LOG: did the guest whose serial log is LOG die while it
# booted, before /init began its first test (tests/vm/init.sh's first
# FXT-TEST-BEGIN)?  If so, print the kernel's first line about it (an
# Oops, BUG or panic; "no message" for a silent reset) and exit 0;
# otherwise exit 1.  Nothing of fxtprof has run by then: /init loads the
# module inside its first test, "init".
#
# scripts/vm-suite.sh boots such a guest once more.  Under QEMU TCG a
# guest kernel can die patching its own text at boot (a static key, with
# the other vCPU still running a stale translation of the old bytes:
# Documentation/testing.md, "Guest deaths under TCG"), which no test of
# ours can cause or prevent.
set -euo pipefail
log=${1:?usage: vm-boot-died.sh LOG}
[ -f "$log" ] || exit 1
if grep -aq 'FXT-TEST-BEGIN' "$log"; then
	exit 1
fi
why=$(tr -d '\r' < "$log" |
	grep -aEm1 'Oops|BUG:|Kernel panic|general protection|Unable to handle' |
	sed -E 's/^.*\[ *[0-9]+\.[0-9]+\] //' | cut -c1-120 || true)
echo "${why:-no message}"

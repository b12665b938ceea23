#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# vm-cmd.sh CFG SCRIPT [SRC:DEST ...] [-- KERNEL-ARGS...]
# Run SCRIPT in the VM's command mode (fxtprof.run=, see
# tests/vm/init.sh) instead of the test suite: the initramfs is the
# suite's (module, /tests programs on PATH) plus /cmd/SCRIPT and any
# extra files.  Prints what the script printed and exits with its status
# (or 1 if the VM never got there).  Full log:
# build/results/vm-CFG-<script name>.log.  Used by make demo / bench-*.
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:?usage: vm-cmd.sh CFG SCRIPT [SRC:DEST ...] [-- KERNEL-ARGS...]}
script=${2:?usage: vm-cmd.sh CFG SCRIPT [SRC:DEST ...] [-- KERNEL-ARGS...]}
shift 2
[ -f "$script" ] || { echo "vm-cmd.sh: $script does not exist (not written yet?)" >&2; exit 1; }
files=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do files+=("$1"); shift; done
[ "${1:-}" = -- ] && shift

name=$(basename "$script" .sh)
initrd=$FXT_BUILD/$cfg/initramfs-$name.cpio.gz
export LOG=$FXT_RESULTS/vm-$cfg-$name.log
"$FXT_ROOT/scripts/mkinitramfs.sh" "$cfg" "$initrd" "$script:/cmd/$name" "${files[@]}"
"$FXT_ROOT/scripts/vm-run.sh" "$cfg" "$initrd" "fxtprof.run=/cmd/$name" "$@" || true

# Echo the script's own output; its rc is on the END marker.  awk reads
# the log itself: a pipe into an awk that stops early would SIGPIPE the
# writer, and pipefail would turn that into the status (141).
awk '
	{ sub(/\r$/, "") }
	/FXT-RUN-END rc=/ { sub(/.*rc=/, ""); rc = $1; exit }
	on { print }
	/FXT-RUN-BEGIN/ { on = 1 }
	END { exit (rc == "" ? 1 : rc) }' "$LOG"

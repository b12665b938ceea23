#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_vm_cmd.sh: scripts/vm-cmd.sh exits with the status of the script it
# ran in the VM, and prints that script's output, however long the log
# goes on after it (a pipe into an early-exiting reader once made the
# status 141).  The VM is a stand-in vm-run.sh that writes a serial log;
# mkinitramfs.sh is a stand-in too.  TAP on stdout.
set -uo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/scripts" "$tmp/cache"
cp "$src/scripts/env.sh" "$src/scripts/vm-cmd.sh" "$tmp/root/scripts/"
printf '#!/bin/sh\nmkdir -p "$(dirname "$2")" && : > "$2"\n' > "$tmp/root/scripts/mkinitramfs.sh"
# The stand-in VM: console junk, the script's output and status, then a
# long dmesg, as tests/vm/init.sh prints them.
cat > "$tmp/root/scripts/vm-run.sh" <<'VM'
#!/bin/sh
mkdir -p "$(dirname "$LOG")"
{
	printf 'SeaBIOS junk\r\n'
	[ -n "$NO_END" ] || { printf 'FXT-RUN-BEGIN /cmd/x\r\n'; printf 'line one\r\nline two\r\n'; }
	[ -n "$NO_END" ] || printf 'FXT-RUN-END rc=%s\r\n' "$SCRIPT_RC"
	i=0
	while [ $i -lt 20000 ]; do printf '[ %d.000000] dmesg line of some length to fill a pipe\r\n' $i; i=$((i + 1)); done
	printf 'FXT-VM: done\r\n'
} > "$LOG"
VM
chmod +x "$tmp/root/scripts"/*.sh
echo 'echo script' > "$tmp/script.sh"
export FXTPROF_CACHE=$tmp/cache

. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

echo "TAP version 13"
echo "1..4"

bad=0
for i in $(seq 30); do
	rc=0
	out=$(SCRIPT_RC=3 "$tmp/root/scripts/vm-cmd.sh" x86_64 "$tmp/script.sh" 2>/dev/null) || rc=$?
	[ "$rc" -eq 3 ] || { bad=$((bad + 1)); echo "# run $i: rc $rc"; }
done
ok "$bad" "the script's status (3) comes back in 30 of 30 runs"

rc=0
out=$(SCRIPT_RC=0 "$tmp/root/scripts/vm-cmd.sh" x86_64 "$tmp/script.sh" 2>/dev/null) || rc=$?
ok "$rc" "status 0 comes back as 0 (rc $rc)"
ok "$([ "$out" = "$(printf 'line one\nline two')" ]; echo $?)" "the script's output, and only it, is printed"

rc=0
NO_END=1 SCRIPT_RC=0 "$tmp/root/scripts/vm-cmd.sh" x86_64 "$tmp/script.sh" > /dev/null 2>&1 || rc=$?
ok "$([ "$rc" -eq 1 ]; echo $?)" "a VM that never reached the end of the script gives 1 (rc $rc)"
exit "$failed"

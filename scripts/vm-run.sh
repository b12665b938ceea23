#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# vm-run.sh CFG INITRD [KERNEL-ARGS...]
# Boot the test VM under QEMU TCG and save the serial console to
# $LOG (default build/results/vm-CFG.log).  Always returns once QEMU is
# gone: the guest ends itself with `reboot -f` (-no-reboot turns that,
# and panic=-1, into a QEMU exit) and a watchdog bounds a hung guest.
# QEMU's own log of CPU resets and guest errors goes to LOG with
# .qemu.log for .log: a guest that resets itself (a triple fault) leaves
# no trace on the console, only there.
# Exit status: QEMU's, or 124 when the watchdog stopped it (below).
# Env: VM_STALL_TIMEOUT seconds without a new test (default 600),
# VM_TIMEOUT seconds in all (default 3600), VM_MEM, FXTPROF_KVM=1 to use
# KVM (opt-in: nested KVM hangs on the CI machines), VM_LOCK (below).
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:?usage: vm-run.sh CFG INITRD [KERNEL-ARGS...]}
initrd=${2:?usage: vm-run.sh CFG INITRD [KERNEL-ARGS...]}
shift 2
fxt_cfg "$cfg" || exit 2
kernel=$CFG_KERNEL
log=${LOG:-$FXT_RESULTS/vm-$cfg.log}
qlog=${log%.log}.qemu.log
mkdir -p "$(dirname "$log")"

# slub_debug: redzones/poisoning catch ring and record overruns even on
# the non-KASAN kernels.  loglevel=4 keeps info chatter off the console
# (it would interleave with TAP); dmesg is printed in full at the end.
cmdline="panic=-1 slub_debug loglevel=4 $*"
accel=(-accel tcg,thread=multi)
if [ "${FXTPROF_KVM:-0}" = 1 ]; then accel=(-accel kvm -cpu host); fi
net=(-netdev user,id=n0 -device virtio-net-pci,netdev=n0)

case $CFG_ARCH in
x86_64)
	if [ "$cfg" = debug ]; then
		mem=${VM_MEM:-2G}	# KASAN shadow + kmemleak metadata
		# Under TCG, ACPI table parsing with KASAN and lockdep can hold
		# PID 1 on a CPU for 20 s during early boot (the kernel is
		# PREEMPT_NONE), which the soft-lockup detector reports at
		# 2 x watchdog_thresh.  Boot with the largest threshold; /init
		# puts back the default of 10 before the module is loaded.
		cmdline="watchdog_thresh=60 $cmdline"
	else
		mem=${VM_MEM:-1G}
	fi
	# tsc=reliable: TCG's TSC fails the kernel's checks sooner or later
	# (the sync check when a CPU comes back online, the clocksource
	# watchdog), and the kernel then turns sched_clock's static key off
	# by patching text while the other CPU runs.  Under multi-threaded
	# TCG that CPU can still execute the patch's int3 afterwards: an
	# Oops in sched_clock_cpu, seen after test_protocol's hotplug cycles
	# on 6.12.  tsc=reliable skips both checks, so the TSC stays the
	# clock and the key is never patched.  (tsc=unstable avoided the
	# patching too, but left the guests on the HPET, whose every read
	# TCG emulates: the debug kernel's readers then fell behind.)
	[ "${FXTPROF_KVM:-0}" = 1 ] || { accel+=(-cpu max); cmdline="tsc=reliable $cmdline"; }
	qemu=(qemu-system-x86_64 -M pc "${accel[@]}" -smp 2 -m "$mem"
		-kernel "$kernel" -append "console=ttyS0 $cmdline")
	;;
arm64)
	# qemu -kernel wants a raw Image; some Debian arm64 kernels ship
	# it gzip'd.
	if gzip -t "$kernel" 2>/dev/null; then
		zcat "$kernel" > "$FXT_DEPS/arm64/Image-$CFG_KREL"
		kernel=$FXT_DEPS/arm64/Image-$CFG_KREL
	fi
	[ "${FXTPROF_KVM:-0}" = 1 ] || accel+=(-cpu max,pauth-impdef=on)
	qemu=(qemu-system-aarch64 -M virt "${accel[@]}" -smp 2 -m "${VM_MEM:-1G}"
		-kernel "$kernel" -append "console=ttyAMA0 $cmdline")
	;;
esac
[ -f "$kernel" ] || { echo "vm-run.sh: no kernel image $kernel (run scripts/setup.sh)" >&2; exit 2; }

# One guest at a time on this host: two TCG guests on a small machine
# starve each other's timers and the sampling tests that measure them.
# A second vm-run (another checkout's `make check`, a developer's
# vm-suite) waits here, before its watchdog starts.  VM_LOCK=none skips it.
vm_lock=${VM_LOCK:-${TMPDIR:-/tmp}/fxtprof-vm-run.lock}
if [ "$vm_lock" != none ]; then
	exec 8>>"$vm_lock"
	if ! flock -n 8; then
		echo "vm-run: $cfg: waiting for the other guest on this host ($vm_lock)"
		flock 8
	fi
fi

# A guest's pace is the host's: under TCG on a loaded host every test
# runs slower, so no fixed limit fits both.  The watchdog fails a guest in
# which no test has begun (an FXT-TEST-BEGIN line on the console) for
# VM_STALL_TIMEOUT seconds, and any guest after VM_TIMEOUT; either way it
# first asks the monitor (two FIFOs, QEMU's pipe chardev) where every CPU
# is, into LOG's .monitor.log for parse-vm-log.sh (a hung guest says
# nothing either), and the exit status is 124.
vm_timeout=${VM_TIMEOUT:-3600}
vm_stall=${VM_STALL_TIMEOUT:-600}
mlog=${log%.log}.monitor.log
mon=$(mktemp -d)
mkfifo "$mon/m.in" "$mon/m.out"
rm -f "$mlog"

# </dev/null: CI has no stdin, and -nographic would otherwise grab the tty.
start=$(date +%s)
rc=0
: > "$log"
timeout -k 10 "$vm_timeout" "${qemu[@]}" -initrd "$initrd" \
	"${net[@]}" -nographic -serial stdio -monitor "pipe:$mon/m" -no-reboot \
	-d cpu_reset,guest_errors -D "$qlog" \
	</dev/null >"$log" 2>&1 & vm=$!
(
	begun=0 seen=$start
	while kill -0 $vm 2>/dev/null; do
		sleep 5	# the watchdog's poll: how often it reads the log
		now=$(date +%s)
		n=$(grep -c '^FXT-TEST-BEGIN' "$log" || true)
		if [ "$n" != "$begun" ]; then begun=$n seen=$now; fi
		if [ $((now - seen)) -ge "$vm_stall" ]; then
			why="no test began for $((now - seen))s (VM_STALL_TIMEOUT=$vm_stall)"
		elif [ $((now - start)) -ge $((vm_timeout - 10)) ]; then
			why="it ran for $((now - start))s (VM_TIMEOUT=$vm_timeout)"
		else
			continue
		fi
		echo "info registers -a" > "$mon/m.in"
		timeout 3 cat "$mon/m.out" > "$mlog" || true
		echo "$why" > "$mon/why"
		kill $vm 2>/dev/null
		exit 0
	done
) & watcher=$!
wait $vm || rc=$?
kill $watcher 2>/dev/null || true
wait $watcher 2>/dev/null || true
if [ -s "$mon/why" ]; then
	echo "vm-run: $cfg stopped, the guest is hung or too slow: $(cat "$mon/why")" >&2
	rc=124
fi
rm -rf "$mon"
echo "vm-run: $cfg finished in $(( $(date +%s) - start ))s (rc=$rc), log $log" >&2
exit $rc

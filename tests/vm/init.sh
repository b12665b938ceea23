#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the fxtprof test VM (busybox initramfs built by
# scripts/mkinitramfs.sh).  Everything goes to the serial console, which
# scripts/vm-run.sh saves and scripts/vm-suite.sh parses.
#
# Suite mode (default): insmod /fxtprof.ko, run every /tests/test_*
# between FXT-TEST-BEGIN/FXT-TEST-END markers, rmmod, kmemleak scan,
# dmesg between FXT-DMESG-BEGIN/END, reboot (QEMU runs with -no-reboot,
# so that ends the VM on every kernel, with or without ACPI).
#
# Command mode: kernel cmdline fxtprof.run=/path/script.  Same setup
# (mounts, network, insmod), then `sh /path/script` between
# FXT-RUN-BEGIN / FXT-RUN-END rc=N instead of the tests; rmmod, dmesg
# and shutdown as in suite mode.  The script sees FXTPROF_KO and
# FXTPROF_LOADED (1 if the insmod worked); fxtprof.noload=1 skips the
# insmod so the script can load the module itself (e.g. with params).
# Other cmdline knobs: fxtprof.timeout=SECONDS per test (default 120).

export PATH=/bin:/sbin:/usr/bin:/usr/sbin:/tests
export HOME=/root TERM=dumb

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
hostname fxtvm

run= ; timeout=120 ; noload=
for arg in $(cat /proc/cmdline); do
	case $arg in
	fxtprof.run=*) run=${arg#*=} ;;
	fxtprof.timeout=*) timeout=${arg#*=} ;;
	fxtprof.noload=1) noload=1 ;;
	esac
done

echo "FXT-VM: kernel $(uname -r) $(uname -m), $(grep -c ^processor /proc/cpuinfo) cpus, uptime $(cut -d' ' -f1 /proc/uptime)s"
# Where KASLR put the kernel: turns an instruction pointer that QEMU's
# monitor gives for a hung VM into a symbol of the kernel's System.map.
echo "FXT-VM: _text at $(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)"

# Network: the Debian kernels need virtio_net and its deps as modules
# (mkinitramfs numbers them in load order); QEMU user networking puts the
# host's loopback at 10.0.2.2.
for m in /lib/modules/*.ko; do
	[ -e "$m" ] && insmod "$m"
done
ifconfig lo 127.0.0.1 up
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if ifconfig eth0 10.0.2.15 netmask 255.255.255.0 up 2>/dev/null; then
	route add default gw 10.0.2.2
else
	echo "FXT-VM: no eth0"
fi

# The debug kernel boots with watchdog_thresh=60 (see scripts/vm-run.sh);
# from here on, soft lockups are caught at the kernel's default.
[ -w /proc/sys/kernel/watchdog_thresh ] && echo 10 > /proc/sys/kernel/watchdog_thresh

kmemleak=/sys/kernel/debug/kmemleak
if [ -w $kmemleak ]; then
	# Forget what boot leaked so the final report is about the module.
	echo scan > $kmemleak
	echo clear > $kmemleak
fi

ntap=0
tap() {	# tap ok|"not ok" description: a TAP line of init's own
	ntap=$((ntap + 1))
	echo "$1 $ntap $2"
}

echo "FXT-TEST-BEGIN init"
echo "TAP version 13"
export FXTPROF_KO=/fxtprof.ko FXTPROF_LOADED=0
if [ -n "$noload" ]; then
	:
elif [ ! -e /fxtprof.ko ]; then
	tap "not ok" "insmod fxtprof.ko # no module in initramfs"
elif insmod /fxtprof.ko; then
	FXTPROF_LOADED=1
	tap ok "insmod fxtprof.ko"
else
	tap "not ok" "insmod fxtprof.ko"
fi
echo "FXT-TEST-END init rc=0"

if [ -n "$run" ]; then
	echo "FXT-RUN-BEGIN $run"
	sh "$run"
	echo "FXT-RUN-END rc=$?"
else
	for t in /tests/test_*; do
		[ -x "$t" ] || continue
		name=${t##*/}
		# The uptime places a test against the kernel log's times.
		echo "FXT-TEST-BEGIN $name at $(cut -d' ' -f1 /proc/uptime)s"
		# cd so tests may use relative scratch files; KILL because a
		# test stuck in the kernel ignores TERM.
		(cd /tmp && timeout -s KILL "$timeout" "$t")
		echo "FXT-TEST-END $name rc=$?"
	done
fi

echo "FXT-TEST-BEGIN fini"
ntap=0
if grep -q '^fxtprof ' /proc/modules; then
	if rmmod fxtprof; then tap ok "rmmod fxtprof"; else tap "not ok" "rmmod fxtprof"; fi
fi
echo "FXT-TEST-END fini rc=0"

if [ -w $kmemleak ]; then
	# kmemleak only reports objects older than 5 s, and the first scan
	# after a free can still see stale references: wait, scan twice.
	# (The condition is the objects' age itself, so this is a sleep.)
	sleep 6
	echo scan > $kmemleak
	echo scan > $kmemleak
	echo "FXT-KMEMLEAK-BEGIN"
	cat $kmemleak
	echo "FXT-KMEMLEAK-END"
fi

echo "FXT-DMESG-BEGIN"
dmesg
echo "FXT-DMESG-END"
echo "FXT-VM: done, uptime $(cut -d' ' -f1 /proc/uptime)s"
sync
reboot -f
sleep 5	# not a wait for anything: reboot -f did not end us, so power off
poweroff -f

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-units-vm.sh (make check-units-vm, root): the systemd units of the
# fxtprof package started by a real systemd.  A Debian 12 root (mmdebstrap
# minbase from this machine's bookworm apt sources) with systemd and
# systemd-sysv, and the fxtprof .deb of make check-packages installed by
# apt, is the whole initramfs of the x86_64 VM (Debian's 6.1 kernel under
# QEMU TCG), and /lib/systemd/systemd its PID 1 (rdinit=).  A test unit
# there runs tests/units/units.vm.sh after multi-user.target and ends
# the VM when it is done (step 4).  TAP on stdout; the console log and the
# root's log under build/packages/units-vm/.
#  1. the root: built, or taken from the cache (build/units-vm-root/,
#     keyed by the .deb's and the package list's hashes: a rerun with the
#     same package does not download);
#  2. a second archive on top: fxtprof.ko of make (build/x86_64/kmod/)
#     where modprobe finds it (updates/, depmod), the modules of Debian's
#     kernel that systemd and ss load, the test unit and its script;
#  3. the guest's results (units.vm.sh: receive listens as its dynamic
#     user and writes 0600 files, record@ streams into it with the module
#     its ExecStartPre loads, and reconnects when receive restarts, then
#     with the bpf source when the module cannot be loaded,
#     systemd-analyze security's ratings, no failed unit);
#  4. the console: the guest shut down (the test unit's SuccessAction=
#     reboot, which -no-reboot turns into QEMU's exit), its plan was run,
#     and dmesg holds no warning (scripts/parse-vm-log.sh, as every VM run).
# Boots one VM: it takes the shared VM lock of scripts/vm-run.sh.
# Env: FXTPROF_UNITS_VM_REBUILD=1 builds the root even when cached.
set -uo pipefail
. "$(dirname "$0")/env.sh"
. "$FXT_ROOT/tests/scripts/tap.sh"
cd "$FXT_ROOT" || exit 1

[ "$(id -u)" = 0 ] || { echo "check-units-vm: must run as root (mmdebstrap --mode=root)" >&2; exit 1; }
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb=$FXT_ROOT/build/packages/src/fxtprof_${version}_amd64.deb
[ -f "$deb" ] || { echo "check-units-vm: no $deb (make check-packages first)" >&2; exit 1; }
fxt_cfg x86_64 || exit 1
ko=$FXT_BUILD/x86_64/kmod/fxtprof.ko
[ -f "$ko" ] || { echo "check-units-vm: no $ko (make first)" >&2; exit 1; }
fxt_bookworm_sources || exit 1

# What the root holds besides the package: the init system, modprobe for
# record@'s ExecStartPre, ss for the test.
pkgs=systemd,systemd-sysv,kmod,iproute2
# Modules of Debian's kernel: systemd mounts autofs (autofs4), ss asks
# the kernel with sock_diag (tcp_diag, unix_diag).
kmods="autofs4 tcp_diag unix_diag"
# The guest's results (tests/units/units.vm.sh's plan).
guest_plan=18

out=$FXT_ROOT/build/packages/units-vm
cache=$FXT_BUILD/units-vm-root
key=$( { sha256sum < "$deb"; echo "$pkgs"; } | sha256sum | cut -c1-16)
root_cpio=$cache/root-$key.cpio.zst
rm -rf "$out" && mkdir -p "$out" "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The Debian root, apt-installed, as a zstd newc archive (the kernel
# unpacks zstd faster than gzip under TCG).
make_root() {
	if [ -f "$root_cpio" ] && [ "${FXTPROF_UNITS_VM_REBUILD:-0}" != 1 ]; then
		echo "# root from the cache: $root_cpio" >&3
		return 0
	fi
	mmdebstrap --quiet --mode=root --variant=minbase --include="$pkgs" \
		--customize-hook="cp $(printf '%q' "$deb") \"\$1/tmp/\"" \
		--customize-hook="chroot \"\$1\" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/$(basename "$deb") && rm /tmp/*.deb && apt-get clean'" \
		--customize-hook="rm -rf \"\$1\"/var/lib/apt/lists/*" \
		bookworm "$tmp/root" "${FXT_SOURCES[@]}" > "$out/root.log" 2>&1 ||
		{ tail -20 "$out/root.log"; return 1; }
	[ -x "$tmp/root/usr/bin/fxtprof" ] && [ -f "$tmp/root/lib/systemd/system/fxtprof-receive.service" ] ||
		{ echo "the package's files are not in the root"; return 1; }
	rm -f "$cache"/root-*.cpio.zst
	(cd "$tmp/root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) |
		zstd -q -T2 -10 > "$root_cpio.tmp" && mv "$root_cpio.tmp" "$root_cpio"
	rm -rf "$tmp/root"
	echo "# root built: $root_cpio ($(du -h "$root_cpio" | cut -f1))" >&3
}

# 2. What the test adds: the module, the kernel's modules systemd and ss
# need, the test unit and its script.  The kernel unpacks it over the root.
make_overlay() {
	local o=$tmp/overlay m mdir=usr/lib/modules/$CFG_KREL
	mkdir -p "$o/$mdir/updates" "$o/$mdir/kernel" "$o/dev" \
		"$o/etc/systemd/system/multi-user.target.wants" "$o/usr/local/lib/fxtprof-units-vm"
	install -m 0644 "$ko" "$o/$mdir/updates/fxtprof.ko"
	for m in $(modprobe -a -S "$CFG_KREL" --show-depends $kmods |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		install -D -m 0644 "$m" "$o/$mdir/kernel/${m#/lib/modules/$CFG_KREL/kernel/}"
	done
	cp /lib/modules/"$CFG_KREL"/modules.{order,builtin,builtin.modinfo} "$o/$mdir/"
	depmod -b "$o/usr" "$CFG_KREL" || return 1
	modprobe -d "$o/usr" -S "$CFG_KREL" --show-depends fxtprof | grep -q updates/fxtprof.ko ||
		{ echo "modprobe does not find fxtprof in the overlay"; return 1; }
	mknod -m 0600 "$o/dev/console" c 5 1
	install -m 0755 tests/units/units.vm.sh "$o/usr/local/lib/fxtprof-units-vm/units.vm.sh"
	cat > "$o/etc/systemd/system/fxt-units-test.service" <<-'EOF'
	# SPDX-License-Identifier: GPL-2.0-only
	[Unit]
	Description=fxtprof: the package's units in a real systemd
	After=multi-user.target
	SuccessAction=reboot
	FailureAction=reboot
	[Service]
	Type=oneshot
	ExecStart=/usr/local/lib/fxtprof-units-vm/units.vm.sh
	StandardOutput=tty
	StandardError=inherit
	TTYPath=/dev/ttyS0
	EOF
	ln -s ../fxt-units-test.service "$o/etc/systemd/system/multi-user.target.wants/"
	# No login prompt on the console the results go to
	ln -s /dev/null "$o/etc/systemd/system/serial-getty@ttyS0.service"
	ln -s /dev/null "$o/etc/systemd/system/getty.target"
	chmod 0755 "$o"
	(cd "$o" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		zstd -q > "$tmp/overlay.cpio.zst" &&
	cat "$root_cpio" "$tmp/overlay.cpio.zst" > "$out/initramfs.cpio.zst"
}

echo "TAP version 13"
echo "1..$((3 + guest_plan))"
exec 3>&1
start=$(date +%s)
t debian_root_with_the_package make_root
t initramfs_with_the_module_and_the_test_unit make_overlay
built=$(date +%s)

# The guest runs its plan; the watchdog of vm-run.sh bounds a guest that
# never gets to it (a boot that hangs) or never ends (a shutdown that
# hangs).  A run takes about 2 minutes on an idle machine; the caps leave
# room for a loaded one.
log=$out/console.log
LOG=$log VM_MEM=2G VM_STALL_TIMEOUT=${VM_STALL_TIMEOUT:-600} VM_TIMEOUT=${VM_TIMEOUT:-900} \
	scripts/vm-run.sh x86_64 "$out/initramfs.cpio.zst" rdinit=/lib/systemd/systemd \
	systemd.show_status=error > "$out/vm-run.out" 2>&1
qrc=$?
ended=$(date +%s)

# 3. The guest's results, renumbered into this plan; a result it did not
# print is a failure here.
guest=$(tr -d '\r' < "$log" | awk '/FXT-TEST-BEGIN units_vm/ { on = 1; next }
	/FXT-TEST-END units_vm/ { on = 0 } on')
got=0
while IFS= read -r line; do
	case $line in
	"ok "[0-9]*|"not ok "[0-9]*)
		got=$((got + 1))
		[ $got -le $guest_plan ] || continue
		desc=$(sed -E 's/^(not )?ok [0-9]+ ?//' <<<"$line")
		case $line in ok*) ok 0 "guest: $desc" ;; *) ok 1 "guest: $desc" ;; esac ;;
	"#   "*) ;;	# the units' journal: in the console log only
	"# "*) echo "$line" ;;
	esac
done <<<"$guest"
while [ $got -lt $guest_plan ]; do
	got=$((got + 1))
	ok 1 "guest: result $got of $guest_plan not printed (the VM did not get there; $log)"
done
[ "$(grep -c '^ok \|^not ok ' <<<"$guest")" -le $guest_plan ] ||
	echo "# the guest printed more results than its plan of $guest_plan"

# 4. The console as every VM run reads it
echo "units_vm $guest_plan" > "$tmp/plan"
scripts/parse-vm-log.sh "$log" "$qrc" "$tmp/plan" > "$out/parse.tap"
# QEMU's status 0: the guest's shutdown ended it (-no-reboot), not the
# watchdog (124), which parse-vm-log.sh does not see once the guest is done.
clean() {
	[ "$qrc" = 0 ] || { echo "qemu status $qrc ($out/vm-run.out)"; cat "$out/vm-run.out"; }
	! grep '^not ok' "$out/parse.tap" && grep -q '^ok - dmesg clean' "$out/parse.tap" && [ "$qrc" = 0 ]
}
t vm_shut_down_dmesg_clean_plan_run clean
boot=$(tr -d '\r' < "$log" | sed -n 's/.*FXT-TEST-BEGIN units_vm at \([0-9.]*\)s.*/\1/p')
echo "# root and initramfs ${built:+$((built - start))}s, VM $((ended - built))s (qemu rc=$qrc), guest reached its test at ${boot:-?}s of uptime"
exit $failed

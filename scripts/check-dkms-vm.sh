#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-dkms-vm.sh (make check-dkms-vm): the module as fxtprof-dkms builds
# it, in the x86_64 VM.  Needs the packages of make check-packages and the
# VM suite's programs (make); boots one VM, so run it where VMs are run
# one at a time.  TAP on stdout; files under build/packages/dkms-vm/.
#  1. the sources unpacked from fxtprof-dkms build fxtprof.ko with
#     dkms.conf's make line against Debian's 6.1 headers (the VM's kernel);
#  2. scripts/sign-module.sh signs it with a key made for the run;
#  3. the VM's init loads that file (KO=, scripts/mkinitramfs.sh);
#  4. tests/vm/test_device passes against it, every test.
# The key is not one the VM's kernel trusts, so the kernel loads the module
# tainted ("module verification failed"), as Debian's kernels do without
# Secure Boot; a kernel that enforces signatures is not tried here.
set -uo pipefail
. "$(dirname "$0")/env.sh"
. "$FXT_ROOT/tests/scripts/tap.sh"
cd "$FXT_ROOT" || exit 1

version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb=build/packages/src/fxtprof-dkms_${version}_all.deb
[ -f "$deb" ] || { echo "check-dkms-vm: no $deb (make check-packages first)" >&2; exit 1; }
fxt_cfg x86_64 || exit 1
dir=$FXT_ROOT/build/packages/dkms-vm
build=$dir/dkms/fxtprof/$version/build
ko=$build/fxtprof.ko
rm -rf "$dir" && mkdir -p "$dir/dkms/fxtprof/$version"
key=$(mktemp -d)
trap 'rm -rf "$key"' EXIT

dkms_build() {
	dpkg-deb -x "$deb" "$dir/root" &&
	cp -r "$dir/root/usr/src/fxtprof-$version" "$build" || return 1
	make_line=$(kernel_source_dir=$CFG_KDIR dkms_tree=$dir/dkms bash -c ". '$build/dkms.conf' && echo \"\${MAKE[0]}\"")
	$make_line > "$dir/build.log" 2>&1 || { tail -20 "$dir/build.log"; return 1; }
	modinfo -F vermagic "$ko" | grep -q "^$CFG_KREL "
}
sign() {
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -outform DER \
		-subj "/CN=fxtprof check-dkms-vm/" -keyout "$key/key.pem" -out "$key/cert.der" \
		> /dev/null 2>&1 &&
	scripts/sign-module.sh "$key/key.pem" "$key/cert.der" "$ko" "$CFG_KDIR" &&
	[ "$(modinfo -F signer "$ko")" = "fxtprof check-dkms-vm" ]
}

echo "TAP version 13"
echo "1..4"
t module_built_from_the_dkms_sources dkms_build
t module_signed sign
KO=$ko scripts/vm-cmd.sh x86_64 tests/vm/dkms_device.vm.sh > "$dir/vm.out" 2>&1
vmrc=$?
t loaded_in_the_x86_64_vm grep -q '^loaded=1$' "$dir/vm.out"
device() {
	[ "$vmrc" -eq 0 ] && grep -qE '^# Totals: pass:[1-9][0-9]* fail:0 ' "$dir/vm.out" ||
		{ tail -20 "$dir/vm.out"; return 1; }
}
t test_device_passes_with_it device
exit $failed

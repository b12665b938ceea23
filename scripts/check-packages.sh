#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-packages.sh (make check-packages): the Debian packages of debian/,
# built and checked on this machine.  TAP on stdout; logs and the .deb
# files under build/packages/.
#  1. the tree (tracked and new files, as git sees them) is copied to
#     build/packages/src/fxtprof-VERSION, so that dpkg-buildpackage writes
#     its packages next to it, under build/, and its clean touches no
#     build of the tree;
#  2. dpkg-buildpackage -us -uc -b builds there, with Debian's libraries;
#  3. it made fxtprof, fxtprof-dkms, libfxtprof-dev and libfxtprof-hooks0;
#  4. lintian --fail-on error,warning passes them (debian/*.lintian-overrides
#     say why for each tag they hide);
#  5. each holds its files: the command, its pages, completion and units;
#     the DKMS sources and dkms.conf; the headers, pkg-config files and the
#     .so link; the library under its soname;
#  6. the DKMS sources of fxtprof-dkms build fxtprof.ko against Debian's
#     6.1 headers, with dkms.conf's own make line, vermagic that kernel's;
#  7. scripts/sign-module.sh signs that module with a key made for the
#     test (modinfo names its signer), and refuses a key inside the tree.
# Not here: installing the packages (apt-get install, dkms status, purge)
# in a fresh root, and loading the DKMS-built module in the VM.
set -uo pipefail
. "$(dirname "$0")/env.sh"
. "$FXT_ROOT/tests/scripts/tap.sh"
cd "$FXT_ROOT" || exit 1

version=$(dpkg-parsechangelog -l debian/changelog -S Version)
out=$FXT_ROOT/build/packages
src=$out/src/fxtprof-$version
debs="fxtprof_${version}_amd64.deb fxtprof-dkms_${version}_all.deb
libfxtprof-dev_${version}_amd64.deb libfxtprof-hooks0_${version}_amd64.deb"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each result runs in a subshell (tap.sh's t): what two share is set here.
fxt_cfg x86_64 || exit 1
ko=$tmp/dkms/fxtprof/$version/build/fxtprof.ko

copy_tree() {
	rm -rf "$out/src" && mkdir -p "$src" &&
	git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src"
}
build() {
	(cd "$src" && dpkg-buildpackage -us -uc -b -j2) > "$out/build.log" 2>&1 ||
		{ tail -40 "$out/build.log"; return 1; }
}
all_built() {
	local d bad=0
	for d in $debs; do [ -f "$out/src/$d" ] || { echo "no $d"; bad=1; }; done
	return $bad
}
lint() {
	lintian --fail-on error,warning "$out/src/fxtprof_${version}_amd64.changes" \
		> "$out/lintian.log" 2>&1 || { cat "$out/lintian.log"; return 1; }
}
# has DEB PATH...: every PATH is in DEB.
has() {
	local deb=$out/src/$1 list p bad=0
	shift
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
	for p in "$@"; do
		grep -qxF "$p" <<<"$list" || { echo "$deb: no $p"; bad=1; }
	done
	return $bad
}
contents() {
	local ma
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	has "fxtprof_${version}_amd64.deb" /usr/bin/fxtprof /usr/share/man/man1/fxtprof.1.gz \
		/usr/share/man/man1/fxtprof-record.1.gz /usr/share/bash-completion/completions/fxtprof \
		/lib/systemd/system/fxtprof-receive.service /lib/systemd/system/fxtprof-record@.service \
		/etc/default/fxtprof-receive /etc/default/fxtprof-record &&
	has "fxtprof-dkms_${version}_all.deb" "/usr/src/fxtprof-$version/dkms.conf" \
		"/usr/src/fxtprof-$version/Kbuild" "/usr/src/fxtprof-$version/kmod/main.c" \
		"/usr/src/fxtprof-$version/include/uapi/linux/fxtprof.h" /usr/share/man/man4/fxtprof.ko.4.gz &&
	has "libfxtprof-dev_${version}_amd64.deb" /usr/include/libfxtprof.h /usr/include/fxtprof_hooks.h \
		/usr/include/linux/fxtprof.h "/usr/lib/$ma/libfxtprof.a" "/usr/lib/$ma/libfxtprof-hooks.so" \
		"/usr/lib/$ma/pkgconfig/libfxtprof.pc" "/usr/lib/$ma/pkgconfig/libfxtprof-hooks.pc" &&
	has "libfxtprof-hooks0_${version}_amd64.deb" "/usr/lib/$ma/libfxtprof-hooks.so.0"
}
# dkms.conf's MAKE[0], with the variables DKMS gives it.
dkms_build() {
	local conf make_line
	dpkg-deb -x "$out/src/fxtprof-dkms_${version}_all.deb" "$tmp/root" || return 1
	mkdir -p "$tmp/dkms/fxtprof/$version" &&
	cp -r "$tmp/root/usr/src/fxtprof-$version" "$tmp/dkms/fxtprof/$version/build" || return 1
	conf=$tmp/dkms/fxtprof/$version/build/dkms.conf
	grep -q "^PACKAGE_VERSION=\"$version\"" "$conf" || { cat "$conf"; return 1; }
	make_line=$(kernel_source_dir=$CFG_KDIR dkms_tree=$tmp/dkms bash -c ". '$conf' && echo \"\${MAKE[0]}\"")
	$make_line > "$out/dkms-build.log" 2>&1 || { tail -20 "$out/dkms-build.log"; return 1; }
	modinfo -F vermagic "$ko" | grep -q "^$CFG_KREL SMP" ||
		{ modinfo -F vermagic "$ko"; return 1; }
}
sign() {
	[ -f "$ko" ] || { echo "no module built"; return 1; }
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -outform DER \
		-subj "/CN=fxtprof check-packages/" -keyout "$tmp/key.pem" -out "$tmp/cert.der" \
		> "$tmp/openssl.log" 2>&1 || { cat "$tmp/openssl.log"; return 1; }
	cp "$ko" "$tmp/unsigned.ko"
	scripts/sign-module.sh "$tmp/key.pem" "$tmp/cert.der" "$ko" "$CFG_KDIR" || return 1
	[ "$(modinfo -F signer "$ko")" = "fxtprof check-packages" ] || { modinfo "$ko"; return 1; }
	# The same key, copied into the tree, is refused.
	cp "$tmp/key.pem" "$out/key-in-tree.pem"
	if scripts/sign-module.sh "$out/key-in-tree.pem" "$tmp/cert.der" "$tmp/unsigned.ko" "$CFG_KDIR"; then
		rm -f "$out/key-in-tree.pem"; echo "a key inside the repository was taken"; return 1
	fi
	rm -f "$out/key-in-tree.pem"
}

echo "TAP version 13"
echo "1..7"
t copy_tree_under_build copy_tree
t dpkg_buildpackage_us_uc_b build
t four_packages_built all_built
t lintian_fail_on_error_warning lint
t each_package_holds_its_files contents
t dkms_sources_build_the_module dkms_build
t module_signed_with_the_users_key_only sign
exit $failed

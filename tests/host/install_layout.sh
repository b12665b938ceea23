#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# install_layout.sh MAKE ROOT ARCH CC STAGE: TAP test of `make install`
# itself, run as a packager would (DESTDIR=STAGE PREFIX=/usr): exactly the
# program (0755), the two libraries, three headers, two pkg-config files,
# the man pages, the bash completion, two systemd units and their two
# /etc/default files (0644), in directories of 0755; the libraries,
# headers, program, pages and completion byte-identical to the tree's;
# the @...@ paths of the units and .pc files filled in for PREFIX, not
# DESTDIR; libfxtprof-hooks.so.0 is the library's soname and file, and
# libfxtprof-hooks.so a symlink to it, for the linker; a C11 program built against the
# staged hooks header and library alone runs, and so does one whose flags
# come from the staged pkg-config file.
make=$1 root=$2 arch=$3 cc=$4 stage=$5
. "$(dirname "$0")/../scripts/tap.sh"
inc=$stage/usr/include lib=$stage/usr/lib
# Every man page of Documentation/man/ goes to its section (tests/man
# checks the pages themselves); the other files are named here.
man_pages=$(cd "$root/Documentation/man" && for m in *.[1-8]; do
	echo "usr/share/man/man${m##*.}/$m 644"; done)
want=$(LC_ALL=C sort <<EOF
etc/default/fxtprof-receive 644
etc/default/fxtprof-record 644
usr/bin/fxtprof 755
usr/include/fxtprof_hooks.h 644
usr/include/libfxtprof.h 644
usr/include/linux/fxtprof.h 644
usr/lib/libfxtprof-hooks.so.0 644
usr/lib/libfxtprof.a 644
usr/lib/pkgconfig/libfxtprof-hooks.pc 644
usr/lib/pkgconfig/libfxtprof.pc 644
usr/lib/systemd/system/fxtprof-receive.service 644
usr/lib/systemd/system/fxtprof-record@.service 644
usr/share/bash-completion/completions/fxtprof 644
$man_pages
EOF
)
listing() { (cd "$stage" && find . -type f -printf '%P %m\n' | LC_ALL=C sort); }
same_listing() { [ "$(listing)" = "$want" ] || { listing; return 1; }; }
dir_modes() {
	bad=$(cd "$stage" && find usr -type d ! -perm 0755 -printf '%P %m\n')
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}
identical() {
	cmp "$root/include/fxtprof_hooks.h" "$inc/fxtprof_hooks.h" &&
	cmp "$root/include/libfxtprof.h" "$inc/libfxtprof.h" &&
	cmp "$root/include/uapi/linux/fxtprof.h" "$inc/linux/fxtprof.h" &&
	cmp "$root/build/$arch/lib/libfxtprof-hooks.so" "$lib/libfxtprof-hooks.so.0" &&
	[ "$(readlink "$lib/libfxtprof-hooks.so")" = libfxtprof-hooks.so.0 ] &&
	cmp "$root/build/$arch/lib/libfxtprof.a" "$lib/libfxtprof.a" &&
	cmp "$root/build/$arch/bin/fxtprof" "$stage/usr/bin/fxtprof" &&
	cmp "$root/contrib/bash-completion/fxtprof" \
		"$stage/usr/share/bash-completion/completions/fxtprof" &&
	cmp "$root/Documentation/man/fxtprof-record.1" "$stage/usr/share/man/man1/fxtprof-record.1" &&
	cmp "$root/Documentation/man/fxtprof.ko.4" "$stage/usr/share/man/man4/fxtprof.ko.4"
}
# No @NAME@ left, no DESTDIR path, and the paths of PREFIX=/usr.
paths_filled() {
	units=$stage/usr/lib/systemd/system pc=$lib/pkgconfig
	! grep -n '@[A-Z]*@' "$units"/* "$pc"/* &&
	! grep -nF "$stage" "$units"/* "$pc"/* &&
	grep -q '^ExecStart=/usr/bin/fxtprof receive ' "$units/fxtprof-receive.service" &&
	grep -q '^EnvironmentFile=-/etc/default/fxtprof-record$' "$units/fxtprof-record@.service" &&
	grep -q '^ReadWritePaths=/var/lib/fxtprof-receive$' "$units/fxtprof-receive.service" &&
	grep -q '^libdir=/usr/lib$' "$pc/libfxtprof.pc"
}
# pkg-config --cflags --libs libfxtprof-hooks, rooted at the stage.
pkgconfig_program() {
	flags=$(PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage \
		pkg-config --cflags --libs libfxtprof-hooks) &&
	"$cc" -std=c11 -Wall -Werror -o "$stage.pc.bin" "$stage.c" $flags &&
	LD_LIBRARY_PATH=$lib "$stage.pc.bin"
}
soname() {
	readelf -d "$lib/libfxtprof-hooks.so.0" | grep -F '(SONAME)' |
		grep -qF '[libfxtprof-hooks.so.0]'
}
hooks_program() {
	printf '%s\n' '#include <fxtprof_hooks.h>' \
		'int main(void) { return fxtprof_interface_version() ? 0 : 1; }' \
		> "$stage.c" &&
	"$cc" -std=c11 -pedantic -Wall -Wextra -Werror -I"$inc" -o "$stage.bin" \
		"$stage.c" -L"$lib" -lfxtprof-hooks &&
	LD_LIBRARY_PATH=$lib "$stage.bin"
}
rm -rf "$stage" "$stage.c" "$stage.bin" "$stage.pc.bin"
echo "1..8"
t make_install_destdir "$make" -s --no-print-directory -C "$root" ARCH="$arch" \
	install DESTDIR="$stage" PREFIX=/usr
t files_and_modes same_listing
t directories_0755 dir_modes
t identical_to_the_tree identical
t hooks_soname_is_the_installed_file soname
t hooks_program_links_and_runs hooks_program
t paths_filled_for_prefix paths_filled
t pkgconfig_flags_build_the_program pkgconfig_program
exit $failed

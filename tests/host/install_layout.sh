#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# install_layout.sh MAKE ROOT ARCH CC STAGE: TAP test of `make install`
# itself, run as a packager would (DESTDIR=STAGE PREFIX=/usr): exactly the
# two libraries and three headers, each mode 0644 in directories of 0755,
# byte-identical to the tree's; libfxtprof-hooks.so's soname is its file
# name, so nothing else (no symlink) is needed to load it; and a C11
# program built against the staged hooks header and library alone runs.
make=$1 root=$2 arch=$3 cc=$4 stage=$5
. "$(dirname "$0")/../scripts/tap.sh"
inc=$stage/usr/include lib=$stage/usr/lib
want="usr/include/fxtprof_hooks.h 644
usr/include/libfxtprof.h 644
usr/include/linux/fxtprof.h 644
usr/lib/libfxtprof-hooks.so 644
usr/lib/libfxtprof.a 644"
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
	cmp "$root/build/$arch/lib/libfxtprof-hooks.so" "$lib/libfxtprof-hooks.so" &&
	cmp "$root/build/$arch/lib/libfxtprof.a" "$lib/libfxtprof.a"
}
soname() {
	readelf -d "$lib/libfxtprof-hooks.so" | grep -F '(SONAME)' |
		grep -qF '[libfxtprof-hooks.so]'
}
hooks_program() {
	printf '%s\n' '#include <fxtprof_hooks.h>' \
		'int main(void) { return fxtprof_interface_version() ? 0 : 1; }' \
		> "$stage.c" &&
	"$cc" -std=c11 -pedantic -Wall -Wextra -Werror -I"$inc" -o "$stage.bin" \
		"$stage.c" -L"$lib" -lfxtprof-hooks &&
	LD_LIBRARY_PATH=$lib "$stage.bin"
}
rm -rf "$stage" "$stage.c" "$stage.bin"
echo "1..6"
t make_install_destdir "$make" -s --no-print-directory -C "$root" ARCH="$arch" \
	install DESTDIR="$stage" PREFIX=/usr
t files_and_modes same_listing
t directories_0755 dir_modes
t identical_to_the_tree identical
t hooks_soname_is_the_file soname
t hooks_program_links_and_runs hooks_program
exit $failed

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# install_uninstall.sh MAKE ROOT ARCH STAGE: TAP test of `make install`
# and `make uninstall` as a packager runs them (DESTDIR=STAGE
# PREFIX=/usr): install puts the two libraries (libfxtprof-hooks.so among
# them) and three headers (fxtprof_hooks.h among them) under STAGE, with
# the rest of what the packages hold (tests/host/install_layout.sh names
# every file, its mode and contents); uninstall removes every file it
# installed and the include/linux/ directory it made, and nothing else:
# the other directories are shared, and stay.
make=$1 root=$2 arch=$3 stage=$4
. "$(dirname "$0")/../scripts/tap.sh"
installed="usr/include/fxtprof_hooks.h
usr/include/libfxtprof.h
usr/include/linux/fxtprof.h
usr/lib/libfxtprof-hooks.so
usr/lib/libfxtprof-hooks.so.0
usr/lib/libfxtprof.a"
run_make() {
	"$make" -s --no-print-directory -C "$root" ARCH="$arch" "$@" \
		DESTDIR="$stage" PREFIX=/usr
}
files() { (cd "$stage" && find . ! -type d -printf '%P\n' | LC_ALL=C sort); }
exactly_installed() {
	got=$(files | grep -E '^usr/(include|lib)/([^/]*|linux/fxtprof\.h)$')
	[ "$got" = "$installed" ] || { echo "$got"; return 1; }
	[ "$(files | wc -l)" -gt 20 ] || { files; return 1; }
}
# No file, and no directory but those on the way to what was installed.
nothing_left() {
	left=$(cd "$stage" && find . -mindepth 1 ! -type d -printf '%P\n')
	dirs=$(cd "$stage" && find . -mindepth 1 -type d -name linux -printf '%P\n')
	[ -z "$left$dirs" ] || { echo "$left$dirs"; return 1; }
}
# A file of someone else's, where uninstall removes things: it stays.
others_stay() { [ -f "$stage/usr/lib/other.so" ]; }

rm -rf "$stage"
echo "1..6"
t make_install run_make install
t exactly_what_it_installs exactly_installed
touch "$stage/usr/lib/other.so"
t make_uninstall run_make uninstall
t other_files_stay others_stay
rm -f "$stage/usr/lib/other.so"
t nothing_left nothing_left
t uninstall_again_is_harmless run_make uninstall
rm -rf "$stage"
exit $failed

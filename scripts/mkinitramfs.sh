#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# mkinitramfs.sh CFG OUT [SRC:DEST ...]
# Build the VM's gzip'd newc initramfs: static busybox + applet links,
# /init (tests/vm/init.sh), /fxtprof.ko, the VM test programs under
# /tests, the virtio-net driver stack for the Debian kernels under
# /lib/modules (numbered in load order), plus any extra SRC:DEST files
# (command mode scripts, data).  Test programs come from
# build/ARCH/vm-tests.list (written by make; one path per line) unless
# VM_TESTS_LIST names another list; files the test programs need at
# fixed paths (a dynamic loader, libc) come from the SRC:DEST lines of
# build/ARCH/vm-test-files.list (make's VM_TEST_FILES) unless
# VM_TEST_FILES_LIST names another.  KO overrides the module path.
set -euo pipefail
. "$(dirname "$0")/env.sh"

cfg=${1:?usage: mkinitramfs.sh CFG OUT [SRC:DEST ...]}
out=${2:?usage: mkinitramfs.sh CFG OUT [SRC:DEST ...]}
shift 2
fxt_cfg "$cfg" || exit 2
arch=$CFG_ARCH
case $arch in
x86_64)	busybox=/bin/busybox ;;
arm64)	busybox=$ARM64_ROOT/bin/busybox ;;
esac
ko=${KO:-$FXT_BUILD/$cfg/kmod/fxtprof.ko}
list=${VM_TESTS_LIST:-$FXT_BUILD/$arch/vm-tests.list}
files=${VM_TEST_FILES_LIST:-$FXT_BUILD/$arch/vm-test-files.list}

# A private staging dir: several suites/demos may build at once.
mkdir -p "$FXT_BUILD/$cfg"
root=$(mktemp -d "$FXT_BUILD/$cfg/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,tests,lib/modules}
# Applet links, made once per busybox binary (hundreds of ln forks are
# the slow part of this script).  Same Debian busybox version for both
# arches, so the host's applet list is also the arm64 one (we cannot run
# the arm64 binary here).
bbtree=$FXT_BUILD/$arch/busybox-tree
if [ ! -f "$bbtree/.done" ] || [ "$busybox" -nt "$bbtree/.done" ]; then
	tmp=$(mktemp -d "$bbtree.XXXXXX")
	mkdir -p "$tmp"/{bin,sbin,usr/bin,usr/sbin}
	install -m 0755 "$busybox" "$tmp/bin/busybox"
	/bin/busybox --list-full | while read -r a; do
		[ "$a" = bin/busybox ] || ln -sf /bin/busybox "$tmp/$a"
	done
	touch "$tmp/.done"
	rm -rf "$bbtree"
	mv "$tmp" "$bbtree"
fi
cp -a "$bbtree/." "$root/"
rm "$root/.done"
install -m 0755 "$FXT_ROOT/tests/vm/init.sh" "$root/init"
# The scripts' bounded wait for `fxtprof record --ready-file`.
install -m 0755 "$FXT_ROOT/scripts/wait-ready.sh" "$root/bin/fxt-wait-ready"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"

if [ -f "$ko" ]; then
	install -m 0644 "$ko" "$root/fxtprof.ko"
else
	echo "mkinitramfs: warning: no $ko (the VM will report insmod failing)" >&2
fi

# A suite without its programs would boot, run nothing and pass; the
# plan check would catch it, but say here already what is missing.
[ -f "$list" ] || { echo "mkinitramfs: no test list $list (run make ARCH=$arch)" >&2; exit 1; }
while read -r prog; do
	[ -n "$prog" ] && install -m 0755 "$prog" "$root/tests/"
done < "$list"
# Dereferenced: /lib64/ld-linux-x86-64.so.2 is a symlink on the host.
[ -f "$files" ] || { echo "mkinitramfs: no file list $files (run make ARCH=$arch)" >&2; exit 1; }
while IFS=: read -r src dest; do
	[ -n "$src" ] || continue
	mkdir -p "$root/$(dirname "$dest")"
	cp -L "$src" "$root/$dest"
done < "$files"

if [ "$CFG_MODROOT" != none ]; then
	n=10
	modprobe -a ${CFG_MODROOT:+-d "$CFG_MODROOT"} -S "$CFG_KREL" --show-depends virtio_pci virtio_net |
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
	while read -r m; do
		install -m 0644 "$m" "$root/lib/modules/$n-${m##*/}"
		n=$((n + 1))
	done
fi

for spec in "$@"; do
	src=${spec%%:*} dest=${spec#*:}
	mkdir -p "$root/$(dirname "$dest")"
	cp -a "$src" "$root/$dest"
done

# gzip -1: the archive lives seconds; TCG decompresses it either way.
chmod 0755 "$root"
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# extract-btf.sh CARVER KERNEL OUT.btf - the BTF of a kernel that is not
# the running one, for the bpf source's vmlinux.h when cross-building.
# KERNEL is a Debian linux-image .deb, a boot image (arm64 Image, gzip'd
# Image, x86 bzImage with an xz/zstd/gzip payload) or an ELF vmlinux.
# CARVER is btf_carve (built for the host from btf_carve.c).
set -eu
carver=$1 kernel=$2 out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case $kernel in
*.deb)
	dpkg-deb --fsys-tarfile "$kernel" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
	kernel=$(ls "$tmp"/boot/vmlinuz-* | head -n 1)
	;;
esac

# The format by its magic bytes (file(1) is not in a minimal root): an
# ELF header, gzip's, or an x86 boot image's "HdrS" at 0x202.
magic() {	# magic OFFSET LENGTH: those bytes of the kernel, as hex
	od -An -tx1 -j "$1" -N "$2" "$kernel" | tr -d ' \n'
}
kind=other
case $(magic 0 4) in
7f454c46) kind=ELF ;;
1f8b*) kind=gzip ;;
esac
[ "$kind" = other ] && [ "$(magic 514 4)" = 48647253 ] && kind=bzImage

img=$tmp/image
case $kind in
ELF*)
	# bpftool reads the .BTF section of an ELF vmlinux itself.
	bpftool btf dump file "$kernel" format raw >/dev/null
	cp "$kernel" "$img"
	;;
gzip)
	gzip -dc "$kernel" > "$img"
	;;
bzImage)
	# The payload starts at its compressor's magic (Debian: xz); the
	# bytes after it make the decompressor complain, not lose the image.
	for m in xz:'\xfd7zXZ\x00' zstd:'\x28\xb5\x2f\xfd' gzip:'\x1f\x8b\x08'; do
		off=$(LC_ALL=C grep -obUaP "${m#*:}" "$kernel" | head -n 1 | cut -d: -f1)
		[ -n "$off" ] || continue
		tail -c +$((off + 1)) "$kernel" | "${m%%:*}" -dc > "$img" 2>/dev/null || true
		[ -s "$img" ] && break
	done
	;;
*)
	cp "$kernel" "$img"
	;;
esac
[ -s "$img" ] || { echo "extract-btf.sh: cannot unpack $kernel" >&2; exit 1; }
"$carver" "$img" "$out"
bpftool btf dump file "$out" format raw > /dev/null

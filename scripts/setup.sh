#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Install (idempotently) everything the build and the VM bench need, and
# stage the arm64 cross dependencies under build/deps/arm64.  A second run
# with everything present only runs dpkg-query and compares stamps.
set -euo pipefail
. "$(dirname "$0")/env.sh"

HOST_PKGS=(liburing-dev liblz4-dev libbpf-dev linux-headers-amd64
	linux-image-amd64 linux-source-6.1 qemu-system-x86 qemu-system-arm
	busybox-static gcc-aarch64-linux-gnu cpio linux-perf flex bison bc
	libelf-dev libssl-dev clang llvm lld xz-utils)

export DEBIAN_FRONTEND=noninteractive
updated=
apt_update_once() {
	[ -n "$updated" ] && return 0
	echo "setup: apt-get update"
	apt-get update -qq
	updated=1
}

# One dpkg-query for all packages keeps the no-op run fast.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${HOST_PKGS[@]}" 2>/dev/null |
	awk '/ install ok installed$/ { print $1 }')
missing=()
for p in "${HOST_PKGS[@]}"; do
	grep -qxF "$p" <<<"$installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	apt_update_once
	# Recommends would pull firmware and desktop bits we never use.
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

kabi=$(fxt_kabi)
[ -n "$kabi" ] || { echo "setup: cannot derive kernel ABI" >&2; exit 1; }

# --- arm64 cross dependencies: downloaded and unpacked, never installed ---
# (installing busybox-static:arm64 would replace the host's busybox).
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	updated=
	apt_update_once
fi

ARM_DIR=$FXT_DEPS/arm64
ARM_PKGS=("linux-image-$kabi-arm64-unsigned" "linux-headers-$kabi-arm64"
	busybox-static:arm64 liburing-dev:arm64 liburing2:arm64
	liblz4-dev:arm64 liblz4-1:arm64)
stamp="$kabi ${ARM_PKGS[*]} v1"
if [ "$(cat "$ARM_DIR/stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$ARM_DIR"
	mkdir -p "$ARM_DIR/debs" "$ARM64_ROOT"
	# Package lists may be stale on a machine that already had arm64.
	(cd "$ARM_DIR/debs" && apt-get download -qq -o APT::Sandbox::User=root "${ARM_PKGS[@]}") || {
		apt_update_once
		(cd "$ARM_DIR/debs" && apt-get download -qq -o APT::Sandbox::User=root "${ARM_PKGS[@]}")
	}
	for deb in "$ARM_DIR"/debs/*.deb; do dpkg -x "$deb" "$ARM64_ROOT"; done
	# The arm64 header tree links scripts/ and tools/ to the arm64 kbuild
	# package (arm64 binaries).  Point them at the host's amd64 kbuild
	# tools, which are the same source built for the machine we run on.
	kbuild=$(fxt_kbuild_dir)
	hdr=$ARM64_ROOT/usr/src/linux-headers-$kabi-arm64
	ln -sfn "$kbuild/scripts" "$hdr/scripts"
	ln -sfn "$kbuild/tools" "$hdr/tools"
	# modules.dep lets mkinitramfs resolve virtio_net's dependencies.
	depmod -b "$ARM64_ROOT" "$kabi-arm64"
	echo "$stamp" > "$ARM_DIR/stamp"
fi

"$FXT_ROOT/scripts/get-kselftest.sh"
echo "setup: ok (kernel ABI $kabi)"

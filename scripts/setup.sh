#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# setup.sh [--list]
# Install everything the build, the tests, the demo and the benchmarks use,
# on a Debian 12 machine that has none of it, and stage the arm64 cross
# dependencies under build/deps/arm64.  Idempotent: a second run with
# everything present only asks dpkg and compares a stamp.
#
# Each step prints what it does.  A step that fails names itself and the
# command that failed, and the script exits with that command's status.
# --list prints every package setup installs (host) or stages (arm64:),
# one a line, and exits: tests/setup/test_setup.sh holds the script to it.
set -eEuo pipefail
. "$(dirname "$0")/env.sh"

STEP="start"
step() { STEP=$*; echo "setup: $STEP"; }
trap 'rc=$?; echo "setup: FAILED in step \"$STEP\" (exit $rc): $BASH_COMMAND" >&2; exit $rc' ERR
fail() { echo "setup: FAILED in step \"$STEP\": $*" >&2; exit 1; }

# Installed with --no-install-recommends (Recommends would pull firmware
# and desktop bits we never use), so every package we rely on is named
# here, including those that other packages only recommend.
HOST_PKGS=(
	# compilers and build tools; gcc and make are not in a minimal root,
	# and libc6-dev-arm64-cross is only a Recommends of the cross gcc
	build-essential gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	clang llvm lld libclang-rt-14-dev
	# the module's kernels: headers to build against, images to boot
	linux-headers-amd64 linux-image-amd64
	linux-headers-6.12-amd64 linux-image-6.12-amd64
	# the debug kernel, built from source, and the kselftest headers
	linux-source-6.1 flex bison bc libelf-dev libssl-dev xz-utils
	# userspace libraries
	liburing-dev liblz4-dev libbpf-dev
	# receive --push: the HTTP client that sends profiles to Pyroscope
	libcurl4-openssl-dev
	# the bpf source: vmlinux.h and skeletons at build time; zstd unpacks
	# the 6.12 kernel image whose BTF the CO-RE check reads
	bpftool zstd
	# the symbolizer (libdwfl; static links also need lzma and bz2), pprof's
	# gzip (zlib), and eu-addr2line for the symbolizer bench
	libdw-dev zlib1g-dev liblzma-dev libbz2-dev elfutils
	# the symbolizer asks debuginfod (DEBUGINFOD_URLS) for files no
	# --debug-dir has (libdebuginfod); the tests serve files with the
	# server itself (debuginfod -F)
	libdebuginfod-dev debuginfod
	# the symbolizer demangles C++ and Rust names (libiberty, as c++filt)
	libiberty-dev
	# test tools: go tool pprof reads our pprof, protoc decodes our protos
	golang-go protobuf-compiler
	# the VM bench: QEMU, a static busybox, the initramfs tools
	qemu-system-x86 qemu-system-arm ipxe-qemu busybox-static cpio kmod
	# make check runs sparse (make C=2) on the module
	sparse
	# benchmarks and make check-fresh; lz4, the archive bench's ceiling;
	# bpftrace, bench-offcpu's offcputime
	linux-perf mmdebstrap lz4 bpftrace
	# the flame graph test checks the SVG is well-formed XML (xmllint)
	libxml2-utils
	# the tree tests read the tracked files
	git
	# the man page test renders Documentation/man/ (man -l, groff -ww);
	# systemd-analyze verifies the units of contrib/systemd/
	man-db groff-base systemd
	# Debian packages of debian/ (make check-packages): dpkg-buildpackage,
	# debhelper compat 13, the DKMS module package, lintian, and openssl
	# for the throwaway key that signs the module in the check
	dpkg-dev debhelper dh-dkms dkms lintian openssl
	# tests/procs: node --perf-basic-prof writes the JIT map the
	# recorder collects; unshare (util-linux) makes the container
	nodejs util-linux
)
# kernel series whose arm64 kernel is staged, and arm64 userspace
# libraries for the static arm64 programs
ARM_SERIES=(6.1 6.12)
ARM_LIBS=(busybox-static:arm64 liburing-dev:arm64 liburing2:arm64
	liblz4-dev:arm64 liblz4-1:arm64)
# The bpf source's libraries for the static arm64 fxtprof: libbpf.a,
# libelf.a and libz.a with their headers, all in the -dev packages
# (Debian's libelf 0.188 needs only zlib).  Staged with a stamp of their
# own, so that adding one unpacks it into a staged root without
# downloading the kernels again.
ARM_BPF_LIBS=(libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64)
# The unwind-table builder (user/unwind/) in the static arm64 fxtprof:
# libdw.a, whose static link also needs liblzma.a and libbz2.a (Debian's
# elfutils 0.188 does not use zstd); libelf and zlib come with the above.
ARM_UNWIND_LIBS=(libdw-dev:arm64 liblzma-dev:arm64 libbz2-dev:arm64)

arm_pkgs() {	# the arm64 packages, once the kernel ABIs are known
	local s kabi
	for s in "${ARM_SERIES[@]}"; do
		kabi=$(fxt_kabi "$s")
		[ -n "$kabi" ] || fail "cannot derive the $s kernel ABI from $(fxt_series_meta "$s")"
		echo "linux-image-$kabi-arm64-unsigned"
		echo "linux-headers-$kabi-arm64"
	done
	printf '%s\n' "${ARM_LIBS[@]}"
}

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${HOST_PKGS[@]}"
	{ arm_pkgs; printf '%s\n' "${ARM_BPF_LIBS[@]}" "${ARM_UNWIND_LIBS[@]}"; } | sed 's/^/arm64: /'
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "setup: must run as root (it installs Debian packages)" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
updated=
apt_update_once() {
	[ -n "$updated" ] && return 0
	step "apt-get update"
	apt-get update -qq
	updated=1
}

step "checking the host packages"
# One dpkg-query for all packages keeps the no-op run fast.  It exits 1
# when any package is unknown to dpkg: that is an answer, not a failure.
status=$(dpkg-query -W -f='${Package} ${Status}\n' "${HOST_PKGS[@]}" 2>/dev/null || true)
missing=()
for p in "${HOST_PKGS[@]}"; do
	grep -qxF "$p install ok installed" <<<"$status" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt_update_once
	step "installing ${#missing[@]} packages: ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- arm64: downloaded and unpacked, never installed -----------------
# (installing busybox-static:arm64 would replace the host's busybox).
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	step "adding the arm64 architecture to dpkg"
	dpkg --add-architecture arm64
	updated=
	apt_update_once
fi

ARM_DIR=$FXT_DEPS/arm64
# arm_download WHAT DIR PKG...: apt-get download into DIR.  A failure
# stops setup (set -e, the ERR trap names the step and the command).
arm_download() {
	local what=$1 dir=$2
	shift 2
	step "downloading $# $what into build/deps/arm64"
	# Package lists may be stale on a machine that already had arm64.
	if ! (cd "$dir" && apt-get download -qq -o APT::Sandbox::User=root "$@"); then
		updated=
		apt_update_once
		step "downloading $# $what (after apt-get update)"
		(cd "$dir" && apt-get download -qq -o APT::Sandbox::User=root "$@")
	fi
}
step "listing the arm64 packages"
mapfile -t ARM_PKGS < <(arm_pkgs)
[ ${#ARM_PKGS[@]} -gt ${#ARM_LIBS[@]} ] || fail "no arm64 kernel packages listed"
stamp="${ARM_PKGS[*]} v2"
if [ "$(cat "$ARM_DIR/stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$ARM_DIR"
	mkdir -p "$ARM_DIR/debs" "$ARM64_ROOT"
	arm_download "arm64 packages" "$ARM_DIR/debs" "${ARM_PKGS[@]}"
	step "unpacking the arm64 packages"
	for deb in "$ARM_DIR"/debs/*.deb; do dpkg -x "$deb" "$ARM64_ROOT"; done
	for s in "${ARM_SERIES[@]}"; do
		kabi=$(fxt_kabi "$s")
		step "linking the $s arm64 headers to the host's kbuild tools"
		# The arm64 header tree links scripts/ and tools/ to the arm64
		# kbuild package (arm64 binaries).  Point them at the host's
		# amd64 kbuild tools: the same source, built for this machine.
		host=/usr/src/linux-headers-$kabi-amd64
		hdr=$ARM64_ROOT/usr/src/linux-headers-$kabi-arm64
		[ -f "$hdr/Makefile" ] || fail "the arm64 $s headers did not unpack to $hdr"
		for d in scripts tools; do
			target=$(readlink -f "$host/$d") || fail "no $host/$d (is linux-headers-$kabi-amd64 installed?)"
			ln -sfn "$target" "$hdr/$d"
		done
		# modules.dep lets mkinitramfs resolve virtio_net's dependencies.
		step "depmod for the $s arm64 modules"
		depmod -b "$ARM64_ROOT" "$kabi-arm64"
	done
	echo "$stamp" > "$ARM_DIR/stamp"
fi

# arm_stage WHAT NAME PKG...: download PKG... and unpack them over the
# staged root, with a stamp of their own (build/deps/arm64/stamp-NAME) so
# that adding a package unpacks it without downloading the kernels
# again.  Called after the block above: a root staged anew has no such
# stamp either.  Files of a package dropped from a list stay until the
# root is staged anew.
arm_stage() {
	local what=$1 name=$2 stamp
	shift 2
	stamp="$* v1"
	[ "$(cat "$ARM_DIR/stamp-$name" 2>/dev/null)" != "$stamp" ] || return 0
	rm -rf "$ARM_DIR/debs-$name"
	mkdir -p "$ARM_DIR/debs-$name"
	arm_download "$what" "$ARM_DIR/debs-$name" "$@"
	step "unpacking the $what"
	for deb in "$ARM_DIR/debs-$name"/*.deb; do dpkg -x "$deb" "$ARM64_ROOT"; done
	echo "$stamp" > "$ARM_DIR/stamp-$name"
}
arm_stage "arm64 packages for the bpf source" bpf "${ARM_BPF_LIBS[@]}"
arm_stage "arm64 packages for the unwind tables" unwind "${ARM_UNWIND_LIBS[@]}"

step "kselftest headers from linux-source-6.1"
"$FXT_ROOT/scripts/get-kselftest.sh"
echo "setup: ok (kernels $(for s in 6.1 6.12; do printf '%s ' "$(fxt_kabi "$s")"; done| sed 's/ $//'))"

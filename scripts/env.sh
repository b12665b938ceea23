# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the other scripts: the paths they share, and the kernel
# matrix.  Kernel ABIs are derived from Debian's meta packages, so a point
# release that bumps 6.1.0-57 to -58 (or 6.12.117 to 6.12.120) needs no
# edit here.

FXT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FXT_BUILD=$FXT_ROOT/build
FXT_DEPS=$FXT_BUILD/deps
FXT_RESULTS=$FXT_BUILD/results
ARM64_ROOT=$FXT_DEPS/arm64/root
# What is costly and the same for every checkout (the debug kernel's
# tree, which records absolute paths) is cached once per machine.
FXT_MACHINE_CACHE=${FXTPROF_CACHE:-/var/cache/fxtprof}
if ! mkdir -p "$FXT_MACHINE_CACHE" 2>/dev/null || [ ! -w "$FXT_MACHINE_CACHE" ]; then
	FXT_MACHINE_CACHE=$FXT_DEPS
fi

# The kernel configurations the module is built and tested on, in the
# order `make check` runs them.  Each is one VM suite.
FXT_CFGS="x86_64 arm64 debug x86_64-6.12 arm64-6.12"

# The kernel series of Debian 12, and the meta package that names each
# one's current ABI: 6.1 is bookworm's own kernel, 6.12 the newer
# long-term kernel that bookworm also ships.
fxt_series_meta() {
	case $1 in
	6.1)	echo linux-headers-amd64 ;;
	6.12)	echo linux-headers-6.12-amd64 ;;
	*)	return 1 ;;
	esac
}

# fxt_kabi [SERIES]: "6.1.0-57" from "linux-headers-6.1.0-57-amd64 (= ...)",
# "6.12.117+deb12" from "linux-headers-6.12.117+deb12-amd64 (= ...)".
# Empty until the meta package is installed.
fxt_kabi() {
	local meta
	meta=$(fxt_series_meta "${1:-6.1}") || return 1
	dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null |
		sed -n 's/.*linux-headers-\([0-9][^ ,]*\)-amd64.*/\1/p'
}

# fxt_cfg CFG: describe one kernel configuration in CFG_* variables.
#   CFG_ARCH     x86_64 | arm64: the user programs' build (build/ARCH)
#   CFG_SERIES   6.1 | 6.12
#   CFG_KREL     the kernel release (uname -r) the module is built for
#   CFG_KDIR     the kernel build tree the module is built against
#   CFG_KERNEL   the image the VM boots
#   CFG_MODROOT  the root that holds /lib/modules/CFG_KREL ("" = /)
#   CFG_KBUILD   make arguments that select the architecture
# Returns 1 (with a message) for an unknown CFG or a kernel that setup
# has not installed yet.
fxt_cfg() {
	local cfg=$1 kabi
	CFG_KBUILD=() CFG_MODROOT=
	case $cfg in
	x86_64|debug)	CFG_ARCH=x86_64 CFG_SERIES=6.1 ;;
	arm64)		CFG_ARCH=arm64 CFG_SERIES=6.1 ;;
	x86_64-6.12)	CFG_ARCH=x86_64 CFG_SERIES=6.12 ;;
	arm64-6.12)	CFG_ARCH=arm64 CFG_SERIES=6.12 ;;
	*)	echo "unknown kernel configuration '$cfg' (one of: $FXT_CFGS)" >&2
		return 1 ;;
	esac
	kabi=$(fxt_kabi "$CFG_SERIES")
	if [ -z "$kabi" ]; then
		echo "no Debian $CFG_SERIES kernel headers installed (run scripts/setup.sh)" >&2
		return 1
	fi
	case $cfg in
	debug)
		CFG_KREL=debug
		CFG_KDIR=$("$FXT_ROOT/scripts/build-debug-kernel.sh" --print-dir)
		CFG_KERNEL=$CFG_KDIR/arch/x86/boot/bzImage
		CFG_MODROOT=none	# virtio-net is built in
		;;
	x86_64*)
		CFG_KREL=$kabi-amd64
		CFG_KDIR=/usr/src/linux-headers-$CFG_KREL
		CFG_KERNEL=/boot/vmlinuz-$CFG_KREL
		;;
	arm64*)
		CFG_KREL=$kabi-arm64
		CFG_KDIR=$ARM64_ROOT/usr/src/linux-headers-$CFG_KREL
		CFG_KERNEL=$ARM64_ROOT/boot/vmlinuz-$CFG_KREL
		CFG_MODROOT=$ARM64_ROOT
		CFG_KBUILD=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
		;;
	esac
}

# fxt_bookworm_sources: set FXT_SOURCES to this machine's apt source files
# that carry Debian 12 (bookworm) suites, in either format, for mmdebstrap
# to make a throwaway Debian root from.  Other vendors' lists need keys
# that a minimal root does not have.  Returns 1 (with a message) if there
# is none.
fxt_bookworm_sources() {
	local f
	FXT_SOURCES=()
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		grep -Eq '^Suites:[[:space:]]*bookworm|^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[^[:space:]]+[[:space:]]+bookworm([[:space:]]|-)' "$f" &&
			FXT_SOURCES+=("$f")
	done
	[ ${#FXT_SOURCES[@]} -gt 0 ] ||
		{ echo "no Debian bookworm apt sources on this machine" >&2; return 1; }
}

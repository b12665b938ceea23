#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# build-debug-kernel.sh [--print-dir | --print-key-dir]
# Build the x86_64 KASAN/lockdep/kmemleak kernel for CFG=debug from
# Debian's linux-source-6.1: tinyconfig + scripts/debug-kernel.config.
# It checks module signatures and trusts one certificate: a test key made
# here with openssl for this machine's tree (KEYDIR below), never in a
# checkout, made and deleted with the kernel that trusts it.  KEYDIR holds
# trusted.key/trusted.crt (the debug VM suite signs fxtprof.ko with them,
# scripts/sign-module.sh) and untrusted.key/untrusted.crt, a key the
# kernel does not know (tests/vm/sig_enforce.vm.sh).
# Cached in $FXTPROF_CACHE/debug-kernel/<fragment hash> (an O= tree that
# modules build against; default /var/cache/fxtprof, else build/deps),
# shared by every checkout on the machine: a kernel tree records absolute
# paths, so it cannot live in one checkout's build/ and serve another.
# Built once per machine, and again only when the fragment changes.
# --print-dir prints that tree, --print-key-dir KEYDIR.
set -euo pipefail
. "$(dirname "$0")/env.sh"

frag=$FXT_ROOT/scripts/debug-kernel.config
# Bump RECIPE when a change below alters the kernel that gets built.
RECIPE=2
hash=$( (cat "$frag"; echo "recipe $RECIPE") | sha256sum | cut -c1-12)
obj=$FXT_MACHINE_CACHE/debug-kernel/$hash
keydir=$obj/fxtprof-test-keys
case ${1:-} in
--print-dir)	echo "$obj"; exit 0 ;;
--print-key-dir) echo "$keydir"; exit 0 ;;
esac
[ -f "$obj/.done" ] && exit 0

# Several make invocations may want the kernel at once (make check, a
# developer's make CFG=debug): build it once, the others wait.
mkdir -p "$FXT_MACHINE_CACHE"
exec 9>"$FXT_MACHINE_CACHE/debug-kernel.lock"
flock 9
[ -f "$obj/.done" ] && exit 0

src=$FXT_MACHINE_CACHE/linux-source-6.1
if [ ! -f "$src/.extracted" ]; then
	echo "debug-kernel: extracting linux-source-6.1"
	rm -rf "$src"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$FXT_MACHINE_CACHE"
	touch "$src/.extracted"
fi

# Older hashes are dead weight (a KASAN tree is ~1 GB).
rm -rf "$FXT_MACHINE_CACHE/debug-kernel"
mkdir -p "$obj"

# The test keys.  The kernel embeds trusted.crt (CONFIG_SYSTEM_TRUSTED_KEYS,
# a path on this machine, hence a fragment written here and not in the
# repository).  The private keys stay 0600.
mkdir -m 700 "$keydir"
testkey() {
	openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 36500 \
		-subj "/CN=$2/" -addext basicConstraints=critical,CA:FALSE \
		-addext keyUsage=digitalSignature \
		-keyout "$keydir/$1.key" -out "$keydir/$1.crt" 2>"$keydir/openssl.log" ||
		{ cat "$keydir/openssl.log" >&2; echo "debug-kernel: openssl could not make the $1 test key" >&2; exit 1; }
}
testkey trusted "fxtprof debug-kernel test key"
testkey untrusted "fxtprof untrusted test key"
keyfrag=$keydir/trusted-keys.config
echo "CONFIG_SYSTEM_TRUSTED_KEYS=\"$keydir/trusted.crt\"" > "$keyfrag"

kmake() { make -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" "$@"; }
kmake -s tinyconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" "$keyfrag" >/dev/null
kmake -s olddefconfig

# Kconfig silently drops symbols whose dependencies are unmet; say so.
lost=$(cat "$frag" "$keyfrag" | grep -E '^CONFIG_[A-Z0-9_]+=' | while read -r line; do
	grep -qxF "$line" "$obj/.config" || echo "${line%%=*}"
done)
[ -z "$lost" ] || echo "debug-kernel: WARNING: not applied:" $lost >&2

start=$(date +%s)
kmake bzImage modules
echo "debug-kernel: built in $(( $(date +%s) - start ))s"
touch "$obj/.done"

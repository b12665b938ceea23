#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_setup.sh: scripts/setup.sh on a machine that has none of its
# packages, without touching this one.  A copy of scripts/ runs with
# stand-ins first on PATH: dpkg-query reports every package missing (and
# forwards the kernel-ABI questions to the real dpkg-query), apt-get and
# depmod record what they were asked, dpkg unpacks nothing but the
# header trees setup links.  TAP on stdout.
set -uo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

mkdir -p "$tmp/root/scripts" "$tmp/bin" "$tmp/cache"
cp "$src/scripts/env.sh" "$src/scripts/setup.sh" "$src/scripts/get-kselftest.sh" "$tmp/root/scripts/"
# The kselftest step is a no-op once its headers are there.
mkdir -p "$tmp/root/build/deps/kselftest"
touch "$tmp/root/build/deps/kselftest/kselftest_harness.h" "$tmp/root/build/deps/kselftest/kselftest.h"
export FXTPROF_CACHE=$tmp/cache STANDIN_LOG=$tmp/calls.log

real_dpkg_query=$(command -v dpkg-query)
cat > "$tmp/bin/dpkg-query" <<EOF
#!/bin/sh
case "\$*" in
*'\${Status}'*)	echo "dpkg-query: no packages found matching \$*" >&2; exit 1 ;;
esac
exec $real_dpkg_query "\$@"
EOF
cat > "$tmp/bin/apt-get" <<'EOF'
#!/bin/sh
echo "apt-get $*" >> "$STANDIN_LOG"
[ -n "${APT_FAIL:-}" ] && [ "$1" = "$APT_FAIL" ] && exit 100
if [ "$1" = download ]; then
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		-o) shift ;;
		-*) ;;
		*) : > "${1%%:*}.deb" ;;
		esac
		shift
	done
fi
exit 0
EOF
cat > "$tmp/bin/dpkg" <<'EOF'
#!/bin/sh
echo "dpkg $*" >> "$STANDIN_LOG"
case $1 in
--print-foreign-architectures)
	grep -q '^dpkg --add-architecture arm64$' "$STANDIN_LOG" && echo arm64 ;;
-x)	name=$(basename "$2" .deb)
	case $name in
	linux-headers-*-arm64)
		mkdir -p "$3/usr/src/$name" && : > "$3/usr/src/$name/Makefile" ;;
	esac ;;
esac
exit 0
EOF
cat > "$tmp/bin/depmod" <<'EOF'
#!/bin/sh
echo "depmod $*" >> "$STANDIN_LOG"
EOF
printf '#!/bin/sh\n[ "$1" = -u ] && echo 0 && exit 0\nexec /usr/bin/id "$@"\n' > "$tmp/bin/id"
chmod +x "$tmp/bin"/*
export PATH=$tmp/bin:$PATH

echo "TAP version 13"
echo "1..9"

setup=$tmp/root/scripts/setup.sh
list=$(bash "$setup" --list)
host=$(grep -v '^arm64: ' <<<"$list")
arm=$(sed -n 's/^arm64: //p' <<<"$list")

# The packages whose absence broke fresh machines before.
need="build-essential libc6-dev-arm64-cross libclang-rt-14-dev linux-headers-6.12-amd64 linux-image-6.12-amd64"
missing_need=$(for p in $need; do grep -qxF "$p" <<<"$host" || echo "$p"; done)
ok "$([ -z "$missing_need" ]; echo $?)" "the list has the packages fresh machines lacked${missing_need:+ (missing: $missing_need)}"

rc=0
bash "$setup" > "$tmp/out" 2>&1 || rc=$?
ok "$rc" "setup runs to the end with every package missing (rc $rc)"
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/out"

installed=$(sed -n 's/^apt-get install .*--no-install-recommends //p' "$STANDIN_LOG" | tr ' ' '\n')
absent=$(for p in $host; do grep -qxF "$p" <<<"$installed" || echo "$p"; done)
ok "$([ -z "$absent" ]; echo $?)" "apt-get install was asked for all $(wc -w <<<"$host") host packages${absent:+ (not asked: $absent)}"

downloaded=$(sed -n 's/^apt-get download -qq -o APT::Sandbox::User=root //p' "$STANDIN_LOG" | tr ' ' '\n')
absent=$(for p in $arm; do grep -qxF "$p" <<<"$downloaded" || echo "$p"; done)
ok "$([ -z "$absent" ]; echo $?)" "apt-get download was asked for all $(wc -w <<<"$arm") arm64 packages${absent:+ (not asked: $absent)}"

first_update=$(grep -n '^apt-get update' "$STANDIN_LOG" | head -n 1 | cut -d: -f1)
first_install=$(grep -n '^apt-get install' "$STANDIN_LOG" | head -n 1 | cut -d: -f1)
ok "$([ -n "$first_update" ] && [ -n "$first_install" ] && [ "$first_update" -lt "$first_install" ]; echo $?)" \
	"apt-get update runs before the install"

ok "$(grep -q '^dpkg --add-architecture arm64$' "$STANDIN_LOG"; echo $?)" "the arm64 architecture is added to dpkg"

nkern=$(grep -c '^depmod -b ' "$STANDIN_LOG")
ok "$([ "$nkern" -eq 2 ] && [ -f "$tmp/root/build/deps/arm64/stamp" ]; echo $?)" \
	"both arm64 kernels are staged and stamped (depmod ran $nkern times)"

# A failing step names itself and the command, and exits non-zero.
rm -rf "$tmp/root/build/deps/arm64"
: > "$STANDIN_LOG"
rc=0
APT_FAIL=install bash "$setup" > "$tmp/out" 2>&1 || rc=$?
ok "$([ "$rc" -ne 0 ] && grep -q 'FAILED in step "installing' "$tmp/out" && grep -q 'apt-get install' "$tmp/out"; echo $?)" \
	"a failing apt-get install stops setup with the step and command named (rc $rc)"
[ "$rc" -ne 0 ] || sed 's/^/# /' "$tmp/out"

: > "$STANDIN_LOG"
rc=0
APT_FAIL=download bash "$setup" > "$tmp/out" 2>&1 || rc=$?
ok "$([ "$rc" -ne 0 ] && grep -q 'FAILED in step "downloading' "$tmp/out"; echo $?)" \
	"a failing arm64 download stops setup with the step named (rc $rc)"

exit "$failed"

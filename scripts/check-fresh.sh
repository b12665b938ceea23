#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-fresh.sh: `make check-fresh`.  Prove the README's two commands on a
# machine that has nothing installed by hand: build a throwaway Debian 12
# root with mmdebstrap (Debian's minimal set, minbase, plus git and make)
# from this machine's own Debian apt sources, clone the committed checkout
# into it, and run `make demo` and then `make check` there, end to end.
# Prints both summaries and the time each took; exits non-zero if either
# failed.  Not part of make check: it downloads over a gigabyte.
#
# Env: FRESH_DIR (default /var/tmp/fxtprof-fresh: outside every checkout,
# so nothing that cleans build/ can reach through the root's bind mounts
# of /dev and /sys), FRESH_KEEP=1 keeps the root.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FXT_ROOT"

[ "$(id -u)" = 0 ] || { echo "check-fresh: must run as root (mmdebstrap, chroot, mounts)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || {
	echo "check-fresh: installing mmdebstrap"
	apt-get install -y -qq --no-install-recommends mmdebstrap
}

dir=${FRESH_DIR:-/var/tmp/fxtprof-fresh}
root=$dir/root
mounts=()
cleanup() {
	local m
	for m in "${mounts[@]}"; do umount -R -l "$m" 2>/dev/null || true; done
	# Never delete through a mount that is still there.
	if grep -q " $root/" /proc/mounts; then
		echo "check-fresh: mounts remain under $root; not removing it" >&2
	elif [ "${FRESH_KEEP:-0}" != 1 ]; then
		rm -rf "$root"
	fi
}
trap cleanup EXIT

fxt_bookworm_sources || exit 1
sources=("${FXT_SOURCES[@]}")

rm -rf "$root"
mkdir -p "$dir"
t=$(date +%s)
echo "check-fresh: mmdebstrap --variant=minbase --include=git,make bookworm (sources: ${sources[*]})"
mmdebstrap --quiet --mode=root --variant=minbase --include=git,make \
	bookworm "$root" "${sources[@]}"
echo "check-fresh: root made in $(( $(date +%s) - t ))s"

# The root is a mount point of its own, as a machine's / is: tests that
# make mounts private in a namespace of their own (a full file system,
# tests/socket/test_delivery.c) need / to be one.
mount --bind "$root" "$root"
mounts=("$root" "${mounts[@]}")
for m in proc sys dev; do
	mkdir -p "$root/$m"
	case $m in
	proc)	mount -t proc proc "$root/proc" ;;
	*)	mount --rbind "/$m" "$root/$m"; mount --make-rslave "$root/$m" ;;
	esac
	mounts=("$root/$m" "${mounts[@]}")
done
mkdir -p "$root/src"
mount --bind "$FXT_ROOT" "$root/src"
mount -o remount,bind,ro "$root/src"
mounts=("$root/src" "${mounts[@]}")
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

# A clean clone, as CI makes one: what is committed, nothing else.
chroot "$root" git clone -q /src /root/fxtprof
echo "check-fresh: cloned $(git rev-parse --short HEAD) into the fresh root"

run() {	# run NAME: one README command in the fresh root, timed
	local rc=0 t
	t=$(date +%s)
	echo "check-fresh: === make $1 (fresh root)"
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		TERM=dumb LANG=C.UTF-8 CI=true \
		/bin/bash -c "cd /root/fxtprof && make $1" </dev/null 2>&1 | tee "$dir/$1.log" || rc=$?
	echo "$1 rc=$rc $(( $(date +%s) - t ))s" >> "$dir/times"
	return "$rc"
}
: > "$dir/times"
demo_rc=0 check_rc=0
run demo || demo_rc=$?
run check || check_rc=$?

echo
echo "check-fresh: summary"
while read -r name rc secs; do
	printf '  make %-6s %s in %s\n' "$name" "$rc" "$secs"
done < "$dir/times"
echo "  make demo:  $(grep -E '^demo: (done|FAILED)' "$dir/demo.log" | tail -n 1 || true)"
echo "  make check: $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir/check.log" | tail -n 1 || true)"
[ "$demo_rc" -eq 0 ] && [ "$check_rc" -eq 0 ]

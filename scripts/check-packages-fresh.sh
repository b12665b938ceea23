#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-packages-fresh.sh (make check-packages-fresh, root): the packages
# that make check-packages built, installed in a throwaway Debian 12 root
# (mmdebstrap minbase from this machine's bookworm apt sources, discarded
# at the end: format null, under TMPDIR).  TAP on stdout, the root's log in
# build/packages/fresh.log.
# The root starts with linux-headers-amd64 (the kernel DKMS builds for)
# and gcc with libc6-dev (for the program of 4), as a machine that builds
# would.
#  1. apt-get install ./fxtprof_*.deb ./fxtprof-dkms_*.deb
#     ./libfxtprof-dev_*.deb ./libfxtprof-hooks0_*.deb pulls their
#     dependencies (dkms and what it needs);
#  2. dkms status says fxtprof is installed for the root's kernel headers;
#  3. the installed fxtprof.ko's vermagic is that kernel's;
#  4. the installed fxtprof runs, and a program builds with pkg-config's
#     flags for libfxtprof-hooks and runs against the installed library;
#  5. apt-get purge of the four, then install and purge again: the root's
#     files after the second purge are those after the first (the module
#     DKMS built and its tree in /var/lib/dkms included), and none of the
#     packages' paths is left.
# Downloads a few hundred megabytes (the headers and gcc that DKMS needs).
set -uo pipefail
. "$(dirname "$0")/env.sh"
. "$FXT_ROOT/tests/scripts/tap.sh"
cd "$FXT_ROOT" || exit 1

[ "$(id -u)" = 0 ] || { echo "check-packages-fresh: must run as root (mmdebstrap --mode=root)" >&2; exit 1; }
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
debdir=$FXT_ROOT/build/packages/src
debs=("fxtprof_${version}_amd64.deb" "fxtprof-dkms_${version}_all.deb"
      "libfxtprof-dev_${version}_amd64.deb" "libfxtprof-hooks0_${version}_amd64.deb")
for d in "${debs[@]}"; do
	[ -f "$debdir/$d" ] || { echo "check-packages-fresh: no $debdir/$d (make check-packages first)" >&2; exit 1; }
done
fxt_bookworm_sources || exit 1
sources=("${FXT_SOURCES[@]}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The steps, run by sh in the root; each writes its result to /tmp/r/NAME
# (0 or the reason) so that the TAP lines are printed here.
cat > "$out/steps.sh" <<'STEPS'
set -u
export DEBIAN_FRONTEND=noninteractive
mkdir -p /tmp/r
cd /tmp/debs
# The root's files, but what apt and dpkg keep about themselves.
files() {
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run \
		-o -path /var/cache -o -path /var/log -o -path /var/lib/apt -o -path /var/lib/dpkg \) -prune \
		-o -print | LC_ALL=C sort
}
res() { echo "$2" > "/tmp/r/$1"; }
apt-get update -qq
if apt-get install -y -q ./fxtprof_*.deb ./fxtprof-dkms_*.deb ./libfxtprof-dev_*.deb \
	./libfxtprof-hooks0_*.deb > /tmp/r/install.log 2>&1; then res install 0
else res install "apt-get install failed: $(tail -5 /tmp/r/install.log)"; fi
krel=$(ls /lib/modules | head -1)
st=$(dkms status 2>&1)
case $st in
*"fxtprof/"*", $krel, "*": installed"*) res dkms 0 ;;
*) res dkms "dkms status: $st (kernel $krel)" ;;
esac
ko=$(find /lib/modules/$krel -name 'fxtprof.ko*' | head -1)
vm=$(modinfo -F vermagic "$ko" 2>&1)
case $vm in "$krel "*) res vermagic 0 ;; *) res vermagic "$ko: vermagic $vm, kernel $krel" ;; esac
printf '%s\n' '#include <fxtprof_hooks.h>' \
	'int main(void) { return fxtprof_interface_version() == FXTPROF_HOOKS_INTERFACE_VERSION ? 0 : 1; }' > /tmp/h.c
if fxtprof --help > /tmp/r/help.log 2>&1 && grep -q record /tmp/r/help.log &&
   gcc -o /tmp/h /tmp/h.c $(pkg-config --cflags --libs libfxtprof-hooks) > /tmp/r/cc.log 2>&1 && /tmp/h; then
	res run 0
else res run "fxtprof --help or the hooks program failed: $(cat /tmp/r/help.log /tmp/r/cc.log | tail -5)"; fi
ours=$(dpkg -L fxtprof fxtprof-dkms libfxtprof-dev libfxtprof-hooks0 | grep -v '^/\.$' | sort -u)
pkgs="fxtprof fxtprof-dkms libfxtprof-dev libfxtprof-hooks0"
apt-get purge -y -q $pkgs > /tmp/r/purge1.log 2>&1
files > /tmp/r/after1
apt-get install -y -q ./fxtprof_*.deb ./fxtprof-dkms_*.deb ./libfxtprof-dev_*.deb \
	./libfxtprof-hooks0_*.deb > /tmp/r/install2.log 2>&1
apt-get purge -y -q $pkgs > /tmp/r/purge2.log 2>&1
files > /tmp/r/after2
left=$(for p in $ours; do [ -e "$p" ] && [ ! -d "$p" ] && echo "$p"; done)
left="$left$(ls -d /var/lib/dkms/fxtprof /usr/src/fxtprof-* 2>/dev/null)"
d=$(diff /tmp/r/after1 /tmp/r/after2)
if [ -z "$d$left" ]; then res purge 0; else res purge "left behind: $left $d"; fi
STEPS

mmdebstrap --quiet --mode=root --variant=minbase --include=ca-certificates,pkgconf,gcc,libc6-dev,linux-headers-amd64 \
	--customize-hook="mkdir -p \"\$1/tmp/debs\"" \
	--customize-hook="cp $(printf '%q ' "${debs[@]/#/$debdir/}") $out/steps.sh \"\$1/tmp/debs/\"" \
	--customize-hook="chroot \"\$1\" sh /tmp/debs/steps.sh" \
	--customize-hook="cp -r \"\$1/tmp/r\" $out/" \
	bookworm /dev/null "${sources[@]}" > "$FXT_ROOT/build/packages/fresh.log" 2>&1
mm=$?
cat "$out"/r/*.log >> "$FXT_ROOT/build/packages/fresh.log" 2>/dev/null

echo "TAP version 13"
echo "1..5"
result() {
	local r
	r=$(cat "$out/r/$1" 2>/dev/null || echo "did not run (mmdebstrap status $mm; build/packages/fresh.log)")
	if [ "$r" = 0 ]; then ok 0 "$2"; else ok 1 "$2"; printf '%s\n' "$r" | sed 's/^/# /'; fi
}
result install apt_get_install_pulls_dependencies
result dkms dkms_status_installed_for_the_roots_kernel
result vermagic modinfo_vermagic_matches
result run installed_fxtprof_and_hooks_library_run
result purge purge_leaves_nothing_behind
exit $failed

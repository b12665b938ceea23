#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-packages-arm64.sh (make check-packages-arm64, root): the arm64
# packages of debian/, cross-built on this x86_64 machine the Debian way,
# in a throwaway Debian 12 root (mmdebstrap from fxt_bookworm_sources,
# discarded at the end).  TAP on stdout; the .deb files in
# build/packages/arm64/, the logs next to them.
#  1. the root: amd64 with arm64 added (mmdebstrap --architectures, that is
#     dpkg --add-architecture arm64), build-essential,
#     crossbuild-essential-arm64, qemu-user-static, and the arm64
#     Build-Depends of debian/control installed by apt-get build-dep
#     -aarm64.  It is cached as a tarball under build/packages/cache/,
#     keyed by that package list, debian/control and the apt sources:
#     made once (about 6 minutes here; the build dependencies alone are
#     156 MB of downloads; the tarball is 1.9 GB), then unpacked in
#     under a minute;
#  2. dpkg-buildpackage -us -uc -aarm64 -Pcross,nocheck -B builds the
#     tree (tracked and new files, as git sees them) in the root;
#  3. it made fxtprof, libfxtprof-dev and libfxtprof-hooks0 for arm64
#     (copied to build/packages/arm64/);
#  4. lintian --fail-on error,warning passes them, without overrides;
#  5. every ELF file in them is AArch64 (the BPF object is embedded in
#     fxtprof, not a file of its own);
#  6. the arm64 fxtprof runs under qemu-aarch64-static -L ROOT (the root's
#     arm64 libraries): --help lists its commands, report among them;
#  7. its `fxtprof report` of a recording made on this host (written by
#     the x86_64 tests/report/gen_profile, user frames in the x86_64 chain
#     program, kernel symbols in the stream) prints the same lines as the
#     x86_64 fxtprof's, with c named on top;
#  8. apt-get installs the three in the amd64 root, next to its amd64
#     packages (multiarch: Multi-Arch: same libraries), the installed
#     fxtprof runs, and a program cross-compiled against the installed
#     libfxtprof-hooks runs under qemu-user.
# Not here: the arm64 packages in an arm64 system (Documentation/building.md).
set -uo pipefail
. "$(dirname "$0")/env.sh"
. "$FXT_ROOT/tests/scripts/tap.sh"
cd "$FXT_ROOT" || exit 1

[ "$(id -u)" = 0 ] || { echo "check-packages-arm64: must run as root (mmdebstrap --mode=root)" >&2; exit 1; }
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
pkgs="fxtprof libfxtprof-dev libfxtprof-hooks0"
out=$FXT_ROOT/build/packages/arm64
cache=$FXT_ROOT/build/packages/cache
fxt_bookworm_sources || exit 1
sources=("${FXT_SOURCES[@]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out" "$cache" "$tmp/r" || exit 1
rm -f "$out"/*_arm64.* "$out"/*.log "$out"/*.report "$out/rec.fxt"

# The root's packages; with debian/control and the sources, its key.
root_pkgs="build-essential,crossbuild-essential-arm64,qemu-user-static"
key=$( { echo "$root_pkgs"; cat debian/control "${sources[@]}"; } | sha256sum | cut -c1-16)
root_tar=$cache/arm64-root-$key.tar

# 1. Made once per key; an older key's tarball is removed.  The arm64
# kernel image (the BTF of the bpf source's vmlinux.h) is installed for
# its files only: no initramfs is made for it (update-initramfs diverted).
make_root() {
	[ -f "$root_tar" ] && [ -s "$root_tar" ] && { echo "cached: $root_tar"; return 0; }
	rm -f "$cache"/arm64-root-*.tar "$cache"/arm64-root-*.tar.tmp
	mkdir -p "$tmp/bd" && cp -r debian "$tmp/bd/" || return 1
	mmdebstrap --mode=root --variant=apt --format=tar --architectures=amd64,arm64 \
		--include="$root_pkgs" --aptopt='APT::Install-Recommends "false"' \
		--customize-hook="mkdir -p \"\$1/tmp/bd\" && cp -r $tmp/bd/debian \"\$1/tmp/bd/\"" \
		--customize-hook='chroot "$1" dpkg-divert --local --rename --add /usr/sbin/update-initramfs &&
			ln -s /bin/true "$1/usr/sbin/update-initramfs"' \
		--customize-hook='chroot "$1" apt-get build-dep -y -aarm64 /tmp/bd' \
		--customize-hook='rm -rf "$1/tmp/bd"; chroot "$1" apt-get clean' \
		bookworm "$root_tar.tmp" "${sources[@]}" > "$out/root.log" 2>&1 ||
		{ rm -f "$root_tar.tmp"; tail -20 "$out/root.log"; return 1; }
	mv "$root_tar.tmp" "$root_tar"
}

# The recording of 7, made here by the x86_64 tools, and its report.
CHAIN=$FXT_ROOT/build/x86_64/tests/report/chain
GEN=$FXT_ROOT/build/x86_64/tests/report/gen_profile
X86_FXTPROF=$FXT_ROOT/build/x86_64/bin/fxtprof
recording() {
	make -j2 "${CHAIN#"$FXT_ROOT"/}" "${GEN#"$FXT_ROOT"/}" "${X86_FXTPROF#"$FXT_ROOT"/}" \
		> "$tmp/make.log" 2>&1 || { tail -20 "$tmp/make.log"; return 1; }
	"$CHAIN" > "$tmp/chain.out" || return 1
	local ips i
	ips=$(awk '/^frames/ { print $2, $3, $4, $5 }' "$tmp/chain.out")
	{
		echo "kmod 0xffffffff81000000 0xffffffff82000000 1 [kernel.kallsyms]"
		echo "ksym 0xffffffff81001000 0x100 do_syscall_64"
		echo "ksym 0xffffffff81003000 0x40 default_idle"
		echo "process 100 chain"
		echo "thread 100 100 chain"
		echo "exec 2000 100 100 $CHAIN"
		awk '/^map/ { s++; print "mapping", s, 100, $2, $3, $4, 2000, 0, $5 }' "$tmp/chain.out"
		for i in 1 2 3 4 5 6 7 8 9 10; do echo "sample $((3000 + i)) 100 100 0 user 0 $ips"; done
		for i in 1 2 3; do echo "sample $((3100 + i)) 100 100 0 kernel 1 0xffffffff81001050 $ips"; done
		echo "sample 3200 0 0 1 idle 1 0xffffffff81003008"
	} | "$GEN" > "$tmp/rec.fxt" || return 1
	"$X86_FXTPROF" report --no-children --sort sym "$tmp/rec.fxt" > "$tmp/x86.report" 2>&1 &&
	"$X86_FXTPROF" report "$tmp/rec.fxt" >> "$tmp/x86.report" 2>&1 ||
		{ cat "$tmp/x86.report"; return 1; }
}

# The steps in the root, run by sh there (2, 3's files, 8); each writes
# its result to /tmp/r/NAME (0 or the reason).
cat > "$tmp/inside.sh" <<STEPS
set -u
export DEBIAN_FRONTEND=noninteractive
v=$version
STEPS
cat >> "$tmp/inside.sh" <<'STEPS'
res() { echo "$2" > "/tmp/r/$1"; }
mkdir -p /tmp/r
cd /build/fxtprof-$v || exit 1
# As sbuild cross-builds: the cross and nocheck profiles (no test runs
# in debian/rules anyway).
if DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -aarm64 -Pcross,nocheck -B -j2 \
	> /tmp/r/build.log 2>&1; then res build 0
else res build "dpkg-buildpackage -aarm64 -B failed: $(tail -25 /tmp/r/build.log)"; fi
cd /build
debs="./fxtprof_${v}_arm64.deb ./libfxtprof-dev_${v}_arm64.deb ./libfxtprof-hooks0_${v}_arm64.deb"
if apt-get install -y -q $debs > /tmp/r/install.log 2>&1; then
	printf '%s\n' '#include <fxtprof_hooks.h>' \
		'int main(void) { return fxtprof_interface_version() == FXTPROF_HOOKS_INTERFACE_VERSION ? 0 : 1; }' > /tmp/h.c
	archs=$(dpkg-query -W -f='${Package}:${Architecture}\n' fxtprof libfxtprof-dev libfxtprof-hooks0 | sort | tr '\n' ' ')
	if [ "$archs" != "fxtprof:arm64 libfxtprof-dev:arm64 libfxtprof-hooks0:arm64 " ]; then
		res install "installed as $archs"
	elif ! qemu-aarch64-static /usr/bin/fxtprof --help > /tmp/r/ihelp.log 2>&1 || ! grep -q record /tmp/r/ihelp.log; then
		res install "the installed fxtprof did not run: $(tail -5 /tmp/r/ihelp.log)"
	elif ! aarch64-linux-gnu-gcc -o /tmp/h /tmp/h.c -lfxtprof-hooks > /tmp/r/cc.log 2>&1 ||
	     ! qemu-aarch64-static /tmp/h > /tmp/r/h.log 2>&1; then
		res install "the hooks program did not build or run: $(cat /tmp/r/cc.log /tmp/r/h.log | tail -5)"
	else res install 0; fi
else res install "apt-get install failed: $(tail -8 /tmp/r/install.log)"; fi
STEPS

# 6 and 7, run here with the root's qemu and arm64 libraries (-L ROOT);
# the recording and the chain program it names are this machine's files.
cat > "$tmp/outside.sh" <<STEPS
set -u
root=\$1 tmp=$tmp v=$version out=$out
STEPS
cat >> "$tmp/outside.sh" <<'STEPS'
res() { echo "$2" > "$tmp/r/$1"; }
x=$root/tmp/x
mkdir -p "$x" && dpkg-deb -x "$root/build/fxtprof_${v}_arm64.deb" "$x" 2>/dev/null
q() { "$root/usr/bin/qemu-aarch64-static" -L "$root" "$x/usr/bin/fxtprof" "$@"; }
if ! q --help > "$tmp/r/help.log" 2>&1; then res help "fxtprof --help failed: $(tail -5 "$tmp/r/help.log")"
elif ! grep -q '^ *record' "$tmp/r/help.log" || ! grep -q '^ *report' "$tmp/r/help.log"; then
	res help "--help lists no record or report: $(head -20 "$tmp/r/help.log")"
else res help 0; fi
if [ -s "$tmp/x86.report" ]; then
	{ q report --no-children --sort sym "$tmp/rec.fxt" && q report "$tmp/rec.fxt"; } > "$tmp/arm64.report" 2>&1
	d=$(diff "$tmp/x86.report" "$tmp/arm64.report")
	top=$(grep -v '^#' "$tmp/arm64.report" | grep -m1 '%')
	cp "$tmp/x86.report" "$tmp/arm64.report" "$tmp/rec.fxt" "$out/" 2>/dev/null
	if [ -n "$d" ]; then res report "the reports differ (x86_64 <, arm64 >): $d"
	else case $top in *"[.] c") res report 0 ;; *) res report "c is not on top: $top" ;; esac; fi
else res report "no x86_64 report to compare with (the recording was not made)"; fi
STEPS

echo "TAP version 13"
echo "1..8"
t "root_with_cross_toolchain_and_arm64_build_deps" make_root
have_rec=0
recording > "$tmp/recording.log" 2>&1 && have_rec=1

rm -rf "$out/src" && mkdir -p "$out/src/fxtprof-$version" &&
	git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$out/src/fxtprof-$version"
mm=1
if [ -s "$root_tar" ]; then
	mmdebstrap --mode=root --variant=custom --skip=update \
		--setup-hook="mmtarfilter '--path-exclude=/dev/*' < $root_tar | tar -C \"\$1\" -x" \
		--customize-hook="mkdir -p \"\$1/build\" && cp -r $out/src/fxtprof-$version \"\$1/build/\" && cp $tmp/inside.sh \"\$1/tmp/i.sh\"" \
		--customize-hook='chroot "$1" sh /tmp/i.sh' \
		--customize-hook="cp -r \"\$1/tmp/r/.\" $tmp/r/; cp \"\$1\"/build/*_arm64.* $out/ || true" \
		--customize-hook="bash $tmp/outside.sh \"\$1\"" \
		bookworm /dev/null "${sources[@]}" > "$out/mmdebstrap.log" 2>&1
	mm=$?
fi
rm -rf "$out/src"
cat "$tmp"/r/*.log > "$out/root-steps.log" 2>/dev/null
cp "$tmp/r/build.log" "$out/build.log" 2>/dev/null

result() {
	local r
	r=$(cat "$tmp/r/$1" 2>/dev/null || echo "did not run (mmdebstrap status $mm; build/packages/arm64/mmdebstrap.log)")
	if [ "$r" = 0 ]; then ok 0 "$2"; else ok 1 "$2"; printf '%s\n' "$r" | sed 's/^/# /'; fi
}
all_built() {
	local p bad=0
	for p in $pkgs; do
		[ -f "$out/${p}_${version}_arm64.deb" ] || { echo "no ${p}_${version}_arm64.deb"; bad=1; }
	done
	return $bad
}
lint() {
	[ -f "$out/fxtprof_${version}_arm64.changes" ] || { echo "no .changes"; return 1; }
	lintian --fail-on error,warning "$out/fxtprof_${version}_arm64.changes" \
		> "$out/lintian.log" 2>&1 || { cat "$out/lintian.log"; return 1; }
}
# Every ELF file of the three: readelf's Machine is AArch64.
all_aarch64() {
	local p f m n=0 bad=0
	for p in $pkgs; do
		rm -rf "$tmp/x" && mkdir "$tmp/x" &&
			dpkg-deb -x "$out/${p}_${version}_arm64.deb" "$tmp/x" || return 1
		while IFS= read -r -d '' f; do
			# ELF files, and the ELF members of ar archives (libfxtprof.a)
			case $(head -c4 "$f" | od -An -tx1 | tr -d ' ') in
			7f454c46|213c6172) ;;
			*) continue ;;
			esac
			n=$((n + 1))
			m=$(readelf -h "$f" | sed -n 's/^ *Machine: *//p' | sort -u | tr '\n' ' ')
			[ "$m" = "AArch64 " ] || { echo "$p: ${f#"$tmp"/x}: $m"; bad=1; }
		done < <(find "$tmp/x" -type f -print0)
	done
	[ $n -ge 3 ] || { echo "only $n ELF files"; bad=1; }
	return $bad
}
result build dpkg_buildpackage_aarm64_B
t three_arm64_packages_built all_built
t lintian_fail_on_error_warning lint
t every_elf_is_aarch64 all_aarch64
result help fxtprof_help_under_qemu_aarch64
if [ $have_rec = 1 ]; then result report report_of_a_host_recording_as_x86_64s
else ok 1 report_of_a_host_recording_as_x86_64s; sed 's/^/# /' "$tmp/recording.log"; fi
result install apt_get_install_multiarch_and_run
exit $failed

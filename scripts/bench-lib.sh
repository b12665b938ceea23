# SPDX-License-Identifier: GPL-2.0-only
# bench-lib.sh - what the VM benchmarks share; sourced after env.sh by
# scripts/bench-kernel.sh, bench-sched.sh, bench-flush.sh, bench-bpf.sh,
# bench-memory.sh and soak.sh.
#
#   bench_build NAME CFG NOBUILD FILE...
#                             builds the module and FILEs unless NOBUILD
#                             is 1, and exits if one is missing
#   bench_find_perf NAME      sets perf= to a perf ELF ($PERF, else the
#                             first Debian places), or exits naming NAME
#   bench_vm_files SRC:DEST...
#                             sets files=( SRC:DEST ... ): those, and every
#                             shared object ldd lists for the SRCs, at the
#                             path ldd names
#   bench_run_vm NAME CFG SCRIPT LIST OUT [SRC:DEST...] [-- KARGS]
#                             runs SCRIPT in the VM (scripts/vm-cmd.sh)
#                             with only LIST's programs in /tests, its
#                             output to OUT; prints all but the BENCH
#                             lines and exits if it failed or gave none
#   BENCH_AWK                 awk text to put before a program that reads
#                             BENCH lines: bench_fields() (the KEY=VALUE
#                             words of the line into v[]), add(key, x) and
#                             median(key) (0 for a key with no value)

# bench_build NAME CFG NOBUILD FILE...: unless NOBUILD is 1, build the
# module for CFG and the FILEs (paths under build/CFG); then exit naming
# any of them, or the module, that is missing.
bench_build() {
	local name=$1 cfg=$2 nobuild=$3 f
	shift 3
	if [ "$nobuild" != 1 ]; then
		make -C "$FXT_ROOT" --no-print-directory CFG="$cfg" module
		make -C "$FXT_ROOT" --no-print-directory ARCH="$cfg" "${@#$FXT_ROOT/}"
	fi
	for f in "$@" "$FXT_BUILD/$cfg/kmod/fxtprof.ko"; do
		[ -f "$f" ] || { echo "$name: $f is missing (make ARCH=$cfg)" >&2; exit 1; }
	done
}

bench_is_elf() { [ -f "$1" ] && [ "$(head -c4 "$1" | tail -c3)" = ELF ]; }

bench_find_perf() {
	local c
	perf=${PERF:-}
	if [ -z "$perf" ]; then
		# Debian's /usr/bin/perf is either the binary itself (linux-perf
		# diverts the old wrapper) or a wrapper exec'ing perf_X.Y.
		for c in /usr/bin/perf /usr/bin/perf_* /usr/lib/linux-tools*/perf \
			/usr/lib/linux-tools-*/*/perf; do
			if bench_is_elf "$c"; then perf=$c; break; fi
		done
	fi
	bench_is_elf "${perf:-}" || {
		echo "$1: no perf binary found (install linux-perf or set PERF=)" >&2
		exit 1
	}
}

# Real files at the paths ldd names: mkinitramfs copies with cp -a, which
# would keep a symlink pointing nowhere.
bench_vm_files() {
	local f lib srcs=()
	files=("$@")
	for f in "$@"; do srcs+=("${f%%:*}"); done
	while read -r lib; do
		files+=("$(readlink -f "$lib"):$lib")
	done < <(ldd "${srcs[@]}" | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' | sort -u)
}

bench_run_vm() {
	local name=$1 cfg=$2 script=$3 list=$4 out=$5 rc=0
	shift 5
	mkdir -p "$FXT_RESULTS"
	VM_TESTS_LIST=$list VM_TIMEOUT=${VM_TIMEOUT:-600} \
		"$FXT_ROOT/scripts/vm-cmd.sh" "$cfg" "$script" "$@" > "$out" || rc=$?
	grep -v '^BENCH ' "$out" || true
	if [ $rc -ne 0 ] || ! grep -q '^BENCH ' "$out"; then
		echo "$name: the VM script failed (rc=$rc); see $out and the VM log in $FXT_RESULTS" >&2
		exit 1
	fi
}

# shellcheck disable=SC2016
BENCH_AWK='
function bench_fields(   i, kv) {
	delete v
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
}
function add(key, x) { if (x != "-" && x != "") val[key, ++cnt[key]] = x }
function median(key,   n, i, j, t, a) {
	n = cnt[key]
	if (!n) return 0
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
'

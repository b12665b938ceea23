#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-archive.sh [CFG]    (make bench-archive)
# The archive (.fxtz) against its baselines, all measured in this run:
#   1. in one x86_64 QEMU TCG boot (tests/bench/bench-archive.vm.sh), with
#      the same workload: a long recording at BENCH_FREQ Hz streamed to
#      this host's `fxtprof receive` (at least 100 MB of FXT, sized by
#      BENCH_BIG_SECS); then BENCH_REPS times plain FXT, archive and
#      `perf record -z` for BENCH_SECS each: the reader's CPU and the
#      bytes per sample;
#   2. on this host, on the long recording's bytes: the archive writer
#      (tests/archive_tools/bench_archive) next to `lz4 -1` and
#      `zstd -1 -T1`, best of 3 wall times each, input in the page cache;
#   3. a 10-minute archive written by tests/archive_tools/gen_archive (2
#      CPUs at 1 kHz, 16 user frames a sample drawn from 64 addresses, so
#      that it compresses about as the VM's archive does), and the bytes
#      `fxtprof extract` reads for 1 s from its middle.
# The figures go to stdout and build/results/bench-archive.txt (the raw
# VM output to bench-archive.out); Documentation/performance.md quotes
# them.  perf comes from the host (as in scripts/bench-kernel.sh).  The
# large files live under build/bench-archive/ and are removed at the end
# (BENCH_KEEP=1 keeps them).  BENCH_HOST_ONLY=FILE.fxt runs steps 2 and 3
# on FILE, without the VM.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FXT_ROOT"

cfg=${1:-x86_64}
if [ "$cfg" != x86_64 ]; then
	echo "bench-archive: only CFG=x86_64 is supported (perf comes from the host), not '$cfg'" >&2
	exit 2
fi
B=$FXT_BUILD/x86_64
FXTPROF=$B/bin/fxtprof
BENCH=$B/tests/archive_tools/bench_archive
GEN=$B/tests/archive_tools/gen_archive
freq=${BENCH_FREQ:-10000}
big_secs=${BENCH_BIG_SECS:-180}
secs=${BENCH_SECS:-10}
reps=${BENCH_REPS:-2}
host_only=${BENCH_HOST_ONLY:-}
for p in "$FXTPROF" "$BENCH" "$GEN" ${host_only:+"$host_only"} \
	 ${host_only:-"$B/kmod/fxtprof.ko"}; do
	[ -e "$p" ] || { echo "bench-archive: $p is missing (make all)" >&2; exit 1; }
done
for c in lz4 zstd; do
	command -v $c > /dev/null || { echo "bench-archive: no $c command (scripts/setup.sh installs it)" >&2; exit 1; }
done

W=$FXT_BUILD/bench-archive
rm -rf "$W"
mkdir -p "$W/streams" "$FXT_RESULTS"
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$W"' EXIT
res=$FXT_RESULTS/bench-archive.txt
out=$FXT_RESULTS/bench-archive.out

vm_half() {
# perf and its libraries, at their host paths (see bench-kernel.sh).
is_elf() { [ -f "$1" ] && [ "$(head -c4 "$1" | tail -c3)" = ELF ]; }
perf=${PERF:-}
if [ -z "$perf" ]; then
	for c in /usr/bin/perf /usr/bin/perf_* /usr/lib/linux-tools*/perf; do
		if is_elf "$c"; then perf=$c; break; fi
	done
fi
is_elf "${perf:-}" || { echo "bench-archive: no perf binary found (install linux-perf or set PERF=)" >&2; exit 1; }
files=("$perf:/bench/perf")
while read -r lib; do
	files+=("$(readlink -f "$lib"):$lib")
done < <(ldd "$perf" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)

# The host's listener for the long recording: one stream.
"$FXTPROF" receive -q tcp://127.0.0.1:0 -o "$W/streams" -n 1 \
	--idle-timeout 600 > "$W/receive.out" 2>&1 &
rpid=$!
for _ in $(seq 100); do grep -q '^listening on' "$W/receive.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^listening on tcp:\/\/.*:\([0-9]*\)$/\1/p' "$W/receive.out")
[ -n "$port" ] || { echo "bench-archive: fxtprof receive did not start" >&2; kill $rpid; exit 1; }
printf 'PORT=%s\nBIG_SECS=%s\nSECS=%s\nREPS=%s\nFREQ=%s\n' "$port" "$big_secs" \
	"$secs" "$reps" "$freq" > "$W/bench.conf"

echo "== VM ($cfg, TCG): ${big_secs} s to the host, then $reps x (plain, archive, perf -z) of $secs s at $freq Hz"
rc=0
VM_TIMEOUT=${VM_TIMEOUT:-$((big_secs + reps * secs * 6 + 400))} \
	"$FXT_ROOT/scripts/vm-cmd.sh" "$cfg" tests/bench/bench-archive.vm.sh \
	"${files[@]}" "$W/bench.conf:/bench/bench.conf" -- clocksource=tsc tsc=reliable \
	> "$out" || rc=$?
wait $rpid || true
grep -v '^BENCH-INFO-ARCHIVE' "$out" | sed 's/^/  /'
if [ $rc -ne 0 ] || ! grep -q '^BENCH cfg=perf' "$out"; then
	echo "bench-archive: the VM script failed (rc=$rc); see $out" >&2
	exit 1
fi
}

{
echo "== host: $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
if [ -n "$host_only" ]; then
	big=$host_only
else
	vm_half
	big=$(ls "$W"/streams/*.fxt | head -1)
fi
bigsz=$(stat -c %s "$big")
echo
echo "== the long recording: $bigsz bytes of FXT ($(awk -v b="$bigsz" 'BEGIN { printf "%.1f", b / 1e6 }') MB)"
"$FXTPROF" check -q "$big" && echo "  it passes fxtprof check"

# 2. Compression on the same bytes, best of 3, warm page cache.
cat "$big" > /dev/null
best() {	# CMD... : the best wall seconds of 3 runs
	local b="" t0 t1 i
	for i in 1 2 3; do
		t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N)
		b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { t = z - a; if (b == "" || t < b) b = t; printf "%.4f", b }')
	done
	echo "$b"
}
arch=$("$BENCH" "$big" "$W/big.fxtz" 3)
echo "  $arch"
a_s=$(echo "$arch" | sed -n 's/.*best_s=\([0-9.]*\).*/\1/p')
a_out=$(echo "$arch" | sed -n 's/.* out=\([0-9]*\).*/\1/p')
l_s=$(best lz4 -1 -q -f "$big" "$W/big.lz4")
l_out=$(stat -c %s "$W/big.lz4")
z_s=$(best zstd -1 -T1 -q -f "$big" -o "$W/big.zst")
z_out=$(stat -c %s "$W/big.zst")
echo
echo "Compression of the same $bigsz bytes (best of 3 wall times):"
awk -v sz="$bigsz" -v as="$a_s" -v ao="$a_out" -v ls="$l_s" -v lo="$l_out" \
    -v zs="$z_s" -v zo="$z_out" 'BEGIN {
	printf "  %-22s %9s %8s %10s\n", "", "MB/s", "ratio", "vs lz4"
	printf "  %-22s %9.1f %7.2fx %9.2fx\n", "archive writer", sz / 1e6 / as, sz / ao, ls / as
	printf "  %-22s %9.1f %7.2fx %9.2fx\n", "lz4 -1 (command line)", sz / 1e6 / ls, sz / lo, 1
	printf "  %-22s %9.1f %7.2fx %9.2fx\n", "zstd -1 -T1", sz / 1e6 / zs, sz / zo, ls / zs
	print "  vs lz4: speed as a multiple of the lz4 command line'\''s (goal for the writer >= 0.9x)"
}'

# 3. The VM runs: bytes per sample and the reader's CPU (medians).
echo
[ -n "$host_only" ] || awk '
function med(k,   n, i, j, t, a) {
	n = cnt[k]; for (i = 1; i <= n; i++) a[i] = v[k, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 == "BENCH" {
	delete f
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	c = f["cfg"]
	if (f["samples"] > 0) v[c ":bps", ++cnt[c ":bps"]] = f["bytes"] / f["samples"]
	v[c ":samples", ++cnt[c ":samples"]] = f["samples"]
	if (f["cpu"] != "-") v[c ":cpu", ++cnt[c ":cpu"]] = f["cpu"]
	v[c ":bytes", ++cnt[c ":bytes"]] = f["bytes"]
}
END {
	printf "In the VM, %s s at the same rate, medians of %d runs:\n", secs, cnt["plain:samples"]
	printf "  %-16s %10s %14s %14s\n", "", "samples", "bytes/sample", "reader CPU s"
	printf "  %-16s %10d %14.1f %14.3f\n", "plain FXT", med("plain:samples"), med("plain:bps"), med("plain:cpu")
	printf "  %-16s %10d %14.1f %14.3f\n", "archive (.fxtz)", med("archive:samples"), med("archive:bps"), med("archive:cpu")
	printf "  %-16s %10d %14.1f %14s\n", "perf record -z", med("perf:samples"), med("perf:bps"), "-"
	printf "  bytes per sample, archive / perf -z: %.2fx (goal <= 0.5x); archive / plain FXT: %.2fx\n",
		med("archive:bps") / med("perf:bps"), med("archive:bps") / med("plain:bps")
	printf "  reader CPU, archive / plain FXT: %.2fx\n", med("archive:cpu") / med("plain:cpu")
	printf "  the archive: %.0f KB per second of recording\n", med("archive:bytes") / secs / 1000
}' secs="$secs" "$out"

# 4. A 10-minute archive and a 1 s window from its middle.
echo
"$GEN" -d 600 -r 1000 -c 2 -f 16 -v 64 -a "$W/long.fxtz" > /dev/null
lsz=$(stat -c %s "$W/long.fxtz")
"$FXTPROF" extract "$W/long.fxtz" --from 300s --to 301s -o "$W/win.fxt" 2> "$W/extract.err"
"$FXTPROF" check -q "$W/win.fxt"
echo "A 10-minute archive (gen_archive: 2 CPUs x 1 kHz, 16 user frames from 64 addresses): $lsz bytes," \
	"$(awk -v s="$lsz" 'BEGIN { printf "%.0f", s / 600 / 1000 }') KB per second of trace"
sed 's/^fxtprof: /  extract 300s..301s: /' "$W/extract.err" | grep -v delivered
rd=$(sed -n 's/.*read \([0-9]*\) bytes of the archive.*/\1/p' "$W/extract.err")
awk -v r="$rd" -v s="$lsz" 'BEGIN { printf "  bytes read for 1 s of 600: %.3f%% of the file (goal < 1%%)\n", 100 * r / s }'
} 2>&1 | tee "$res"

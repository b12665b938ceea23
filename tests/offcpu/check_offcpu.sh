#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check_offcpu.sh LOG OUTDIR > TAP
# The host half of the module's off-CPU test: take the recording and the
# workload's own totals that tests/offcpu/test_offcpu.sh wrote to a VM's
# console (LOG), name their frames here (the guest's files are under
# OUTDIR/symfs), and hold the off-CPU profile to what the workload
# measured, as tests/bpf/run_record_offcpu.sh does for the bpf source on
# this host: each waiting call's waits within 10 % of its own clock,
# the pipe's and the mutex's to the thread that woke them, and the
# wall-clock profile of a thread that runs 30 % and sleeps 70 % within
# 5 % of its elapsed time; and `symbolize`
# gives Perfetto each wait as a sample with its stacks, on a sequence of
# its own.
#
# Every check runs whatever happened before it, so a missing recording
# fails each one by name and the count stays that of the plan
# (tests/offcpu/suite.plan, "sym check_offcpu").
set -uo pipefail

usage="usage: check_offcpu.sh LOG OUTDIR"
log=${1:?$usage}
out=${2:?$usage}
root=$(cd "$(dirname "$0")/../.." && pwd)
fxtprof=${FXTPROF:-$root/build/x86_64/bin/fxtprof}
blobs=${FXT_BLOBS:-$root/build/x86_64/tests/symbols/fxt_blobs}
proto=$root/tests/export/perfetto_profile.proto
PLAN=9

n=0
tap() {	# tap ok|"not ok" description
	n=$((n + 1))
	echo "$1 $n $2"
}
check() {	# check DESCRIPTION CMD...: ok if CMD succeeds
	local desc=$1
	shift
	if "$@"; then tap ok "$desc"; else tap "not ok" "$desc"; fi
}

echo "TAP version 13"
echo "1..$PLAN"

# vm_arch and vm_file: reading the guest's console.
. "$root/tests/scripts/vm_console.sh"
arch=${SYM_ARCH:-$(vm_arch "$log")}
rm -rf "$out"
mkdir -p "$out/symfs/tests" "$out/empty"
fxt=$out/oc.fxt totals=$out/oc.totals
echo "# arch $arch, recording $fxt, outputs in $out"

# The guest's files: the workload, and the loader and libc it runs on.
cp "$root/build/$arch/tests/offcpu/offcpu_workload" "$out/symfs/tests/" ||
	echo "# no build/$arch/tests/offcpu/offcpu_workload (make ARCH=$arch user)"
while IFS=: read -r src dest; do
	[ -n "$src" ] || continue
	mkdir -p "$out/symfs/$(dirname "$dest")"
	cp -L "$src" "$out/symfs/$dest"
done < "$root/build/$arch/vm-test-files.list"

check "the recording and the totals arrived intact from the VM console" \
	eval 'vm_file "$log" oc.totals "$totals" && vm_file "$log" oc.fxt "$fxt"'
"$fxtprof" check "$fxt" > "$out/check.txt" 2>&1
check "fxtprof check passes on the recording" test $? = 0
start=$(awk '$1 == "start" { print $2 }' "$totals" 2>/dev/null)

# ns COMM PATTERN: the nanoseconds of COMM's measured waits whose folded
# stack holds PATTERN (an awk regex).
ns() {
	"$fxtprof" flamegraph --folded --off-cpu --comm "$1" \
		--time "${start:-0}ns," --symfs "$out/symfs" \
		--debug-dir "$out/empty" "$fxt" 2>> "$out/flamegraph.err" |
		tee -a "$out/folded.txt" |
		awk -v p="$2" '$0 ~ p { s += $NF } END { printf "%.0f\n", s }'
}
within() {	# within GOT WANT PERCENT: |GOT - WANT| <= PERCENT of WANT > 0
	awk -v a="$1" -v b="$2" -v p="$3" \
		'BEGIN { exit !(b > 0 && a >= (1 - p / 100) * b && a <= (1 + p / 100) * b) }'
}

# Each kind of wait, told by its kernel stack (the kernel's unwinding
# needs no table: pipe_read, futex, hrtimer_nanosleep), against the time
# the workload's calls spent off the CPU.  The user stack above it is the
# recorder's tables' work, and they take time to build: before libc's
# is, a walk by frame pointers skips the caller of a frameless libc
# function, or on arm64 loses the frame above it.  That was 40 % of the
# measured part in the KASAN guest and 26 % in the arm64 6.12 one, with
# two hogs on the host; the share under the call the workload timed is
# printed, and tests/bpf/run_record_offcpu.sh holds each function to 10 %
# on this host.  Not fsync's: the guest's /tmp is its initramfs, where
# fsync() returns at once (its clock counts 14 to 25 us a call of timer
# noise, no wait); the host's test checks it on a disk.
for w in oc-sleep:offcpu_nanosleep:hrtimer_nanosleep \
	 oc-pipe:offcpu_pipe_read:pipe_read oc-mutex:offcpu_mutex_lock:futex; do
	comm=${w%%:*} fn=${w#*:} kfn=${fn#*:} fn=${fn%%:*}
	want=$(awk -v c="$comm" '$1 == c { print $3 }' "$totals" 2>/dev/null)
	got=$(ns "$comm" ";$kfn")
	timed=$(ns "$comm" ";timed;")
	echo "# $comm: $fn waited ${want:-?} ns by its own clock; the profile: ${got:-?} ns in $kfn, ${timed:-?} ns under its timed call"
	check "$comm's waits in $fn ($kfn) are accounted for within 10 %" \
		within "${got:-0}" "${want:-0}" 10
done

# The waker is named at sched_waking, in the waker's context; a waker
# that comes before its thread has quite left the CPU is not: at least
# 90 % of the time must have the right one.
share() {	# share COMM FUNCTION PATTERN
	local all part
	all=$(ns "$1" ";$2;")
	part=$(ns "$1" "$3")
	echo "# $1: $part of $all ns match '$3'"
	awk -v a="$part" -v b="$all" 'BEGIN { exit !(b > 0 && a >= 0.9 * b) }'
}
check "the pipe reader slept, woken by the writer" \
	share oc-pipe timed "^oc-pipe;off-cpu: sleeping;.*;timed;.*;woken by oc-writer "
check "the mutex waiter slept, woken by the holder" \
	share oc-mutex timed "^oc-mutex;off-cpu: sleeping;.*;timed;.*;woken by oc-holder "

# --wall: the thread that runs 30 % and sleeps 70 %.  Its waits and its
# time on a CPU (by the context switches, spread over its samples) add up
# to the time it ran for, within 5 % as on the host.  Its samples alone,
# a period each, came to 84 to 96 % of it here: a guest's timer under
# TCG misses periods when its vCPU thread is run late.
set -- $(awk '$1 == "oc-wall" && NF == 4 { print $2, $3, $4 }' "$totals" 2>/dev/null)
from=${1:-0} to=${2:-0} cpu=${3:-0}
"$fxtprof" flamegraph --folded --wall --comm oc-wall \
	--time "${from}ns,${to}ns" --symfs "$out/symfs" --debug-dir "$out/empty" \
	"$fxt" > "$out/wall.folded" 2> "$out/wall.err"
set -- $(awk '/^oc-wall;off-cpu: / { off += $NF } /^oc-wall;on-cpu;/ { on += $NF }
	END { printf "%.0f %.0f\n", off, on }' "$out/wall.folded")
off=${1:-0} on=${2:-0}
echo "# oc-wall: ran $((to - from)) ns, $cpu of them on a CPU by its clock; the wall profile: $off ns off the CPU, $on ns on it"
check "--wall accounts for oc-wall's elapsed time within 5 %" \
	within "$((off + on))" "$((to - from))" 5

# symbolize: the waits are PerfSamples on sequence 2, whose defaults say
# they count sched:sched_switch, one per wait, with their stacks: the
# blobs decoded against the project's schema (tests/export/
# perfetto_profile.proto), as facts (tests/export/perfetto_stacks.awk).
perfetto_waits() {
	local waits facts=$out/perfetto.facts
	"$fxtprof" symbolize "$fxt" -o "$out/oc-sym.fxt" --symfs "$out/symfs" \
		--debug-dir "$out/empty" > "$out/symbolize.txt" 2>&1 || return 1
	waits=$(sed -n 's/.* \([0-9]*\) off-CPU waits,.*/\1/p' "$out/symbolize.txt")
	"$blobs" "$out/oc-sym.fxt" > "$out/perfetto.pb" 2> "$out/perfetto.err" &&
	protoc --decode=perfetto.protos.Trace -I "$(dirname "$proto")" "$proto" \
		< "$out/perfetto.pb" > "$out/perfetto.txt" 2>> "$out/perfetto.err" ||
		{ sed 's/^/#   /' "$out/perfetto.err" | head -n 5; return 1; }
	awk -f "$root/tests/export/perfetto_stacks.awk" "$out/perfetto.txt" > "$facts"
	# "seqsample 2 PID TID CPU MODE STACK", the stack root first.
	awk -v waits="${waits:-0}" '
	$1 == "sample" { cpu++ }
	$1 == "seqsample" && $2 == 2 { n++; if ($7 ~ /;timed;offcpu_nanosleep;.*;hrtimer_nanosleep\[k\]/) sleep++ }
	$1 == "timebase" { tb[$2] = $3 " " $4 }
	END {
		printf "# perfetto: %d CPU samples, %d waits (symbolize wrote %d), sequence 2 counts %s, %d waits through offcpu_nanosleep\n",
			cpu, n, waits, tb[2] ? tb[2] : "nothing said", sleep
		exit !(cpu > 0 && n > 0 && n == waits && tb[2] == "sched:sched_switch off-cpu" && !(1 in tb) && sleep > 100)
	}' "$facts"
}
check "symbolize gives Perfetto every wait with its stacks, apart from the CPU samples" \
	perfetto_waits
exit 0

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# demo.sh - `make demo`: set up, build, and record the x86_64 VM over TCP
# to a listener on this host, then check and summarize the trace.
#
#   1. scripts/setup.sh and make (module + programs)
#   2. `fxtprof receive tcp://127.0.0.1:0 -n 1` on this host (any free
#      port), whose one stream becomes build/demo.fxt
#   3. the VM (CFG, default x86_64) in command mode runs tests/reader/demo-vm.sh: a workload
#      under `fxtprof record -d 3 tcp://10.0.2.2:PORT`
#   4. on this host: fxtprof check, then symbolize into build/demo.fxt
#      (Perfetto shows its call stacks), build/demo.svg (flame graph),
#      build/demo.pb.gz (pprof), and the workload's top functions
# Each phase prints how long it took; the last line is "demo: done in Ns"
# or "demo: FAILED in PHASE".  The demo fails, and says so, when the
# workload is missing from its own report (no rec_workload process in the
# summary, or none of the samples selected for it).
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FXT_ROOT"

t0=$(date +%s) phase= phase_t=$t0 phases=()
step() {	# step NAME: start a phase, closing the previous one
	local now
	now=$(date +%s)
	[ -z "$phase" ] || phases+=("$(printf '%-24s %5ss' "$phase" $((now - phase_t)))")
	phase=$* phase_t=$now
}
trap 'echo "demo: FAILED in $phase" >&2' ERR
set -E

# CFG (make passes it): the VM that records; the listener, check and
# report always run on this host's x86_64 build.
cfg=${1:-x86_64}
step setup
"$FXT_ROOT/scripts/setup.sh"
step build
make -j"$(nproc)" ARCH=x86_64 user
make -j"$(nproc)" CFG="$cfg" all

bin=$FXT_BUILD/x86_64/bin
out=$FXT_BUILD/demo.fxt
work=$FXT_BUILD/x86_64/demo
mkdir -p "$work"
rm -f "$out" "$work/port"

rm -rf "$work/streams"
"$bin/fxtprof" receive tcp://127.0.0.1:0 -o "$work/streams" -n 1 > "$work/receive.out" &
sink=$!
trap 'kill $sink 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q '^listening on' "$work/receive.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^listening on tcp:\/\/.*:\([0-9]*\)$/\1/p' "$work/receive.out")
[ -n "$port" ] || { echo "demo: fxtprof receive did not start" >&2; exit 1; }
sed "s/@PORT@/$port/g" tests/reader/demo-vm.sh > "$work/demo.sh"

step "record in the VM"
echo "demo: host listener on 127.0.0.1:$port -> $out"
echo "demo: booting the $cfg VM (TCG, about a minute)"
vm_rc=0
"$FXT_ROOT/scripts/vm-cmd.sh" "$cfg" "$work/demo.sh" || vm_rc=$?
if [ "$vm_rc" != 0 ]; then
	echo "demo: the VM script failed (rc $vm_rc)" >&2
	false	# the EXIT trap stops the listener
fi
wait $sink || { echo "demo: fxtprof receive failed" >&2; false; }
trap - EXIT
cat "$work/receive.out"
streams=("$work"/streams/*.fxt)
raw=$work/demo-raw.fxt
cp "${streams[0]}" "$raw"

# The board's files as the VM has them, for the host to name its frames:
# the recording names /tests/rec_workload, this is where it came from.
fxt_cfg "$cfg"
symfs=$work/symfs
rm -rf "$symfs"
mkdir -p "$symfs/tests"
cp -L "$FXT_BUILD/$CFG_ARCH/tests/reader/rec_workload" "$symfs/tests/"
sym=(--symfs "$symfs")

step "check and symbolize"
echo
echo "demo: fxtprof check (the stream as received)"
"$bin/fxtprof" check "$raw"
echo
echo "demo: fxtprof symbolize -> $out (the same FXT plus Perfetto call stacks)"
"$bin/fxtprof" symbolize "${sym[@]}" "$raw" -o "$out"
"$bin/fxtprof" check "$out"
"$bin/fxtprof" flamegraph "${sym[@]}" "$raw" -o "$FXT_BUILD/demo.svg"
"$bin/fxtprof" export --format pprof "${sym[@]}" "$raw" -o "$FXT_BUILD/demo.pb.gz"
echo
echo "demo: processes and threads (fxtprof report --summary)"
"$bin/fxtprof" report --summary "$raw" | tee "$work/summary.txt"
echo
echo "demo: top functions of the workload (fxtprof report --no-children --comm rec_workload)"
"$bin/fxtprof" report "${sym[@]}" --no-children --comm rec_workload "$raw" \
	> "$work/top.txt"
sed -n 1,40p "$work/top.txt"
# A demo that recorded only the idle machine must not pass: the workload
# has to be in its own report, as processes and as samples.
if ! grep -q rec_workload "$work/summary.txt"; then
	echo "demo: the recording has no rec_workload process (no fork or exec of the workload): it ran before or after the recorder" >&2
	false
fi
selected=$(sed -n 's/^# .*: [0-9]* samples, \([0-9]*\) selected$/\1/p' "$work/top.txt")
if [ "${selected:-0}" = 0 ]; then
	echo "demo: the recording has 0 samples of rec_workload: the workload was not recorded" >&2
	false
fi
step ""
echo
echo "demo: time per phase:"
printf '  %s\n' "${phases[@]}"
echo "demo: build/demo.fxt (open it in ui.perfetto.dev), build/demo.svg, build/demo.pb.gz (go tool pprof)"
echo "demo: done in $(( $(date +%s) - t0 ))s, the trace is build/demo.fxt"

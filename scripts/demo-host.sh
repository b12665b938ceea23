#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# demo-host.sh    (make demo-host)
# The quickest way to see fxtprof work: no module, no VM.  Records this
# very machine for 5 s with the eBPF source (`fxtprof record --source
# bpf`) while a small frame-pointer workload (tests/bench/workload.c, one
# thread) runs, then prints the symbolized top functions of the machine
# and the workload's call chains (`fxtprof report`).  Leaves
# build/demo-host.fxt (open it with `fxtprof report`, `fxtprof flamegraph`
# or Perfetto).  Needs root (or CAP_BPF and CAP_PERFMON) and a kernel with
# BTF; builds only fxtprof and the workload, for the host (x86_64).
# Env: DEMO_SECS (5), DEMO_FREQ (1000), DEMO_NOBUILD=1 (use what is built).
set -euo pipefail
. "$(dirname "$0")/env.sh"

secs=${DEMO_SECS:-5}
freq=${DEMO_FREQ:-1000}
B=$FXT_BUILD/x86_64
fxtprof=$B/bin/fxtprof
workload=$B/tests/bench/fxt-bench-workload
out=$FXT_BUILD/demo-host.fxt

if [ "$(uname -m)" != x86_64 ]; then
	echo "demo-host: builds for this host as x86_64; this is $(uname -m)" >&2
	exit 2
fi
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "demo-host: this kernel has no BTF (/sys/kernel/btf/vmlinux): the bpf source needs CONFIG_DEBUG_INFO_BTF=y" >&2
	exit 1
fi
if [ "${DEMO_NOBUILD:-0}" != 1 ]; then
	make -C "$FXT_ROOT" --no-print-directory -j2 ARCH=x86_64 \
		"${fxtprof#$FXT_ROOT/}" "${workload#$FXT_ROOT/}" >/dev/null
fi

echo "== fxtprof record --source bpf -F $freq -d $secs: this machine, while the workload runs"
ready=$FXT_BUILD/demo-host.ready
rm -f "$ready"
"$fxtprof" record --source bpf -F "$freq" -d "$secs" --ready-file "$ready" \
	-o "$out" &
rec=$!
# The recorder loads its programs and reads every mapping first; the
# workload (2 to 3 s on one thread) starts once it records.
"$FXT_ROOT/scripts/wait-ready.sh" "$ready" $rec || { wait $rec || true; exit 1; }
"$workload" -t 1 -r 4000
rc=0
wait $rec || rc=$?
if [ $rc != 0 ]; then
	echo "demo-host: fxtprof record failed (exit $rc)" >&2
	exit $rc
fi

echo
echo "== fxtprof report --no-children: the machine's top functions (self time)"
# sed to the end, not head: no SIGPIPE for the report under pipefail.
"$fxtprof" report --no-children "$out" | grep -v '^#' | sed '/^$/d' | sed -n 1,20p
echo
echo "== fxtprof report --comm fxt-bench-workl: the workload, with call chains below"
"$fxtprof" report --no-children -g caller --percent-limit 5 \
	--comm fxt-bench-workl "$out" | grep -v '^#' | sed '/^$/d' | head -30
echo
echo "The recording is $out: fxtprof report, fxtprof flamegraph, or ui.perfetto.dev."

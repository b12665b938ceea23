#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench-offcpu.sh - `make bench-offcpu`: the cost of recording where
# threads wait, per context switch, on this host (the bpf source: the
# module cannot load here), next to the two tools users would otherwise
# reach for, in the same run: `perf record -e sched:sched_switch -g -a`
# (a stack at every switch, written out) and a bcc-style offcputime in
# bpftrace (stacks kept at switch-out, summed per stack in the kernel).
#
# The workload is tests/vm/fxt_pingpong 1 ROUNDS: two threads on CPU 1
# handing a byte back and forth, each round two context switches and two
# waits.  Each run: bare, under `fxtprof record --source bpf --off-cpu
# --off-cpu-min 0` (every wait written, with both stacks), under the
# same with the default --off-cpu-min (1 ms: the ping-pong's waits are
# shorter, and are dropped at switch-in), under perf and under bpftrace,
# BENCH_REPS times (default 5) in rotated order.  Prints the
# medians: slowdown = wall time under the recorder / bare, the cost per
# switch = (recorded - bare) / the ping-pong's switches, the ratios to
# perf and to bpftrace, and the bytes written per switch (the recorder's
# output over its whole session / the ping-pong's switches; bpftrace
# writes sums, not records).  Measurements only, on a shared machine:
# medians of rotated runs.  Raw output: build/results/bench-offcpu.out.
#
# Environment: BENCH_REPS, BENCH_ROUNDS (default 20000), PERF (the perf
# ELF), BENCH_NOBUILD=1 (use what is built).  Needs root, perf and
# bpftrace (Debian's linux-perf and bpftrace: scripts/setup.sh).
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/bench-lib.sh"

reps=${BENCH_REPS:-5}
rounds=${BENCH_ROUNDS:-20000}
B=$FXT_BUILD/x86_64
pingpong=$B/tests/vm/fxt_pingpong
fxtprof=$B/bin/fxtprof

if [ "${BENCH_NOBUILD:-0}" != 1 ]; then
	make -C "$FXT_ROOT" --no-print-directory ARCH=x86_64 \
		"${fxtprof#$FXT_ROOT/}" "${pingpong#$FXT_ROOT/}"
fi
for f in "$pingpong" "$fxtprof"; do
	[ -f "$f" ] || { echo "bench-offcpu: $f is missing (make)" >&2; exit 1; }
done
bench_find_perf bench-offcpu
command -v bpftrace > /dev/null ||
	{ echo "bench-offcpu: no bpftrace (apt-get install bpftrace)" >&2; exit 1; }
[ "$(nproc)" -ge 2 ] ||
	{ echo "bench-offcpu: needs 2 CPUs (the ping-pong runs on CPU 1)" >&2; exit 1; }

dir=$(mktemp -d /tmp/fxtprof-bench-offcpu.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$FXT_RESULTS"
out=$FXT_RESULTS/bench-offcpu.out
: > "$out"

# bcc's offcputime, as bpftrace can say it here (no kprobes on this
# host's kernel): the stacks kept at switch-out, the time summed per
# stack when the thread runs again.
cat > "$dir/offcputime.bt" <<'EOF'
tracepoint:sched:sched_switch
{
	@start[args->prev_pid] = nsecs;
	@ks[args->prev_pid] = kstack;
	@us[args->prev_pid] = ustack;
	$last = @start[args->next_pid];
	if ($last != 0) {
		@[@ks[args->next_pid], @us[args->next_pid], args->next_comm] =
			sum((nsecs - $last) / 1000);
		delete(@start[args->next_pid]);
	}
}
EOF

# wait_for FILE PATTERN PID: until FILE holds PATTERN (the recorder is
# ready), or PID is gone; at most 60 s.
wait_for() {
	local i=0
	while ! grep -q "$2" "$1" 2> /dev/null; do
		kill -0 "$3" 2> /dev/null || return 1
		[ $i -lt 600 ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

cpu_secs() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
}

workload() {
	WALL=$("$pingpong" 1 "$rounds" | awk '{ print $4 }')
	[ -n "$WALL" ] || { echo "bench-offcpu: the ping-pong failed" >&2; exit 1; }
}

run() {	# run REP CFG
	local pid bytes=- sw=- rcpu=-
	rm -f "$dir/out" "$dir/ready" "$dir/err"
	case $2 in
	bare)
		workload
		;;
	fxtprof|fxtprof-1ms)
		"$fxtprof" record --source bpf --off-cpu \
			--off-cpu-min "$([ "$2" = fxtprof ] && echo 0 || echo 1ms)" \
			--ready-file "$dir/ready" -o "$dir/out" 2> "$dir/err" &
		pid=$!
		wait_for "$dir/ready" . $pid || { cat "$dir/err" >&2; exit 1; }
		workload
		rcpu=$(cpu_secs $pid)
		kill -INT $pid
		wait $pid || { cat "$dir/err" >&2; exit 1; }
		sw=$(sed -n 's/^fxtprof: \([0-9]*\) off-CPU waits.*/\1/p' "$dir/err")
		bytes=$(stat -c %s "$dir/out")
		;;
	perf)
		"$perf" record -e sched:sched_switch -g -a -o "$dir/out" \
			> "$dir/err" 2>&1 &
		pid=$!
		# perf writes its header once its events are open.
		wait_for "$dir/out" "PERFILE" $pid || { cat "$dir/err" >&2; exit 1; }
		workload
		rcpu=$(cpu_secs $pid)
		kill -INT $pid
		wait $pid || true
		sw=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$dir/err")
		bytes=$(stat -c %s "$dir/out")
		;;
	bpftrace)
		bpftrace "$dir/offcputime.bt" > "$dir/out" 2> "$dir/err" &
		pid=$!
		wait_for "$dir/out" "^Attaching" $pid || { cat "$dir/err" >&2; exit 1; }
		workload
		rcpu=$(cpu_secs $pid)
		kill -INT $pid
		wait $pid || true
		;;
	esac
	echo "BENCH rep=$1 cfg=$2 wall_ns=$WALL switches=$sw bytes=$bytes reader_cpu=$rcpu" |
		tee -a "$out"
}

echo "bench-offcpu: $reps reps of bare, fxtprof (bpf, --off-cpu), perf, bpftrace; $rounds ping-pong rounds; perf $perf; raw output in $out" >&2
cfgs=(bare fxtprof fxtprof-1ms perf bpftrace)
for ((r = 1; r <= reps; r++)); do
	for ((i = 0; i < ${#cfgs[@]}; i++)); do
		run $r "${cfgs[(i + r) % ${#cfgs[@]}]}"
	done
done

echo
awk -v rounds="$rounds" "$BENCH_AWK"'
$1 == "BENCH" {
	bench_fields()
	add(v["cfg"], v["wall_ns"])
	add(v["cfg"] ":bytes", v["bytes"])
	add(v["cfg"] ":sw", v["switches"])
	add(v["cfg"] ":rcpu", v["reader_cpu"])
}
END {
	bare = median("bare"); sw = 2 * rounds
	printf "off-CPU stacks at a high switch rate, medians of %d runs (bare %.3f s, %.2f us per switch):\n",
		cnt["bare"], bare / 1e9, bare / sw / 1000
	printf "  %-11s %9s %14s %12s %14s\n", "recorder", "slowdown", "cost/switch", "bytes/switch", "recorder CPU s"
	split("fxtprof fxtprof-1ms perf bpftrace", names, " ")
	for (i = 1; i <= 4; i++) {
		n = names[i]; t = median(n)
		c[n] = (t - bare) / sw
		b = median(n ":bytes") > 0 ? sprintf("%12.1f", median(n ":bytes") / sw) : sprintf("%12s", "-")
		printf "  %-11s %8.3fx %11.2f us %s %14.2f\n", n, t / bare, c[n] / 1000, b, median(n ":rcpu")
	}
	for (i = 1; i <= 2; i++) {
		n = names[i]
		printf "  %s cost / perf cost: %.2f, / bpftrace cost: %.2f (the goal: <= 0.5)\n", n,
			(c["perf"] > 0 ? c[n] / c["perf"] : 0),
			(c["bpftrace"] > 0 ? c[n] / c["bpftrace"] : 0)
	}
	printf "  cost/switch = (recorded - bare wall time) / %d switches of the ping-pong; bytes/switch = the output (the whole machine, start to stop) / the switches of the ping-pong; recorder CPU includes its start (fxtprof builds unwind tables).\n", sw
}' "$out"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-bpf.sh    (make bench-bpf)
# Sampling overhead of the eBPF source against perf, natively on this
# host: the fixed workload tests/bench/workload.c (one thread per CPU)
# runs bare, under `fxtprof record --source bpf -F N -g kernel,user` and
# under `perf record -a -g -F N -e cpu-clock` for N in BENCH_FREQS, in one
# run, BENCH_REPS times with the order rotated every repetition.  Prints
# the raw runs, then medians: slowdown = the workload's CPU time (user +
# system) under the profiler / bare (its wall time too, which other jobs
# on a shared host disturb more), bpf/perf = the bpf source's slowdown / perf's, the samples each
# profiler took of the workload per CPU-second of it, and the cost per
# achieved sample = (1 - 1/slowdown) / that rate.
#
# Then the same cost seen from inside the sampled program, which resolves
# what the slowdown's noise cannot: tests/bench/interruptions.c spins one
# pinned thread per CPU for BENCH_IRQ_SECS (3) and times every
# interruption, bare and under each profiler, BENCH_IRQ_REPS (5) times,
# rotated.  cost/sample = the interrupt time it added per second of
# spinning / the interrupts it added per second: the mean length of one
# sample's interruption.  See Documentation/performance.md.
#
# Root; a kernel with BTF; the host's perf (Debian linux-perf, or PERF=).
# While it runs, perf_cpu_time_max_percent is 0 (no dynamic throttling,
# which would also lower perf_event_max_sample_rate for the runs after);
# both sysctls are restored at exit.  Env: BENCH_REPS (3), BENCH_FREQS
# ("1000 10000"), BENCH_ROUNDS (workload -r, 1500: about 1.5-2 s bare),
# BENCH_NOBUILD=1.  Raw output: build/results/bench-bpf.out.
#
# BENCH_VM=1 adds the VM half afterwards: scripts/bench-kernel.sh with
# tests/bpf/bench-bpf.vm.sh as its VM script, so the module, the bpf
# source and perf run side by side in the x86_64 TCG VM (Debian 6.1),
# and a table of the three from its raw lines (build/results/
# bench-kernel.out), by bench-kernel's definitions: wall-time slowdown,
# samples per CPU-second of the whole session, cost/sample.
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/bench-lib.sh"

reps=${BENCH_REPS:-3}
freqs=${BENCH_FREQS:-1000 10000}
rounds=${BENCH_ROUNDS:-1500}
B=$FXT_BUILD/x86_64
fxtprof=$B/bin/fxtprof
workload=$B/tests/bench/fxt-bench-workload
irqprobe=$B/tests/bench/fxt-bench-interruptions
irq_reps=${BENCH_IRQ_REPS:-5}
irq_secs=${BENCH_IRQ_SECS:-3}
perf=${PERF:-perf}
ncpu=$(nproc)
comm=fxt-bench-workl	# the workload's comm, cut to 15 bytes
tmp=$(mktemp -d /tmp/bench-bpf.XXXXXX)
sk=/proc/sys/kernel
saved_pct=$(cat $sk/perf_cpu_time_max_percent)
saved_rate=$(cat $sk/perf_event_max_sample_rate)
restore() {
	echo "$saved_rate" > $sk/perf_event_max_sample_rate 2>/dev/null || true
	echo "$saved_pct" > $sk/perf_cpu_time_max_percent 2>/dev/null || true
	rm -rf "$tmp"
}
trap restore EXIT

die() { echo "bench-bpf: $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || die "runs on an x86_64 host only"
"$perf" --version >/dev/null 2>&1 || die "no perf (install linux-perf or set PERF=)"
if [ "${BENCH_NOBUILD:-0}" != 1 ]; then
	make -C "$FXT_ROOT" --no-print-directory -j2 ARCH=x86_64 \
		"${fxtprof#$FXT_ROOT/}" "${workload#$FXT_ROOT/}" \
		"${irqprobe#$FXT_ROOT/}" >/dev/null
fi
echo 0 > $sk/perf_cpu_time_max_percent

mkdir -p "$FXT_RESULTS"
out=$FXT_RESULTS/bench-bpf.out
: > "$out"
say() { echo "$*" | tee -a "$out"; }
say "BENCH-INFO kernel=$(uname -r) ncpu=$ncpu perf=$("$perf" --version)" \
	"max_sample_rate=$saved_rate load=$(cut -d' ' -f1-3 /proc/loadavg)"

cpu_secs() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
}
CHECKSUM=
# Sets WALL (ns, the workload's own clock) and CPU (ns of user + system
# time, from the shell's getrusage of the child, which Linux derives from
# the scheduler's exact runtime): the sampling interrupts are charged to
# the task they interrupt, waiting for a CPU is not.
run_workload() {
	local o sum TIMEFORMAT='%3U %3S'
	{ time "$workload" -t "$ncpu" -r "$rounds" > "$tmp/w.out" ; } 2> "$tmp/w.time" ||
		die "workload failed: $(cat "$tmp/w.out" "$tmp/w.time")"
	o=$(cat "$tmp/w.out")
	CPU=$(awk '{ printf "%.0f", ($1 + $2) * 1e9 }' "$tmp/w.time")
	WALL=$(echo "$o" | sed -n 's/.*wall_ns=\([0-9]*\).*/\1/p')
	sum=$(echo "$o" | sed -n 's/.*checksum=\(0x[0-9a-f]*\).*/\1/p')
	[ -z "$CHECKSUM" ] && CHECKSUM=$sum
	[ "$sum" = "$CHECKSUM" ] || die "workload checksum changed: $sum != $CHECKSUM"
}

run_bare() {
	run_workload
	say "BENCH rep=$1 cfg=bare freq=0 wall_ns=$WALL cpu_ns=$CPU wsamples=- samples=- lost=- reader_cpu=-"
}

# The profilers, started in the background and stopped: PID, FILE, ERR.
# Each returns once its profiler samples: fxtprof's --ready-file, perf's
# acknowledgement of "enable" on its control fifo (its events start
# disabled, -D -1).
start_bpf() {
	FILE=$tmp/bench.fxt ERR=$tmp/fxtprof.err
	rm -f "$FILE" "$tmp/ready"
	"$fxtprof" record --source bpf -F "$1" -g kernel,user \
		--ready-file "$tmp/ready" -o "$FILE" 2>"$ERR" &
	PID=$!
	"$(dirname "$0")/wait-ready.sh" "$tmp/ready" $PID 20 ||
		{ cat "$ERR"; die "fxtprof record did not start"; }
}
stop_bpf() {
	kill -TERM $PID
	wait $PID || { cat "$ERR"; die "fxtprof record failed"; }
}
start_perf() {
	FILE=$tmp/bench.perf ERR=$tmp/perf.err
	rm -f "$FILE" "$tmp/ctl" "$tmp/ack"
	mkfifo "$tmp/ctl" "$tmp/ack"
	"$perf" record -a -g -F "$1" -e cpu-clock -N -o "$FILE" -D -1 \
		--control "fifo:$tmp/ctl,$tmp/ack" >"$tmp/perf.out" 2>"$ERR" &
	PID=$!
	local ack=
	exec 3<>"$tmp/ctl" 4<>"$tmp/ack"
	echo enable >&3
	read -r -t 20 ack <&4 || true
	exec 3>&- 4<&-
	[ "$ack" = ack ] || { cat "$ERR"; die "perf record did not start"; }
}
stop_perf() {
	kill -INT $PID
	wait $PID || true
}

run_bpf() {
	local rep=$1 freq=$2 rcpu samples lost ws
	start_bpf "$freq"
	run_workload
	rcpu=$(cpu_secs $PID)
	stop_bpf
	samples=$(sed -n 's/^fxtprof: [0-9.]* s: \([0-9]*\) samples.*/\1/p' "$ERR")
	lost=$(sed -n 's/.*kernel rings lost \([0-9]*\) records.*/\1/p' "$ERR")
	# "# FILE: N samples, M selected"
	ws=$("$fxtprof" report --comm "$comm" "$FILE" 2>/dev/null |
		sed -n 's/^# .*: [0-9]* samples, \([0-9]*\) selected.*/\1/p')
	say "BENCH rep=$rep cfg=bpf freq=$freq wall_ns=$WALL cpu_ns=$CPU wsamples=${ws:--}" \
		"samples=${samples:--} lost=${lost:-0} reader_cpu=$rcpu bytes=$(wc -c < "$FILE")"
}

run_perf() {
	local rep=$1 freq=$2 rcpu samples ws thr
	start_perf "$freq"
	run_workload
	rcpu=$(cpu_secs $PID)
	stop_perf
	samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$ERR")
	[ -n "$samples" ] || { cat "$ERR"; die "perf record printed no sample count"; }
	ws=$("$perf" script -i "$FILE" -F comm 2>/dev/null | grep -c "^ *$comm *\$" || true)
	thr=$("$perf" report -i "$FILE" --stats 2>/dev/null | awk '$1 == "THROTTLE" { print $3; exit }')
	say "BENCH rep=$rep cfg=perf freq=$freq wall_ns=$WALL cpu_ns=$CPU wsamples=$ws" \
		"samples=$samples lost=- throttle=${thr:-0} reader_cpu=$rcpu bytes=$(wc -c < "$FILE")"
}

# One interruption probe: the line's KEY=VALUE words after the config's.
run_irq() {
	local rep=$1 cfg=$2 freq=$3 o
	[ "$cfg" = bare ] || "start_$cfg" "$freq"
	o=$("$irqprobe" -s "$irq_secs") || die "the interruption probe failed: $o"
	[ "$cfg" = bare ] || "stop_$cfg"
	say "BENCH-IRQ rep=$rep cfg=$cfg freq=$freq ${o#interruptions: }"
}

# Run each of CONFIGS (bare, bpf:F, perf:F) REPS times with FN, the order
# rotated by one every repetition.
rotated() {
	local fn=$1 reps=$2 rep k first n c
	shift 2
	n=$#
	local all=("$@")
	for rep in $(seq 1 "$reps"); do
		set -- "${all[@]}"
		k=1
		while [ $k -lt $rep ] && [ $k -lt $n ]; do
			first=$1; shift; set -- "$@" "$first"; k=$((k + 1))
		done
		for c in "$@"; do "$fn" "$rep" "$c"; done
	done
}
one_run() {
	case $2 in
	bare) run_bare "$1" ;;
	bpf:*) run_bpf "$1" "${2#*:}" ;;
	perf:*) run_perf "$1" "${2#*:}" ;;
	esac
}
one_irq() {
	case $2 in
	bare) run_irq "$1" bare 0 ;;
	*) run_irq "$1" "${2%%:*}" "${2#*:}" ;;
	esac
}

run_workload	# warm-up, not reported
say "BENCH-INFO warmup wall_ns=$WALL cpu_ns=$CPU checksum=$CHECKSUM rounds=$rounds threads=$ncpu"

configs="bare"
for freq in $freqs; do configs="$configs bpf:$freq perf:$freq"; done
rotated one_run "$reps" $configs
rotated one_irq "$irq_reps" $configs

echo
awk -v ncpu="$ncpu" -v freqlist="$freqs" "$BENCH_AWK"'
$1 == "BENCH" {
	bench_fields()
	k = v["cfg"] ":" v["freq"]
	add(k, v["cpu_ns"])
	add(k ":wall", v["wall_ns"])
	# Samples of the workload per CPU-second it ran.
	if (v["wsamples"] != "-")
		add(k ":rate", v["wsamples"] / (v["cpu_ns"] / 1e9))
	add(k ":rcpu", v["reader_cpu"])
	add(k ":mb", v["bytes"] == "" ? "" : v["bytes"] / 1e6)
	add(k ":lost", v["lost"])
	add(k ":throttle", v["throttle"])
}
END {
	bare = median("bare:0")
	printf "Sampling overhead on this host, medians of %d runs (bare %.3f CPU-s, %.3f s wall, %d threads):\n",
		cnt["bare:0"], bare / 1e9, median("bare:0:wall") / 1e9, ncpu
	printf "  %8s  %9s  %9s  %8s  %15s  %15s  %8s\n", "", "slowdown", "slowdown", "",
		"samples/CPU-s", "cost/sample us", "cost"
	printf "  %8s  %9s  %9s  %8s  %15s  %15s  %8s\n", "freq", "bpf", "perf", "bpf/perf",
		"bpf   perf", "bpf   perf", "bpf/perf"
	n = split(freqlist, fs, " ")
	for (i = 1; i <= n; i++) {
		f = fs[i]
		fx = median("bpf:" f) / bare
		pf = median("perf:" f) / bare
		rf = median("bpf:" f ":rate")
		rp = median("perf:" f ":rate")
		cf = rf > 0 ? (fx - 1) / fx / rf * 1e6 : 0
		cp = rp > 0 ? (pf - 1) / pf / rp * 1e6 : 0
		printf "  %8s  %8.3fx  %8.3fx  %8.3f  %7.0f %7.0f  %7.2f %7.2f  %8s\n", f " Hz",
			fx, pf, (pf > 0 ? fx / pf : 0), rf, rp, cf, cp,
			(cp > 0 ? sprintf("%.2f", cf / cp) : "-")
	}
	printf "  %8s  %19s\n", "", "wall slowdown"
	printf "  %8s  %9s  %9s\n", "freq", "bpf", "perf"
	for (i = 1; i <= n; i++) {
		f = fs[i]
		printf "  %8s  %8.3fx  %8.3fx\n", f " Hz",
			median("bpf:" f ":wall") / median("bare:0:wall"),
			median("perf:" f ":wall") / median("bare:0:wall")
	}
	printf "  %8s  %19s  %19s\n", "", "recorder CPU s", "output MB"
	printf "  %8s  %9s  %9s  %9s  %9s\n", "freq", "bpf", "perf", "bpf", "perf"
	for (i = 1; i <= n; i++) {
		f = fs[i]
		printf "  %8s  %9.2f  %9.2f  %9.2f  %9.2f\n", f " Hz",
			median("bpf:" f ":rcpu"), median("perf:" f ":rcpu"),
			median("bpf:" f ":mb"), median("perf:" f ":mb")
	}
	print "  slowdown = the workload'"'"'s CPU time (user+system) under the profiler / bare; bpf/perf <= 1: the bpf source costs no more than perf."
	print "  samples/CPU-s = samples of the workload per CPU-second it ran; cost/sample = (1 - 1/slowdown) / that rate."
	print "  wall slowdown: the same by the workload'"'"'s wall time, which other jobs on a shared host disturb."
	print "  recorder CPU = user+system time of the recording process until it was stopped (whole session)."
	for (k in cnt) if (k ~ /:(lost|throttle)$/ && median(k) > 0)
		printf "  note: %s median %s\n", k, median(k)
}' "$out" | tee "$out.table"
# The interruption table, for the profilers in PROFS (perf last: the
# ratios are against it) from BENCH-IRQ lines.
IRQ_AWK='
$1 == "BENCH-IRQ" {
	bench_fields()
	k = v["cfg"] ":" v["freq"]
	# The probe sees interrupts only while it runs: per second of that.
	run = v["cpus"] * v["secs"] - v["long_ns"] / 1e9
	if (run <= 0) next
	rate[v["rep"], k] = v["irqs"] / run
	frac[v["rep"], k] = v["irq_ns"] / run
	add(k ":median", v["irq_median_ns"])
	add(k ":rate", v["irqs"] / run)
	add(k ":ran", run / (v["cpus"] * v["secs"]))
	reps[v["rep"]] = 1
}
END {
	np = split(profs, names, " ")
	printf "Interruptions of a pinned spinning thread per CPU, %s, medians of %d runs:\n", where, cnt["bare:0:rate"]
	printf "  %8s  %7s", "", "bare"
	for (j = 1; j <= np; j++) printf "  %-27s", names[j]
	printf "\n  %8s  %7s", "freq", "irqs/s"
	for (j = 1; j <= np; j++) printf "  %7s %7s %6s %4s", "irqs/s", "median", "cost", "/prf"
	printf "\n"
	n = split(freqlist, fs, " ")
	for (i = 1; i <= n; i++) {
		f = fs[i]
		# Per repetition: the interrupt time added per second / the
		# interrupts added per second, against that repetition'"'"'s bare run.
		for (r in reps)
			for (j = 1; j <= np; j++) {
				kk = names[j] ":" f
				if (((r, kk) in rate) && ((r, "bare:0") in rate) && rate[r, kk] > rate[r, "bare:0"])
					add(kk ":cost", (frac[r, kk] - frac[r, "bare:0"]) / (rate[r, kk] - rate[r, "bare:0"]) / 1e3)
			}
		cp = median(names[np] ":" f ":cost")
		printf "  %8s  %7.0f", f " Hz", median("bare:0:rate")
		for (j = 1; j <= np; j++) {
			c = median(names[j] ":" f ":cost")
			printf "  %7.0f %7.2f %6.2f %4s", median(names[j] ":" f ":rate"),
				median(names[j] ":" f ":median") / 1e3, c,
				(j < np && cp > 0 ? sprintf("%.2f", c / cp) : "")
		}
		printf "\n"
	}
	printf "  the probe ran %.0f%% of its time bare", 100 * median("bare:0:ran")
	for (j = 1; j <= np; j++) printf ", %.0f%% under %s", 100 * median(names[j] ":" f ":ran"), names[j]
	print " (at the last frequency);"
	print "  the rest it was preempted (the recorder, other jobs), which every figure leaves out."
	print "  irqs/s = interruptions per second of spinning, per CPU; median = their median length, us;"
	print "  cost = (interrupt time per second of spinning under the profiler - bare) /"
	print "  (interrupts per second under it - bare), per repetition, us: what one sample takes;"
	print "  /prf = cost / perf'"'"'s cost."
}'
echo
awk -v freqlist="$freqs" -v profs="bpf perf" -v where="on this host" \
	"$BENCH_AWK$IRQ_AWK" "$out" | tee "$out.irq-table"
echo "bench-bpf: raw runs in $out"

[ "${BENCH_VM:-0}" = 1 ] || exit 0
echo
echo "== the x86_64 VM: module, bpf and perf (scripts/bench-kernel.sh)"
BENCH_KERNEL_SCRIPT=$FXT_ROOT/tests/bpf/bench-bpf.vm.sh BENCH_FREQS="$freqs" \
	BENCH_IRQ_REPS=$irq_reps BENCH_IRQ_SECS=$irq_secs \
	"$FXT_ROOT/scripts/bench-kernel.sh" x86_64 "$irqprobe:/bench/fxt-bench-interruptions" |
	sed -n '/^Runs/,/^Kernel sampling/p' | sed '$d'
vmout=$FXT_RESULTS/bench-kernel.out
echo
awk -v freqlist="$freqs" "$BENCH_AWK"'
/^BENCH-INFO kernel=/ { for (i = 2; i <= NF; i++) if ($i ~ /^ncpu=/) { split($i, kv, "="); ncpu = kv[2] } }
$1 == "BENCH" {
	bench_fields()
	k = v["cfg"] ":" v["freq"]
	add(k, v["wall_ns"])
	if (v["samples"] != "-" && v["secs"] != "-" && v["secs"] > 0)
		add(k ":rate", v["samples"] / v["secs"] / ncpu)
	add(k ":rcpu", v["reader_cpu"])
}
END {
	bare = median("bare:0")
	printf "In the VM, medians of %d runs (bare %.3f s wall):\n", cnt["bare:0"], bare / 1e9
	printf "  %8s  %26s  %20s  %23s  %15s\n", "", "slowdown", "samples/CPU-s", "cost/sample us", "cost vs perf"
	printf "  %8s  %8s %8s %8s  %6s %6s %6s  %7s %7s %7s  %7s %7s\n", "freq",
		"module", "bpf", "perf", "module", "bpf", "perf", "module", "bpf", "perf", "module", "bpf"
	n = split(freqlist, fs, " ")
	for (i = 1; i <= n; i++) {
		f = fs[i]
		split("fxtprof bpf perf", names, " ")
		for (j = 1; j <= 3; j++) {
			sd[j] = median(names[j] ":" f) / bare
			rt[j] = median(names[j] ":" f ":rate")
			co[j] = rt[j] > 0 ? (sd[j] - 1) / sd[j] / rt[j] * 1e6 : 0
		}
		printf "  %8s  %7.3fx %7.3fx %7.3fx  %6.0f %6.0f %6.0f  %7.1f %7.1f %7.1f  %7s %7s\n", f " Hz",
			sd[1], sd[2], sd[3], rt[1], rt[2], rt[3], co[1], co[2], co[3],
			(co[3] > 0 ? sprintf("%.2f", co[1] / co[3]) : "-"),
			(co[3] > 0 ? sprintf("%.2f", co[2] / co[3]) : "-")
	}
	print "  module = fxtprof record --source module (fxtprof.ko); bench-kernel definitions: wall-time slowdown,"
	print "  samples per CPU-second over the whole session, cost/sample = (1 - 1/slowdown) / that rate."
}' "$vmout" | tee "$out.vm-table"
echo
awk -v freqlist="$freqs" -v profs="fxtprof bpf perf" \
	-v where="in the x86_64 VM (fxtprof = the module)" \
	"$BENCH_AWK$IRQ_AWK" "$vmout" | tee "$out.vm-irq-table"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-unwind.sh    (make bench-unwind)
# User stacks without frame pointers (Documentation/unwinding.md): fxtprof's
# default mode, unwind tables, against perf's --call-graph dwarf (and fp),
# in one run on one workload, tests/bench/unwind.c (-O2
# -fomit-frame-pointer, the shared glibc; a copy per CPU, hot half in a
# qsort callback, half 40 frames deep in a recursion).  Three parts:
#
#  tables  `fxtprof unwind -s` on the host's libc.so.6 and a large C++
#          library (libLLVM-*.so.1, else libstdc++.so.6): build time per
#          MiB of .eh_frame, table bytes per MiB of .text (best of
#          BENCH_TABLE_REPS, 3: the build is single-threaded CPU work that
#          other jobs only slow down).
#  host    natively, root: the workload bare, under `fxtprof record
#          --source bpf -g user` (tables by default) and under `perf record
#          -a -e cpu-clock --user-callchains --call-graph dwarf` and `fp`,
#          all at BENCH_FREQ Hz, BENCH_REPS times, the order rotated every
#          repetition.
#  vm      the same in the x86_64 QEMU TCG VM (tests/bench/bench-unwind.vm.sh)
#          with the module (`fxtprof record -g user` after insmod) against
#          perf dwarf, BENCH_VM_REPS times, through `flock $VM_LOCK_FILE`
#          (/tmp/fxtprof-vm.lock): one VM at a time on this host.
#
# Per run, from BENCH lines (raw, then a table of medians):
#  whole-stack rate  the share of the workload's samples whose user stack
#          reaches main (folded stacks: `fxtprof flamegraph --folded`,
#          perf script through tests/bench/unwind-fold.awk; both read by
#          tests/bench/unwind-rate.awk), by leaf too;
#  cost/sample  (the workload's CPU time under the profiler - bare's
#          median, + the recorder's CPU time while the workload ran) / the
#          workload's samples, us.  Not counted: the recorder's start
#          (fxtprof builds the tables of every process already running),
#          and its end (perf's build-id pass).  perf dwarf defers the
#          unwinding: the CPU time of the `perf script --comms` that
#          unwinds (and names) the workload's samples, per sample, is
#          given apart, and a ratio with it;
#  in-handler  fxtprof's own mean time per sample where it is taken, the
#          walk included: the module's handler statistics; the bpf
#          program's run time (kernel.bpf_stats_enabled, bpftool);
#  bytes/sample  the output file (FXT; perf.data) / all samples recorded.
#
# Env: BENCH_PARTS ("tables host vm"; "table": print the last run's
# table again), BENCH_FREQ (1000), BENCH_REPS (3), BENCH_ROUNDS (workload
# -r per copy on the host, 10000: about 3 s), BENCH_VM_REPS (3),
# BENCH_VM_ROUNDS (2000: about 1.5 s under TCG), BENCH_TABLE_REPS (3),
# BENCH_CXX_LIB (the C++ library), BENCH_UNWIND_MEMORY (fxtprof's
# --unwind-memory on the host; default its own), PERF, VM_LOCK_FILE,
# VM_TIMEOUT (900), BENCH_NOBUILD=1.  Raw output:
# build/results/bench-unwind.out (the VM's: bench-unwind-vm.out, its log
# next to it).
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/bench-lib.sh"

parts=${BENCH_PARTS:-tables host vm}
freq=${BENCH_FREQ:-1000}
reps=${BENCH_REPS:-3}
rounds=${BENCH_ROUNDS:-10000}
vm_reps=${BENCH_VM_REPS:-3}
vm_rounds=${BENCH_VM_ROUNDS:-2000}
table_reps=${BENCH_TABLE_REPS:-3}
vm_lock=${VM_LOCK_FILE:-/tmp/fxtprof-vm.lock}
unwind_memory=${BENCH_UNWIND_MEMORY:+--unwind-memory $BENCH_UNWIND_MEMORY}
B=$FXT_BUILD/x86_64
fxtprof=$B/bin/fxtprof
workload=$B/tests/bench/fxt-bench-unwind
fold=$FXT_ROOT/tests/bench/unwind-fold.awk
rate=$FXT_ROOT/tests/bench/unwind-rate.awk
comm=fxt-bench-unwin	# the workload's comm, cut to 15 bytes
ncpu=$(nproc)
hz=$(getconf CLK_TCK)
tmp=$(mktemp -d /tmp/bench-unwind.XXXXXX)
sk=/proc/sys/kernel
saved_pct=$(cat $sk/perf_cpu_time_max_percent)
saved_stats=$(cat $sk/bpf_stats_enabled)
restore() {
	echo "$saved_pct" > $sk/perf_cpu_time_max_percent 2>/dev/null || true
	echo "$saved_stats" > $sk/bpf_stats_enabled 2>/dev/null || true
	rm -rf "$tmp"
}
trap restore EXIT

die() { echo "bench-unwind: $*" >&2; exit 1; }
want() { case " $parts " in *" $1 "*) true ;; *) false ;; esac; }

[ "$(uname -m)" = x86_64 ] || die "runs on an x86_64 host only"
bench_find_perf bench-unwind
if [ "${BENCH_NOBUILD:-0}" != 1 ]; then
	make -C "$FXT_ROOT" --no-print-directory -j2 ARCH=x86_64 \
		"${fxtprof#$FXT_ROOT/}" "${workload#$FXT_ROOT/}" >/dev/null
	if want vm; then
		make -C "$FXT_ROOT" --no-print-directory ARCH=x86_64 \
			CFG=x86_64 module >/dev/null
	fi
fi

mkdir -p "$FXT_RESULTS"
out=$FXT_RESULTS/bench-unwind.out
say() { echo "$*" | tee -a "$out"; }
# BENCH_PARTS=table: only the table, again, from the last run's lines.
[ "$parts" = table ] || : > "$out"
[ "$parts" = table ] || say "BENCH-INFO date=$(date -u +%FT%TZ) kernel=$(uname -r) ncpu=$ncpu" \
	"perf=$("$perf" --version | tr ' ' _) freq=$freq" \
	"load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)"

# ---- tables ---------------------------------------------------------------

# Size in bytes of section $2 of ELF file $1.
section_size() {
	local hex
	hex=$(readelf -SW "$1" | awk -v s="$2" '
		{ sub(/^ *\[ *[0-9]+\] */, "") }
		$1 == s { print $5; exit }')
	echo $((16#${hex:-0}))
}

bench_tables() {
	local cxx f i o ms best text
	cxx=${BENCH_CXX_LIB:-$(ls /usr/lib/x86_64-linux-gnu/libLLVM-*.so.1 2>/dev/null | sort -V | tail -1)}
	[ -n "$cxx" ] || cxx=$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)
	for f in /lib/x86_64-linux-gnu/libc.so.6 "$cxx"; do
		f=$(readlink -f "$f")
		best=
		for i in $(seq 1 "$table_reps"); do
			# "FILE: x86_64, .eh_frame (N bytes), build id ..., R rows,
			# T bytes, pc_end ..., built in X ms"
			o=$("$fxtprof" unwind -s "$f" | head -1)
			ms=$(echo "$o" | sed -n 's/.*built in \([0-9.]*\) ms.*/\1/p')
			say "BENCH-TABLE file=$f run=$i build_ms=$ms"
			if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then
				best=$ms
			fi
		done
		text=$(section_size "$f" .text)
		say "BENCH-TABLE-FILE file=$f text=$text" \
			"eh_frame=$(echo "$o" | sed -n 's/.*\.eh_frame (\([0-9]*\) bytes).*/\1/p')" \
			"rows=$(echo "$o" | sed -n 's/.* \([0-9]*\) rows,.*/\1/p')" \
			"table=$(echo "$o" | sed -n 's/.* rows, \([0-9]*\) bytes,.*/\1/p')" \
			"build_ms=$best"
	done
}

# ---- host -----------------------------------------------------------------

# CPU time in clock ticks: of process $1 (user + system, all threads), or
# with "children" of what this shell has waited for.
ticks() {
	if [ "$1" = children ]; then
		awk '{ sub(/^.*\) /, ""); print $14 + $15 }' /proc/$$/stat
	else
		awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
	fi
}

CHECKSUM=
# One copy of the workload per CPU, each its own exec; sets CPU and WALL
# (ns), and the recorder's ticks over the run in RTICKS if PID is set.
run_workload() {
	local c0 r0=0 i sum
	[ -n "${PID:-}" ] && r0=$(ticks "$PID")
	c0=$(ticks children)
	WALL=$(date +%s%N)
	(
		for i in $(seq 1 "$ncpu"); do
			"$workload" -r "$rounds" > "$tmp/w.$i" &
		done
		wait
	)
	WALL=$(( $(date +%s%N) - WALL ))
	CPU=$(( ($(ticks children) - c0) * 1000000000 / hz ))
	RTICKS=0
	[ -n "${PID:-}" ] && RTICKS=$(( $(ticks "$PID") - r0 ))
	for i in $(seq 1 "$ncpu"); do
		sum=$(sed -n 's/.*checksum=\(0x[0-9a-f]*\).*/\1/p' "$tmp/w.$i")
		[ -z "$CHECKSUM" ] && CHECKSUM=$sum
		[ "$sum" = "$CHECKSUM" ] || die "workload checksum changed: '$sum' != $CHECKSUM"
	done
}

# The profilers, started in the background: PID, FILE, ERR.  Each returns
# once it samples: fxtprof's --ready-file, perf's acknowledgement of
# "enable" on its control fifo (its events start disabled, -D -1).
start_bpf() {
	FILE=$tmp/bench.fxt ERR=$tmp/fxtprof.err
	rm -f "$FILE" "$tmp/ready"
	"$fxtprof" record --source bpf -F "$freq" -g user $unwind_memory \
		--ready-file "$tmp/ready" -o "$FILE" 2>"$ERR" &
	PID=$!
	"$FXT_ROOT/scripts/wait-ready.sh" "$tmp/ready" $PID 60 ||
		{ cat "$ERR"; die "fxtprof record did not start"; }
}
start_perf() {
	local ack=
	FILE=$tmp/bench.perf ERR=$tmp/perf.err
	rm -f "$FILE" "$tmp/ctl" "$tmp/ack"
	mkfifo "$tmp/ctl" "$tmp/ack"
	"$perf" record -a -e cpu-clock -F "$freq" --user-callchains \
		--call-graph "$1" -N -o "$FILE" -D -1 \
		--control "fifo:$tmp/ctl,$tmp/ack" >/dev/null 2>"$ERR" &
	PID=$!
	exec 3<>"$tmp/ctl" 4<>"$tmp/ack"
	echo enable >&3
	read -r -t 20 ack <&4 || true
	exec 3>&- 4<&-
	[ "$ack" = ack ] || { cat "$ERR"; die "perf record did not start"; }
}

# The mean run time (ns) of process $1's sampling program, the walk
# included, from the kernel's BPF statistics (kernel.bpf_stats_enabled):
# over every sample since it was loaded, the workload's and the others'.
bpf_handler_ns() {
	local f id o
	for f in /proc/"$1"/fdinfo/*; do
		id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$f" 2>/dev/null)
		[ -n "$id" ] || continue
		o=$(bpftool prog show id "$id" -j 2>/dev/null) || continue
		case $o in *'"name":"fxtprof_sample"'*) ;; *) continue ;; esac
		echo "$o" | sed -n 's/.*"run_time_ns":\([0-9]*\),"run_cnt":\([0-9]*\).*/\1 \2/p' |
			awk '$2 > 0 { printf "%.0f", $1 / $2; exit } END { if (NR == 0) print "-" }'
		return
	done
	echo -
}

# Folded stacks of the run's output into $tmp/folded; the CPU time (ns)
# that took into DEFER (perf: the deferred unwinding, `perf script`).
fold_bpf() {
	"$fxtprof" flamegraph --folded --comm "$comm" "$FILE" > "$tmp/folded" ||
		die "fxtprof flamegraph failed"
	DEFER=-
}
fold_perf() {
	local c0
	c0=$(ticks children)
	# --no-inline: the unwinding, not addr2line's inline names (and the
	# VM has no addr2line: perf script fails there without it).
	"$perf" script -i "$FILE" --no-inline --comms "$comm" -F comm,ip,sym \
		> "$tmp/script" 2>/dev/null || return 1
	DEFER=$(( ($(ticks children) - c0) * 1000000000 / hz ))
	awk -f "$fold" "$tmp/script" > "$tmp/folded"
}

run_host() {
	local rep=$1 cfg=$2 samples
	case $cfg in
	bare)
		PID=
		run_workload
		say "BENCH where=host rep=$rep cfg=bare wall_ns=$WALL cpu_ns=$CPU"
		return ;;
	bpf) start_bpf ;;
	dwarf|fp) start_perf "$cfg" ;;
	esac
	run_workload
	HANDLER=-
	if [ "$cfg" = bpf ]; then
		HANDLER=$(bpf_handler_ns "$PID")
		kill -TERM "$PID"
		wait "$PID" || { cat "$ERR"; die "fxtprof record failed"; }
		samples=$(sed -n 's/^fxtprof: [0-9.]* s: \([0-9]*\) samples.*/\1/p' "$ERR")
		# How the tables went: what the whole-stack rate depends on.
		grep -e 'unwind tables' -e 'user frames' "$ERR" |
			sed "s/^/BENCH-NOTE where=host rep=$rep cfg=bpf /" | tee -a "$out"
		fold_bpf
	else
		# INT: perf writes its file and exits 0.
		kill -INT "$PID"
		wait "$PID" || true
		samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$ERR")
		# perf 6.1 has been seen to abort at exit on this host: the run
		# is reported as failed and the bench goes on.
		if [ -z "$samples" ] || ! fold_perf; then
			say "BENCH-FAIL where=host rep=$rep cfg=$cfg $(tail -1 "$ERR")"
			PID=
			return
		fi
	fi
	[ -n "$samples" ] || { cat "$ERR"; die "$cfg: no sample count"; }
	say "BENCH where=host rep=$rep cfg=$cfg wall_ns=$WALL cpu_ns=$CPU" \
		"rec_cpu_ns=$(( RTICKS * 1000000000 / hz )) defer_cpu_ns=$DEFER" \
		"handler_ns=$HANDLER" \
		"samples=$samples bytes=$(wc -c < "$FILE")" \
		"$(awk -v comm="$comm" -f "$rate" "$tmp/folded")"
	PID=
}

bench_host() {
	local configs=(bare bpf dwarf fp) n=4 rep i
	"$perf" --version >/dev/null 2>&1 || die "no perf"
	# No dynamic throttling of perf's handler (it would lower the rate
	# of later runs); restored at exit.
	echo 0 > $sk/perf_cpu_time_max_percent
	command -v bpftool >/dev/null && echo 1 > $sk/bpf_stats_enabled
	PID=
	run_workload	# warm-up, not reported
	say "BENCH-INFO where=host warmup wall_ns=$WALL cpu_ns=$CPU checksum=$CHECKSUM rounds=$rounds copies=$ncpu"
	for rep in $(seq 1 "$reps"); do
		for i in $(seq 0 $((n - 1))); do
			run_host "$rep" "${configs[(i + rep - 1) % n]}"
		done
	done
}

# ---- vm -------------------------------------------------------------------

bench_vm() {
	local vmout=$FXT_RESULTS/bench-unwind-vm.out conf=$B/bench/unwind.conf
	bench_vm_files "$perf:/bench/perf" "$fxtprof:/bench/fxtprof" \
		"$workload:/bench/fxt-bench-unwind"
	mkdir -p "$B/bench"
	echo "$workload" > "$B/bench/unwind-tests.list"
	printf 'ROUNDS=%s\nREPS=%s\nFREQ=%s\n' "$vm_rounds" "$vm_reps" "$freq" > "$conf"
	# One VM at a time on this host: the lock every VM run here takes.
	exec 9>>"$vm_lock"
	flock 9
	VM_TIMEOUT=${VM_TIMEOUT:-900} bench_run_vm bench-unwind x86_64 \
		"$FXT_ROOT/tests/bench/bench-unwind.vm.sh" \
		"$B/bench/unwind-tests.list" "$vmout" "${files[@]}" \
		"$conf:/bench/unwind.conf" "$fold:/bench/unwind-fold.awk" \
		"$rate:/bench/unwind-rate.awk" -- clocksource=tsc tsc=reliable
	exec 9>&-
	grep -e '^BENCH ' -e '^BENCH-INFO' -e '^BENCH-NOTE' -e '^BENCH-FAIL' "$vmout" | tee -a "$out"
}

want tables && bench_tables
want host && bench_host
want vm && bench_vm

# ---- the table ------------------------------------------------------------

echo
awk "$BENCH_AWK"'
$1 == "BENCH-TABLE-FILE" {
	bench_fields()
	f = v["file"]; sub(/.*\//, "", f)
	tf[++ntf] = sprintf("  %-24s %7.2f %9.0f %9d %9.0f %8.1f %10.0f %10.0f", f,
		v["text"] / 1048576, v["eh_frame"] / 1024, v["rows"], v["table"] / 1024,
		v["build_ms"], v["build_ms"] / (v["eh_frame"] / 1048576),
		v["table"] / 1024 / (v["text"] / 1048576))
}
$1 == "BENCH" {
	bench_fields()
	k = v["where"] ":" v["cfg"]
	cfgs[k] = 1
	add(k ":cpu", v["cpu_ns"])
	if (v["cfg"] == "bare") next
	add(k ":rcpu", v["rec_cpu_ns"])
	add(k ":defer", v["defer_cpu_ns"])
	add(k ":ws", v["wsamples"])
	add(k ":whole", v["whole"] / v["wsamples"])
	if (v["cmp"] > 0) add(k ":cmp", v["cmp_whole"] / v["cmp"])
	if (v["leaf"] > 0) add(k ":leaf", v["leaf_whole"] / v["leaf"])
	if (v["leaf"] > 0) add(k ":depth", v["depth_ok"] / v["leaf"])
	add(k ":bps", v["bytes"] / v["samples"])
	add(k ":handler", v["handler_ns"])
	row[k] = 1
	# Per run, against the median bare run of the same place: the
	# workload time it added and the recorder time, per sample.
	run[k, ++nrun[k]] = v["cpu_ns"] " " v["rec_cpu_ns"] " " v["wsamples"] " " v["defer_cpu_ns"] " " v["samples"]
}
END {
	if (ntf) {
		print "Unwind tables (fxtprof unwind -s, best of the runs):"
		printf "  %-24s %7s %9s %9s %9s %8s %10s %10s\n", "file", ".text", ".eh_frame",
			"rows", "table", "build", "ms per MiB", "KiB per MiB"
		printf "  %-24s %7s %9s %9s %9s %8s %10s %10s\n", "", "MiB", "KiB", "", "KiB", "ms",
			"eh_frame", "of .text"
		for (i = 1; i <= ntf; i++) print tf[i]
		print ""
	}
	split("host:bpf host:dwarf host:fp vm:module vm:dwarf", order, " ")
	for (w in cfgs) if (w ~ /:bare$/) bare[w] = median(w ":cpu")
	for (k in nrun)
		for (i = 1; i <= nrun[k]; i++) {
			split(run[k, i], r, " ")
			b = bare[substr(k, 1, index(k, ":")) "bare"]
			if (r[3] <= 0) continue
			add(k ":wcost", (r[1] - b) / r[3] / 1e3)
			add(k ":rcost", r[2] / r[3] / 1e3)
			add(k ":cost", (r[1] - b + r[2]) / r[3] / 1e3)
			if (r[4] != "-") add(k ":dcost", r[4] / r[3] / 1e3)
		}
	print "User stacks of the FP-less workload, medians of the runs:"
	printf "  %-11s %8s %7s %7s %7s %7s  %8s %8s %8s %9s %8s  %8s\n", "", "workload", "whole",
		"qsort", "recur", "depth", "cost/smp", "workload", "recorder", "deferred", "in-handl", "bytes/"
	printf "  %-11s %8s %7s %7s %7s %7s  %8s %8s %8s %9s %8s  %8s\n", "profiler", "samples", "%",
		"cb %", "leaf %", "40 %", "us", "us", "us", "unwind us", "us", "sample"
	for (i = 1; i <= 5; i++) {
		k = order[i]
		if (!(k in row)) continue
		printf "  %-11s %8d %7.1f %7.1f %7.1f %7.1f  %8.2f %8.2f %8.2f %9s %8s  %8.0f\n", k,
			median(k ":ws"), 100 * median(k ":whole"), 100 * median(k ":cmp"),
			100 * median(k ":leaf"), 100 * median(k ":depth"), median(k ":cost"),
			median(k ":wcost"), median(k ":rcost"),
			cnt[k ":dcost"] ? sprintf("%.2f", median(k ":dcost")) : "-",
			cnt[k ":handler"] ? sprintf("%.2f", median(k ":handler") / 1e3) : "-", median(k ":bps")
	}
	print ""
	print "Against perf --call-graph dwarf, same place (goals: cost <= 0.3x, bytes <= 0.02x):"
	for (i = 1; i <= 5; i++) {
		k = order[i]
		if (!(k in row) || k ~ /:(dwarf|fp)$/) continue
		d = substr(k, 1, index(k, ":")) "dwarf"
		if (!(d in row)) continue
		printf "  %-11s cost %.3fx (%.3fx with perf'"'"'s deferred unwinding), bytes/sample %.4fx, whole-stack %.1f%% vs %.1f%%\n",
			k, median(k ":cost") / median(d ":cost"),
			median(k ":cost") / (median(d ":cost") + median(d ":dcost")),
			median(k ":bps") / median(d ":bps"), 100 * median(k ":whole"),
			100 * median(d ":whole")
		# What noise does not drown: the time fxtprof takes where the
		# sample is taken plus its recorder, against perf dwarf'"'"'s
		# recorder and deferred unwinding (its own handler left out).
		if (cnt[k ":handler"] && cnt[d ":dcost"])
			printf "  %-11s in-handler + recorder %.2f us vs perf dwarf recorder + deferred %.2f us: at most %.3fx\n", k,
				median(k ":handler") / 1e3 + median(k ":rcost"),
				median(d ":rcost") + median(d ":dcost"),
				(median(k ":handler") / 1e3 + median(k ":rcost")) / (median(d ":rcost") + median(d ":dcost"))
	}
	print "  whole = share of the workload'"'"'s samples whose user stack reaches main (qsort cb: leaf"
	print "  unwind_cmp; recur leaf: unwind_leaf; depth 40: with all 40 unwind_recurse frames too)."
	print "  cost/smp = workload + recorder: (workload CPU - bare median) / its samples, and the"
	print "  recorder'"'"'s CPU while the workload ran / the same samples; not its start or end."
	print "  deferred unwind = CPU of perf script --comms: unwinding (and naming) the workload'"'"'s samples,"
	print "  per sample; fxtprof'"'"'s naming (fxtprof flamegraph) is not counted."
	print "  in-handl = fxtprof'"'"'s mean time per sample where it is taken (module: its handler stats;"
	print "  bpf: the program'"'"'s run time, kernel.bpf_stats_enabled), over all samples."
	print "  bytes/sample = output file bytes / all samples the recording took."
	print "  host: bpf = fxtprof record --source bpf -g user; vm: module = fxtprof record -g user (fxtprof.ko),"
	print "  QEMU TCG, no KVM."
}' "$out" | tee "$out.table"
echo "bench-unwind: raw runs in $out"

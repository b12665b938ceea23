#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check_symbols.sh LOG OUTDIR > TAP
# The host half of the symbol tests: take the recording that
# tests/symbols/test_symbols.sh wrote to a VM's console (LOG), and name
# its frames here with the host's fxtprof, as a user does with a board's
# recording: report, flamegraph, export --format pprof, symbolize.  The
# board's files are under OUTDIR/symfs as they are in the VM (from
# build/ARCH/tests/symbols and vm-test-files.list); OUTDIR keeps every
# output for a look afterwards.  The architecture is the VM's (its
# "FXT-VM: kernel" line); SYM_ARCH=x86_64|arm64 overrides it.
#
# Every check runs whatever happened before it, so a missing recording
# fails each one by name and the count stays that of the plan
# (tests/symbols/suite.plan, "sym check_symbols").
set -uo pipefail

usage="usage: check_symbols.sh LOG OUTDIR"
log=${1:?$usage}
out=${2:?$usage}
root=$(cd "$(dirname "$0")/../.." && pwd)
fxtprof=${FXTPROF:-$root/build/x86_64/bin/fxtprof}
# The one that runs export and symbolize (a build without them can name
# tests/export's export_tool).
fxtexport=${FXTPROF_EXPORT:-$fxtprof}
blobs=${FXT_BLOBS:-$root/build/x86_64/tests/symbols/fxt_blobs}
proto=$root/tests/export/perfetto_profile.proto
PLAN=23

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
note() { sed "s/^/#   /" "$@" | head -n 12; }

echo "TAP version 13"
echo "1..$PLAN"

# vm_arch and vm_file: reading the guest's console.
. "$root/tests/scripts/vm_console.sh"
# dbgd_start, dbgd_wait_id, dbgd_stop: Debian's debuginfod on loopback.
. "$root/tests/debuginfod/serve.sh"
# Only the debuginfod servers this script starts, none of the caller's.
unset DEBUGINFOD_URLS
wrong_pid=
on_exit() { dbgd_stop; [ -z "$wrong_pid" ] || kill "$wrong_pid" 2>/dev/null; }
trap on_exit EXIT
trap 'exit 143' TERM INT
arch=${SYM_ARCH:-$(vm_arch "$log")}
B=$root/build/$arch/tests/symbols
rm -rf "$out"
mkdir -p "$out/symfs/tests" "$out/empty" "$out/debug/.build-id" \
	"$out/rebuilt/tests"
fxt=$out/sym.fxt
echo "# arch $arch, recording $fxt, outputs in $out"

# ---- the board's files, as the VM has them ----------------------------
for f in sym_chain sym_dlopen libsymtest.so sym_short sym_stripped sym_syscall; do
	cp "$B/$f" "$out/symfs/tests/" 2>/dev/null || echo "# no $B/$f (make ARCH=$arch user)"
done
while IFS=: read -r src dest; do
	[ -n "$src" ] || continue
	mkdir -p "$out/symfs/$(dirname "$dest")"
	cp -L "$src" "$out/symfs/$dest"
done < "$root/build/$arch/vm-test-files.list"
# The unstripped copy, where a debug directory keeps it: by build id.
bid=$(readelf -n "$B/sym_stripped.full" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
if [ -n "$bid" ]; then
	mkdir -p "$out/debug/.build-id/${bid:0:2}"
	cp "$B/sym_stripped.full" "$out/debug/.build-id/${bid:0:2}/${bid:2}.debug"
fi
# The mismatch case: another build of it at the path the VM recorded.
cp "$B/sym_rebuilt" "$out/rebuilt/tests/sym_stripped" 2>/dev/null

# Options of every symbolizing command: the board's root, and no debug
# directory of this host (/usr/lib/debug) in the way.
SYMOPTS=(--symfs "$out/symfs" --debug-dir "$out/empty")

# ---- 1. the recording, out of the console ------------------------------
check "the recording arrived intact from the VM console" vm_file "$log" sym.fxt "$fxt"

fxt_check() {	# fxt_check FILE LOGNAME
	"$fxtprof" check "$1" > "$out/$2" 2>&1 || { note "$out/$2"; return 1; }
}
check "fxtprof check passes on the recording" fxt_check "$fxt" check.txt

# Run one fxtprof command; its stdout and stderr go to OUTDIR/NAME.
run() {	# run NAME ARGS...
	local name=$1
	shift
	local cmd=$fxtprof
	case $1 in export|symbolize) cmd=$fxtexport ;; esac
	"$cmd" "$@" > "$out/$name" 2> "$out/$name.err"
	local rc=$?
	[ $rc = 0 ] || { echo "# ${cmd##*/} $* -> exit $rc"; note "$out/$name.err"; }
	return $rc
}
# The symbols of a report's function rows, in order: perf's
# "...  [.] name" / "...  [k] name" lines.
syms() {	# syms FILE [.|k]
	sed -n "s/.*\[\\$2\] \{1,\}\([^ ]*\).*/\1/p" "$1"
}
top_sym() {	# top_sym FILE WANT: the first user function row is WANT
	local got
	got=$(syms "$1" . | head -n 1)
	[ "$got" = "$2" ] || { echo "# top [.] function in $1: '${got}', wanted '$2'"; return 1; }
}
# A folded stack line ends with LEAF-PART and a count; folded output goes
# to -o, or to stdout when the command prints it there.
folded() {	# folded NAME FILE: OUTDIR/NAME holds the folded stacks
	run "$1.stdout" flamegraph "$2" --folded -o "$out/$1" "${SYMOPTS[@]}" || return 1
	[ -s "$out/$1" ] || cp "$out/$1.stdout" "$out/$1"
	[ -s "$out/$1" ]
}
has_stack() {	# has_stack FILE STACK: a line "...;STACK COUNT" or "STACK COUNT"
	grep -Eq "(^|;)$2 [0-9]+\$" "$1" || { echo "# no folded stack ending in '$2' in $1"; return 1; }
}

# ---- 2. the known call chain --------------------------------------------
chain_top() {
	run report-chain.txt report "$fxt" --comm sym_chain --no-children "${SYMOPTS[@]}" &&
		top_sym "$out/report-chain.txt" c
}
check "chain: report --comm sym_chain has c on top" chain_top

# Consecutive names of the call tree, tree drawing and percentages taken
# off: main, a, b, c must follow one another, callers first.
chain_tree() {
	run report-chain-caller.txt report "$fxt" --comm sym_chain -g caller "${SYMOPTS[@]}" || return 1
	sed -e 's/\[[.k]\]//g' -e 's/[0-9.]*%//g' -e 's/[-|`+]/ /g' "$out/report-chain-caller.txt" |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[A-Za-z_][A-Za-z0-9_.@]*$/) print $i }' |
		awk 'p3 == "main" && p2 == "a" && p1 == "b" && $0 == "c" { found = 1 }
		     { p3 = p2; p2 = p1; p1 = $0 } END { exit !found }' ||
		{ echo "# no main -> a -> b -> c in the caller tree"; note "$out/report-chain-caller.txt"; return 1; }
}
check "chain: report -g caller shows main -> a -> b -> c" chain_tree

check "chain: flamegraph --folded has main;a;b;c" \
	eval 'folded folded.txt "$fxt" && has_stack "$out/folded.txt" "main;a;b;c"'

chain_svg() {
	local svg=$out/chain.svg
	run flamegraph.txt flamegraph "$fxt" -o "$svg" "${SYMOPTS[@]}" || return 1
	head -c 400 "$svg" | grep -q '<svg' && tail -c 100 "$svg" | grep -q '</svg>' &&
		grep -Eq '(<title>|>)c( |\(|<)' "$svg" || { echo "# $svg: not an SVG with a frame c"; return 1; }
}
check "chain: flamegraph SVG is one SVG with the frame c" chain_svg

# pprof: only the samples through a (those of sym_chain), so the check
# does not depend on how the emulator shared the CPUs.
pprof() {	# pprof NAME ARGS...
	local name=$1
	shift
	HOME=$out GOCACHE=$out/gocache go tool pprof -symbolize=none "$@" > "$out/$name" 2>&1 ||
		{ note "$out/$name"; return 1; }
}
chain_pprof_top() {
	run export.txt export --format pprof "$fxt" -o "$out/sym.pb.gz" "${SYMOPTS[@]}" || return 1
	pprof pprof-top.txt -top -focus='^a$' "$out/sym.pb.gz" || return 1
	local got
	got=$(awk '/flat%/ { on = 1; next } on && NF >= 6 { print $NF; exit }' "$out/pprof-top.txt")
	[ "$got" = c ] || { echo "# pprof -top first: '$got', wanted c"; note "$out/pprof-top.txt"; return 1; }
}
check "chain: go tool pprof -top reads the export, c first" chain_pprof_top

# -traces prints each stack leaf first, one name a line, between
# "-----------+" rules: c, b, a, main must follow one another.
chain_pprof_traces() {
	pprof pprof-traces.txt -traces -focus='^a$' "$out/sym.pb.gz" || return 1
	awk '/^-+\+/ { p1 = p2 = p3 = ""; next }
	     { name = $NF }
	     p3 == "c" && p2 == "b" && p1 == "a" && name == "main" { found = 1 }
	     { p3 = p2; p2 = p1; p1 = name } END { exit !found }' "$out/pprof-traces.txt" ||
		{ echo "# no trace c, b, a, main"; note "$out/pprof-traces.txt"; return 1; }
}
check "chain: go tool pprof -traces shows c, b, a, main" chain_pprof_traces

sym_fxt=$out/sym.symbolized.fxt
symbolized_check() {
	run symbolize.txt symbolize "$fxt" -o "$sym_fxt" "${SYMOPTS[@]}" &&
		fxt_check "$sym_fxt" check-symbolized.txt
}
check "chain: fxtprof symbolize output passes fxtprof check" symbolized_check

# The Perfetto stream of the blobs, decoded against the project's schema:
# function names by iid, frames to names, callstacks (root first) to
# names, resolved as they come (iids are per generation); one callstack
# must hold main, a, b, c in a row, and samples must use callstacks.
perfetto_callstack() {
	"$blobs" "$sym_fxt" > "$out/perfetto.pb" 2> "$out/perfetto.err" || { note "$out/perfetto.err"; return 1; }
	protoc --decode=perfetto.protos.Trace -I "$(dirname "$proto")" "$proto" \
		< "$out/perfetto.pb" > "$out/perfetto.txt" 2>> "$out/perfetto.err" ||
		{ note "$out/perfetto.err"; return 1; }
	awk '
	/^ *[a-z_]+ \{$/ { stack[++depth] = $1; if ($1 == "callstacks") ncs = 0; next }
	/^ *\}$/ {
		blk = stack[depth]
		if (blk == "function_names") fname[iid] = str
		if (blk == "frames") frame[iid] = fnid
		if (blk == "callstacks") {
			names = ""
			for (i = 1; i <= ncs; i++) names = names " " fname[frame[cs[i]]]
			if (names ~ / main a b c( |$)/) found = 1
		}
		depth--; next
	}
	{ blk = stack[depth] }
	/^ *iid: / { iid = $2 }
	/^ *str: / { str = $0; sub(/^ *str: "/, "", str); sub(/"$/, "", str) }
	/^ *function_name_id: / { fnid = $2 }
	blk == "callstacks" && /^ *frame_ids: / { cs[++ncs] = $2 }
	blk == "perf_sample" && /^ *callstack_iid: / { samples++ }
	END {
		printf "# perfetto: callstack main,a,b,c %s, %d perf samples with a callstack\n", found ? "found" : "missing", samples
		exit !(found && samples > 0)
	}' "$out/perfetto.txt"
}
check "chain: the Perfetto blobs decode (protoc) to a callstack main, a, b, c" perfetto_callstack

# ---- 3. PIE and a shared library loaded with dlopen ---------------------
dl_top() {
	run report-dlopen.txt report "$fxt" --comm sym_dlopen --no-children "${SYMOPTS[@]}" &&
		top_sym "$out/report-dlopen.txt" libsym_spin
}
check "dlopen: report --comm sym_dlopen has libsym_spin on top" dl_top
check "dlopen: the PIE's main calls libsym_spin (folded main;libsym_spin)" \
	has_stack "$out/folded.txt" "main;libsym_spin"

# ---- 4. short-lived ---------------------------------------------------
# The runs of sym_short, from the recording itself: exec'd as
# /tests/sym_short, the program's lifetime from its exec to its exit in
# the stream's ticks (the fork before it is the shell's work, which the
# debug kernel alone makes longer than 50 ms).  The samples of those that
# lived under 50 ms must name short_spin; selected by pid, not by comm,
# so that this is about mappings only.
short_resolves() {
	"$fxtprof" dump "$fxt" > "$out/dump.txt" 2>&1 || { note "$out/dump.txt"; return 1; }
	awk '
	function num(key,   v) { v = $0; if (!sub(".*" key, "", v)) return ""; sub(/[^0-9].*/, "", v); return v }
	/^Initialization\(ticks_per_second: / { tps = num("ticks_per_second: ") }
	/^Event\(/ && /category: "task"/ {
		ts = num("ts: "); pid = num("pt: ")
		if (/name: "exec"/ && /filename: string\("\/tests\/sym_short"\)/) short[pid] = ts
		else if (/name: "exit"/ && /group_dead: bool\(true\)/) gone[pid] = ts
	}
	END {
		for (p in short) if ((p in gone) && tps > 0)
			printf "%s %d\n", p, (gone[p] - short[p]) * 1000 / tps
	}' "$out/dump.txt" | sort -n > "$out/short-lives.txt"
	local fast
	fast=$(awk '$2 < 50 { printf "%s%s", sep, $1; sep = "," }' "$out/short-lives.txt")
	echo "# sym_short runs (pid, ms from exec to exit):" $(tr '\n' ' ' < "$out/short-lives.txt")
	[ -n "$fast" ] || { echo "# no run of sym_short lived under 50 ms"; return 1; }
	run report-short.txt report "$fxt" --pid "$fast" --no-children "${SYMOPTS[@]}" || return 1
	syms "$out/report-short.txt" . | grep -qx short_spin ||
		{ echo "# no short_spin in the samples of pids $fast"; note "$out/report-short.txt"; return 1; }
}
check "short: short_spin resolves in the runs of sym_short that lived under 50 ms" short_resolves

# ---- 5. stripped on the board, debug file by build id on the host -------
stripped_top() {
	run report-stripped.txt report "$fxt" --comm sym_stripped --no-children \
		--symfs "$out/symfs" --debug-dir "$out/debug/.build-id" &&
		top_sym "$out/report-stripped.txt" stripped_spin
}
check "stripped: stripped_spin from the debug dir by build id ${bid:-(none)}" stripped_top

# The same path holds another build: never a name from it.  Its rows
# ("... sym_stripped [.] SYMBOL") must all be [unknown]: not a name,
# and not the dso+0xoffset of an unresolved frame either, since the
# offsets of another build mean nothing.
rebuilt_unknown() {
	run report-rebuilt.txt report "$fxt" --comm sym_stripped \
		--symfs "$out/rebuilt" --debug-dir "$out/empty" || return 1
	awk 'NF >= 3 && $(NF - 2) == "sym_stripped" && $(NF - 1) == "[.]" {
		rows++
		if ($NF != "[unknown]") { print "# named: " $0; bad++ }
	} END { printf "# %d rows of sym_stripped, %d named\n", rows, bad; exit !(rows > 0 && !bad) }' \
		"$out/report-rebuilt.txt"
}
check "stripped: a rebuilt copy (another build id) gives no name, only [unknown]" rebuilt_unknown
check "stripped: the build id mismatch is reported" \
	grep -Eiq 'build.?id.*mismatch|mismatch.*build.?id' "$out/report-rebuilt.txt" "$out/report-rebuilt.txt.err"

# ---- 5b. debuginfod -----------------------------------------------------
# Debian's debuginfod serves the unstripped sym_stripped on loopback: the
# stripped file of symfs gets its symbols from there, with no debug
# directory; then a server that answers every build id with sym_rebuilt.
dbg_report() {	# dbg_report NAME URL CACHE ARGS...: report with debuginfod
	local name=$1 url=$2 cache=$3
	shift 3
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$out/$cache run "$name" report "$fxt" "$@"
}
dbg_stripped() {
	mkdir -p "$out/dbgsrv" && cp "$B/sym_stripped.full" "$out/dbgsrv/" &&
		dbgd_start "$out/dbgsrv" "$out/dbgd" && dbgd_wait_id "$bid" 120 ||
		{ echo "# debuginfod did not serve $bid"; note "$out/dbgd/debuginfod.log"; return 1; }
	dbg_report report-dbgd.txt "$DBGD_URL" cache-dbgd --comm sym_stripped \
		--no-children "${SYMOPTS[@]}" && top_sym "$out/report-dbgd.txt" stripped_spin
}
check "debuginfod: sym_stripped named through debuginfod, no --debug-dir" dbg_stripped
dbgd_stop

dbg_wrong() {
	local port i=0 rc
	python3 "$root/tests/debuginfod/wrong_server.py" "$out/wrong.port" \
		"$B/sym_rebuilt" "$out/wrong.log" & wrong_pid=$!
	until [ -s "$out/wrong.port" ]; do
		kill -0 $wrong_pid 2>/dev/null && [ $i -lt 300 ] || return 1
		sleep 0.1	# the poll interval
		i=$((i + 1))
	done
	port=$(cat "$out/wrong.port")
	dbg_report report-wrong.txt "http://127.0.0.1:$port" cache-wrong \
		--comm sym_stripped --no-children "${SYMOPTS[@]}"
	rc=$?
	kill $wrong_pid; wait $wrong_pid 2>/dev/null; wrong_pid=
	[ $rc = 0 ] || return 1
	! syms "$out/report-wrong.txt" . | grep -qx stripped_spin &&
		grep -Eq 'build id mismatch[: ]+[1-9]' "$out/report-wrong.txt" "$out/report-wrong.txt.err" ||
		{ echo "# named, or no mismatch counted"; note "$out/report-wrong.txt"; return 1; }
}
check "debuginfod: a server answering another build leaves sym_stripped unnamed, mismatches counted" dbg_wrong

# ---- 5c. the guest's buildid-archive, served by debuginfod ------------------
ids_tar=$out/sym-ids.tar
check "buildid-archive: the guest's tar arrived intact" vm_file "$log" sym-ids.tar "$ids_tar"
chain_bid=$(readelf -n "$B/sym_chain" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
ids_layout() {
	mkdir -p "$out/ids" && tar xf "$ids_tar" -C "$out/ids" || return 1
	tar tvf "$ids_tar" > "$out/ids.txt" 2>&1
	echo "# $(grep -c '^-' "$out/ids.txt") files in the tar"
	[ -n "$chain_bid" ] && ! grep -q '^l' "$out/ids.txt" &&
		cmp "$out/ids/.build-id/${chain_bid:0:2}/${chain_bid:2}" "$B/sym_chain" ||
		{ echo "# no .build-id/${chain_bid:0:2}/${chain_bid:2} equal to sym_chain"; note "$out/ids.txt"; return 1; }
}
check "buildid-archive: sym_chain is in it as .build-id/xx/yyyy, byte for byte" ids_layout
ids_served() {
	dbgd_start "$out/ids" "$out/dbgd-ids" && dbgd_wait_id "$chain_bid" 120 ||
		{ echo "# debuginfod did not serve $chain_bid"; note "$out/dbgd-ids/debuginfod.log"; return 1; }
	# No symfs, no debug directory: the files come from debuginfod only.
	dbg_report report-ids.txt "$DBGD_URL" cache-ids --comm sym_chain \
		--no-children --debug-dir "$out/empty" &&
		top_sym "$out/report-ids.txt" c
}
check "buildid-archive: extracted, served by debuginfod -F, report names sym_chain's c" ids_served
dbgd_stop

# ---- 6. the kernel ----------------------------------------------------
# The top kernel rows of a system-call loop: named (no bare address, no
# [unknown]) and on the system call paths.
kernel_top() {
	run report-syscall.txt report "$fxt" --comm sym_syscall "${SYMOPTS[@]}" || return 1
	local top
	top=$(syms "$out/report-syscall.txt" k | head -n 5)
	echo "# top [k] functions of sym_syscall:" $top
	[ -n "$top" ] || return 1
	! echo "$top" | grep -Eq '^(0x|\[unknown\])|\+0x' &&
		echo "$top" | grep -Eq 'getpid|read|syscall|entry|el0_svc|svc|sys_'
}
check "kernel: sym_syscall's top kernel functions are named, on the syscall path" kernel_top

# ---- 7. the vDSO ------------------------------------------------------
# No file backs it, so the recorder gives every "[vdso]" mapping its own
# vDSO's build id (user/source/vdso_build_id.h): one id for all of them.
# Its frames are named only where that image is found (this host's is
# another kernel's), which tests/symbolize/test_symbolize covers.
vdso_ids() {
	"$fxtprof" dump "$fxt" > "$out/dump-vdso.txt" 2>&1 || { note "$out/dump-vdso.txt"; return 1; }
	awk '/type: mapping/ && /name: "\[vdso\]"/ {
		maps++
		if (match($0, /build_id: string\("[0-9a-f]+"\)/)) {
			id = substr($0, RSTART + 18, RLENGTH - 20)
			if (!(id in seen)) { seen[id] = 1; ids++; first = id }
		} else none++
	} END {
		printf "# %d [vdso] mappings, %d without a build id, %d build ids (%s)\n", maps, none, ids, first
		exit !(maps > 0 && !none && ids == 1)
	}' "$out/dump-vdso.txt"
}
check "vdso: every [vdso] mapping carries the one build id of the guest's vDSO" vdso_ids

[ "$n" = "$PLAN" ] || { echo "Bail out! check_symbols.sh ran $n checks, planned $PLAN"; exit 1; }
exit 0

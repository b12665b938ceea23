#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_export.sh B - `fxtprof symbolize` and `fxtprof export --format
# pprof` on recordings of tests/export/chain.c written by export_testgen,
# read back by independent tools: protoc --decode against
# perfetto_profile.proto for the Perfetto packets, `go tool pprof` for the
# profile (and protoc --decode_raw for its time fields), `fxtprof check`
# for the FXT.  B is build/x86_64.  TAP.
set -u
B=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/scripts/tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
GEN=$B/tests/export/export_testgen
CHAIN=$B/tests/export/chain
FXTPROF=$B/bin/fxtprof
# The commands themselves; fxtprof once its dispatch table names them.
if "$FXTPROF" symbolize --help >/dev/null 2>&1; then
	TOOL=$FXTPROF
else
	TOOL=$B/tests/export/export_tool
fi
PROTO_DIR=$SRC/tests/export
AWK=$SRC/tests/export/perfetto_stacks.awk
export HOME=$T/home GOCACHE=$T/gocache GOPATH=$T/gopath GOTOOLCHAIN=local
mkdir -p "$HOME"
echo "1..22"
mode() { stat -c %a "$1" 2>/dev/null; }
decode() {	# FXT -> protoc text (stdout) and facts ($2)
	"$GEN" blobs "$1" "$T/trace.pb" >"$T/blobs.txt" &&
	protoc --decode=perfetto.protos.Trace -I"$PROTO_DIR" \
		"$PROTO_DIR/perfetto_profile.proto" <"$T/trace.pb" >"$T/trace.txt" &&
	awk -f "$AWK" "$T/trace.txt" >"$2"
}

# ---- symbolize ---------------------------------------------------------
"$GEN" gen "$T/in.fxt" "$CHAIN" && "$FXTPROF" check "$T/in.fxt" >/dev/null
ok $? "the generated recording passes fxtprof check"

umask 022
"$TOOL" symbolize "$T/in.fxt" -o "$T/out.fxt" >"$T/sym.log" 2>&1
rc=$?
grep -q "wrote $T/out.fxt" "$T/sym.log" &&
	grep -q "1 of 109 frames unresolved (no mapping: 1)" "$T/sym.log"
ok $(( rc != 0 || $? != 0 )) "symbolize exits 0 and says what it wrote and what is unresolved"
sed 's/^/# /' "$T/sym.log"
[ "$(mode "$T/out.fxt")" = 600 ]
ok $? "the symbolized file is mode 0600"

"$FXTPROF" check "$T/out.fxt" >"$T/check.log" 2>&1
ok $? "fxtprof check passes on the symbolized output"

size=$(stat -c %s "$T/in.fxt")
cmp -s -n "$size" "$T/in.fxt" "$T/out.fxt"
ok $? "the input's records come first, unchanged"

decode "$T/out.fxt" "$T/facts"
rc=$?
read -r _ nblobs _ max <"$T/blobs.txt"
[ "$rc" = 0 ] && [ "$nblobs" -gt 29 ] && [ "$max" -le 32000 ]
ok $? "protoc decodes the $nblobs type-3 blobs as a Trace, none over 32000 bytes"

# The first packet clears the state and sets BOOTTIME; every other needs it.
first=$(awk '/^packet {/{n++} n==1' "$T/trace.txt")
others=$(awk '/^packet {/{n++} n>1 && /^  sequence_flags:/{print $2}' "$T/trace.txt" | sort -u)
npk=$(grep -c '^packet {' "$T/trace.txt")
nseq=$(grep -c '^  trusted_packet_sequence_id: 1$' "$T/trace.txt")
echo "$first" | grep -q 'sequence_flags: 1$' &&
	echo "$first" | grep -q 'timestamp_clock_id: 6$' &&
	[ "$others" = 2 ] && [ "$npk" = "$nseq" ]
ok $? "packet 1: CLEARED and clock 6; the rest NEEDS_INCREMENTAL_STATE, all on sequence 1"

cnt=$(grep -c '^sample 100 100 0 MODE_USER main;a;b;c$' "$T/facts")
[ "$cnt" = 20 ]
ok $? "the 20 samples in c have the callstack main;a;b;c, root first ($cnt)"

cnt=$(grep -c '^sample 100 101 1 MODE_KERNEL main;a;b;do_syscall_64\[k\];__x64_sys_getpid\[k\]$' "$T/facts")
bad=$(awk '$1 == "frame" && $3 ~ /\[k\]$/ && $4 != "/kernel"' "$T/facts" | wc -l)
grep -q '^mapping [0-9]* /kernel 0 0 0 .* none$' "$T/facts" &&
	[ "$cnt" = 5 ] && [ "$bad" = 0 ]
ok $? "kernel frames come last, named, on the /kernel mapping (no range, no build id)"

grep -q '^process 100 chain$' "$T/facts" &&
	grep -q '^thread 101 100 worker$' "$T/facts" &&
	grep -q '^process 0 swapper$' "$T/facts" &&
	grep -q '^sample 0 0 1 MODE_KERNEL default_idle\[k\]$' "$T/facts"
ok $? "processes and threads are named, idle samples belong to swapper"

start=$(printf %d 0x555555555000)
grep -q "^mapping [0-9]* $CHAIN $start [0-9]* 4096 0 20\$" "$T/facts"
ok $? "the user mapping has the binary's path, range, pgoff and its 20-byte raw build id"

dups=$(grep -o '^      str: .*' "$T/trace.txt" | sort | uniq -d | wc -l)
nmain=$(grep -c '^      str: "main"$' "$T/trace.txt")
[ "$dups" = 0 ] && [ "$nmain" = 1 ]
ok $? "every function name, path and build id is interned once"

"$TOOL" symbolize "$T/out.fxt" -o "$T/again.fxt" >"$T/again.log" 2>&1 &&
	grep -q "left out the $nblobs Perfetto blobs" "$T/again.log" &&
	cmp -s "$T/out.fxt" "$T/again.fxt"
ok $? "symbolizing a symbolized file replaces its profile: the same bytes"

"$GEN" gen-long "$T/long.fxt" &&
	"$TOOL" symbolize "$T/long.fxt" -o "$T/long.out.fxt" >/dev/null 2>&1 &&
	decode "$T/long.out.fxt" "$T/long.facts"
rc=$?
read -r _ nb _ max <"$T/blobs.txt"
frames=$(awk '$1 == "sample" { print split($6, f, ";") }' "$T/long.facts")
first=$(awk '$1 == "sample" { split($6, f, ";"); print f[1] }' "$T/long.facts")
[ "$rc" = 0 ] && [ "$nb" -ge 4 ] && [ "$max" -le 32000 ] && [ "$frames" = 200 ] &&
	case $first in long_function_199_*) true ;; *) false ;; esac
ok $? "a stack of 200 long names spreads its interned data over $nb packets <= 32000 bytes ($max)"

# ---- pprof -------------------------------------------------------------
"$TOOL" export --format pprof "$T/in.fxt" -o "$T/out.pb.gz" >"$T/pprof.log" 2>&1
rc=$?
sed 's/^/# /' "$T/pprof.log"
[ "$rc" = 0 ] && [ "$(mode "$T/out.pb.gz")" = 600 ] &&
	[ "$(head -c 2 "$T/out.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] &&
	grep -q "1 of 109 frames unresolved" "$T/pprof.log"
ok $? "export writes a gzip file, mode 0600, and says what is unresolved"

# A trace without a clock object (recorded before there was one):
# time_nanos is the input's mtime (the recorder's last write) less the
# span of the samples, duration_nanos.
touch -d @1764662400.123456789 "$T/in.fxt"
"$TOOL" export --format pprof "$T/in.fxt" -o "$T/timed.pb.gz" >/dev/null 2>&1 &&
	gzip -dc "$T/timed.pb.gz" | protoc --decode_raw >"$T/timed.txt"
rc=$?
tn=$(awk '/^9: /{print $2}' "$T/timed.txt")
dn=$(awk '/^10: /{print $2}' "$T/timed.txt")
"$TOOL" export --format pprof - -o "$T/stdin.pb.gz" <"$T/in.fxt" >/dev/null 2>&1 &&
	gzip -dc "$T/stdin.pb.gz" | protoc --decode_raw >"$T/stdin.txt"
rc2=$?
echo "# time_nanos $tn duration_nanos $dn; from stdin: $(grep -c '^9: ' "$T/stdin.txt") time_nanos"
go tool pprof -symbolize=none -raw "$T/timed.pb.gz" 2>/dev/null | grep '^Time:' | sed 's/^/# /'
[ "$rc" = 0 ] && [ "$rc2" = 0 ] && [ -n "$tn" ] && [ "${dn:-0}" -gt 0 ] &&
	[ $((tn + dn)) = 1764662400123456789 ] &&
	! grep -q '^9: ' "$T/stdin.txt" && grep -q "^10: $dn\$" "$T/stdin.txt"
ok $? "time_nanos + duration_nanos = the input's mtime; no time_nanos from stdin"

# With a clock object (boot time 1 s before the first sample = REALTIME),
# time_nanos is the first sample's wall clock, whatever the mtime, and
# from standard input too.
"$GEN" gen-clock "$T/clocked.fxt" "$CHAIN" 1764662400000000000 &&
	"$FXTPROF" check "$T/clocked.fxt" >/dev/null &&
	touch -d @1000000000 "$T/clocked.fxt" &&
	"$TOOL" export --format pprof - -o "$T/clocked.pb.gz" <"$T/clocked.fxt" >/dev/null 2>&1 &&
	gzip -dc "$T/clocked.pb.gz" | protoc --decode_raw >"$T/clocked.txt"
rc=$?
tn=$(awk '/^9: /{print $2}' "$T/clocked.txt")
echo "# time_nanos from the clock object: $tn"
[ "$rc" = 0 ] && [ "$tn" = 1764662401000000000 ]
ok $? "time_nanos is the first sample's wall clock by the clock object, from stdin too"

go tool pprof -symbolize=none -top "$T/out.pb.gz" >"$T/top.txt" 2>&1
rc=$?
sed 's/^/# /' "$T/top.txt"
toprow=$(awk '/flat%/{getline; print $1, $NF; exit}' "$T/top.txt")
[ "$rc" = 0 ] && [ "$toprow" = "20ms c" ] &&
	grep -q 'cum%' "$T/top.txt" && grep -Eq '25ms +86\.21% +main$' "$T/top.txt"
ok $? "go tool pprof -top: c on top with 20 ms of 29, main 25 ms cumulative"

go tool pprof -symbolize=none -traces "$T/out.pb.gz" >"$T/traces.txt" 2>&1
rc=$?
chain=$(awk '/^-----/{if (s != "") print s; s=""; next}
	/ms   /{s=$2; next} s != "" && NF == 1 {s=s ";" $1} END{if (s != "") print s}' \
	"$T/traces.txt" | sort | uniq -c | awk '{print $2, $1}' | grep '^c;')
[ "$rc" = 0 ] && [ "$chain" = "c;b;a;main 4" ] &&
	grep -q '__x64_sys_getpid' "$T/traces.txt" &&
	grep -q 'thread_comm:  worker' "$T/traces.txt"
ok $? "go tool pprof -traces: leaf first, c;b;a;main, with the thread labels"

bid=$(readelf -n "$CHAIN" | awk '/Build ID/{print $3}')
go tool pprof -symbolize=none -raw "$T/out.pb.gz" >"$T/raw.txt" 2>&1 &&
	grep -q "^1: 0x555555555000/0x555555556000/0x1000 $CHAIN $bid \[FN\]\[FL\]\[LN\]\$" "$T/raw.txt" &&
	grep -q '\[kernel.kallsyms\] 00112233445566778899aabbccddeeff00112233 \[FN\]$' "$T/raw.txt" &&
	grep -Eq '^ +[0-9]+: 0x[0-9a-f]+ M=1 c .*chain\.c:[0-9]+ s=0$' "$T/raw.txt"
ok $? "go tool pprof -raw: mappings with their build ids, functions, files and lines"

# ---- bad input ---------------------------------------------------------
head -c $(( size - 3 )) "$T/in.fxt" >"$T/cut.fxt"
"$TOOL" symbolize "$T/cut.fxt" -o "$T/cut.out" >"$T/cut.log" 2>&1
rc=$?
"$TOOL" export --format pprof "$T/cut.fxt" -o "$T/cut.pb.gz" >>"$T/cut.log" 2>&1
rc2=$?
sed 's/^/# /' "$T/cut.log"
[ "$rc" = 1 ] && [ "$rc2" = 1 ] && [ ! -e "$T/cut.out" ] && [ ! -e "$T/cut.pb.gz" ] &&
	[ "$(grep -c 'truncated or malformed FXT at byte' "$T/cut.log")" = 2 ]
ok $? "a truncated recording: exit 1, the offset named, no output file"

"$TOOL" symbolize "$T/missing.fxt" -o "$T/x.fxt" >"$T/usage.log" 2>&1
rc=$?
"$TOOL" export --format json "$T/in.fxt" -o "$T/x.json" >>"$T/usage.log" 2>&1
rc2=$?
"$TOOL" symbolize "$T/in.fxt" >>"$T/usage.log" 2>&1
rc3=$?
[ "$rc" = 1 ] && [ "$rc2" = 2 ] && [ "$rc3" = 2 ] &&
	grep -q "cannot read $T/missing.fxt" "$T/usage.log" &&
	grep -q "unknown format 'json'" "$T/usage.log"
ok $? "a missing input fails (1); an unknown format or no -o is a usage error (2)"

exit $failed

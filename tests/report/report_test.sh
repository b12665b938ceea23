#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# report_test.sh FXTPROF GEN_PROFILE CHAIN - `fxtprof report` and
# `fxtprof flamegraph` on recordings written by gen_profile, whose user
# frames are the real addresses of the chain program (main -> a -> b -> c,
# spinning in c) and whose kernel frames come with kernel symbol objects.
# TAP on stdout.
set -u
FXTPROF=$1 GEN=$2 CHAIN=$3
T=$(mktemp -d)
# KEEP=1 leaves the recordings and outputs for a look.
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
	[ -f "$T/out" ] && sed 's/^/# /' "$T/out" | head -40
	[ -f "$T/err" ] && sed 's/^/# err: /' "$T/err" | head -10
}
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

# The chain's stack as a sampler takes it in c, and its mappings.
"$CHAIN" > "$T/chain.out" || { echo "Bail out! chain did not run"; exit 1; }
# Leaf in c, then the return addresses into b, a and main (not libc's).
IPS=$(awk '/^frames/ { print $2, $3, $4, $5 }' "$T/chain.out")
K_SYSCALL=0xffffffff81001050 K_GETPID=0xffffffff81002010 K_IDLE=0xffffffff81003008

prologue_kernel() {
	echo "kmod 0xffffffff81000000 0xffffffff82000000 1 [kernel.kallsyms]"
	echo "ksym 0xffffffff81001000 0x100 do_syscall_64"
	echo "ksym 0xffffffff81002000 0x80 __x64_sys_getpid"
	echo "ksym 0xffffffff81003000 0x40 default_idle"
}

mappings() {	# TIME INITIAL
	awk -v t="$1" -v i="$2" '/^map/ { s++; print "mapping", s, 100, $2, $3, $4, t, i, $5 }' \
		"$T/chain.out"
}

# 26 samples: 5 as "sh" before the exec (kernel frames only), 10 user and
# 3 kernel as "chain", 2 idle on cpu 1, 4 after a rename, 2 of a second
# thread "worker" on cpu 1.
scenario() {	# with_mappings
	prologue_kernel
	echo "process 100 sh"
	echo "thread 100 100 sh"
	for i in 0 1 2 3 4; do echo "sample $((1000 + i)) 100 100 0 kernel 1 $K_SYSCALL"; done
	echo "process 100 chain"
	echo "thread 100 100 chain"
	echo "exec 2000 100 100 $CHAIN"
	[ "$1" = 1 ] && mappings 2000 0
	for i in 1 2 3 4 5 6 7 8 9 10; do echo "sample $((3000 + i)) 100 100 0 user 0 $IPS"; done
	for i in 1 2 3; do echo "sample $((3100 + i)) 100 100 0 kernel 2 $K_GETPID $K_SYSCALL $IPS"; done
	echo "sample 3200 0 0 1 idle 1 $K_IDLE"
	echo "sample 3201 0 0 1 idle 1 $K_IDLE"
	echo "thread 100 100 renamed"
	for i in 1 2 3 4; do echo "sample $((4000 + i)) 100 100 0 user 0 $IPS"; done
	echo "thread 100 101 worker"
	echo "sample 5000 100 101 1 user 0 $IPS"
	echo "sample 5001 100 101 1 user 0 $IPS"
}

scenario 1 | "$GEN" > "$T/rec.fxt" || { echo "Bail out! gen_profile failed"; exit 1; }
scenario 0 | "$GEN" > "$T/nomap.fxt" || { echo "Bail out! gen_profile failed"; exit 1; }

R() { "$FXTPROF" report "$@" > "$T/out" 2> "$T/err"; }
selected() { sed -n 's/^# .*: [0-9]* samples, \([0-9]*\) selected$/\1/p' "$T/out"; }
# The first entry line (after the header).
first_entry() { grep -v '^#' "$T/out" | grep -m1 '%'; }

R --no-children --sort sym "$T/rec.fxt"
check "report: exits 0 on a recording" '[ $? = 0 ]'
check "report: all 26 samples" '[ "$(selected)" = 26 ]'
check "report: c is on top by self (16 of 26)" \
	'first_entry | grep -q "61.54%  \[\.\] c$"'
check "report: kernel frames are [k], named from the stream's symbols" \
	'grep -q "19.23%  \[k\] do_syscall_64$" "$T/out" && grep -q "11.54%  \[k\] __x64_sys_getpid$" "$T/out"'
check "report: the header counts named frames" \
	'grep -q "^# frames: [0-9]*, [0-9]* named" "$T/out"'

R --no-children --sort sym -g caller "$T/rec.fxt"
# Under c's entry, its callers root first: main, a, b, c.
awk '/\[\.\] c$/ { on = 1; next } on && /^$/ { exit } on { print $2 }' "$T/out" > "$T/tree"
check "report -g caller: main above a above b above c" \
	'[ "$(tr "\n" " " < "$T/tree")" = "main a b c " ]'
R --no-children --sort sym -g callee "$T/rec.fxt"
awk '/\[\.\] c$/ { on = 1; next } on && /^$/ { exit } on { print $2 }' "$T/out" > "$T/tree"
check "report -g callee: c, b, a, main" \
	'[ "$(tr "\n" " " < "$T/tree")" = "c b a main " ]'

R --comm chain -g callee "$T/rec.fxt"
# With children, b's graph: the chains from b up to the root.
awk '/\[\.\] b$/ { on = 1; next } on && /^$/ { exit } on { print $2 }' "$T/out" > "$T/tree"
check "report -g callee with children: b's callers, b, a, main" \
	'[ "$(tr "\n" " " < "$T/tree")" = "b a main " ]'

R "$T/rec.fxt"
check "report: Children and Self columns, comm,dso,sym by default" \
	'grep -q "Children *Self *Command *Shared Object *Symbol" "$T/out"'
check "report: main: the 13 samples of chain as children, no self" \
	'grep -Eq "^ +50\.00% +0\.00% +chain +chain +\[\.\] main$" "$T/out"'
check "report: names at sample time: sh before exec, renamed after" \
	'grep -Eq "19\.23% +19\.23% +sh +\[kernel\.kallsyms\] +\[k\] do_syscall_64$" "$T/out" && grep -Eq "15\.38% +15\.38% +renamed +chain +\[\.\] c$" "$T/out"'
check "report: idle samples are swapper/N of their cpu" \
	'grep -Eq "7\.69% +7\.69% +swapper/1 +\[kernel\.kallsyms\] +\[k\] default_idle$" "$T/out"'
check "report: a second thread by its own name" \
	'grep -Eq "7\.69% +7\.69% +worker +chain +\[\.\] c$" "$T/out"'

R --sort pid,comm --no-children "$T/rec.fxt"
check "report --sort pid,comm" \
	'grep -Eq "^ +7\.69% +0 +swapper/1$" "$T/out" && grep -Eq "^ +50\.00% +100 +chain$" "$T/out"'
R --sort dso --no-children "$T/rec.fxt"
check "report --sort dso" \
	'grep -Eq "^ +38\.46% +\[kernel\.kallsyms\]$" "$T/out" && grep -Eq "^ +61\.54% +chain$" "$T/out"'
R --sort bogus "$T/rec.fxt"
check "report --sort bogus: usage error" '[ $? = 2 ] && grep -q "sort" "$T/err"'

R --pid 100 "$T/rec.fxt"; check "report --pid 100: 24 samples" '[ "$(selected)" = 24 ]'
R --tid 101 "$T/rec.fxt"; check "report --tid 101: 2 samples" '[ "$(selected)" = 2 ]'
R --comm renamed "$T/rec.fxt"; check "report --comm renamed: 4 samples" '[ "$(selected)" = 4 ]'
R --comm sh,worker "$T/rec.fxt"; check "report --comm sh,worker: 7 samples" '[ "$(selected)" = 7 ]'
R --cpu 1 "$T/rec.fxt"; check "report --cpu 1: 4 samples" '[ "$(selected)" = 4 ]'
R --time 0.000002,0.000003 "$T/rec.fxt"
check "report --time in seconds from the first sample: 15 samples" '[ "$(selected)" = 15 ]'
R --time 3000ns,4000ns "$T/rec.fxt"
check "report --time in absolute ns: 15 samples" '[ "$(selected)" = 15 ]'
R --time 5,1 "$T/rec.fxt"
check "report --time FROM > TO: usage error" '[ $? != 0 ] && grep -q "time" "$T/err"'

R "$T/nomap.fxt"
check "report without mappings: still reports" '[ $? = 0 ] && [ "$(selected)" = 26 ]'
check "report without mappings: says why user frames have no names" \
	'grep -q "no mapping records in this recording: user frames cannot be named" "$T/out"'
check "report without mappings: frames counted by symbolizer result" \
	'grep -q "^# frames by result: ok 13; no mapping 76;$" "$T/out"'
check "report without mappings: unresolved frames as dso+0xoffset" \
	'grep -Eq "\[\.\] \[unknown\]\+0x[0-9a-f]+$" "$T/out"'

R --summary "$T/rec.fxt"
check "report --summary: today's summary" \
	'[ $? = 0 ] && grep -q "^top processes by samples" "$T/out"'
check "report --summary: no wall clock without a clock object" \
	'! grep -q "^first event at" "$T/out"'
# Boot time 1 000 ns was 2025-12-02 08:00:00 UTC: the first event, at
# 3 500 ns, is 2.5 us later.
printf 'clock 1000 1764662400000000000\nsample 3500 100 100 0 user 0 0x1234\nsample 9000 100 100 0 user 0 0x1234\n' |
	"$GEN" > "$T/clock.fxt"
R --summary "$T/clock.fxt"
check "report --summary: the first event on the recorder's wall clock" \
	'grep -q "^first event at 2025-12-02 08:00:00.000002500 UTC (the recorder" "$T/out"'

"$FXTPROF" flamegraph --folded "$T/rec.fxt" > "$T/out" 2> "$T/err"
cat > "$T/want" <<EOW
chain;main;a;b;c 10
chain;main;a;b;c;do_syscall_64_[k];__x64_sys_getpid_[k] 3
renamed;main;a;b;c 4
sh;do_syscall_64_[k] 5
swapper/1;default_idle_[k] 2
worker;main;a;b;c 2
EOW
check "flamegraph --folded: exact lines" 'cmp -s "$T/want" "$T/out"'

# c's leaf address is in spin(), which is inlined into c.
"$FXTPROF" flamegraph --folded --inline "$T/rec.fxt" > "$T/out" 2> "$T/err"
check "flamegraph --folded --inline: the inlined function as a frame" \
	'grep -qx "chain;main;a;b;c;spin (inlined) 10" "$T/out" && grep -qx "worker;main;a;b;c;spin (inlined) 2" "$T/out"'
R --inline --no-children --sort sym "$T/rec.fxt"
check "report --inline: spin (inlined) on top by self, c below it" \
	'first_entry | grep -q "61.54%  \[\.\] spin (inlined)$" && ! grep -q "\[\.\] c$" "$T/out"'

"$FXTPROF" flamegraph "$T/rec.fxt" -o "$T/fg.svg" > "$T/out" 2> "$T/err"
check "flamegraph: writes the SVG" '[ $? = 0 ] && [ -s "$T/fg.svg" ]'
# xmllint (libxml2-utils) or python3, whichever the host has.
xml_ok() {
	if command -v xmllint > /dev/null; then
		xmllint --noout "$1"
	elif command -v python3 > /dev/null; then
		python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$1"
	else
		echo "no XML checker: install libxml2-utils" >&2; return 1
	fi
}
check "flamegraph: the SVG is well-formed XML" 'xml_ok "$T/fg.svg" 2>> "$T/err"'
# The script parses as ECMAScript (node, where installed; not a package
# setup installs, so its absence is not a failure).
sed -n '/<!\[CDATA\[/,/\]\]>/p' "$T/fg.svg" | sed '1d;$d' > "$T/fg.js"
check "flamegraph: the embedded script is valid ECMAScript" \
	'! command -v node > /dev/null || node --check "$T/fg.js" 2>> "$T/err"'
check "flamegraph: frames with titles, an embedded script, no external resource" \
	'grep -q "<title>c (13 samples, 50.00%)</title>" "$T/fg.svg" && grep -q "<title>main (" "$T/fg.svg" && grep -q "<title>do_syscall_64 \[k\] (" "$T/fg.svg" && grep -q "<title>all (26 samples" "$T/fg.svg" && grep -q "<script type=\"text/ecmascript\">" "$T/fg.svg" && ! grep -q "xlink:href\|src=" "$T/fg.svg"'
# Zoom and search, run by node on a stand-in for the DOM: zooming on c
# gives it the full width (1180 px) and hides the frames outside it;
# searching ^(a|b)$ matches 19 of 26 samples.
JS=$(dirname "$0")/svg_script.js
check "flamegraph: zoom and search work (node, where installed)" \
	'! command -v node > /dev/null || { node "$JS" "$T/fg.svg" > "$T/js.out" 2>> "$T/err" && grep -q "^zoomed c: width 1180 hidden 14 reset shown true$" "$T/js.out" && grep -q "^Matched: 73.1% 6$" "$T/js.out" && grep -q "^cleared 0$" "$T/js.out"; }'
"$FXTPROF" flamegraph --comm worker "$T/rec.fxt" -o "$T/fg2.svg" > /dev/null 2>&1
check "flamegraph: filters apply" \
	'grep -q "<title>all (2 samples" "$T/fg2.svg"'

# Partial user stacks: the samples that carry ustack_end are counted by
# reason in the header, and a recording without any says nothing.
{ prologue_kernel; echo "process 100 chain"; echo "thread 100 100 chain"
  mappings 0 1
  echo "partial 100 100 100 0 user 0 depth $IPS"
  echo "partial 101 100 100 0 user 0 depth $IPS"
  echo "partial 102 100 100 0 user 0 fault $IPS"
  echo "sample 103 100 100 0 user 0 $IPS"; } | "$GEN" > "$T/partial.fxt"
R "$T/partial.fxt"
check "report: partial user stacks counted by reason in the header" \
	'[ $? = 0 ] && [ "$(selected)" = 4 ] && grep -q "^# 3 samples with a partial user stack: depth 2; fault 1;$" "$T/out"'
R "$T/rec.fxt"
check "report: no partial-stack line without partial stacks" \
	'! grep -q "partial user stack" "$T/out"'

# Bad input: an error that says where, never a crash.
size=$(wc -c < "$T/rec.fxt")
head -c $((size - 12)) "$T/rec.fxt" > "$T/trunc.fxt"
R "$T/trunc.fxt"
check "report on a truncated file: exit 1 with the byte offset" \
	'[ $? = 1 ] && grep -q "at byte offset [0-9]*: .*ends inside a record" "$T/err"'
{ prologue_kernel; echo "raw_mapping_no_start 7"; } | "$GEN" > "$T/bad.fxt"
R "$T/bad.fxt"
check "report on a malformed mapping object: exit 1 with a sentence" \
	'[ $? = 1 ] && grep -q "at byte offset [0-9]*: mapping object 7: pid, start, end and pgoff" "$T/err"'
"$FXTPROF" flamegraph "$T/trunc.fxt" -o "$T/x.svg" > /dev/null 2> "$T/err"
check "flamegraph on a truncated file: exit 1" '[ $? = 1 ] && [ -s "$T/err" ]'

echo "1..$n"
[ "$failed" = 0 ]

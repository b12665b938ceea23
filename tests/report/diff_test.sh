#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# diff_test.sh FXTPROF GEN_PROFILE - `fxtprof diff`, `flamegraph --diff`
# and `export --diff-base` on recordings written by gen_profile: a process
# whose samples are in three functions under main, with kernel symbols
# naming them.  BASE has 1000 samples over 1 s, 20 % in f, 40 % each in g
# and h; NEW has 3000 over 1.5 s (twice the rate), 70 % in f, 15 % each in
# g and h.  So f grew by 50 points, g and h shrank by 25.  TAP on stdout.
set -u
FXTPROF=$1 GEN=$2
T=$(mktemp -d)
# KEEP=1 leaves the recordings and outputs for a look.
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
n=0 failed=0
echo "1..22"

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
	[ -f "$T/out" ] && sed 's/^/# /' "$T/out" | head -40
	[ -f "$T/err" ] && sed 's/^/# err: /' "$T/err" | head -10
}
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

K_MAIN=0xffffffff81010010 K_F=0xffffffff81011010 K_G=0xffffffff81012010
K_H=0xffffffff81013010

prologue() {
	echo "process 100 work"
	echo "thread 100 100 work"
	echo "kmod 0xffffffff81000000 0xffffffff82000000 1 [kernel.kallsyms]"
	echo "ksym 0xffffffff81010000 0x100 main_loop"
	echo "ksym 0xffffffff81011000 0x100 f"
	echo "ksym 0xffffffff81012000 0x100 g"
	echo "ksym 0xffffffff81013000 0x100 h"
}

# samples START_NS STEP_NS F G H: that many samples in each, interleaved.
samples() {
	awk -v t="$1" -v step="$2" -v f="$3" -v g="$4" -v h="$5" \
	    -v kf="$K_F" -v kg="$K_G" -v kh="$K_H" -v km="$K_MAIN" 'BEGIN {
		total = f + g + h
		for (i = 0; i < total; i++) {
			if (i % total < f) ip = kf
			else if (i % total < f + g) ip = kg
			else ip = kh
			printf "sample %.0f 100 100 0 kernel 2 %s %s\n", t + i * step, ip, km
		}
	}'
}

{ prologue; samples 1000000000 1000000 200 400 400; } | "$GEN" > "$T/base.fxt"
{ prologue; samples 1000000000 500000 2100 450 450; } | "$GEN" > "$T/new.fxt"
{ prologue; echo "lost 1000000001 17"; samples 1000000000 1000000 200 400 400; } |
	"$GEN" > "$T/lossy.fxt"
prologue | "$GEN" > "$T/empty.fxt"

D() { "$FXTPROF" diff "$@" > "$T/out" 2> "$T/err"; }

# The listing's row of a function: its fields after the leading blanks.
row() { awk -v s="$1" '$NF == s && $1 !~ /^#/' "$T/out"; }

D "$T/base.fxt" "$T/new.fxt"; rc=$?
check "diff: exit 0" '[ $rc = 0 ]'
check "diff: f ranks first, +50 points of self" \
	'[ "$(awk "!/^#/ && NF { print \$NF; exit }" "$T/out")" = f ] && row f | grep -q "^ *+50.00% *20.00% *70.00%"'
check "diff: g and h shrank by 25 points" \
	'row g | grep -q "^ *-25.00% *40.00% *15.00%" && row h | grep -q "^ *-25.00% *40.00% *15.00%"'
check "diff: main_loop's self did not change, so it is not listed" '[ -z "$(row main_loop)" ]'
check "diff: the header gives both lengths and rates" \
	'grep -q "BASE: 1000 samples selected, of 1000 over 1.00 s (1000 a second)" "$T/out" && grep -q "NEW: 3000 samples selected, of 3000 over 1.50 s (2000 a second)" "$T/out"'
check "diff: the header says how they are compared" \
	'grep -q "^# Compared by share" "$T/out" && grep -q "^# Delta is NEW" "$T/out"'

D --children "$T/base.fxt" "$T/new.fxt"
check "diff --children: f first; main_loop's children did not change" \
	'[ "$(awk "!/^#/ && NF { print \$NF; exit }" "$T/out")" = f ] && [ -z "$(row main_loop)" ]'

D -n 1 "$T/base.fxt" "$T/new.fxt"
check "diff -n 1: one function" '[ "$(grep -vc "^#" "$T/out")" = 1 ]'

D "$T/base.fxt" "$T/base.fxt"; rc=$?
check "diff of a recording with itself: no change, exit 0" \
	'[ $rc = 0 ] && grep -q "^# no function.s share changed" "$T/out" && [ "$(grep -vc "^#" "$T/out")" = 0 ]'

D --folded "$T/base.fxt" "$T/new.fxt"
check "diff --folded: BASE scaled to NEW's 3000 samples" \
	'grep -qx "work;main_loop_\[k\];f_\[k\] 600 2100" "$T/out" && grep -qx "work;main_loop_\[k\];g_\[k\] 1200 450" "$T/out" && [ "$(wc -l < "$T/out")" = 3 ]'

D "$T/empty.fxt" "$T/new.fxt"; rc=$?
check "diff: an empty BASE is refused with a sentence, exit 1" \
	'[ $rc = 1 ] && grep -q "empty.fxt: it holds no samples: there is nothing to compare" "$T/err"'
D --pid 999 "$T/base.fxt" "$T/new.fxt"; rc=$?
check "diff: nothing selected is said so, exit 1" \
	'[ $rc = 1 ] && grep -q "the options select no sample" "$T/err"'
D "$T/base.fxt"; rc=$?
check "diff: one file is a usage error, exit 2" '[ $rc = 2 ]'

D "$T/lossy.fxt" "$T/new.fxt"; rc=$?
check "diff: BASE's losses are in its header" \
	'[ $rc = 0 ] && sed -n "/^# BASE/,/^# NEW/p" "$T/out" | grep -q "the kernel lost 17 records"'

# The differential flame graph: NEW's frames, f red, g and h blue.
"$FXTPROF" flamegraph --diff "$T/base.fxt" "$T/new.fxt" -o "$T/fg.svg" > "$T/out" 2> "$T/err"; rc=$?
fill() { grep -o "<title>$1 \[k\] ([^<]*</title><rect[^>]*fill=\"[^\"]*\"" "$T/fg.svg" | sed 's/.*fill="//; s/"$//'; }
title() { grep -o "<title>$1 \[k\] ([^<]*</title>" "$T/fg.svg"; }
check "flamegraph --diff: exit 0, an SVG" '[ $rc = 0 ] && grep -q "^<svg" "$T/fg.svg"'
check "flamegraph --diff: f is red at full scale, g and h blue" \
	'[ "$(fill f)" = "rgb(255,15,15)" ] && fill g | grep -q "^rgb(\([0-9]*\),\1,255)$" && fill h | grep -q "^rgb(\([0-9]*\),\1,255)$"'
check "flamegraph --diff: main_loop did not change: grey" '[ "$(fill main_loop)" = "rgb(235,235,235)" ]'
check "flamegraph --diff: titles give both shares and the change" \
	'title f | grep -q "(2100 samples, 70.00%; BASE 20.00%, +50.00 points)"'
"$FXTPROF" flamegraph --diff "$T/base.fxt" --folded "$T/new.fxt" > "$T/out" 2> "$T/err"
check "flamegraph --diff --folded: the same lines as diff --folded" \
	'grep -qx "work;main_loop_\[k\];f_\[k\] 600 2100" "$T/out"'
"$FXTPROF" flamegraph --diff "$T/empty.fxt" "$T/new.fxt" -o "$T/fg2.svg" > "$T/out" 2> "$T/err"; rc=$?
check "flamegraph --diff: an empty BASE is refused, exit 1" \
	'[ $rc = 1 ] && grep -q "holds no samples" "$T/err"'

# pprof: go tool pprof reads the differential profile; totals are NEW - BASE.
"$FXTPROF" export --format pprof --diff-base "$T/base.fxt" "$T/new.fxt" -o "$T/d.pb.gz" > "$T/out" 2> "$T/err"; rc=$?
check "export --diff-base: exit 0, says how BASE was scaled" \
	'[ $rc = 0 ] && grep -q "1000 samples, negated and scaled by 3.0000" "$T/out"'
if command -v go > /dev/null 2>&1; then
	HOME=$T GOCACHE=$T/gocache go tool pprof -symbolize=none -sample_index=samples -top "$T/d.pb.gz" > "$T/out" 2> "$T/err"
	# f: 2100 - 600 = 1500; g and h: 450 - 1200 = -750 each.
	check "export --diff-base: go tool pprof -top gives f +1500, g and h -750" \
		'grep -q "^ *1500 .* f$" "$T/out" && grep -q "^ *-750 .* g$" "$T/out" && grep -q "^ *-750 .* h$" "$T/out"'
else
	echo "ok $((n + 1)) - # SKIP go is not installed"; n=$((n + 1))
fi

[ "$n" = 22 ] || echo "# ran $n of 22"
[ "$failed" = 0 ]

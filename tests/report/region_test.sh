#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# region_test.sh FXTPROF GEN_PROFILE - `fxtprof report --region/--kernel/
# --section` and `--by-region` on a recording written by gen_profile with
# application annotations (Documentation/fxt-mapping.md) on two threads:
# nested regions, a Kokkos kernel inside them, overlapping sections, a
# region that ended before the recording began (an end without a begin)
# and one still open when it stopped; and `export --region` for pprof.
# Every sample's frame is the kernel symbol do_work, so the counts are
# the regions'.  TAP on stdout.
set -u
FXTPROF=$1 GEN=$2
T=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
	[ -f "$T/out" ] && sed 's/^/# /' "$T/out" | head -40
	[ -f "$T/err" ] && sed 's/^/# err: /' "$T/err" | head -10
}
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

W=0xffffffff81001010
KERNEL='Kokkos::parallel_for+axpy<double,+Host>'
s() { for t in "$@"; do echo "sample $t $P $TID 0 kernel 1 $W"; done; }

# 26 samples.  Thread 200 "app" (17): 3 before anything, "setup" ending
# at 50 with no begin; solve [100,700) holding step [200,400) (with the
# kernel [300,350) inside) and step [500,600); sections io [800,900) and
# checkpoint [850,950) overlapping; finish from 1000, never ended.
# Thread 201 "worker" (8), written after thread 200 as a merge of rings
# would: solve [150,250), a kernel end with no kernel open at 170,
# step [300,330), and "empty[0]" [1030,1031) that no sample falls in.
# One idle sample.
scenario() {
	echo "ksym 0xffffffff81001000 0x100 do_work"
	echo "kmod 0xffffffff81000000 0xffffffff82000000 1 [kernel.kallsyms]"
	echo "process 200 app"
	echo "thread 200 200 app"
	echo "thread 200 201 worker"
	P=200 TID=200
	s 10 20 40
	echo "dend 50 200 200 region setup"
	echo "dbegin 100 200 200 region solve"
	s 110 120
	echo "dbegin 200 200 200 region step"
	s 210 220 230
	echo "dbegin 300 200 200 kernel $KERNEL 7"
	s 310 320
	echo "dend 350 200 200 kernel $KERNEL 7"
	echo "dend 400 200 200 region step"
	s 410
	echo "dbegin 500 200 200 region step"
	s 510
	echo "dend 600 200 200 region step"
	echo "dend 700 200 200 region solve"
	s 710
	echo "abegin 800 200 200 section io 1"
	echo "abegin 850 200 200 section checkpoint 2"
	s 860
	echo "aend 900 200 200 section io 1"
	s 910
	echo "aend 950 200 200 section checkpoint 2"
	echo "dbegin 1000 200 200 region finish"
	s 1010
	echo "instant 1015 200 200 event frame"
	s 1020
	P=200 TID=201
	s 105
	echo "dbegin 150 200 201 region solve"
	s 160
	echo "dend 170 200 201 kernel $KERNEL 9"
	s 170 180 190
	echo "dend 250 200 201 region solve"
	s 260
	echo "dbegin 300 200 201 region step"
	s 305 315
	echo "dend 330 200 201 region step"
	echo "dbegin 1030 200 201 region empty[0]"
	echo "dend 1031 200 201 region empty[0]"
	echo "sample 120 0 0 1 idle 1 $W"
}

scenario | "$GEN" > "$T/rec.fxt" || { echo "Bail out! gen_profile failed"; exit 1; }

R() { "$FXTPROF" report "$@" > "$T/out" 2> "$T/err"; }
selected() { sed -n 's/^# .*: [0-9]* samples, \([0-9]*\) selected$/\1/p' "$T/out"; }
kept() { grep '^# --' "$T/out"; }

R "$T/rec.fxt"
check "report: all 26 samples without a filter" '[ "$(selected)" = 26 ]'
check "report: the header counts the annotations, the end without a begin and the open region" \
	'grep -qx "# annotations: regions 7, kernels 1, sections 2, events 1; ends without a begin (ignored) 2; open at the end (to the end) 1" "$T/out"'

R --region solve "$T/rec.fxt"
check "--region solve: exit 0" '[ $? = 0 ]'
check "--region solve: 13 samples, at every depth, on both threads" '[ "$(selected)" = 13 ]'
check "--region solve: the header says what was kept and how many regions matched" \
	'[ "$(kept)" = "# --region '"'"'solve'"'"': 13 of 26 samples kept, in 2 matching intervals" ]'

R --region step "$T/rec.fxt"
check "--region step: 8 samples in 3 intervals (nested, and on the worker)" \
	'[ "$(selected)" = 8 ] && kept | grep -q "in 3 matching intervals"'

R --region 'st*' "$T/rec.fxt"
check "--region 'st*' is a glob: step only" '[ "$(selected)" = 8 ]'

R --region 's*' "$T/rec.fxt"
check "--region 's*': solve or step, a sample counted once: 15" '[ "$(selected)" = 15 ]'

R --region solve --region finish "$T/rec.fxt"
check "--region twice: either (13 + 2)" '[ "$(selected)" = 15 ]'

R --region finish "$T/rec.fxt"
check "--region finish: open at the end, it lasts to the end (2)" '[ "$(selected)" = 2 ]'

R --region solve --tid 201 "$T/rec.fxt"
check "--region with --tid: 4 of the worker's 8" \
	'[ "$(selected)" = 4 ] && kept | grep -q ": 4 of 8 samples kept"'

R --kernel '*axpy*' "$T/rec.fxt"
check "--kernel '*axpy*': the 2 samples in the kernel" '[ "$(selected)" = 2 ]'

R --kernel 'Kokkos::parallel_for axpy<double, Host>' "$T/rec.fxt"
check "--kernel: a whole name with a comma and spaces" '[ "$(selected)" = 2 ]'

R --section io "$T/rec.fxt"
check "--section io: 1" '[ "$(selected)" = 1 ]'

R --section checkpoint "$T/rec.fxt"
check "--section checkpoint: 2 (it overlaps io)" '[ "$(selected)" = 2 ]'

R --region 'empty[0]' "$T/rec.fxt"
check "--region naming, glob characters and all, an interval without samples: exit 0, 0 kept" \
	'[ $? = 0 ] && [ "$(selected)" = 0 ] && kept | grep -q ": 0 of 26 samples kept, in 1 matching"'

R --region setup "$T/rec.fxt"
check "--region naming no region: exit 1" '[ $? = 1 ]'
check "--region naming no region: says so and lists the names there are" \
	'grep -q "no region matches '"'"'setup'"'"'; its regions: '"'"'solve'"'"' '"'"'step'"'"' '"'"'finish'"'"' '"'"'empty\[0\]'"'"'" "$T/err" && [ ! -s "$T/out" ]'

R --section nosuch "$T/rec.fxt"
check "--section naming no section: exit 1, names the sections" \
	'[ $? = 1 ] && grep -q "its sections: '"'"'io'"'"' '"'"'checkpoint'"'"'" "$T/err"'

R --region "$T/rec.fxt"
check "--region without a value: usage error (2)" '[ $? = 2 ]'

R --by-region --sort sym "$T/rec.fxt"
check "report --by-region: a region is an entry with its children" \
	'grep -q "50.00%      0.00%  \[\.\] \[region\] solve$" "$T/out"'

"$FXTPROF" flamegraph --folded --by-region "$T/rec.fxt" > "$T/out" 2> "$T/err"
check "flamegraph --folded --by-region: exit 0" '[ $? = 0 ]'
cat > "$T/want" <<'EOF'
app;[region] finish;do_work_[k] 2
app;[region] solve;[region] step;[kernel] Kokkos::parallel_for axpy<double, Host>;do_work_[k] 2
app;[region] solve;[region] step;do_work_[k] 4
app;[region] solve;do_work_[k] 3
app;do_work_[k] 6
swapper/1;do_work_[k] 1
worker;[region] solve;do_work_[k] 4
worker;[region] step;do_work_[k] 2
worker;do_work_[k] 2
EOF
check "flamegraph --folded --by-region: the region stacks are the root frames" \
	'diff "$T/want" "$T/out" > "$T/diff"'

"$FXTPROF" flamegraph --folded --by-region --region step "$T/rec.fxt" > "$T/out" 2> "$T/err"
check "flamegraph --region step --by-region: only step's stacks (8)" \
	'[ "$(awk "{ n += \$NF } END { print n }" "$T/out")" = 8 ] && ! grep -q "finish" "$T/out"'

"$FXTPROF" flamegraph --by-region "$T/rec.fxt" -o "$T/g.svg" > "$T/out" 2> "$T/err"
check "flamegraph --by-region: the SVG has the region frames, per thread name" \
	'[ $? = 0 ] && grep -q "<title>\[region\] solve (9 samples" "$T/g.svg" && grep -q "<title>\[region\] solve (4 samples" "$T/g.svg" && grep -q "<title>\[kernel\] Kokkos::parallel_for axpy&lt;double, Host&gt; (2 samples" "$T/g.svg"'

"$FXTPROF" flamegraph --folded "$T/rec.fxt" > "$T/out" 2> "$T/err"
check "flamegraph --folded without --by-region: no region frames" \
	'! grep -q "region" "$T/out" && grep -qx "app;do_work_\[k\] 17" "$T/out"'

X() { "$FXTPROF" "$@" > "$T/out" 2> "$T/err"; }
X export --format pprof --region solve "$T/rec.fxt" -o "$T/solve.pb.gz"
check "export --region solve: a pprof of the 13 samples, said so" \
	'[ $? = 0 ] && grep -q ": 13 samples, " "$T/out" && grep -qx "fxtprof: --region '"'"'solve'"'"': 13 of 26 samples kept, in 2 matching intervals" "$T/out" && [ -s "$T/solve.pb.gz" ]'

X export --format pprof --region nosuch "$T/rec.fxt" -o "$T/none.pb.gz"
check "export --region naming no region: exit 1, nothing written" \
	'[ $? = 1 ] && grep -q "no region matches" "$T/err" && [ ! -e "$T/none.pb.gz" ]'

X symbolize --region solve "$T/rec.fxt" -o "$T/sym.fxt"
check "symbolize --region: a usage error (it copies every record)" \
	'[ $? = 2 ] && [ ! -e "$T/sym.fxt" ]'

echo "1..$n"
[ "$failed" = 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_push.sh B - `fxtprof receive --push` against capture_server.py, a
# stand-in for Grafana Pyroscope's ingest API on loopback: recordings of
# tests/export/chain written by push_testgen (4 s at 100 Hz, two
# processes, a clock object naming the machine) go in through `fxtprof
# send`, and come out as requests whose URLs the server checks and whose
# pprof bodies `go tool pprof -raw` reads.  Covers: intervals that chain
# with no gap and no overlap, a backend that answers 500 then 200, one
# that never answers (dropped and counted, a second stream received
# meanwhile), one that refuses, and a restart of receive.  B is
# build/x86_64.  TAP.
set -u
B=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/scripts/tap.sh"
. "$SRC/tests/scripts/wait.sh"
T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
FXTPROF=$B/bin/fxtprof
GEN=$B/tests/push/push_testgen
CHAIN=$B/tests/export/chain
SERVER=$SRC/tests/push/capture_server.py
export HOME=$T/home GOCACHE=$T/gocache GOPATH=$T/gopath GOTOOLCHAIN=local
mkdir -p "$HOME"
# Wall clock of the first sample: intervals of 1 s from 1700000000.
WALL1=1700000000250000000
WALL2=1700000010250000000
echo "1..24"

# start_server NAME MODE: a capture server in $T/NAME; $PORT is its port.
start_server() {
	mkdir -p "$T/$1"
	/usr/bin/python3 "$SERVER" "$T/$1" "$2" &
	PIDS+=($!)
	wait_file "$T/$1/port" $! || { echo "# $1: no port" >&2; return 1; }
	PORT=$(cat "$T/$1/port")
}

# start_receive NAME ARGS...: receive into $T/NAME.out, its output in
# $T/NAME.log; $ADDR is where it listens, $RPID its pid.
start_receive() {
	local name=$1
	shift
	"$FXTPROF" receive tcp://127.0.0.1:0 -o "$T/$name.out" "$@" \
		>"$T/$name.log" 2>&1 &
	RPID=$!
	PIDS+=($RPID)
	wait_line "$T/$name.log" '^listening on ' $RPID
	ADDR=$(sed -n 's/^listening on //p' "$T/$name.log")
	[ -n "$ADDR" ]
}

# raw FILE: go tool pprof -raw's samples, one "count: frames" per line.
raw() {
	go tool pprof -raw "$1" 2>/dev/null | awk '
		/^Samples:/ { s = 1; next }
		/^Locations/ { s = 0; l = 1; next }
		/^Mappings/ { l = 0 }
		s && /^ +[0-9]+ +[0-9]+:/ { n = $1; sub(/^[^:]*: /, ""); st[++k] = n " " $0 }
		l && /^ +[0-9]+: / { id = $1; sub(":", "", id); fn[id] = $4 }
		END { for (i = 1; i <= k; i++) { split(st[i], f, " "); line = f[1] ":";
		      for (j = 2; j in f; j++) line = line " " fn[f[j]]; print line } }'
}

# check_chain LOG FIRST LAST: per process, the 200s' intervals sorted by
# from: each starts where the one before ended, FIRST to LAST.
check_chain() {
	awk -F'\t' -v first="$2" -v last="$3" '
		$2 == 200 { match($3, /process=[^,}]*/); p = substr($3, RSTART, RLENGTH);
			    from[p, $4] = $5; procs[p] = 1 }
		END { bad = 0; np = 0
		      for (p in procs) { np++; t = first
			while ((p, t) in from) t = from[p, t]
			if (t != last) { print "# " p " stops at " t; bad = 1 } }
		      exit bad || np != 2 }' "$1"
}

"$GEN" "$T/rec1.fxt" "$CHAIN" 4 $WALL1 &&
	"$GEN" "$T/rec2.fxt" "$CHAIN" 4 $WALL2 &&
	"$FXTPROF" check "$T/rec1.fxt" >/dev/null
ok $? "push_testgen's recordings (the clock object names the machine) pass fxtprof check"
SIZE=$(stat -c %s "$T/rec1.fxt")

# ---- a backend that takes everything --------------------------------
start_server ok ok
OKPORT=$PORT
start_receive a -n 1 --push pyroscope+http://127.0.0.1:$PORT \
	--push-interval 1 --push-labels env=test,rack=r2
"$FXTPROF" send "$T/rec1.fxt" "$ADDR" >/dev/null 2>&1
wait $RPID
rc=$?
grep -q "^push: 5 intervals pushed, 0 dropped, 0 refused; 10 requests" "$T/a.log"
ok $(( rc != 0 || $? != 0 )) "receive --push exits 0: 5 intervals pushed, as 10 requests (2 processes)"
sed 's/^/# /' "$T/a.log"

[ "$(grep -c $'\t200\t' "$T/ok/log")" = 10 ] && ! grep -q INVALID "$T/ok/log"
ok $? "the server took 10 requests that follow the ingest API (method, path, parameters, labels)"

! awk -F'\t' '$3 !~ /^fxtprof\.cpu\{arch=aarch64,host=board1,kernel_release=6\.1\.0-push,process=(chain|other),env=test,rack=r2\}$/' \
	"$T/ok/log" | grep -q .
ok $? "each series is labelled with the board's host, kernel release, arch, its process and --push-labels"

check_chain "$T/ok/log" 1700000000 1700000005
ok $? "each process's intervals chain from 1700000000 to 1700000005 with no gap and no overlap"

! awk -F'\t' '$6 != 100' "$T/ok/log" | grep -q .
ok $? "sampleRate is the recording's 100 Hz"

nraw=0
: >"$T/a.raw"
for f in "$T"/ok/*.pb.gz; do
	raw "$f" >"$T/one.raw" && [ -s "$T/one.raw" ] && nraw=$((nraw + 1))
	cat "$T/one.raw" >>"$T/a.raw"
done
[ $nraw = 10 ]
ok $? "go tool pprof -raw reads every body"

# chain: 400 samples in c <- b <- a <- main; other: 400 in do_syscall_64.
[ "$(awk -F: '$2 == " c b a main" { n += $1 } END { print n }' "$T/a.raw")" = 400 ] &&
	[ "$(awk -F: '$2 == " do_syscall_64" { n += $1 } END { print n }' "$T/a.raw")" = 400 ] &&
	[ "$(awk -F: '{ n += $1 } END { print n }' "$T/a.raw")" = 800 ]
ok $? "the profiles hold every sample once, named on the host: c b a main (chain), do_syscall_64 (other)"
sed 's/^/# /' "$T/a.raw" | sort | uniq -c | head -5

# ---- a backend that fails once --------------------------------------
start_server fail fail:1
start_receive b -n 1 --push pyroscope+http://127.0.0.1:$PORT --push-interval 1
"$FXTPROF" send "$T/rec1.fxt" "$ADDR" >/dev/null 2>&1
wait $RPID
rc=$?
grep -q "^push: 5 intervals pushed, 0 dropped, 0 refused; 10 requests, [0-9]* bytes, 1 retries (last HTTP 500)" "$T/b.log"
ok $(( rc != 0 || $? != 0 )) "500 then 200: retried, everything pushed, exit 0"
sed 's/^/# /' "$T/b.log"

awk -F'\t' 'NR == 1 { s1 = $2; k1 = $3 $4 } NR == 2 { s2 = $2; k2 = $3 $4 }
	END { exit !(s1 == 500 && s2 == 200 && k1 == k2 && NR == 11) }' "$T/fail/log"
ok $? "the request answered 500 is sent again, then the rest (11 requests)"

# ---- a backend that never answers -----------------------------------
start_server hang hang
start_receive c -n 2 --push pyroscope+http://127.0.0.1:$PORT \
	--push-interval 1 --push-queue 1 --push-timeout 2
"$FXTPROF" send "$T/rec1.fxt" "$ADDR" >/dev/null 2>&1
rc1=$?
timeout 120 "$FXTPROF" send "$T/rec2.fxt" "$ADDR" >"$T/send2.log" 2>&1
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q "confirmed by the receiver" "$T/send2.log"
ok $? "while pushes hang, receive still takes a second stream and confirms it"

wait $RPID
rc=$?
grep -q "^push: 0 intervals pushed, 10 dropped, 0 refused" "$T/c.log"
ok $(( rc != 1 || $? != 0 )) "an absent backend: all 10 intervals dropped past the queue's cap and the timeout, counted, exit 1"
sed 's/^/# /' "$T/c.log"

whole=0
for f in "$T"/c.out/*.fxt; do
	[ "$(stat -c %s "$f")" = "$SIZE" ] && whole=$((whole + 1))
done
[ $whole = 2 ]
ok $? "both streams are on disk whole"

# ---- a restart: a new receive, the same backend ---------------------
start_receive d -n 1 --push pyroscope+http://127.0.0.1:$OKPORT \
	--push-interval 1 --push-labels env=test,rack=r2
"$FXTPROF" send "$T/rec2.fxt" "$ADDR" >/dev/null 2>&1
wait $RPID
rc=$?
grep -q "^push: 5 intervals pushed, 0 dropped, 0 refused" "$T/d.log"
ok $(( rc != 0 || $? != 0 )) "a new receive pushes the next stream"

tail -n +11 "$T/ok/log" >"$T/ok2.log"
[ "$(grep -c $'\t200\t' "$T/ok2.log")" = 10 ] && ! grep -q INVALID "$T/ok2.log" &&
	check_chain "$T/ok2.log" 1700000010 1700000015
ok $? "its intervals, 1700000010 to 1700000015, reach the same backend and chain"

# ---- a backend that refuses -----------------------------------------
start_server refuse refuse
start_receive e -n 1 --push pyroscope+http://127.0.0.1:$PORT --push-interval 1
"$FXTPROF" send "$T/rec1.fxt" "$ADDR" >/dev/null 2>&1
wait $RPID
rc=$?
grep -q "^push: 0 intervals pushed, 0 dropped, 5 refused (HTTP 400)" "$T/e.log"
ok $(( rc != 1 || $? != 0 )) "a 4xx is not retried: 5 refused (HTTP 400), exit 1"
sed 's/^/# /' "$T/e.log"

[ "$(wc -l <"$T/refuse/log")" = 5 ]
ok $? "each refused interval was sent once"

# ---- record --push on this host, with off-CPU waits -------------------
# The bpf source, as tests/bpf/run_*.sh record (root, this host's kernel):
# a sleeper's waits come out as APP.off_cpu series.
if [ "$(id -u)" != 0 ]; then
	echo "ok $((n + 1)) # SKIP record --push needs root for the bpf source"
	echo "ok $((n + 2)) # SKIP record --off-cpu needs root"
	echo "ok $((n + 3)) # SKIP the cgroup label needs a recording"
	n=$((n + 3))
else
	start_server rec ok
	( while :; do sleep 0.05; done ) &
	SLEEPER=$!
	PIDS+=($SLEEPER)
	"$FXTPROF" record --source bpf --off-cpu -F 99 -d 3 -o "$T/host.fxt" \
		--push pyroscope+http://127.0.0.1:$PORT --push-interval 1 \
		--push-app board >"$T/f.log" 2>&1
	rc=$?
	kill $SLEEPER 2>/dev/null
	grep -q "^push: [1-9][0-9]* intervals pushed, 0 dropped, 0 refused" "$T/f.log" &&
		! grep -q INVALID "$T/rec/log" &&
		grep -q "board\.cpu{arch=$(uname -m),host=$(uname -n),kernel_release=$(uname -r),process=" "$T/rec/log"
	ok $(( rc != 0 || $? != 0 )) "record --push: this host's recording pushed as it is written, labelled with this machine's uname"
	grep "^push:" "$T/f.log" | sed 's/^/# /'

	f=$(awk -F'\t' '$2 == 200 && $3 ~ /^board\.off_cpu\{.*process=sleep[,}]/ { print $1; exit }' "$T/rec/log")
	[ -n "$f" ] && go tool pprof -raw "$T/rec/$f.pb.gz" 2>/dev/null |
		grep -q "^waits/count off-cpu/nanoseconds"
	ok $? "record --off-cpu: the sleeper's waits are an APP.off_cpu series of off-cpu nanoseconds"

	# The recorder reads each process's cgroup (the 0:: line): the
	# sleeper's series carries it, its ',{}=' made '_' as every value's.
	cg=$(sed -n 's/^0:://p' /proc/self/cgroup | tr ',{}=' '____')
	[ -n "$cg" ] && grep -qF "process=sleep,cgroup=$cg}" "$T/rec/log"
	ok $? "a process's cgroup is a label of its series (cgroup=$cg)"
fi

# ---- bad options ----------------------------------------------------
"$FXTPROF" receive tcp://127.0.0.1:0 -o "$T/x" --push http://127.0.0.1:1 \
	>"$T/x.log" 2>&1
rc=$?
grep -q "want pyroscope+http://HOST:PORT" "$T/x.log"
ok $(( rc != 2 || $? != 0 )) "--push without pyroscope+http:// is refused with a sentence, exit 2"

"$FXTPROF" receive tcp://127.0.0.1:0 -o "$T/x" --archive \
	--push pyroscope+http://127.0.0.1:1 >"$T/x.log" 2>&1
rc=$?
grep -q "does not take --archive" "$T/x.log"
ok $(( rc != 2 || $? != 0 )) "--push with --archive is refused, exit 2"

"$FXTPROF" receive tcp://127.0.0.1:0 -o "$T/x" --push-labels 'a b=1' \
	--push pyroscope+http://127.0.0.1:1 >"$T/x.log" 2>&1
rc=$?
grep -q "push-labels" "$T/x.log"
ok $(( rc != 2 || $? != 0 )) "a label name Pyroscope would refuse is refused here, exit 2"

"$FXTPROF" receive --help >"$T/help.log" 2>&1
for o in --push --push-interval --push-app --push-labels --push-queue \
	 --push-timeout --symfs --debug-dir; do
	grep -q -- "$o " "$T/help.log" || { echo "# no $o"; false; } || break
done
ok $? "receive --help names the push options"

exit $failed

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# soak.vm.sh - the in-VM half of scripts/soak.sh, run by tests/vm/init.sh
# in command mode (after insmod).  For SECS seconds:
#
#  - /tests/fxt-soak-forker forks and reaps RATE processes a second and
#    renames THREADS threads ten times a second (tests/soak/forker.c);
#  - recorder "stream" (the module) streams over TCP, --reconnect, to a
#    `fxtprof receive` on loopback that is restarted every RESTART s;
#  - recorder "flight" (the bpf source) keeps a flight window of 60 s
#    bounded to 4 MiB, as a board would (its memory is then the bound's,
#    whatever the workload's rate), and is sent SIGUSR2 every TRIGGER s;
#    each snapshot is checked (`fxtprof check`) and then sent to the
#    receive too (`fxtprof send`), so that streams come and go there.
#
# Every SAMPLE seconds it prints, for each of stream, flight and receive:
#   SOAK-SAMPLE t=S who=NAME pid=P rss_kb=K fds=N cpu_ticks=T
# and sends the recorders SIGUSR1, so that their stderr (SOAK-LOG, at the
# end) holds their memory account over time.  As each snapshot is taken,
# and as each receive stops (its files are then removed: the guest's /tmp
# is memory):
#   SOAK-SNAPSHOT file=F records=N has=M check=RC  (N: the recorder's word,
#                                    M and RC: fxtprof check's)
#   SOAK-SENT file=F rc=RC                      (that snapshot, sent)
#   SOAK-RECEIVED file=F bytes=B records=N      (each stream it wrote)
#   SOAK-RC who=receive.N rc=N
# and at the end:
#   SOAK-STREAM delivered_bytes=B delivered_records=N
#   SOAK-RC who=NAME rc=N                       (forker, stream, flight)
#   SOAK-LOG who=NAME ...                        (their stderr, for the log)
# Nothing here passes or fails: scripts/soak.sh judges.
# /soak/soak.conf sets SECS SAMPLE TRIGGER RESTART RATE THREADS FREQ.

. /soak/soak.conf
F=$(command -v fxtprof || echo /tests/fxtprof)
W=/tests/fxt-soak-forker
PORT=4807

die() { echo "soak: $*"; exit 1; }

[ "$FXTPROF_LOADED" = 1 ] || die "fxtprof.ko is not loaded"
[ -x "$W" ] || die "no $W"
mkdir -p /tmp/recv /tmp/snap /tmp/soak

# Wait for FILE to exist, as long as process PID lives.
wait_ready() {
	while [ ! -s "$1" ]; do
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
}

nrecv=0
start_receive() {
	nrecv=$((nrecv + 1))
	"$F" receive "tcp://127.0.0.1:$PORT" -o /tmp/recv \
		> "/tmp/soak/receive.$nrecv.out" 2>&1 &
	rpid=$!
	# Its first line says it listens.
	while ! grep -q '^listening' "/tmp/soak/receive.$nrecv.out" 2>/dev/null; do
		kill -0 $rpid 2>/dev/null || die "receive did not start: $(cat "/tmp/soak/receive.$nrecv.out")"
		sleep 0.1
	done
}

# Stop the receive; say what it wrote, and free the disk (a tmpfs in
# the guest's memory) for the next.
stop_receive() {
	kill -INT $rpid
	wait $rpid
	echo "SOAK-RC who=receive.$nrecv rc=$?"
	sed -n 's/^stream [^ ]*: \([^:]*\): \([0-9]*\) bytes, \([0-9]*\) records.*/SOAK-RECEIVED file=\1 bytes=\2 records=\3/p' \
		"/tmp/soak/receive.$nrecv.out"
	rm -f /tmp/recv/*
}

# Snapshots the flight recorder has finished (it says so once the file is
# synced): each is checked, then sent to the receive as a stream of its
# own, then removed.
sent=0
take_snapshots() {
	done_snaps=$(grep -c '^fxtprof: snapshot [^ ]*: trigger ' /tmp/soak/flight.err)
	while [ $sent -lt "$done_snaps" ]; do
		sent=$((sent + 1))
		set -- $(grep '^fxtprof: snapshot [^ ]*: trigger ' /tmp/soak/flight.err |
			 sed -n "${sent}p" |
			 sed 's/^fxtprof: snapshot \([^:]*\):.* \([0-9]*\) records.*/\1 \2/')
		rc=0
		said=$("$F" check "$1" 2>&1) || rc=$?
		has=$(echo "$said" | sed -n 's/^ok: \([0-9]*\) records.*/\1/p')
		echo "SOAK-SNAPSHOT file=$1 records=$2 has=${has:-0} check=$rc"
		rc=0
		"$F" send "$1" "tcp://127.0.0.1:$PORT" > /dev/null 2>&1 || rc=$?
		echo "SOAK-SENT file=$1 rc=$rc"
		rm -f "$1"
	done
}

sample() {	# sample T NAME PID
	[ -d "/proc/$3" ] || { echo "SOAK-SAMPLE t=$1 who=$2 pid=$3 gone"; return; }
	# smaps_rollup walks the page tables: 6.1's VmRSS lags behind them
	# (per-thread counters, synced every 64 faults).
	rss=$(awk '/^Rss:/ { print $2 }' "/proc/$3/smaps_rollup")
	fds=$(ls "/proc/$3/fd" | wc -l)
	ticks=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$3/stat")
	echo "SOAK-SAMPLE t=$1 who=$2 pid=$3 rss_kb=$rss fds=$fds cpu_ticks=$ticks"
}

echo "SOAK-INFO kernel=$(uname -r) arch=$(uname -m) cpus=$(grep -c ^processor /proc/cpuinfo)" \
	"secs=$SECS sample=$SAMPLE trigger=$TRIGGER restart=$RESTART rate=$RATE freq=$FREQ"

start_receive
"$F" record --source module -F "$FREQ" -v --reconnect \
	--ready-file /tmp/soak/stream.ready "tcp://127.0.0.1:$PORT" \
	2> /tmp/soak/stream.err &
spid=$!
"$F" record --source bpf -F "$FREQ" -v --flight-recorder 60 \
	--max-window-bytes 4M \
	--ready-file /tmp/soak/flight.ready /tmp/snap 2> /tmp/soak/flight.err &
fpid=$!
wait_ready /tmp/soak/stream.ready $spid || die "the stream recorder did not start: $(cat /tmp/soak/stream.err)"
wait_ready /tmp/soak/flight.ready $fpid || die "the flight recorder did not start: $(cat /tmp/soak/flight.err)"
"$W" "$RATE" "$THREADS" > /tmp/soak/forker.out 2>&1 &
wpid=$!

t0=$(date +%s)
next_sample=0 next_trigger=$TRIGGER next_restart=$RESTART
while :; do
	t=$(( $(date +%s) - t0 ))
	[ $t -lt "$SECS" ] || break
	if [ $t -ge $next_sample ]; then
		sample $t stream $spid
		sample $t flight $fpid
		sample $t receive $rpid
		# Each recorder accounts for its memory on stderr (-v).
		kill -USR1 $spid $fpid
		next_sample=$((next_sample + SAMPLE))
	fi
	if [ $t -ge $next_trigger ]; then
		kill -USR2 $fpid
		next_trigger=$((next_trigger + TRIGGER))
	fi
	if [ $t -ge $next_restart ]; then
		stop_receive
		start_receive
		next_restart=$((next_restart + RESTART))
	fi
	take_snapshots
	sleep 1
done

kill -TERM $wpid
wait $wpid
echo "SOAK-RC who=forker rc=$?"
kill -INT $spid $fpid
wait $spid
echo "SOAK-RC who=stream rc=$?"
wait $fpid
echo "SOAK-RC who=flight rc=$?"
take_snapshots
stop_receive

cat /tmp/soak/forker.out
sed -n 's/^fxtprof: delivered \([0-9]*\) bytes (\([0-9]*\) records).*/SOAK-STREAM delivered_bytes=\1 delivered_records=\2/p' /tmp/soak/stream.err
for who in stream flight; do
	sed "s/^/SOAK-LOG who=$who /" /tmp/soak/$who.err
done
for f in /tmp/soak/receive.*.out; do
	sed "s/^/SOAK-LOG who=$(basename "$f" .out) /" "$f"
done
dmesg | grep -Ei 'kasan|bug:|warning:|lockdep|rcu_sched|soft lockup' | sed 's/^/SOAK-DMESG /'
true

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# units.vm.sh: run in the VM of scripts/check-units-vm.sh by its test unit
# (fxt-units-test.service, after multi-user.target), under Debian 12's own
# systemd as PID 1 with the fxtprof package installed by apt.  It starts
# the package's units as an administrator would and prints TAP between
# FXT-TEST-BEGIN/END markers on the serial console (the host relays it):
# fxtprof-receive.service with the port of /etc/default/fxtprof-receive,
# then fxtprof-record@<the escaped tcp:// URI of that port>.service, then a
# restart of receive under the running record, then record@ again with
# the module refused (the bpf source).  Every wait is for a
# condition, bounded by a cap (TCG is slow; the caps are generous).
set -u
PORT=7979
URI=tcp://127.0.0.1:$PORT
DIR=/var/lib/fxtprof-receive
RECV=fxtprof-receive.service
REC=fxtprof-record@$(systemd-escape "$URI").service
PLAN=18

n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
# t NAME CMD...: CMD's output becomes the result's diagnostics on failure.
t() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok 0 "$name"; else ok 1 "$name"; printf '%s\n' "$out" | sed 's/^/# /'; fi
}
# wait_for CAP CMD...: CMD succeeds within CAP seconds (polled).
wait_for() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@" > /dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}
mainpid() { systemctl show -P MainPID "$1"; }
listening() { ss -Hltn "sport = :$PORT" | grep -q LISTEN; }
# The newest trace file of the directory (receive names them by peer and time).
newest() { ls -t "$DIR"/*.fxt 2>/dev/null | head -1; }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
# new_file_grows OLD WHAT: a trace file newer than OLD appears, holds data
# and then more; "# WHAT: FILE" names it.
new_file_grows() {
	local f
	wait_for 180 sh -c "[ \"\$(ls -t $DIR/*.fxt | head -1)\" != '$1' ]" ||
		{ ls -l "$DIR"; return 1; }
	f=$(newest)
	echo "# $2: $f"
	grows "$f"
}

# grows FILE: FILE holds data and then more.
grows() {
	local f=$1 s
	wait_for 180 test -s "$f" || { echo "$f stays empty"; return 1; }
	s=$(size "$f")
	wait_for 180 larger "$f" "$s" || { echo "$f stays at $s bytes"; return 1; }
}
larger() { [ "$(size "$1")" -gt "$2" ]; }

echo "FXT-TEST-BEGIN units_vm at $(cut -d' ' -f1 /proc/uptime)s"
echo "TAP version 13"
echo "1..$PLAN"
# Monotonic microseconds: when systemd started, when it reached multi-user
us() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1e6 }'; }
echo "# boot: systemd started at $(us "$(systemctl show -P UserspaceTimestampMonotonic)")s," \
	"multi-user.target at $(us "$(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target)")s"

pid1() {
	[ "$(cat /proc/1/comm)" = systemd ] && [ "$(systemctl is-system-running)" != offline ] ||
		{ cat /proc/1/comm; return 1; }
}
t pid1_is_systemd pid1

# 2-3. receive, with the port set in its /etc/default file
configure_receive() {
	sed -i "s|^FXTPROF_RECEIVE_LISTEN=.*|FXTPROF_RECEIVE_LISTEN=tcp://127.0.0.1:$PORT|" \
		/etc/default/fxtprof-receive &&
	grep -q "^FXTPROF_RECEIVE_LISTEN=tcp://127.0.0.1:$PORT$" /etc/default/fxtprof-receive &&
	systemctl start "$RECV"
}
receive_up() {
	wait_for 120 systemctl is-active --quiet "$RECV" || { systemctl status "$RECV"; return 1; }
	wait_for 120 listening || { ss -ltn; systemctl status "$RECV"; return 1; }
	wait_for 60 sh -c "journalctl -u $RECV -b | grep -q 'listening on tcp://127.0.0.1:$PORT'" ||
		{ journalctl -u "$RECV" -b --no-pager | tail; return 1; }
}
t receive_starts_with_its_default_file configure_receive
t receive_active_and_listening_on_the_port_of_its_default_file receive_up

rpid=$(mainpid "$RECV")
ruid=$(awk '/^Uid:/ { print $2 }' "/proc/$rpid/status" 2>/dev/null)
dynamic_user() {
	echo "receive pid $rpid uid $ruid"
	# systemd's dynamic users are 61184-65519 (DynamicUser=)
	[ -n "$ruid" ] && [ "$ruid" -ge 61184 ] && [ "$ruid" -le 65519 ] &&
	[ "$(awk '/^Uid:/ { print $3 }' "/proc/$rpid/status")" = "$ruid" ]
}
t receive_runs_as_its_own_dynamic_user dynamic_user

# 5-8. record@ to receive's URI
systemctl start --no-block "$REC"
record_up() {
	wait_for 120 systemctl is-active --quiet "$REC" || { systemctl status "$REC"; return 1; }
}
t "record_instance_active $REC" record_up
if [ -d /sys/module/fxtprof ]; then
	echo "# record@ records with the module (ExecStartPre loaded it)"
else
	echo "# record@ records with the bpf source (no module)"
fi
module_loaded() {
	[ -d /sys/module/fxtprof ] && [ -c /dev/fxtprof ] ||
		{ journalctl -b -u "$REC" --no-pager | tail; modprobe -n -v fxtprof; return 1; }
}
t exec_start_pre_loaded_the_module module_loaded
recpid=$(mainpid "$REC")
reccaps=$(grep '^CapEff' "/proc/$recpid/status" 2>&1)
recmounts=$(grep -E 'kallsyms|kmsg' "/proc/$recpid/mountinfo" 2>&1)
wait_for 180 sh -c "ls $DIR/*.fxt" > /dev/null 2>&1
first=$(newest)
echo "# first trace file: ${first:-none}"
t stream_reaches_receive_and_its_file_grows grows "$first"
owned() {
	local st
	st=$(stat -c '%u %a' "$first") || return 1
	echo "$first: uid and mode $st, receive's uid $ruid"
	[ "$st" = "$ruid 600" ]
}
t trace_file_owned_by_receives_user_mode_0600 owned

# 9-12. receive restarts; record reconnects on its own
restart_receive() {
	systemctl restart "$RECV" && receive_up &&
	[ "$(mainpid "$RECV")" != "$rpid" ] || { echo "receive's pid is still $rpid"; return 1; }
}
t receive_restarts restart_receive
t record_reconnects_and_a_new_file_grows new_file_grows "$first" "second trace file"
never_left() {
	local pid inactive
	pid=$(mainpid "$REC")
	inactive=$(systemctl show -P InactiveEnterTimestampMonotonic "$REC")
	echo "record pid $recpid then $pid, NRestarts $(systemctl show -P NRestarts "$REC"), inactive since $inactive"
	systemctl is-active --quiet "$REC" && [ "$pid" = "$recpid" ] && [ "$inactive" = 0 ]
}
t record_never_left_active never_left
names_stream() {
	journalctl -b -u "$RECV" --no-pager | grep -F "stream " | grep -F "$first" ||
		{ journalctl -b -u "$RECV" --no-pager | tail; return 1; }
}
t receives_journal_names_the_first_stream names_stream

# 13-14. the ratings of tests/units/test_units.sh, now of the loaded units
exposure() {
	local out level
	out=$(systemd-analyze security --no-pager "$1" 2>&1)
	level=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p' <<<"$out")
	echo "exposure of $1: ${level:-none}"
	[ -n "$level" ] && awk -v l="$level" -v m="$2" 'BEGIN { exit !(l <= m) }'
}
t receive_exposure_at_most_2 exposure "$RECV" 2.0
t record_exposure_at_most_4 exposure "$REC" 4.0
echo "# $(exposure "$RECV" 2.0 | head -1); $(exposure "$REC" 4.0 | head -1)"

# 15-16. record stops with its summary: the reconnection, and the
# kernel's symbols (/proc/kallsyms, which ProtectKernelTunables= hides,
# with CAP_SYSLOG, which ProtectKernelLogs= takes); no unit failed on the way (record's status 3, what was lost while receive
# restarted, is a success of the service: SuccessExitStatus=3)
systemctl stop "$REC"
journal=$(journalctl -b -u "$REC" --no-pager)
# (systemctl show would load the stopped unit afresh: its journal says how it ended)
echo "# record@ stopped: $(grep -E 'output is incomplete|Deactivated successfully|Failed with result' <<<"$journal" |
	sed 's/.*\]: //' | tr '\n' ' ')"
record_says_reconnected() {
	grep -E 'the peer went away [1-9][0-9]* times; [2-9][0-9]* connections' <<<"$journal" ||
		{ tail -20 <<<"$journal"; return 1; }
	[ -z "$(systemctl --failed --no-legend --plain)" ] ||
		{ systemctl --failed --no-pager; return 1; }
}
t record_journal_says_it_reconnected_and_no_unit_failed record_says_reconnected
kernel_symbols() {
	grep -E 'kernel: [1-9][0-9]* images, [1-9][0-9]* symbols written' <<<"$journal" ||
		{ grep -E 'kallsyms|kernel:' <<<"$journal"; echo "record's $reccaps"; echo "its mounts: $recmounts"
		  echo "kptr_restrict $(cat /proc/sys/kernel/kptr_restrict)," \
			"perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
		  return 1; }
}
t record_wrote_the_kernels_symbols kernel_symbols

# 17-18. Without the module (unloaded, and modprobe refused): ExecStartPre
# fails, which "-" lets pass, and record takes the bpf source, in the same
# sandbox, and streams into receive again.
rmmod fxtprof
echo "install fxtprof /bin/false" > /etc/modprobe.d/fxtprof-units-vm.conf
before=$(newest)
systemctl start --no-block "$REC"
bpf_fallback() {
	local inv j
	wait_for 120 systemctl is-active --quiet "$REC" || { systemctl status "$REC"; return 1; }
	inv=$(systemctl show -P InvocationID "$REC")
	wait_for 120 sh -c "journalctl -b _SYSTEMD_INVOCATION_ID=$inv | grep -q 'fxtprof: source '" || true
	j=$(journalctl -b _SYSTEMD_INVOCATION_ID="$inv" --no-pager)
	grep 'fxtprof: source bpf' <<<"$j" || { tail <<<"$j"; return 1; }
	[ ! -d /sys/module/fxtprof ] || { echo "the module is loaded"; return 1; }
	new_file_grows "$before" "bpf stream"
}
t record_falls_back_to_bpf_without_the_module bpf_fallback
bpf_stop() {
	local j
	systemctl stop "$REC" || return 1
	j=$(journalctl -b -u "$REC" --no-pager | sed -n '/source bpf/,$p')
	grep -E 'delivered [1-9][0-9]* bytes' <<<"$j" && grep -q 'Deactivated successfully' <<<"$j" ||
		{ tail -20 <<<"$j"; return 1; }
	[ -z "$(systemctl --failed --no-legend --plain)" ] ||
		{ systemctl --failed --no-pager; return 1; }
}
t record_with_bpf_stops_cleanly_and_no_unit_failed bpf_stop

echo "# journal of the units (in the console log):"
journalctl -b -u "$RECV" -u "$REC" -u fxt-units-test.service -o short-monotonic --no-pager 2>&1 |
	sed 's/^/#   /'
echo "FXT-TEST-END units_vm rc=$failed"
echo "FXT-DMESG-BEGIN"
dmesg
echo "FXT-DMESG-END"
echo "FXT-VM: done, uptime $(cut -d' ' -f1 /proc/uptime)s"
# The shutdown that follows (the unit's SuccessAction=), on the console
kill -s SIGRTMIN+20 1
dmesg -n 7
systemd-analyze log-target kmsg
exit 0

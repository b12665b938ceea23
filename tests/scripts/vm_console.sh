# SPDX-License-Identifier: GPL-2.0-only
# vm_console.sh: sourced by the host halves of the VM tests
# (tests/symbols/check_symbols.sh, tests/offcpu/check_offcpu.sh), which
# read what a guest wrote to its console (the serial log LOG).
#
# vm_arch LOG: the guest's architecture, x86_64 or arm64, from its
# "FXT-VM: kernel" line (x86_64 when there is none).
vm_arch() {
	case $(tr -d '\r' < "$1" | sed -n 's/.*FXT-VM: kernel [^ ]* \([^ ,]*\),.*/\1/p' | head -n 1) in
	aarch64) echo arm64 ;;
	*) echo x86_64 ;;
	esac
}

# vm_file LOG NAME DEST: the file the guest wrote between
#   FXTPROF-FILE-BEGIN NAME gzip+base64
#   ... base64 of the gzip'd file ...
#   FXTPROF-FILE-END NAME md5=MD5 bytes=N
# into DEST; says what arrived, and fails unless it is whole and not
# empty.
vm_file() {
	local log=$1 name=$2 dest=$3 md5 got
	tr -d '\r' < "$log" | awk -v n="$name" '
		$1 == "FXTPROF-FILE-END" && $2 == n { on = 0 }
		on && /^[A-Za-z0-9+\/=]+$/ { print }
		$1 == "FXTPROF-FILE-BEGIN" && $2 == n { on = 1 }' |
		base64 -d | gunzip > "$dest" || return 1
	md5=$(tr -d '\r' < "$log" | awk -v n="$name" '
		$1 == "FXTPROF-FILE-END" && $2 == n { sub(/^md5=/, "", $3); print $3; exit }')
	got=$(md5sum < "$dest" | cut -d' ' -f1)
	echo "# $name: $(wc -c < "$dest") bytes, md5 $got (guest: ${md5:-none})"
	[ -n "$md5" ] && [ "$md5" = "$got" ] && [ -s "$dest" ]
}


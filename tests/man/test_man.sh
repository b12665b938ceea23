#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_man.sh FXTPROF: the man pages of Documentation/man/ against the
# program they describe.  TAP on stdout.
#  - every command `fxtprof --help` lists has its page fxtprof-CMD.1, and
#    every fxtprof-*.1 names a command (a page left behind is stale);
#  - fxtprof.1's COMMANDS section lists exactly those commands;
#  - for every command, the options its --help lists (its usage lines and
#    the lines that start with an option, at most 8 columns in) are the
#    options the page's OPTIONS section tags (.TP), and the other way round;
#    a difference is printed as "CMD: --opt only in --help|the man page";
#  - fxtprof.ko.4 describes every module_param of kmod/*.c and the
#    FXTPROF_ABI_VERSION of include/uapi/linux/fxtprof.h;
#  - every page renders with man(1) and groff(1) without a warning.
set -uo pipefail
fxtprof=${1:?usage: test_man.sh FXTPROF}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../scripts/tap.sh"
cd "$here/../.." || exit 1
man=Documentation/man

commands() { "$fxtprof" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'; }

# Option words of a line: -x or --long-name, after a space, a bracket, a
# comma or a bar; text in parentheses is a reference, not a definition.
option_words() {
	sed -E 's/\([^)]*\)//g' | grep -oE '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' |
		sed -E 's/^[][ ,|]//' | LC_ALL=C sort -u
}
help_options() {
	"$1" "$2" --help 2>&1 | awk '
		/^usage:/ { usage = 1; print; next }
		usage && /^       [a-z]/ { print; next }
		{ usage = 0; match($0, /^ */) }
		RLENGTH <= 8 && substr($0, RLENGTH + 1, 1) == "-" { print }' | option_words
}
# The tag line after each .TP of the OPTIONS section, unescaped.
man_options() {
	awk '/^\.SH / { on = ($2 == "OPTIONS") } on && tag { print; tag = 0 } on && /^\.TP/ { tag = 1 }' "$1" |
		sed -E 's/\\-/-/g; s/\\f[BIRP]//g; s/\\&//g' | option_words
}

have_pages() {
	local c bad=0
	for c in $(commands); do
		[ -f "$man/fxtprof-$c.1" ] || { echo "no $man/fxtprof-$c.1"; bad=1; }
	done
	return $bad
}
no_stale_pages() {
	local p c bad=0 cmds
	cmds=" $(commands | tr '\n' ' ') "
	for p in "$man"/fxtprof-*.1; do
		c=${p##*/fxtprof-}; c=${c%.1}
		case $cmds in *" $c "*) ;; *) echo "$p: no command $c"; bad=1 ;; esac
	done
	return $bad
}
main_page_lists_commands() {
	local listed
	listed=$(awk '/^\.SH / { on = ($2 == "COMMANDS") } on && /^\.BR fxtprof\\-/ { print $2 }' "$man/fxtprof.1" |
		sed 's/^fxtprof\\-//; s/\\-/-/g')
	diff <(commands) <(printf '%s\n' "$listed")
}
options_agree() {
	local c bad=0 h m
	for c in $(commands); do
		[ -f "$man/fxtprof-$c.1" ] || continue
		h=$(help_options "$fxtprof" "$c") m=$(man_options "$man/fxtprof-$c.1")
		if [ "$h" != "$m" ]; then
			bad=1
			LC_ALL=C comm -23 <(echo "$h") <(echo "$m") | sed "s/^/$c: only in --help: /"
			LC_ALL=C comm -13 <(echo "$h") <(echo "$m") | sed "s/^/$c: only in the man page: /"
		fi
	done
	return $bad
}
module_page() {
	local p bad=0 abi
	for p in $(grep -ho 'module_param([a-z_0-9]*' kmod/*.c | sed 's/.*(//'); do
		grep -q "^\\\\fB$p\\\\fR=" "$man/fxtprof.ko.4" || { echo "fxtprof.ko.4: no parameter $p"; bad=1; }
	done
	abi=$(awk '$2 == "FXTPROF_ABI_VERSION" { print $3 }' include/uapi/linux/fxtprof.h)
	grep -q "FXTPROF_ABI_VERSION\\\\fR $abi\\b" "$man/fxtprof.ko.4" ||
		{ echo "fxtprof.ko.4: not ABI version $abi"; bad=1; }
	return $bad
}
# man --warnings prints groff's warnings on stderr; -ww turns them all on.
renders_clean() {
	local p out bad=0
	for p in "$man"/*.[1-8]; do
		out=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings=all -l "$p" 2>&1 >/dev/null)
		out+=$(groff -man -ww -z "$p" 2>&1)
		[ -z "$out" ] || { printf '%s: %s\n' "$p" "$out"; bad=1; }
	done
	return $bad
}

echo "TAP version 13"
echo "1..6"
t every_command_has_a_page have_pages
t every_page_names_a_command no_stale_pages
t fxtprof_1_lists_every_command main_page_lists_commands
t man_and_help_list_the_same_options options_agree
t module_page_has_params_and_abi module_page
t pages_render_without_warnings renders_clean
exit $failed

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test_completion.sh FXTPROF: contrib/bash-completion/fxtprof, sourced into
# this bash, completing command lines as bash would (COMP_WORDS and
# COMP_CWORD set, _fxtprof called, COMPREPLY read) with FXTPROF first on
# PATH.  TAP on stdout.
set -uo pipefail
fxtprof=${1:?usage: test_completion.sh FXTPROF}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../scripts/tap.sh"
cd "$here/../.." || exit 1
PATH=$(cd "$(dirname "$fxtprof")" && pwd):$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. contrib/bash-completion/fxtprof

# comp WORD...: the completions of the last word, sorted, on one line.
comp() {
	COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_fxtprof
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | paste -sd ' '
}
# expect WANT WORD...: the completions are exactly WANT.
expect() {
	local want=$1 got
	shift
	got=$(comp "$@")
	[ "$got" = "$want" ] || { echo "'$*': got '$got', want '$want'"; return 1; }
}

registered() { [ "$(complete -p fxtprof)" = "complete -F _fxtprof fxtprof" ]; }
commands() {
	expect "receive record" fxtprof rec &&
	expect "record" fxtprof reco &&
	expect "$({ echo --help; fxtprof --help | awk '/^  [a-z]/ { print $1 }'; } | LC_ALL=C sort | paste -sd ' ')" fxtprof "" &&
	expect "repair" fxtprof archive ""
}
options() {
	expect "--source --sources" fxtprof record --sour &&
	expect "--sources" fxtprof record -F 99 --sources
}
# What `fxtprof CMD -<TAB>` offers is what the man page's OPTIONS tags.
options_are_the_man_pages() {
	local c page want bad=0
	for c in $(fxtprof --help | awk '/^  [a-z]/ { print $1 }'); do
		page=Documentation/man/fxtprof-$c.1
		[ -f "$page" ] || { echo "no $page"; bad=1; continue; }
		want=$(awk '/^\.SH / { on = ($2 == "OPTIONS") } on && tag { print; tag = 0 } on && /^\.TP/ { tag = 1 }' "$page" |
			sed -E 's/\([^)]*\)//g; s/\\-/-/g; s/\\f[BIRP]//g' |
			grep -oE '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ ,|]//' |
			LC_ALL=C sort -u | paste -sd ' ')
		expect "$want" fxtprof "$c" - || bad=1
	done
	return $bad
}
sources() {
	local all
	all=$(fxtprof sources | awk '$1 == "NAME" { on = 1; next } on && /^  [a-z]/ { print $1 } /^[a-z]/ { on = 0 }' |
		LC_ALL=C sort -u | paste -sd ' ')
	[ -n "$all" ] || { echo "fxtprof sources lists nothing"; return 1; }
	expect "$all" fxtprof record --sources "" &&
	expect "cpu.sampling" fxtprof record --sources cpu &&
	expect "cpu.sampling,task.lifecycle" fxtprof record -F 99 --sources cpu.sampling,ta
}
fixed_values() {
	expect "callee caller" fxtprof report -g "" &&
	expect "auto bpf module" fxtprof record --source "" &&
	expect "pprof" fxtprof export -f p &&
	expect "" fxtprof record -F ""
}
files() {
	mkdir "$tmp/d" && touch "$tmp/a.fxt" "$tmp/b.fxtz" &&
	expect "$tmp/a.fxt $tmp/b.fxtz $tmp/d" fxtprof report "$tmp/" &&
	expect "$tmp/a.fxt" fxtprof dump -o "$tmp/a" &&
	expect "$tmp/d" fxtprof receive tcp://:0 -o "$tmp/" &&
	expect "$tmp/a.fxt $tmp/b.fxtz $tmp/d" fxtprof report --vmlinux "$tmp/"
}

echo "TAP version 13"
echo "1..7"
t complete_p_fxtprof registered
t commands_and_rec_gives_record commands
t options_and_sour_gives_sources options
t every_commands_options_are_its_man_pages options_are_the_man_pages
t sources_names_from_fxtprof_sources sources
t option_values_from_help fixed_values
t file_and_directory_arguments files
exit $failed

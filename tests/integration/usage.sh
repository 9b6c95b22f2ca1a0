#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The usage text names the program as invoked: fscp reached through a
# symlink named scp prints exactly what /usr/bin/scp prints for a usage
# error (stderr byte for byte, exit status); named fscp, it says fscp.
# Both are found on PATH, so argv[0] is the bare name on both sides.
# Needs no sshd.  Exit 0 pass, 1 fail, 99 cannot run.
FSCP=${FSCP:-./src/fscp}
SCP=${SCP:-/usr/bin/scp}
. "$(dirname "$0")/../lib/checks.sh" || exit 99
[ -x "$FSCP" ] || { echo "HARD ERROR: FSCP=$FSCP is not executable" >&2; exit 99; }
[ -x "$SCP" ] || { echo "HARD ERROR: SCP=$SCP is not executable" >&2; exit 99; }
FSCP=$(cd "$(dirname "$FSCP")" && pwd)/$(basename "$FSCP")
work=$(mktemp -d "${TMPDIR:-/tmp}/fscp-usage.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
mkdir "$work/real" "$work/link"
ln -s "$SCP" "$work/real/scp"
ln -s "$FSCP" "$work/link/scp"
ln -s "$FSCP" "$work/link/fscp"

# run DIR NAME ARGS...: NAME from DIR on PATH; stderr to $work/err, status echoed
run() {
	local dir=$1 name=$2
	shift 2
	(cd "$work" && timeout 20 env PATH="$dir" "$name" "$@" </dev/null >"$work/out" 2>"$work/err")
	echo $?
}
# verdict NAME RC_WANT RC_GOT WANT_FILE: same status, same stderr, no stdout
verdict() {
	if [ "$2" = "$3" ] && cmp -s "$4" "$work/err" && [ ! -s "$work/out" ]; then
		ok "$1 (exit $3)"
	else
		bad "$1: exit scp $2, fscp $3"
		diff <(cat -A "$4") <(cat -A "$work/err") | head -10
	fi
}
for args in "" "onlyone" "-Z a b" "-P" "-l 0 a b" "-l x a b" "-M x a b"; do
	# shellcheck disable=SC2086
	rs=$(run "$work/real" scp $args)
	if [ "$rs" != 1 ]; then
		echo "HARD ERROR: scp $args exited $rs, not 1 (usage): $(cat "$work/err")" >&2
		exit 99
	fi
	cp "$work/err" "$work/err.scp"
	# shellcheck disable=SC2086
	rf=$(run "$work/link" scp $args)
	verdict "fscp as scp: scp $args" "$rs" "$rf" "$work/err.scp"
done
# Named fscp: the same text with fscp in both names (the indent stays).
rs=$(run "$work/real" scp -Z a b)
sed -e '1s/^scp:/fscp:/' -e '2s/^usage: scp /usage: fscp /' "$work/err" >"$work/err.want"
grep -q '^usage: fscp ' "$work/err.want" || { echo "HARD ERROR: scp's usage text not as expected" >&2; exit 99; }
rf=$(run "$work/link" fscp -Z a b)
verdict "fscp -Z a b names fscp" "$rs" "$rf" "$work/err.want"
checks_done

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# contrib/fscp-alias.sh: scp becomes fscp in interactive shells only, and
# only when fscp is on PATH; sourcing it never fails or prints.  Checked in
# every POSIX shell here (sh, bash, and dash, zsh when installed): the
# interactive shell's "scp --version" must then run fscp.
set -u
. "$(dirname "$0")/../lib/checks.sh" || exit 99
: "${FSCP:?FSCP is not set}" "${srcdir:?srcdir is not set}"
snippet=$srcdir/contrib/fscp-alias.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/fscp-alias.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
mkdir "$work/with" "$work/without"
ln -s "$FSCP" "$work/with/fscp"
# PATH without fscp: the system directories only (fscp may be installed
# there, then that case is not checked).
sys=/usr/local/bin:/usr/bin:/bin

# run SHELL MODE DIR: what `alias scp` and `scp --version` give after
# sourcing the snippet, as "alias=...;version=...".
run() {
	local sh=$1 mode=$2 dir=$3 flags=()
	case $sh in
	bash) flags=(--norc --noprofile) ;;
	zsh) flags=(-f) ;;
	esac
	[ "$mode" = interactive ] && flags+=(-i)
	# Two lines: an alias takes effect from the next line read.
	HOME=$work PATH=$dir:$sys ENV=/dev/null timeout 20 "$sh" "${flags[@]}" -c ". '$snippet'
a=\$(alias scp 2>/dev/null); v=\$(scp --version 2>/dev/null | sed -n 1p); echo \"alias=\${a:+set};version=\$v\"" 2>"$work/stderr" </dev/null
}

expect() {
	local sh=$1 mode=$2 dir=$3 want=$4 got
	got=$(run "$sh" "$mode" "$dir")
	# Interactive shells without a terminal may complain about job control.
	if [ "$got" = "$want" ] && ! grep -v -e 'job control' -e 'terminal process group' -e 'no job control' "$work/stderr" | grep -q .; then
		ok "$sh, $mode, fscp ${dir##*/} on PATH: $want"
	else
		bad "$sh, $mode, fscp ${dir##*/} on PATH: got '$got', want '$want'; stderr: $(cat "$work/stderr")"
	fi
}

version=$("$FSCP" --version | sed -n 1p)
shells="sh bash"
command -v dash >/dev/null && [ "$(readlink -f "$(command -v sh)")" != "$(readlink -f "$(command -v dash)")" ] && shells+=" dash"
command -v zsh >/dev/null && shells+=" zsh"
for sh in $shells; do
	expect "$sh" interactive "$work/with" "alias=set;version=$version"
	expect "$sh" non-interactive "$work/with" "alias=;version="
	if PATH=$sys command -v fscp >/dev/null; then
		echo "note: fscp is installed in $sys; the no-fscp case is not checked"
	else
		expect "$sh" interactive "$work/without" "alias=;version="
	fi
done
checks_done

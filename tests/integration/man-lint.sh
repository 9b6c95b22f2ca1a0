#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# man/fscp.1 is lint-clean: no message at all from `mandoc -Tlint` (style
# level included) nor from `groff -ww -z -man`.  SKIP (77) with the reason
# when either program is missing.
set -u
. "$(dirname "$0")/../lib/checks.sh" || exit 99
: "${srcdir:?srcdir is not set}"
man=$srcdir/man/fscp.1
command -v mandoc >/dev/null || checks_skip "mandoc is not installed (apt-get install mandoc)"
command -v groff >/dev/null || checks_skip "groff is not installed (apt-get install groff-base)"

# lint NAME COMMAND...: the command must print nothing at all.
lint() {
	local name=$1 out
	shift
	out=$("$@" 2>&1)
	if [ -n "$out" ]; then
		bad "$name:"
		echo "$out"
	else
		ok "$name prints nothing"
	fi
}
lint "mandoc -Tlint" mandoc -Tlint "$man"
lint "groff -ww -z -man" groff -ww -z -man "$man"
# What man(1) shows on a terminal must not warn either (lintian runs this).
if command -v man >/dev/null; then
	export LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80
	lint "man --warnings" sh -c 'man --warnings -E UTF-8 -l -Tutf8 -Z "$1" >/dev/null' sh "$man"
fi
checks_done

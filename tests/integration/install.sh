#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# make install stays in its prefix, and make uninstall takes back all of it
# (issue 18): `configure --prefix=P && make install && make uninstall` in a
# scratch build tree, installed once by an unprivileged user (nobody, as a
# --prefix=$HOME/.local user) and once by root.  Each install runs in a
# mount namespace where the whole file system is read-only but the scratch
# directory, so a write anywhere else fails the install.  After install,
# fscp, fscp.1 and both completions are under P and the fscp there runs;
# after uninstall no file is left under P.
#
# Builds a tree of its own (about 10 s on 2 cores).  SKIP (77) with the
# reason when not root or when the namespace cannot be made.
set -u
. "$(dirname "$0")/../lib/checks.sh" || exit 99
: "${srcdir:?srcdir is not set}"
# A failure that ends the test (fscp cannot be built).
die() {
	bad "$*"
	checks_done
}
user=nobody

# It builds its own copy, without the sanitizer: a sanitized build's make
# check leaves it to the plain build's, which CI runs too.
[ -z "${FSCP_TEST_SANITIZER:-}" ] ||
	checks_skip "builds its own copy without $FSCP_TEST_SANITIZER; the plain build's make check runs it"
[ "$(id -u)" = 0 ] || checks_skip "needs root (it installs as root and as $user)"
for tool in unshare mount runuser; do
	command -v "$tool" >/dev/null || checks_skip "$tool is not installed (util-linux, mount)"
done
id -u "$user" >/dev/null 2>&1 || checks_skip "there is no user $user"
runuser -u "$user" -- test -r "$srcdir/configure" ||
	checks_skip "$user cannot read $srcdir/configure (a source tree under a private directory)"

work=$(mktemp -d "${TMPDIR:-/tmp}/fscp-install.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir "$work/b" "$work/tmp" && chown "$user" "$work/b" "$work/tmp" || exit 99
chmod 1777 "$work/tmp"
prefix=$work/p

# sealed CMD...: CMD with everything but $work read-only.
sealed() {
	unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro / && shift && exec "$@"' \
		sh "$work" "$@"
}
outside=$(dirname "$work")/.fscp-install-probe.$$
if ! sealed touch "$work/probe" || sealed touch "$outside" 2>/dev/null; then
	rm -f "$outside"
	checks_skip "cannot make / read-only in a mount namespace (unshare -m, mount -o remount,bind,ro)"
fi
rm -f "$work/probe"

# Not make check's make: its MAKEFLAGS (jobserver, TESTS=...) are not ours.
envmk=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL TMPDIR="$work/tmp")

t0=$SECONDS
if ! runuser -u "$user" -- "${envmk[@]}" sh -c 'cd "$1" && "$2/configure" -q --prefix="$3" && make -j2' sh "$work/b" "$srcdir" "$prefix" \
	>"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log"
	die "configure --prefix=$prefix && make, as $user, failed (log above)"
fi
echo "configured and built as $user in $((SECONDS - t0)) s"

files_under() { (cd "$1" 2>/dev/null && find . ! -type d | sed 's|^\./||' | sort); }

# round WHO [runuser -u WHO --]: install and uninstall into a fresh prefix
# that WHO owns.
round() {
	local who=$1 out left f
	shift
	rm -rf "$prefix" && mkdir "$prefix" && chown "$who" "$prefix" || exit 99
	if ! sealed "$@" "${envmk[@]}" make -C "$work/b" install >"$work/install.log" 2>&1; then
		tail -n 20 "$work/install.log"
		bad "make install as $who (log above; 'Read-only file system' is a write outside $work)"
		return
	fi
	ok "make install as $who writes only inside $work"
	echo "installed as $who:"
	files_under "$prefix" | sed 's/^/    /'
	for f in bin/fscp share/man/man1/fscp.1 share/bash-completion/completions/fscp \
		share/zsh/site-functions/_fscp; do
		check "as $who" "PREFIX/$f" test -f "$prefix/$f"
	done
	out=$("$prefix/bin/fscp" --version 2>&1 | head -n 1)
	check "as $who" "the installed fscp --version runs ($out)" eval '[[ $out == "fscp "* ]]'
	if ! sealed "$@" "${envmk[@]}" make -C "$work/b" uninstall >"$work/uninstall.log" 2>&1; then
		tail -n 20 "$work/uninstall.log"
		bad "make uninstall as $who (log above)"
		return
	fi
	left=$(files_under "$prefix")
	if [ -z "$left" ]; then
		ok "make uninstall as $who leaves no file under PREFIX"
	else
		bad "make uninstall as $who leaves:"
		sed 's/^/    /' <<<"$left"
	fi
}

round "$user" runuser -u "$user" --
round root
checks_done

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# fscp --version, and one version everywhere.
#
# configure.ac's AC_INIT is where the version comes from; debian/changelog,
# the man page's title line and NEWS's newest entry carry it too and must
# agree.  Then command lines around --version and -V run with scp 9.2 and
# with fscp (argv[0] "scp" for both) from identical directories: only
# "--version" as the whole first word is fscp's own, everything else must
# end as scp ends (exit status, output, files).  No sshd needed.
set -u
. "$(dirname "$0")/../lib/checks.sh" || exit 99
: "${FSCP:?FSCP is not set}" "${srcdir:?srcdir is not set}"
SCP=${SCP:-/usr/bin/scp}
[ -x "$FSCP" ] || { echo "HARD ERROR: $FSCP is not executable"; exit 99; }

version=$(sed -n 's/^AC_INIT(\[fscp\], *\[\([^]]*\)\].*/\1/p' "$srcdir/configure.ac")
[ -n "$version" ] || { echo "HARD ERROR: no AC_INIT version in configure.ac"; exit 99; }

# ---- the version in every file that has to carry it ----
agree() {
	local what=$1 got=$2
	if [ "$got" = "$version" ]; then
		ok "$what says $version"
	else
		bad "$what says '$got', configure.ac says '$version'"
	fi
}
deb=$(sed -n '1s/^fscp (\([^)]*\)).*/\1/p' "$srcdir/debian/changelog")
agree "debian/changelog (upstream part of ${deb:-nothing})" "${deb%-*}"
agree "man/fscp.1 .TH" "$(sed -n 's/^\.TH FSCP 1 [^ ]* "fscp \([^"]*\)".*/\1/p' "$srcdir/man/fscp.1")"
agree "NEWS's first entry" "$(sed -n '1s/^fscp \([^ ]*\).*/\1/p' "$srcdir/NEWS")"

# ---- fscp --version ----
out=$("$FSCP" --version 2>&1)
rc=$?
if [ "$rc" = 0 ] &&
	[ "$(sed -n 1p <<<"$out")" = "fscp $version" ] &&
	grep -Eq '^libssh [0-9]+\.[0-9]+\.[0-9]+' <<<"$out" &&
	grep -Eq '^OpenSSL [0-9]+\.[0-9]+' <<<"$out" &&
	grep -Eq '^zlib [0-9]+\.[0-9]+' <<<"$out" &&
	[ "$(wc -l <<<"$out")" = 4 ] &&
	! grep -q / <<<"$out"; then
	ok "--version: exit 0, fscp $version and the three libraries, each once"
else
	bad "--version: exit $rc, printed:"$'\n'"$out"
fi
# The libssh named is the one the binary loads (its Debian package's version):
# fscp opens it when asked (--version asks), so the loader's own trace says
# which file that is.
lib=$(sed -n 's/^libssh \([0-9.]*\).*/\1/p' <<<"$out")
so=$(LD_DEBUG=libs "$FSCP" --version 2>&1 >/dev/null |
	sed -n 's/.*calling init: \(.*libssh\.so[^ ]*\).*/\1/p' | head -1)
pkg=$( [ -n "$so" ] && dpkg -S "$(readlink -f "$so")" 2>/dev/null | sed -n '1s/:.*//p')
if [ -n "$pkg" ]; then
	pv=$(dpkg-query -W -f '${Version}' "$pkg")
	case $pv in
	"$lib"-* | "$lib"+* | "$lib") ok "libssh $lib is the loaded $so ($pkg $pv)" ;;
	*) bad "--version says libssh $lib, the binary loads $so from $pkg $pv" ;;
	esac
else
	echo "note: cannot tell which package provides the libssh fscp loads; not checked"
fi
if [ -w /dev/full ]; then
	if "$FSCP" --version >/dev/full 2>/dev/null; then
		bad "--version into a full disk exits 0"
	else
		ok "--version into a full disk exits non-zero"
	fi
fi

# ---- --version takes nothing after it: a usage error, nothing copied ----
extra_dir=$(mktemp -d "${TMPDIR:-/tmp}/fscp-version-extra.XXXXXX") || exit 99
echo data >"$extra_dir/a"
usage=$(cd "$extra_dir" && "$FSCP" -Z 2>&1 >/dev/null | sed 1d)
for extra in "extra" "a b" "--version" "-r"; do
	# shellcheck disable=SC2086 # the words are meant to split
	err=$(cd "$extra_dir" && "$FSCP" --version $extra 2>&1 >"$extra_dir/out")
	rc=$?
	want="$FSCP: --version takes no arguments"$'\r'$'\n'"$usage"
	if [ "$rc" = 1 ] && [ "$err" = "$want" ] && [ ! -s "$extra_dir/out" ] &&
		[ "$(cd "$extra_dir" && ls -A)" = "a
out" ]; then
		ok "--version $extra: usage error, exit 1, nothing printed on stdout or copied"
	else
		bad "--version $extra: exit $rc, stderr:"$'\n'"$err"$'\n'"stdout: $(cat "$extra_dir/out")"
	fi
done
rm -rf "$extra_dir"

# ---- everything else is scp's grammar ----
work=$(mktemp -d "${TMPDIR:-/tmp}/fscp-version.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# run_side NAME PROGRAM ARGS...: in a fresh directory holding the file "a";
# leaves rc, stdout, stderr (program name made "scp") and the file list.
run_side() {
	local side=$1 prog=$2
	shift 2
	rm -rf "${work:?}/$side"
	mkdir -p "$work/$side/d"
	echo data >"$work/$side/d/a"
	(cd "$work/$side/d" && timeout 30 bash -c 'exec -a scp "$@"' scp "$prog" "$@" \
		</dev/null >"$work/$side/stdout" 2>"$work/$side/stderr.raw")
	echo $? >"$work/$side/rc"
	# The usage line names the program (fscp says "fscp" for now).
	sed -e 's/^usage: fscp /usage: scp /' "$work/$side/stderr.raw" >"$work/$side/stderr"
	(cd "$work/$side/d" && ls -A) >"$work/$side/files"
}

like_scp() {
	local name=$1 f
	shift
	run_side scp "$SCP" "$@"
	run_side fscp "$FSCP" "$@"
	for f in rc stdout stderr files; do
		if ! cmp -s "$work/scp/$f" "$work/fscp/$f"; then
			bad "$name: $f differs (--- scp, +++ fscp)"
			diff -u "$work/scp/$f" "$work/fscp/$f" | tail -n +3 | head -20
			return
		fi
	done
	ok "$name: as scp (exit $(cat "$work/scp/rc"))"
}

like_scp "-V is an unknown option" -V
like_scp "-V in a cluster" -rV a b
like_scp "-V with operands" -V a b
like_scp "--version after --" -- --version x
like_scp "--version after an operand is the target" a --version
like_scp "--version after an option" -r --version
like_scp "--version as an option argument" -o --version a b
like_scp "--versio" --versio
like_scp "--version=1" --version=1
like_scp "---version" ---version
like_scp "-- alone" --

checks_done

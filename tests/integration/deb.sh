#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The Debian package: build it with `dpkg-buildpackage -us -uc -b` from a
# copy of the source tree in a scratch directory, unpack the .deb into a
# scratch root (dpkg -x, nothing is installed on this machine) and run the
# fscp in it.  Checks what the package must carry (binary, man page,
# completions, README, NEWS, copyright, the alias example), that Depends
# names the libraries fscp links (from shlibs) and those it opens when a
# bypass needs them (libssh, libcrypto: debian/control), and, where lintian
# is installed, that lintian finds
# nothing at all, pedantic tags included.
#
# SKIP (77) with the reason when the build tools or build dependencies are
# missing.  The package's own unit tests are left out (nocheck): make check
# has just run them on this very tree.
set -u
. "$(dirname "$0")/../lib/checks.sh" || exit 99
: "${FSCP:?FSCP is not set}" "${srcdir:?srcdir is not set}"
# A failure that ends the test (the package cannot be built or read).
die() {
	bad "$*"
	checks_done
}

# It builds its own copy, without the sanitizer: a sanitized build's make
# check leaves it to the plain build's, which CI runs too.
[ -z "${FSCP_TEST_SANITIZER:-}" ] ||
	checks_skip "builds its own copy without $FSCP_TEST_SANITIZER; the plain build's make check runs it"
for tool in dpkg-buildpackage dpkg-checkbuilddeps dpkg-deb dh rsync; do
	command -v "$tool" >/dev/null || checks_skip "$tool is not installed (dpkg-dev, debhelper, rsync; see contrib/install-deps.sh)"
done
[ -f "$srcdir/debian/control" ] || die "no debian/control in $srcdir"
unmet=$(cd "$srcdir" && dpkg-checkbuilddeps 2>&1) || checks_skip "build dependencies missing: $unmet"

t0=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/fscp-deb.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
version=$(sed -n '1s/^fscp (\([^)]*\)).*/\1/p' "$srcdir/debian/changelog")
src="$work/fscp-${version%-*}"

# The source as a user has it: without VCS data and build directories (an
# out-of-tree build in build*/ or distcheck's _build), writable.
rsync -a --exclude=/.git --exclude='/build*' --exclude=/_build --exclude=/_inst \
	--exclude=/autom4te.cache --exclude=/debian/fscp --exclude=/debian/.debhelper \
	--exclude=/debian/build --exclude="/debian/autoreconf.*" \
	"$srcdir/" "$src/" || die "cannot copy $srcdir"
chmod -R u+w "$src"
# A tree configured in place would make the package's out-of-tree build refuse.
if [ -f "$src/config.status" ]; then
	(cd "$src" && make -s distclean >/dev/null 2>&1) || rm -f "$src/config.status"
fi

log="$work/build.log"
# Not inside make check's make: its MAKEFLAGS (jobserver, TESTS=...) are
# not the package build's.
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -us -uc -b >"$log" 2>&1); then
	tail -n 60 "$log"
	die "dpkg-buildpackage -us -uc -b failed (log above)"
fi
echo "built in $((SECONDS - t0)) s"
deb=$(ls "$work"/fscp_"$version"_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || die "no fscp_${version}_*.deb in $work: $(ls "$work")"


root="$work/root"
dpkg -x "$deb" "$root" || die "dpkg -x $deb failed"
out=$("$root/usr/bin/fscp" --version 2>&1)
echo "$out"
check package "the installed fscp --version says fscp ${version%-*}" \
	test "$(sed -n 1p <<<"$out")" = "fscp ${version%-*}"
for f in usr/bin/fscp usr/share/man/man1/fscp.1.gz \
	usr/share/bash-completion/completions/fscp usr/share/zsh/vendor-completions/_fscp \
	usr/share/doc/fscp/copyright usr/share/doc/fscp/changelog.gz \
	usr/share/doc/fscp/examples/fscp-alias.sh; do
	check package "carries /$f" test -f "$root/$f"
done
for f in README NEWS; do
	check package "carries /usr/share/doc/fscp/$f" eval "ls '$root/usr/share/doc/fscp/$f'* >/dev/null 2>&1"
done
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
check package "Depends names libssh's, libc's and libcrypto's packages" \
	eval "grep -q 'libssh-4' <<<'$depends' && grep -q 'libc6' <<<'$depends' && grep -q 'libssl3' <<<'$depends'"
check package "Depends on openssh-client (fscp runs ssh)" eval "grep -q 'openssh-client' <<<'$depends'"

if command -v lintian >/dev/null; then
	t1=$SECONDS
	# Every tag that is not overridden counts, pedantic ones included.
	lint=$(lintian --pedantic --display-info --tag-display-limit 0 "$deb" "$work"/fscp_*.changes 2>&1 |
		grep -v '^running with root privileges is not recommended!$')
	echo "lintian took $((SECONDS - t1)) s"
	if [ -n "$lint" ]; then
		echo "$lint"
		check package "lintian --pedantic finds nothing" false
	else
		check package "lintian --pedantic finds nothing" true
	fi
else
	echo "note: lintian is not installed; not run"
fi
echo "$((SECONDS - t0)) s in all"
checks_done

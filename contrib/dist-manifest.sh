#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# dist-manifest.sh TARBALL [SRCDIR]: every file git tracks in SRCDIR (default
# .) is in the release tarball, except those listed below, which neither the
# build nor any test reads.  CI runs it beside a distcheck that builds the
# tarball and runs its unit suites: together they show that the tarball
# carries what the whole test suite needs, without running the suite a
# third time.  Exit 0 when complete, 1 with the missing files listed.
set -eu
tarball=$1
srcdir=${2:-.}
# Published benchmark results, git's own files, the placeholder keeping m4/.
kept_out='^(bench/published/|\.gitignore$|m4/\.keep$)'
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fscp-manifest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$srcdir" && git ls-files) | grep -Ev "$kept_out" | LC_ALL=C sort >"$tmp/git"
tar -tzf "$tarball" | sed -e 's|^[^/]*/||' -e '/\/$/d' -e '/^$/d' | LC_ALL=C sort >"$tmp/tar"
LC_ALL=C comm -23 "$tmp/git" "$tmp/tar" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
	echo "dist-manifest: $tarball lacks these files that git tracks (add them to EXTRA_DIST or a _SOURCES list):" >&2
	sed 's/^/  /' "$tmp/missing" >&2
	exit 1
fi
echo "dist-manifest: $tarball carries all $(wc -l <"$tmp/git") tracked files"

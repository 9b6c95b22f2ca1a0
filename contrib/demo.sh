#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# README Quick start command 1: build fscp, start a throwaway sshd on
# 127.0.0.1 with its own keys, copy a 64 MiB random file up and back with
# fscp, and check that every copy has the same SHA-256.  Also times
# /usr/bin/scp on the same file, for reference.
#
#   bash contrib/demo.sh
#
# Environment:
#   FSCP=PATH           copy with this program instead of building fscp
#   FSCP_DEMO_MIB=N     file size in MiB (default 64)
#   FSCP_DEMO_BUILD=DIR build directory (default ./build, as in Quick start 2)
#
# Needs root: the private sshd must be able to log in as the current user.
# Exits non-zero when a step fails or a checksum differs.
set -euo pipefail

cd "$(dirname "$0")/.."
top=$PWD
exec </dev/null

say() { printf 'demo: %s\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

# Seconds since the epoch with nanoseconds, for timing a copy.
now() { date +%s.%N; }
# mbps BYTES START END: throughput in MB/s (10^6 bytes).
mbps() { awk -v b="$1" -v s="$2" -v e="$3" 'BEGIN { t = e - s; if (t <= 0) t = 1e-9; printf "%.1f", b / t / 1e6 }'; }
secs() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.2f", e - s }'; }

[ "$(id -u)" = 0 ] || die "run as root: the demo starts its own sshd on 127.0.0.1"

sh contrib/install-deps.sh

if [ -z "${FSCP:-}" ]; then
	build=${FSCP_DEMO_BUILD:-$top/build}
	say "building fscp in $build"
	[ -x configure ] || autoreconf -fi
	mkdir -p "$build"
	(cd "$build" && { [ -f Makefile ] || "$top/configure" -q; } && make -j2 >/dev/null)
	FSCP=$build/src/fscp
fi
[ -x "$FSCP" ] || die "no fscp program at $FSCP"
say "copying with $FSCP"

# shellcheck source=SCRIPTDIR/../tests/lib/sshd.sh
. "$top/tests/lib/sshd.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/fscp-demo.XXXXXX")
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	fscp_sshd_stop || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fscp_sshd_start "$work/sshd" || die "could not start the private sshd"
say "sshd listening on 127.0.0.1:$SSHD_PORT (ssh config $SSH_CONFIG, remote home $SSHD_HOME)"

mib=${FSCP_DEMO_MIB:-64}
src=$work/demo.bin
head -c "$((mib * 1024 * 1024))" /dev/urandom >"$src"
size=$(stat -c %s "$src")
say "made $src: $size bytes of random data"

# run_copy LABEL PROGRAM FROM TO: copy and print the time taken.  fscp runs
# with -v so that the route it chose can be shown; its stderr is kept and
# printed only when the copy fails.
run_copy() {
	local label=$1 prog=$2 from=$3 to=$4 t0 t1 v=() err=$work/stderr route
	[ "$prog" = /usr/bin/scp ] || v=(-v)
	t0=$(now)
	if ! "$prog" "${v[@]}" -F "$SSH_CONFIG" "$from" "$to" 2>"$err"; then
		cat "$err" >&2
		die "$label failed: $prog ${v[*]} -F $SSH_CONFIG $from $to"
	fi
	t1=$(now)
	printf 'demo: %-24s %7s s  %7s MB/s\n' "$label" "$(secs "$t0" "$t1")" "$(mbps "$size" "$t0" "$t1")"
	# fscp -v says "fscp: route NAME: reason" first.
	route=$(grep -m1 -E '^[^ ]*: route [a-z-]+: ' "$err" | cut -c1-150 || true)
	[ -z "$route" ] || printf 'demo:     %s\n' "$route"
}

run_copy "${FSCP##*/} upload" "$FSCP" "$src" fscp-test:
run_copy "${FSCP##*/} download" "$FSCP" fscp-test:demo.bin "$work/back.bin"
if [ -x /usr/bin/scp ] && [ "$FSCP" != /usr/bin/scp ]; then
	run_copy "scp upload (reference)" /usr/bin/scp "$src" fscp-test:scp.bin
	run_copy "scp download (reference)" /usr/bin/scp fscp-test:scp.bin "$work/scp-back.bin"
fi

sum() { sha256sum <"$1" | cut -d' ' -f1; }
want=$(sum "$src")
status=0
for f in "$SSHD_HOME/demo.bin" "$work/back.bin"; do
	if [ ! -f "$f" ]; then
		say "MISSING  $f"
		status=1
		continue
	fi
	got=$(sum "$f")
	if [ "$got" = "$want" ] && [ "$(stat -c %s "$f")" = "$size" ]; then
		say "ok       $got  $f"
	else
		say "MISMATCH $got  $f ($(stat -c %s "$f") bytes)"
		status=1
	fi
done
say "source   $want  $src ($size bytes)"
if [ "$status" = 0 ]; then
	say "PASS: $size bytes went up and came back identical"
else
	say "FAIL: a copy differs from the source"
fi
exit "$status"

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: -l limits uploads and downloads alike, on the standard route
# and on four fresh connections (FSCP_ROUTE=bypass FSCP_CONNECTIONS=4, eight
# files so every connection carries some: the limit is their sum).  Files,
# messages and status are compared with scp's; then each side's elapsed time
# must be at least half of bytes / limit.  That is a functional check that
# the limit applies (unlimited, these copies take a fraction of it), not a
# speed claim: there is no upper bound.
# Exit 0 pass, 1 fail, 99 cannot run.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

LIMIT=4000			# Kbit/s: 512000 bytes/s
ONE=$((1 << 20))		# 1 MiB: ~2 s at the limit
PIECE=$((128 << 10))		# 8 x 128 KiB = 1 MiB in a tree
setup() {
	mkdir -p dst "$SSHD_HOME/dst" "$SSHD_HOME/src"
	fscp_put_file src/one "$ONE"
	fscp_put_file "$SSHD_HOME/src/one" "$ONE"
	local i
	for i in 1 2 3 4 5 6 7 8; do
		fscp_put_file "src/tree/f$i" "$PIECE"
		fscp_put_file "$SSHD_HOME/src/tree/f$i" "$PIECE"
	done
	bw__mark t0
}
# The side being run (compare.sh makes run/<side> before its setup, scp's
# first); the clock is read at the end of setup and in post.
bw__side() {
	if [ -d "$FSCP_WORK/run/fscp" ]; then echo fscp; else echo scp; fi
}
bw__mark() {
	date +%s.%N >"$FSCP_WORK/$1.$(bw__side)"
}
post() {
	bw__mark t1
}
elapsed() {
	awk -v a="$(cat "$FSCP_WORK/t0.$1")" -v b="$(cat "$FSCP_WORK/t1.$1")" 'BEGIN { printf "%.3f", b - a }'
}

# bw_compare NAME BYTES ARGS...: compare with scp, then check both times.
bw_compare() {
	local name=$1 bytes=$2 side e
	shift 2
	rm -f "$FSCP_WORK"/t[01].*
	fscp_compare --name "$name" --setup setup --post post --expect-rc 0 -- -l "$LIMIT" "$@"
	# Half of what the limit allows, in seconds.
	local floor
	floor=$(awk -v n="$bytes" -v l="$LIMIT" 'BEGIN { printf "%.3f", n * 8 / (l * 1024) / 2 }')
	for side in scp fscp; do
		e=$(elapsed $side)
		if awk -v e="$e" -v f="$floor" 'BEGIN { exit !(e >= f) }'; then
			ok "$(printf '%s: %s took %.2f s, at least %.2f s' "$name" "$side" "$e" "$floor")"
		elif [ $side = scp ]; then
			fscp_hard_error "$name: scp itself took only $e s (< $floor s): the test does not test -l"
		else
			bad "$(printf '%s: fscp took %.2f s, less than %.2f s: not limited' "$name" "$e" "$floor")"
		fi
	done
}

run_all() {
	local how=$1
	bw_compare "$how: upload 1 MiB -l $LIMIT" "$ONE" src/one fscp-test:dst/
	bw_compare "$how: download 1 MiB -l $LIMIT" "$ONE" fscp-test:src/one dst/
	bw_compare "$how: upload -r 8 x 128 KiB -l $LIMIT" $((8 * PIECE)) -r src/tree fscp-test:dst/
	bw_compare "$how: download -r 8 x 128 KiB -l $LIMIT" $((8 * PIECE)) -r fscp-test:src/tree dst/
}
run_all standard
export FSCP_ROUTE=bypass FSCP_CONNECTIONS=4
run_all "fresh, 4 connections"
unset FSCP_ROUTE FSCP_CONNECTIONS

checks_done

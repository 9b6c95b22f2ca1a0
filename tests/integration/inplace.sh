#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: writing in place (scp 9.2 opens the destination without
# truncating it and cuts it to the bytes written at the end).  A file copied
# onto itself (the same file on both ends: the test sshd runs on this host,
# so a remote path into the local work dir names the local file) keeps its
# content, up and down; a shorter file over a longer one ends at the right
# size.  Each on the standard route and on fresh connections forced with
# FSCP_ROUTE=bypass FSCP_CONNECTIONS=4, where a 9 MiB file is cut into
# pieces that several connections write at once (scp ignores both).  A
# device as the destination has no size to cut: a message, as in scp, and
# the copy still counts.
# Exit 0 pass, 1 fail, 99 cannot run.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

SMALL=300000
BIG=$((9 << 20))	# above the 4 MiB pieces of a fresh route: 3 pieces
LONG=$((13 << 20))
setup_self() {
	fscp_put_file src/f "$SMALL" 0640
	fscp_put_file src/big "$BIG" 0604
	fscp_set_times src
}
# Short sources over longer destinations, on both ends.
setup_over() {
	mkdir -p dst "$SSHD_HOME/dst" "$SSHD_HOME/src"
	fscp_put_file src/f "$SMALL" 0640
	fscp_put_file src/big "$BIG" 0604
	fscp_put_file "$SSHD_HOME/src/f" "$SMALL" 0640
	fscp_put_file "$SSHD_HOME/src/big" "$BIG" 0604
	fscp_set_times src "$SSHD_HOME/src"
	for d in dst "$SSHD_HOME/dst"; do
		fscp_put_file "$d/f" 1048577 0600
		fscp_put_file "$d/big" "$LONG" 0600
	done
}

run_all() {
	local how=$1 f
	for f in f big; do
		fscp_compare --name "$how: upload $f onto itself" --setup setup_self --expect-rc 0 -- \
			"src/$f" "fscp-test:{WORK}/src/$f"
		fscp_compare --name "$how: download $f onto itself" --setup setup_self --expect-rc 0 -- \
			"fscp-test:{WORK}/src/$f" "src/$f"
		fscp_compare --name "$how: upload $f onto itself -p" --setup setup_self --times --expect-rc 0 -- \
			-p "src/$f" "fscp-test:{WORK}/src/$f"
		fscp_compare --name "$how: download $f onto itself -p" --setup setup_self --times --expect-rc 0 -- \
			-p "fscp-test:{WORK}/src/$f" "src/$f"
		fscp_compare --name "$how: upload shorter $f over a longer file" --setup setup_over --expect-rc 0 -- \
			"src/$f" fscp-test:dst/
		fscp_compare --name "$how: download shorter $f over a longer file" --setup setup_over --expect-rc 0 -- \
			"fscp-test:src/$f" dst/
		fscp_compare --name "$how: upload shorter $f over a longer file -p" --setup setup_over --times --expect-rc 0 -- \
			-p "src/$f" fscp-test:dst/
		fscp_compare --name "$how: download shorter $f over a longer file -p" --setup setup_over --times --expect-rc 0 -- \
			-p "fscp-test:src/$f" dst/
	done
	fscp_compare --name "$how: -r tree onto itself" --setup setup_self --expect-rc 0 -- \
		-r src "fscp-test:{WORK}/"
	# A device has no size to cut: scp says so and counts the file copied.
	# (Never with -p here: that would set /dev/null's mode.)
	fscp_compare --name "$how: upload to /dev/null" --setup setup_self --expect-rc 0 -- \
		src/big fscp-test:/dev/null
	fscp_compare --name "$how: download to /dev/null" --setup setup_self --expect-rc 0 -- \
		"fscp-test:{WORK}/src/big" /dev/null
}

run_all standard
export FSCP_ROUTE=bypass FSCP_CONNECTIONS=4
run_all "fresh, 4 connections"
unset FSCP_ROUTE FSCP_CONNECTIONS

checks_done

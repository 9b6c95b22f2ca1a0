#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: a full disk, local (download) and remote (upload), on the
# standard route and on fresh connections.  The full disk is a 1 MiB tmpfs
# outside the compared trees, emptied before each side; what is compared is
# the exit status and every message (the trees outside it too).  What lands
# in the full filesystem is not compared: both leave a partial file there,
# and how much fits is the filesystem's business; both must say it failed.
#
# Mounting needs root (the rig needs it anyway).  Where mounting is not
# allowed (a container without CAP_SYS_ADMIN) the test exits 77 with the
# reason, which the runner reports as SKIP.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

FULL=$FSCP_WORK/full
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=1m fscp-full "$FULL" 2>"$FSCP_WORK/mount.err"; then
	echo "SKIP: cannot mount a 1 MiB tmpfs for a full disk: $(cat "$FSCP_WORK/mount.err")"
	exit 77
fi
full_cleanup() {
	umount "$FULL" 2>/dev/null
	fscp__cleanup
}
trap full_cleanup EXIT

BIG=$((70 << 20))	# a plain host takes fresh connections from 64 MiB
setup() {
	find "$FULL" -mindepth 1 -delete
	fscp_put_file src/small.bin $((3 << 20))
	fscp_put_file "$SSHD_HOME/small.bin" $((3 << 20))
}
setup_big() {
	setup
	fscp_put_file src/big.bin "$BIG"
	fscp_put_file "$SSHD_HOME/big.bin" "$BIG"
}

fscp_compare --name "download into a full disk" --setup setup --expect-rc 1 -- \
	fscp-test:small.bin "$FULL/"
fscp_compare --name "upload onto a full remote disk" --setup setup --expect-rc 1 -- \
	src/small.bin "fscp-test:$FULL/"
fscp_compare --name "download into a full disk, 70 MiB (the size at which fscp opens fresh connections)" --setup setup_big \
	--expect-rc 1 -- fscp-test:big.bin "$FULL/"
fscp_compare --name "upload onto a full remote disk, 70 MiB (the size at which fscp opens fresh connections)" --setup setup_big \
	--expect-rc 1 -- src/big.bin "fscp-test:$FULL/"

# Written in place over a file that already fills most of the disk: the
# copy fails part way, and what it leaves must not look complete (fscp cuts
# it after the last byte it knows it wrote).  scp's leftover is not
# compared (its download leaves the file at the full size).
# On fresh connections a 9 MiB file is written as 3 pieces at once.
OVER=900000 MID=$((9 << 20))
setup_over() {
	setup
	fscp_put_file src/mid.bin "$MID"
	fscp_put_file "$SSHD_HOME/mid.bin" "$MID"
	head -c "$OVER" /dev/urandom >"$FULL/$OVER_NAME"
}
# fscp's leftover size, read before the next side empties the disk.
post_size() {
	if [ -d "$FSCP_WORK/run/fscp" ]; then
		stat -c %s "$FULL/$OVER_NAME" >"$FSCP_WORK/left.size"
	fi
}
check_left() {
	local name=$1 want=$2 got
	got=$(cat "$FSCP_WORK/left.size" 2>/dev/null || echo missing)
	if [ "$got" != missing ] && [ "$got" -lt "$want" ]; then
		ok "$name: fscp left $got bytes of $want"
	else
		bad "$name: fscp left $got bytes of $want: looks complete"
	fi
}
for route in standard bypass; do
	export FSCP_ROUTE=$route FSCP_CONNECTIONS=4
	for OVER_NAME in small.bin mid.bin; do
		size=$(stat -c %s "$FSCP_WORK/pool/r$((3 << 20))")
		[ "$OVER_NAME" = small.bin ] || size=$MID
		rm -f "$FSCP_WORK/left.size"
		name="download $OVER_NAME over a file filling the disk, FSCP_ROUTE=$route"
		fscp_compare --name "$name" --setup setup_over --post post_size --expect-rc 1 -- \
			"fscp-test:$OVER_NAME" "$FULL/"
		check_left "$name" "$size"
		rm -f "$FSCP_WORK/left.size"
		name="upload $OVER_NAME over a file filling the remote disk, FSCP_ROUTE=$route"
		fscp_compare --name "$name" --setup setup_over --post post_size --expect-rc 1 -- \
			"src/$OVER_NAME" "fscp-test:$FULL/"
		check_left "$name" "$size"
	done
done
unset FSCP_ROUTE FSCP_CONNECTIONS

checks_done

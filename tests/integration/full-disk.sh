#!/bin/bash
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

fscp_test_done

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: failures.  Permission denied, a dead server, an unknown host key
# with -B.
#
# Permission denied as root: root bypasses mode bits, so a 0555 directory or a
# 0000 file does not fail.  Used instead (checked below, hard error if absent):
#   - reading /sys/bus/cpu/uevent: a write-only sysfs attribute; its open for
#     reading fails with EACCES even for root, while stat says a regular file
#     of 4096 bytes, so it fails at the open like an unreadable file would;
#   - creating a file in /sys/: sysfs refuses new files with EACCES for root.
# Both work for the local side and, since the "remote" is this machine, for the
# remote side (absolute remote paths).
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

UNREADABLE=/sys/bus/cpu/uevent
UNWRITABLE_DIR=/sys
if [ ! -f "$UNREADABLE" ] || cat "$UNREADABLE" >/dev/null 2>&1; then
	fscp_hard_error "$UNREADABLE is missing or readable: no way to test 'permission denied' as root"
fi
if touch "$UNWRITABLE_DIR/fscp-probe" 2>/dev/null; then
	rm -f "$UNWRITABLE_DIR/fscp-probe"
	fscp_hard_error "$UNWRITABLE_DIR is writable: no way to test 'permission denied' as root"
fi

setup() {
	fscp_setup_trees
}
# For the ssh-level failures: a config whose fscp-test points at a port with
# nothing listening, and one whose known_hosts does not know the host key.
DEAD_PORT=$(fscp__free_port)
setup_configs() {
	setup
	sed "s/^\([[:space:]]*Port\) .*/\1 $DEAD_PORT/" "$SSH_CONFIG" >dead_config
	sed -e "s|^\([[:space:]]*UserKnownHostsFile\) .*|\1 /dev/null|" \
		-e "s|^\([[:space:]]*StrictHostKeyChecking\) .*|\1 ask|" \
		-e "s|^\([[:space:]]*BatchMode\) .*|\1 no|" "$SSH_CONFIG" >unknown_config
}

fscp_compare --name "download unreadable file with others" --setup setup --expect-rc 1 -- fscp-test:src/small.txt "fscp-test:$UNREADABLE" fscp-test:src/exec.sh dst/
fscp_compare --name "download into unwritable local dir" --setup setup --expect-rc 1 -- fscp-test:src/small.txt fscp-test:src/exec.sh "$UNWRITABLE_DIR/"
fscp_compare --name "download into unwritable local dir, new name" --setup setup --expect-rc 1 -- fscp-test:src/small.txt "$UNWRITABLE_DIR/fscp-x"
fscp_compare --name "upload unreadable local file with others" --setup setup --expect-rc 1 -- src/small.txt "$UNREADABLE" src/exec.sh fscp-test:dst/
fscp_compare --name "upload into unwritable remote dir" --setup setup --expect-rc 1 -- src/small.txt src/exec.sh "fscp-test:$UNWRITABLE_DIR/"
fscp_compare --name "upload -r into unwritable remote dir" --setup setup --expect-rc 1 -- -r src "fscp-test:$UNWRITABLE_DIR/"

# ssh-level failures: the messages come from ssh (scp) or from whatever fscp
# connects with, so stderr is shown but not counted.
# scp's status there races its dead ssh (see fscp__rc_in in compare.sh).
fscp_compare --no-stderr --no-config --name "upload, dead server: exit 255" --setup setup_configs --expect-rc '255|1' -- -F dead_config src/small.txt fscp-test:dst/
fscp_compare --no-stderr --no-config --name "download, dead server: exit 255" --setup setup_configs --expect-rc '255|1' -- -F dead_config fscp-test:src/small.txt dst/
fscp_compare --no-stderr --name "dead server by -P: exit 255" --setup setup --expect-rc '255|1' -- -P "$DEAD_PORT" src/small.txt fscp-test:dst/
fscp_compare --no-stderr --no-config --name "-B, unknown host key: upload refused" --setup setup_configs --expect-rc 255 -- -B -F unknown_config src/small.txt fscp-test:dst/
fscp_compare --no-stderr --no-config --name "-B, unknown host key: download refused" --setup setup_configs --expect-rc 255 -- -B -F unknown_config fscp-test:src/small.txt dst/
fscp_compare --no-stderr --no-config --name "-B, unknown host key, -r, several sources" --setup setup_configs --expect-rc 255 -- -B -r -F unknown_config fscp-test:src/sub fscp-test:src/small.txt dst/

checks_done

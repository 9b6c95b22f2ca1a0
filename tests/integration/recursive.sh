#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: -r both ways, into an existing directory and onto a new name,
# a directory without -r, a directory onto an existing file, symlinks (to a
# file, to a directory, dangling: scp 9.2 in SFTP mode copies the first as a
# file and fails on the other two, exit 1, rest of the tree copied).
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

setup() {
	fscp_setup_trees
}
setup_links() {
	fscp_setup_linktrees
}
setup_file_target() {
	setup
	fscp_put_file dst/file 1000
	fscp_put_file "$SSHD_HOME/dst/file" 1000
}

fscp_compare --name "upload -r into existing dir" --setup setup --expect-rc 0 -- -r src fscp-test:dst
fscp_compare --name "upload -r onto new name" --setup setup --expect-rc 0 -- -r src fscp-test:dst/copy
fscp_compare --name "upload -r src/ (trailing slash) into dir" --setup setup --expect-rc 0 -- -r src/ fscp-test:dst/
fscp_compare --name "upload -r into home" --setup setup --expect-rc 0 -- -r src/sub fscp-test:
fscp_compare --name "upload -r dir onto existing file" --setup setup_file_target -- -r src fscp-test:dst/file
fscp_compare --name "upload dir without -r" --setup setup --expect-rc 1 -- src fscp-test:dst/
fscp_compare --name "upload -r with symlinks" --setup setup_links --expect-rc 1 -- -r src fscp-test:dst/
fscp_compare --name "upload symlink to file (no -r)" --setup setup_links --expect-rc 0 -- src/link-file fscp-test:dst/

fscp_compare --name "download -r into existing dir" --setup setup --expect-rc 0 -- -r fscp-test:src dst
fscp_compare --name "download -r onto new name" --setup setup --expect-rc 0 -- -r fscp-test:src dst/copy
fscp_compare --name "download -r dir with space in name" --setup setup --expect-rc 0 -- -r "fscp-test:src/dir with space" dst/
fscp_compare --name "download -r home (fscp-test:) onto new name" --setup setup --expect-rc 0 -- -r fscp-test: dst/home
fscp_compare --name "download -r dir onto existing file" --setup setup_file_target -- -r fscp-test:src dst/file
fscp_compare --name "download dir without -r" --setup setup --expect-rc 1 -- fscp-test:src dst/
fscp_compare --name "download -r with symlinks" --setup setup_links --expect-rc 1 -- -r fscp-test:src dst/
fscp_compare --name "download symlink to file (no -r)" --setup setup_links --expect-rc 0 -- fscp-test:src/link-file dst/

# A directory the owner cannot write: scp makes it writable while it fills
# it, then gives it its mode with chmod (the umask does not apply then).
setup_readonly_dir() {
	setup
	mkdir -p "$SSHD_HOME/ro/sub"
	fscp_put_file "$SSHD_HOME/ro/sub/f" 77
	chmod 0555 "$SSHD_HOME/ro/sub"
	chmod 0751 "$SSHD_HOME/ro"
}
fscp_compare --name "download -r of a 0555 directory, umask 077" --setup setup_readonly_dir --umask 077 \
	--expect-rc 0 -- -r fscp-test:ro dst/
fscp_compare --name "download -r of a 0555 directory, -p" --setup setup_readonly_dir --expect-rc 0 \
	-- -rp fscp-test:ro dst/

checks_done

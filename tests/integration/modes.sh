#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: permission bits and times.  -p both ways (modes, mtimes and
# atimes of files, mtimes of directories), modes without -p for a new file and
# for an overwritten one (which keeps its mode), and the local umask.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

setup() {
	fscp_setup_trees
}
# Existing destination files with modes unlike the sources'.
setup_existing() {
	setup
	fscp_put_file dst/exec.sh 10 0606
	fscp_put_file "$SSHD_HOME/dst/exec.sh" 10 0606
	fscp_put_file dst/readonly 10 0600
	fscp_put_file "$SSHD_HOME/dst/readonly" 10 0600
}

fscp_compare --times --name "upload -p file" --setup setup --expect-rc 0 -- -p src/exec.sh fscp-test:dst/
fscp_compare --times --name "upload -p read-only file" --setup setup --expect-rc 0 -- -p src/readonly fscp-test:dst/
fscp_compare --times --name "upload -rp tree" --setup setup --expect-rc 0 -- -rp src fscp-test:dst/
fscp_compare --times --name "upload -p over existing files" --setup setup_existing --expect-rc 0 -- -p src/exec.sh src/readonly fscp-test:dst/
fscp_compare --name "upload without -p: new files" --setup setup --expect-rc 0 -- src/exec.sh src/readonly "src/odd mode" fscp-test:dst/
fscp_compare --name "upload without -p: existing files keep their mode" --setup setup_existing --expect-rc 0 -- src/exec.sh src/readonly fscp-test:dst/
fscp_compare --name "upload -r without -p: directory modes" --setup setup --expect-rc 0 -- -r src fscp-test:dst/
fscp_compare --name "upload with local umask 077 (remote modes unaffected)" --umask 077 --setup setup --expect-rc 0 -- -r src fscp-test:dst/

fscp_compare --times --name "download -p file" --setup setup --expect-rc 0 -- -p fscp-test:src/exec.sh dst/
fscp_compare --times --name "download -p read-only file" --setup setup --expect-rc 0 -- -p fscp-test:src/readonly dst/
fscp_compare --times --name "download -rp tree" --setup setup --expect-rc 0 -- -rp fscp-test:src dst/
fscp_compare --times --name "download -p over existing files" --setup setup_existing --expect-rc 0 -- -p fscp-test:src/exec.sh fscp-test:src/readonly dst/
fscp_compare --name "download without -p: new files" --setup setup --expect-rc 0 -- fscp-test:src/exec.sh fscp-test:src/readonly "fscp-test:src/odd mode" dst/
fscp_compare --name "download without -p: existing files keep their mode" --setup setup_existing --expect-rc 0 -- fscp-test:src/exec.sh fscp-test:src/readonly dst/
fscp_compare --name "download -r with umask 077" --umask 077 --setup setup --expect-rc 0 -- -r fscp-test:src dst/
fscp_compare --name "download -r with umask 0" --umask 000 --setup setup --expect-rc 0 -- -r fscp-test:src dst/
fscp_compare --times --name "download -rp with umask 077" --umask 077 --setup setup --expect-rc 0 -- -rp fscp-test:src dst/

checks_done

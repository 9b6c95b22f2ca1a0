#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: several sources.  Into a directory, into a missing target
# (upload: scp creates it; download: refused), into an existing file, with a
# missing source among existing ones (download: scp goes on, exit 1; upload:
# the local stat failure is fatal, exit 255), and a remote glob.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

setup() {
	fscp_setup_trees
}
setup_file_target() {
	setup
	fscp_put_file dst/file 1000
	fscp_put_file "$SSHD_HOME/dst/file" 1000
}

fscp_compare --name "upload 3 files into dir" --setup setup --expect-rc 0 -- src/small.txt src/empty "src/with space.txt" fscp-test:dst
fscp_compare --name "upload 2 files into missing dir" --setup setup --expect-rc 0 -- src/small.txt src/exec.sh fscp-test:dst/newdir
fscp_compare --name "upload 2 files into existing file" --setup setup_file_target --expect-rc 255 -- src/small.txt src/exec.sh fscp-test:dst/file
fscp_compare --name "upload with a missing source first" --setup setup --expect-rc 255 -- src/nope src/small.txt fscp-test:dst/
fscp_compare --name "upload with a missing source last" --setup setup --expect-rc 255 -- src/small.txt src/nope fscp-test:dst/
fscp_compare --name "upload -r files and dirs into dir" --setup setup --expect-rc 0 -- -r src/sub src/small.txt "src/dir with space" fscp-test:dst/
fscp_compare --name "upload file and dir without -r" --setup setup --expect-rc 1 -- src/sub src/small.txt fscp-test:dst/

fscp_compare --name "download 3 files into dir" --setup setup --expect-rc 0 -- fscp-test:src/small.txt fscp-test:src/empty "fscp-test:src/with space.txt" dst
fscp_compare --name "download 2 files into missing dir" --setup setup --expect-rc 1 -- fscp-test:src/small.txt fscp-test:src/exec.sh dst/newdir
fscp_compare --name "download 2 files into existing file" --setup setup_file_target --expect-rc 1 -- fscp-test:src/small.txt fscp-test:src/exec.sh dst/file
fscp_compare --name "download with a missing source in the middle" --setup setup --expect-rc 1 -- fscp-test:src/small.txt fscp-test:src/nope fscp-test:src/exec.sh dst/
fscp_compare --name "download remote glob" --setup setup --expect-rc 0 -- "fscp-test:src/*.txt" dst/
fscp_compare --name "download remote glob, no match" --setup setup --expect-rc 1 -- "fscp-test:src/*.nomatch" dst/
fscp_compare --name "download glob of several onto a new name" --setup setup --expect-rc 0 -- "fscp-test:src/*.txt" dst/new
fscp_compare --name "download home files and dirs with -r" --setup setup --expect-rc 0 -- -r fscp-test:src/sub fscp-test:src/small.txt dst/

checks_done

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: one file at a time, both directions.  Covers a file into a
# directory and onto a new name, overwriting, empty files, names with a space
# and a leading dash, "./a:b" as a local operand, and "fscp-test:" (the remote
# home) as target and as source.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

# Identical input for every run: a local src/ and a remote src/, and empty
# dst/ on both ends.
setup() {
	fscp_setup_trees
}
# As setup, plus files already present at the destinations (to overwrite).
setup_existing() {
	setup
	fscp_put_file dst/small.txt 300000 0604
	fscp_put_file "$SSHD_HOME/dst/small.txt" 300000 0604
	fscp_put_file dst/new 4096 0600
	fscp_put_file "$SSHD_HOME/dst/new" 4096 0600
}
# A local file whose name contains a colon.
setup_colon() {
	setup
	fscp_put_file a:b 1000
	fscp_put_file "$SSHD_HOME/src/a:b" 123
}

fscp_compare --name "upload file into dir" --setup setup --expect-rc 0 -- src/small.txt fscp-test:dst
fscp_compare --name "upload file into dir/" --setup setup --expect-rc 0 -- src/small.txt fscp-test:dst/
fscp_compare --name "upload file onto new name" --setup setup --expect-rc 0 -- src/small.txt fscp-test:dst/new
fscp_compare --name "upload 1 MiB file by absolute path" --setup setup --expect-rc 0 -- "{WORK}/src/sub/deeper/b.bin" "fscp-test:{HOME}/dst/"
fscp_compare --name "upload overwrites (content and size)" --setup setup_existing --expect-rc 0 -- src/small.txt fscp-test:dst/
fscp_compare --name "upload empty file over a non-empty one" --setup setup_existing --expect-rc 0 -- src/empty fscp-test:dst/new
fscp_compare --name "upload empty file" --setup setup --expect-rc 0 -- src/empty fscp-test:dst/
fscp_compare --name "upload name with space" --setup setup --expect-rc 0 -- "src/with space.txt" fscp-test:dst/
fscp_compare --name "upload onto name with space" --setup setup --expect-rc 0 -- src/small.txt "fscp-test:dst/new name"
fscp_compare --name "upload name with leading dash" --setup setup --expect-rc 0 -- src/-dash fscp-test:dst/
fscp_compare --name "upload onto name with leading dash" --setup setup --expect-rc 0 -- src/small.txt fscp-test:-x
fscp_compare --name "upload with -- and a dash source" --setup setup --expect-rc 0 -- -- src/-dash fscp-test:dst/
fscp_compare --name "upload to home (fscp-test:)" --setup setup --expect-rc 0 -- src/small.txt fscp-test:
fscp_compare --name "upload ./a:b (local operand with colon)" --setup setup_colon --expect-rc 0 -- ./a:b fscp-test:dst/

fscp_compare --name "download file into dir" --setup setup --expect-rc 0 -- fscp-test:src/small.txt dst
fscp_compare --name "download file into ." --setup setup --expect-rc 0 -- fscp-test:src/small.txt .
fscp_compare --name "download file onto new name" --setup setup --expect-rc 0 -- fscp-test:src/small.txt dst/new
fscp_compare --name "download by absolute path" --setup setup --expect-rc 0 -- "fscp-test:{HOME}/src/sub/deeper/b.bin" dst/
fscp_compare --name "download overwrites" --setup setup_existing --expect-rc 0 -- fscp-test:src/small.txt dst/
fscp_compare --name "download empty file over a non-empty one" --setup setup_existing --expect-rc 0 -- fscp-test:src/empty dst/new
fscp_compare --name "download name with space" --setup setup --expect-rc 0 -- "fscp-test:src/with space.txt" dst/
fscp_compare --name "download name with leading dash" --setup setup --expect-rc 0 -- fscp-test:src/-dash dst/
fscp_compare --name "download onto ./-dash" --setup setup --expect-rc 0 -- fscp-test:src/small.txt ./-x
fscp_compare --name "download remote a:b to ./a:b" --setup setup_colon --expect-rc 0 -- "fscp-test:src/a:b" ./a:b
fscp_compare --name "download from ~/ path" --setup setup --expect-rc 0 -- "fscp-test:~/src/small.txt" dst/
fscp_compare --name "download file from home dir (fscp-test:name)" --setup setup --expect-rc 0 -- fscp-test:src/small.txt fscp-test:dst/x
fscp_compare --name "download home without -r (a directory)" --setup setup -- fscp-test: dst/

checks_done

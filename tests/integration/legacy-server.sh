#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# fscp as the remote side of the legacy protocol (`fscp -t`, `fscp -f`),
# reached through the real sshd: the -S wrapper ssh-remote (legacy-lib.sh)
# swaps the remote command's "scp" for the program under test.  Three pairs,
# the same command lines each time:
#   1. client scp, remote scp            vs  client scp, remote fscp
#   2. client scp, remote scp            vs  client fscp, remote fscp
#   3. client scp, remote scp (real)     vs  client fscp, remote scp: in
#      legacy.sh.
# Trees, messages and exit statuses must be the same.
. "$(dirname "$0")/../lib/compare.sh"
. "$(dirname "$0")/../lib/legacy-lib.sh"
fscp_test_init
legacy_make_wrappers


R=fscp-test:{HOME}
cases() {
	fscp_compare --name "$1: upload file" --setup fscp_setup_trees --expect-rc 0 -- -O src/small.txt $R/dst/
	fscp_compare --name "$1: upload onto new name" --setup fscp_setup_trees --expect-rc 0 -- -O src/small.txt $R/dst/new
	fscp_compare --name "$1: upload over existing" --setup legacy_setup_existing --expect-rc 0 -- -O src/small.txt $R/dst/
	fscp_compare --name "$1: upload several" --setup fscp_setup_trees --expect-rc 0 -- -O src/small.txt src/empty "src/with space.txt" $R/dst/
	fscp_compare --times --name "$1: upload -r -p" --setup fscp_setup_trees --expect-rc 0 -- -O -r -p src $R/dst/
	fscp_compare --name "$1: upload -r" --setup fscp_setup_trees --expect-rc 0 -- -O -r src $R/dst/
	fscp_compare --name "$1: upload missing source" --setup fscp_setup_trees --expect-rc 1 -- -O src/missing src/small.txt $R/dst/
	fscp_compare --name "$1: upload dir without -r" --setup fscp_setup_trees --expect-rc 1 -- -O src/sub $R/dst/
	fscp_compare --name "$1: upload several into a file (-d)" --setup legacy_setup_existing --expect-rc 1 -- -O src/small.txt src/exec.sh $R/dst/file
	fscp_compare --name "$1: upload into missing dir" --setup fscp_setup_trees --expect-rc 1 -- -O src/small.txt $R/nodir/
	fscp_compare --name "$1: upload into unwritable dir" --setup fscp_setup_trees --expect-rc 1 -- -O src/small.txt src/exec.sh fscp-test:/sys/
	fscp_compare --name "$1: upload -r dir onto file" --setup legacy_setup_existing --expect-rc 1 -- -O -r src/sub $R/dst/file
	fscp_compare --name "$1: download file" --setup fscp_setup_trees --expect-rc 0 -- -O $R/src/small.txt dst/
	fscp_compare --name "$1: download several" --setup fscp_setup_trees --expect-rc 0 -- -O $R/src/small.txt $R/src/exec.sh dst/
	fscp_compare --name "$1: download glob" --setup fscp_setup_trees --expect-rc 0 -- -O "$R/src/*.txt" dst/
	fscp_compare --times --name "$1: download -r -p" --setup fscp_setup_trees --expect-rc 0 -- -O -r -p $R/src dst/
	fscp_compare --name "$1: download -r" --setup fscp_setup_trees --expect-rc 0 -- -O -r $R/src dst/
	fscp_compare --name "$1: download missing source" --setup fscp_setup_trees --expect-rc 1 -- -O $R/src/missing $R/src/small.txt dst/
	fscp_compare --name "$1: download dir without -r" --setup fscp_setup_trees --expect-rc 1 -- -O $R/src/sub dst/
	fscp_compare --name "$1: download unreadable file" --setup fscp_setup_trees --expect-rc 1 -- -O fscp-test:/sys/bus/cpu/uevent $R/src/small.txt dst/
}

# Byte for byte, without ssh: what each side writes back for a given input.
raw() { legacy_raw_compare "raw: $1" "${@:2}"; }
raw "-t one file" 'C0644 5 f\nhello\0' -t dst
raw "-t file onto new name" 'C0600 5 f\nhello\0' -t dst/new
raw "-t -p times and mode" 'T1500000000 0 1500000100 0\nC0751 3 f\nabc\0' -p -t dst
raw "-t -r dir with a file, -p" 'T1500000000 0 1500000100 0\nD0750 0 d\nT1400000000 0 1400000100 0\nC0640 2 x\nhi\0E\n' -r -p -t dst
raw "-t -r nested dirs" 'D0755 0 d\nD0700 0 e\nC0644 1 y\nz\0E\nE\n' -r -t dst
raw "-t over an existing file keeps its mode" 'C0600 3 exec.sh\nabc\0' -t src
raw "-t empty file" 'C0644 0 e\n\0' -t dst
raw "-t error from the source" '\1scp: a: No such file or directory\nC0644 1 b\nx\0' -t dst
raw "-t fatal from the source" '\2scp: bye\n' -t dst
raw "-t name with a slash" 'C0644 1 ../x\nx\0' -t dst
raw "-t name .." 'D0755 0 ..\nE\n' -r -t dst
raw "-t empty name" 'C0644 1 \nx\0' -t dst
raw "-t directory without -r" 'D0755 0 d\nE\n' -t dst
raw "-t bad mode" 'C755 2 x\nhi\0' -t dst
raw "-t size out of range" 'C0644 99999999999999999999 x\n' -t dst
raw "-t bad T record" 'T1 0 x 0\n' -t dst
raw "-t not a record first" 'No match.\n' -t dst
raw "-t not a record later" 'C0644 1 a\nx\0junk\n' -t dst
raw "-t unexpected newline" '\n' -t dst
raw "-t data cut short" 'C0644 100 f\nabc' -t dst
raw "-t -d onto a file" 'C0644 1 a\nx\0' -d -t src/small.txt
raw "-t ambiguous target" '' -t dst src
raw "-t into a file name that is a directory" 'C0644 1 sub\nx\0' -t src
raw "-t -r directory onto a file" 'D0755 0 small.txt\nE\n' -r -t src
raw "-t -v -r -p" 'T1500000000 0 1500000100 0\nD0750 0 d\nC0640 2 x\nhi\0E\n' -v -r -p -t dst
raw "-f -v -r -p" "$(printf '\\0%.0s' $(seq 200))" -v -r -p -f src/sub
raw "-f one file" '\0\0\0' -f src/small.txt
raw "-f -p file" '\0\0\0\0' -p -f src/exec.sh
raw "-f several, one missing" '\0\0\0\0\0\0\0' -f src/small.txt src/missing src/empty
raw "-f directory without -r" '\0' -f src/sub
raw "-f -r -p tree" "$(printf '\\0%.0s' $(seq 200))" -r -p -f src
raw "-f the sink refuses" '\0\1scp: no\n' -f src/small.txt
raw "-f the sink goes away" '\0' -f src/small.txt

SCP=$FSCP_WORK/bin/scp-with-scp
FSCP=$FSCP_WORK/bin/scp-with-fscp
cases "scp to fscp -t/-f"
FSCP=$FSCP_WORK/bin/fscp-with-fscp
cases "fscp to fscp -t/-f"

checks_done

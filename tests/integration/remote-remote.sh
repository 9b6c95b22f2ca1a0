#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: remote to remote through the local host (the default and -3),
# SFTP mode.  The test sshd answers as fscp-test and fscp-test2 (two host
# aliases, two connections), so source and destination are the same home.
# One file, several files into a directory, -r (also onto a new name and
# with symlinks), -p, a glob, a missing source, a target that is not a
# directory with several sources, scp:// URIs on both sides, a local source
# among remote ones, -l, the progress meter and -q on a tty, a shorter file
# over a longer one, a directory in the way, the source's connection
# ending while a -r tree is listed; and (fscp alone) a file copied onto
# itself keeps its content.
# Exit 0 pass, 1 fail, 99 cannot run.
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
	fscp_put_file "$SSHD_HOME/dst/file" 1000
}
setup_same_name() {
	setup
	fscp_put_file src/x 1000
	fscp_put_file "$SSHD_HOME/src/x" 77
}
setup_dir_in_way() {
	setup
	mkdir -p "$SSHD_HOME/dst/src/small.txt" "$SSHD_HOME/dst/exec.sh"
}
setup_longer_target() {
	setup
	fscp_put_file "$SSHD_HOME/dst/small.txt" 300000 0600
}

A=fscp-test B=fscp-test2

# -S ssh-cut: ssh, but the source's (fscp-test's) SFTP stream from the
# server ends after CUT bytes: the wrapper exits in the middle of a reply,
# while the copy waits for the rest of it, so both programs meet the end as
# a read (scp's fatal "Connection closed", 255), never as a write to a dead
# ssh (SIGPIPE, "lost connection", 1).  It passes on only what comes in
# before the cut; ssh itself ends when its input does.
mkdir -p "$FSCP_WORK/bin"
cat >"$FSCP_WORK/bin/ssh-cut" <<SH
#!$FSCP_PY
import os, select, subprocess, sys
CUT = 80000
args = sys.argv[1:]
if "$A" not in args:
    os.execvp("ssh", ["ssh"] + args)
p = subprocess.Popen(["ssh"] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
to_ssh, from_ssh = p.stdin.fileno(), p.stdout.fileno()
left = CUT
while left > 0:
    r = select.select([0, from_ssh], [], [])[0]
    if 0 in r:
        b = os.read(0, 65536)
        if not b:
            break
        os.write(to_ssh, b)
    if from_ssh in r:
        b = os.read(from_ssh, min(left, 65536))
        if not b:
            break
        os.write(1, b)
        left -= len(b)
os._exit(0)
SH
chmod +x "$FSCP_WORK/bin/ssh-cut"
# A directory whose listing alone is ~200 KB (400 names of 204 bytes, each
# twice in a NAME entry, ~100 entries a reply): the cut at 80000 bytes falls
# inside its second READDIR reply for both programs, whatever few hundred
# bytes each asks for before (version, limits, stat, realpath).  The copy's
# target directory is made before the listing, by both.
setup_long_listing() {
	local pad i
	pad=$(printf '%0200d' 0)
	mkdir -p "$SSHD_HOME/src/big" "$SSHD_HOME/dst"
	for i in $(seq 1000 1399); do : >"$SSHD_HOME/src/big/$i$pad"; done
}

fscp_compare --name "one file into dir" --setup setup --expect-rc 0 -- $A:src/small.txt $B:dst/
fscp_compare --name "one file onto a new name" --setup setup --expect-rc 0 -- $A:src/exec.sh $B:dst/new
fscp_compare --name "-3 one file" --setup setup --expect-rc 0 -- -3 $A:src/small.txt $B:dst/
fscp_compare --name "empty file" --setup setup --expect-rc 0 -- $A:src/empty $B:dst/
fscp_compare --name "several files into dir" --setup setup --expect-rc 0 -- $A:src/small.txt $A:src/empty "$A:src/with space.txt" "$A:src/odd mode" $B:dst
fscp_compare --name "several sources, target is a file" --setup setup_file_target --expect-rc 1 -- $A:src/small.txt $A:src/exec.sh $B:dst/file
fscp_compare --name "several sources, target missing" --setup setup --expect-rc 1 -- $A:src/small.txt $A:src/exec.sh $B:dst/nodir
fscp_compare --name "missing source among others" --setup setup --expect-rc 1 -- $A:src/small.txt $A:src/nope $A:src/exec.sh $B:dst/
fscp_compare --name "glob" --setup setup --expect-rc 0 -- "$A:src/*.txt" $B:dst/
fscp_compare --name "glob, no match" --setup setup --expect-rc 1 -- "$A:src/*.nomatch" $B:dst/
fscp_compare --name "dir without -r" --setup setup --expect-rc 1 -- $A:src/sub $B:dst/
fscp_compare --name "-r into dir" --setup setup --expect-rc 0 -- -r $A:src $B:dst
fscp_compare --name "-r onto a new name" --setup setup --expect-rc 0 -- -r $A:src/sub $B:dst/copy
fscp_compare --name "-r glob of dirs and files" --setup setup --expect-rc 0 -- -r "$A:src/*" $B:dst/
fscp_compare --name "-r with symlinks" --setup setup_links --expect-rc 1 -- -r $A:src $B:dst/
fscp_compare --name "-r, a directory in the way of a file" --setup setup_dir_in_way --expect-rc 1 -- -r $A:src $B:dst/
fscp_compare --name "a directory in the way, several files" --setup setup_dir_in_way --expect-rc 1 -- $A:src/small.txt $A:src/exec.sh "$A:src/odd mode" $B:dst/
fscp_compare --name "-r dir onto an existing file" --setup setup_file_target --expect-rc 1 -- -r $A:src/sub $B:dst/file
fscp_compare --name "-p one file" --times --setup setup --expect-rc 0 -- -p $A:src/exec.sh $B:dst/
fscp_compare --name "-rp tree" --times --setup setup --expect-rc 0 -- -rp $A:src $B:dst/
fscp_compare --name "scp:// URIs on both sides" --setup setup --expect-rc 0 -- "scp://$A/src/small.txt" "scp://$B/dst/"
fscp_compare --name "scp:// URIs with port, absolute path" --setup setup --expect-rc 0 -- "scp://$A:{PORT}//{HOME}/src/exec.sh" "scp://root@$B:{PORT}/dst/"
fscp_compare --name "home (~) paths" --setup setup --expect-rc 0 -- "$A:~/src/small.txt" "$B:~/dst/"
fscp_compare --name "a local source among remote ones" --setup setup --expect-rc 0 -- $A:src/small.txt src/exec.sh "$A:src/with space.txt" $B:dst/
fscp_compare --name "local then remote source, same name" --setup setup_same_name --expect-rc 0 -- src/x $A:src/x $B:dst/
fscp_compare --name "remote then local source, same name" --setup setup_same_name --expect-rc 0 -- $A:src/x src/x $B:dst/
fscp_compare --name "shorter file over a longer one (mode kept)" --setup setup_longer_target --expect-rc 0 -- $A:src/small.txt $B:dst/
fscp_compare --name "-l 80000 (limit)" --setup setup --expect-rc 0 -- -l 80000 $A:src/sub/deeper/b.bin $B:dst/
fscp_compare --tty --name "progress meter on a tty" --setup setup --expect-rc 0 -- $A:src/small.txt $A:src/empty "$A:src/odd mode" $B:dst/
fscp_compare --tty --name "-q on a tty: no output" --setup setup --expect-rc 0 -- -q -r $A:src $B:dst/
fscp_compare --name "bad user name on the source" --setup setup --expect-rc 1 -- "bad'user@$A:src/small.txt" $B:dst/
# fscp plans the whole tree before it copies (scp copies as it lists): its
# planning meets the dead source and ends as scp does.  Either of scp's two
# outcomes of a dead ssh is allowed, as elsewhere (the cut makes it 255 in
# practice); the words are compared exactly.
fscp_compare --name "-r, the source's connection ends while it is listed" --setup setup_long_listing --expect-rc '255|1' -- -r -S "$FSCP_WORK/bin/ssh-cut" $A:src/big $B:dst/
# (A host that is down is not compared: scp 9.2 races its dead ssh, and
# exits 255 "Connection closed" or 1 "lost connection" when its first write
# meets SIGPIPE; fscp always says the former.)

# Not a comparison: scp 9.2 opens the target with TRUNC and so empties a
# file copied onto itself; fscp writes in place and keeps it.
fscp_put_tree "$SSHD_HOME/src"
want=$(md5sum <"$SSHD_HOME/src/odd mode")
if "$FSCP" -F "$SSH_CONFIG" "$A:src/odd mode" "$B:src/odd mode" </dev/null &&
	[ "$(md5sum <"$SSHD_HOME/src/odd mode")" = "$want" ]; then
	ok "a file copied onto itself keeps its content"
else
	bad "a file copied onto itself lost its content"
fi
rm -rf "$SSHD_HOME/src"

checks_done

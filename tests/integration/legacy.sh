#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp -O vs fscp -O: the legacy SCP protocol as a client, against the real
# sshd and the remote's /usr/bin/scp.  Up, down, -r, -p, several sources,
# globs and spaces (the remote shell sees the path unquoted), -q, -l, -d, and
# the errors: a missing source, a directory without -r, targets that are not
# directories.  In legacy mode the remote command runs in the login user's
# home, not in the SFTP root ($SSHD_HOME): remote paths are absolute here.
. "$(dirname "$0")/../lib/compare.sh"
. "$(dirname "$0")/../lib/legacy-lib.sh"
fscp_test_init


R=fscp-test:{HOME}
# An ssh whose remote has no scp: the shell's complaint, then EOF.
mkdir -p "$FSCP_WORK/bin"
cat >"$FSCP_WORK/bin/no-scp" <<'SH'
#!/bin/bash
echo "bash: line 1: scp: command not found" >&2
exit 127
SH
chmod +x "$FSCP_WORK/bin/no-scp"
fscp_compare --name "-O upload file" --setup fscp_setup_trees --expect-rc 0 -- -O src/small.txt $R/dst/
fscp_compare --name "-O upload file onto new name" --setup fscp_setup_trees --expect-rc 0 -- -O src/small.txt $R/dst/new
fscp_compare --name "-O upload 1 MiB file" --setup fscp_setup_trees --expect-rc 0 -- -O src/sub/deeper/b.bin $R/dst/
fscp_compare --name "-O upload empty file" --setup fscp_setup_trees --expect-rc 0 -- -O src/empty $R/dst/
fscp_compare --name "-O upload over existing (mode kept, size cut)" --setup legacy_setup_existing --expect-rc 0 -- -O src/small.txt $R/dst/
fscp_compare --name "-O upload several sources" --setup fscp_setup_trees --expect-rc 0 -- -O src/small.txt src/exec.sh "src/with space.txt" src/readonly $R/dst/
fscp_compare --name "-O upload -r" --setup fscp_setup_trees --expect-rc 0 -- -O -r src $R/dst/
fscp_compare --times --name "-O upload -r -p" --setup fscp_setup_trees --expect-rc 0 -- -O -r -p src $R/dst/
fscp_compare --times --name "-O upload -p file" --setup fscp_setup_trees --expect-rc 0 -- -O -p src/exec.sh $R/dst/
fscp_compare --name "-O upload -r onto new name" --setup fscp_setup_trees --expect-rc 0 -- -O -r src/sub $R/dst/newsub
fscp_compare --name "-O upload -q -l" --setup fscp_setup_trees --expect-rc 0 -- -O -q -l 80000 src/small.txt $R/dst/
fscp_compare --name "-O upload missing source among others" --setup fscp_setup_trees --expect-rc 1 -- -O src/small.txt src/missing src/exec.sh $R/dst/
fscp_compare --name "-O upload directory without -r" --setup fscp_setup_trees --expect-rc 1 -- -O src/sub src/small.txt $R/dst/
fscp_compare --name "-O upload several into a file" --setup legacy_setup_existing --expect-rc 1 -- -O src/small.txt src/exec.sh $R/dst/file
fscp_compare --name "-O upload into missing remote dir" --setup fscp_setup_trees --expect-rc 1 -- -O src/small.txt $R/nodir/
fscp_compare --name "-O upload -r dir onto file" --setup legacy_setup_existing --expect-rc 1 -- -O -r src/sub $R/dst/file
fscp_compare --name "-O upload, remote target with a space" --setup fscp_setup_trees --expect-rc 1 -- -O src/small.txt "$R/dst/a b"

fscp_compare --tty --name "-O upload, progress meter" --setup fscp_setup_trees --expect-rc 0 -- -O src/sub/deeper/b.bin src/empty $R/dst/
fscp_compare --tty --name "-O download -r, progress meter" --setup fscp_setup_trees --expect-rc 0 -- -O -r $R/src/sub dst/
fscp_compare --tty --name "-O download -q, no meter" --setup fscp_setup_trees --expect-rc 0 -- -O -q $R/src/small.txt dst/
fscp_compare --name "-O download file" --setup fscp_setup_trees --expect-rc 0 -- -O $R/src/small.txt dst/
fscp_compare --name "-O download onto new name" --setup fscp_setup_trees --expect-rc 0 -- -O $R/src/small.txt dst/new
fscp_compare --name "-O download over existing (mode kept)" --setup legacy_setup_existing --expect-rc 0 -- -O $R/src/small.txt dst/
fscp_compare --name "-O download several sources" --setup fscp_setup_trees --expect-rc 0 -- -O $R/src/small.txt $R/src/exec.sh $R/src/empty dst/
fscp_compare --name "-O download glob" --setup fscp_setup_trees --expect-rc 0 -- -O "$R/src/*.txt" dst/
fscp_compare --name "-O download brace pattern" --setup fscp_setup_trees --expect-rc 0 -- -O "$R/src/{small.txt,exec.sh}" dst/
fscp_compare --name "-O download -r" --setup fscp_setup_trees --expect-rc 0 -- -O -r $R/src dst/
fscp_compare --times --name "-O download -r -p" --setup fscp_setup_trees --expect-rc 0 -- -O -r -p $R/src dst/
fscp_compare --times --name "-O download -p file" --setup fscp_setup_trees --expect-rc 0 -- -O -p $R/src/exec.sh dst/
fscp_compare --name "-O download -r onto new name" --setup fscp_setup_trees --expect-rc 0 -- -O -r $R/src/sub dst/newsub
fscp_compare --name "-O download -q -l" --setup fscp_setup_trees --expect-rc 0 -- -O -q -l 80000 $R/src/small.txt dst/
fscp_compare --name "-O download -T" --setup fscp_setup_trees --expect-rc 0 -- -O -T $R/src/small.txt dst/
fscp_compare --name "-O download missing source among others" --setup fscp_setup_trees --expect-rc 1 -- -O $R/src/small.txt $R/src/missing $R/src/exec.sh dst/
fscp_compare --name "-O download directory without -r" --setup fscp_setup_trees --expect-rc 1 -- -O $R/src/sub $R/src/small.txt dst/
fscp_compare --name "-O download name with a space (split remotely)" --setup fscp_setup_trees --expect-rc 1 -- -O "$R/src/with space.txt" dst/
fscp_compare --name "-O download glob with no match" --setup fscp_setup_trees --expect-rc 1 -- -O "$R/src/*.nomatch" dst/
fscp_compare --name "-O download into missing local dir" --setup fscp_setup_trees --expect-rc 1 -- -O $R/src/small.txt $R/src/exec.sh nodir
fscp_compare --name "-O download -r dir onto file" --setup legacy_setup_existing --expect-rc 1 -- -O -r $R/src/sub dst/file
fscp_compare --name "-O download, mixed local and remote sources" --setup fscp_setup_trees --expect-rc 0 -- -O src/exec.sh $R/src/small.txt dst/
fscp_compare --name "-O download, invalid brace pattern" --setup fscp_setup_trees --expect-rc 255 -- -O "$R/src/x{a" dst/

# ssh fails: scp -O says "lost connection" after ssh's own message, exit 1.
DEAD_PORT=$(fscp__free_port)
fscp_compare --name "-O upload, dead server" --expect-rc 1 --setup fscp_setup_trees -- -O -P "$DEAD_PORT" src/small.txt $R/dst/
fscp_compare --name "-O upload, -S program missing" --expect-rc 1 --setup fscp_setup_trees -- -O -S "$FSCP_WORK/bin/nonexistent" src/small.txt $R/dst/
# scp's sink writes its first ack to the ssh that could not run (or not
# connect): whether that write sees the socket closed ("lost connection")
# races the child's exit, in scp as in fscp (a loaded machine showed both).
# The status and the trees are compared.
fscp_compare --name "-O download, dead server" --expect-rc 1 --no-stderr --setup fscp_setup_trees -- -O -P "$DEAD_PORT" $R/src/small.txt $R/src/exec.sh dst/
fscp_compare --name "-O download, -S program missing" --expect-rc 1 --no-stderr --setup fscp_setup_trees -- -O -S "$FSCP_WORK/bin/nonexistent" $R/src/small.txt dst/
fscp_compare --name "-O -r upload, remote scp missing" --expect-rc 1 --setup fscp_setup_trees -- -O -r -S "$FSCP_WORK/bin/no-scp" src fscp-test:/x

# The same over a bypass: FSCP_ROUTE=bypass makes fscp speak to the remote
# scp over a libssh exec channel (scp ignores the variable).  The remote's
# stderr must still reach ours, its exit status still count.
export FSCP_ROUTE=bypass
fscp_compare --name "bypass: -O upload several" --setup fscp_setup_trees --expect-rc 0 -- -O src/small.txt src/exec.sh "src/with space.txt" $R/dst/
fscp_compare --times --name "bypass: -O upload -r -p" --setup fscp_setup_trees --expect-rc 0 -- -O -r -p src $R/dst/
fscp_compare --name "bypass: -O upload missing source" --setup fscp_setup_trees --expect-rc 1 -- -O src/missing src/small.txt $R/dst/
fscp_compare --name "bypass: -O upload into missing remote dir" --setup fscp_setup_trees --expect-rc 1 -- -O src/small.txt $R/nodir/
fscp_compare --name "bypass: -O download several" --setup fscp_setup_trees --expect-rc 0 -- -O $R/src/small.txt $R/src/exec.sh dst/
fscp_compare --times --name "bypass: -O download -r -p" --setup fscp_setup_trees --expect-rc 0 -- -O -r -p $R/src dst/
fscp_compare --name "bypass: -O download glob" --setup fscp_setup_trees --expect-rc 0 -- -O "$R/src/*.txt" dst/
fscp_compare --name "bypass: -O download missing and dir" --setup fscp_setup_trees --expect-rc 1 -- -O $R/src/missing $R/src/sub $R/src/small.txt dst/
fscp_compare --name "bypass: -O remote stderr (-v remote messages)" --no-stderr --setup fscp_setup_trees --expect-rc 0 -- -O -v $R/src/small.txt dst/
# It did take the bypass, and the remote's -v lines came through it.
(cd "$FSCP_WORK/L" && fscp_setup_trees)
out=$(cd "$FSCP_WORK/L" && "$FSCP" -v -O -F "$SSH_CONFIG" "fscp-test:$SSHD_HOME/src/small.txt" dst/ 2>&1 </dev/null)
unset FSCP_ROUTE
for want in "legacy protocol over a libssh exec channel: scp -v -f $SSHD_HOME/src/small.txt" "Sending file modes: C0644 1000 small.txt" "Sink: C0644 1000 small.txt"; do
	if [[ $out == *"$want"* ]]; then
		ok "bypass -v shows '$want'"
	else
		bad "bypass -v does not show '$want'; it printed:"
		printf '%s\n' "$out" | head -20
	fi
done
fscp__empty_dir "$FSCP_WORK/L"
fscp__empty_dir "$SSHD_HOME"

checks_done

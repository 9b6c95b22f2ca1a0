#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Hostile and broken SFTP servers (issue 8).  -D runs a program as the SFTP
# server, with no ssh in between, so tests/tools/hostile-sftp (python3) plays a
# server that misbehaves in one way per case: names with '/', '..' or an
# absolute path in READDIR, a 2 GiB packet length, a status code 0xffffffff,
# a string length past its packet, an oversized handle, wrong request ids,
# READ replies out of order, short, empty or overlong DATA, an empty first
# READ, endless listings, EOF before the announced size, a size of 1 TiB,
# set-id modes and extreme times with -p, no VERSION, and a server that dies
# mid-download or mid-upload.
#
# For each case fscp (argv[0] "scp") must end within the time limit with the
# expected exit status and message, leave no server process behind, write
# nothing outside its target and nothing that looks complete when it is not.
# /usr/bin/scp -D runs on the same server too; its exit status is asserted
# where scp ends cleanly, and only printed where scp itself hangs (empty DATA,
# endless listings), leaves a wrong file with status 0 (short DATA), accepts
# what fscp refuses (a handle over SFTP's 256 bytes) or varies by timing.
# No sshd needed.  Exit 99 when python3 is missing.
set -u
. "$(dirname "$0")/../lib/checks.sh" || exit 99
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
FSCP=${FSCP:?FSCP must name the fscp binary}
SCP=${SCP:-/usr/bin/scp}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || { echo "HARD ERROR: python3 needed" >&2; exit 99; }
[ -x "$SCP" ] || { echo "HARD ERROR: $SCP missing" >&2; exit 99; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fscp-hostile.XXXXXX") || exit 99
trap 'rm -rf "$WORK"' EXIT
# The server is copied into WORK so its processes are ours alone to look for.
SERVER=$WORK/hostile-sftp
cp "$srcdir/tests/tools/hostile-sftp" "$SERVER" && chmod +x "$SERVER" || exit 99
SIZE=262144
"$PY" -c "import sys; sys.stdout.buffer.write(bytes((i * 7 + 3) & 255 for i in range($SIZE)))" >"$WORK/pattern" || exit 99
head -c 300000 /dev/urandom >"$WORK/up.bin"

# Run $1 (fscp or scp) as "scp -D server ARGS" in a fresh WORK/run/a/b/c, so
# a '../..' escape lands inside WORK/run where the file check sees it.
# How long fscp may take before it counts as hung: a ThreadSanitizer build
# (.ci/run) reads the 4 Mi names of an endless listing several times slower.
HANG_S=${FSCP_HANG_S:-30}

# Sets rc, err (stderr text) and files (every file under WORK/run, with size).
run_side() {
	local prog=$1 limit=$2
	shift 2
	rm -rf "$WORK/run"
	mkdir -p "$WORK/run/a/b/c/dst"
	cp "$WORK/up.bin" "$WORK/run/a/b/c/up.bin"
	rc=0
	(cd "$WORK/run/a/b/c" && HOSTILE_SFTP=$mode HOSTILE_SFTP_ABS=$WORK/run/abs-escape \
		HOSTILE_SFTP_SIZE=$SIZE timeout -k 5 "$limit" \
		bash -c 'exec -a scp "$0" "$@"' "$prog" -D "$SERVER" "$@" \
		</dev/null >"$WORK/out" 2>"$WORK/err") || rc=$?
	err=$(cat "$WORK/err")
	files=$(cd "$WORK/run" && find . -type f ! -path ./a/b/c/up.bin -printf '%P:%s\n' | sort | tr '\n' ' ')
}

# No process of this test's server may outlive fscp.
no_leftover_server() {
	local n=0
	while pgrep -f "$SERVER" >/dev/null; do
		n=$((n + 1))
		[ "$n" -ge 20 ] && return 1
		sleep 0.1
	done
	return 0
}

# hcase NAME MODE RC ERR FILES [--scp-rc N | --scp-info] -- ARGS...
#   RC     fscp's exit status; ERR a fixed string its stderr must contain ("" none)
#   FILES  the exact files left under the run dir ("path:size ..." sorted),
#          "pattern" meaning dst/f.bin must equal the server's whole file
#   --scp-rc N   scp must exit N on the same server; --scp-info: print only
#   --stat "MODE ATIME MTIME"  what stat -c '%a %X %Y' must say of dst/f.bin
hcase() {
	name=$1 mode=$2
	local want_rc=$3 want_err=$4 want_files=$5 scp_rc= scp_info=0 want_stat=
	shift 5
	while [ "$1" != -- ]; do
		case $1 in
		--scp-rc) scp_rc=$2; shift 2 ;;
		--scp-info) scp_info=1; shift ;;
		--stat) want_stat=$2; shift 2 ;;
		esac
	done
	shift
	local broken=0 t0=$SECONDS
	run_side "$FSCP" "$HANG_S" "$@"
	local took=$((SECONDS - t0))
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		bad "$name: fscp hung (killed after $HANG_S s)"; broken=1
	elif [ "$rc" -ne "$want_rc" ]; then
		bad "$name: fscp exit $rc, want $want_rc; stderr: $err"; broken=1
	fi
	# Before the content check below, whose read would move the atime.
	if [ -n "$want_stat" ]; then
		local have_stat
		have_stat=$(stat -c '%a %X %Y' "$WORK/run/a/b/c/dst/f.bin" 2>&1)
		[ "$have_stat" = "$want_stat" ] || { bad "$name: dst/f.bin mode atime mtime: $have_stat, want $want_stat"; broken=1; }
	fi
	if [ -n "$want_err" ] && [[ $err != *"$want_err"* ]]; then
		bad "$name: stderr lacks '$want_err': $err"; broken=1
	fi
	if [ "$want_files" = pattern ]; then
		if ! cmp -s "$WORK/run/a/b/c/dst/f.bin" "$WORK/pattern" || [ "$files" != "a/b/c/dst/f.bin:$SIZE " ]; then
			bad "$name: want exactly dst/f.bin with the server's content, have: $files"; broken=1
		fi
	elif [ "$files" != "$want_files" ]; then
		bad "$name: files left: '$files', want '$want_files'"; broken=1
	fi
	no_leftover_server || { bad "$name: server process left running"; broken=1; }
	local fscp_line="fscp exit $rc in ${took}s: ${err//$'\n'/ | }"
	if [ -n "$scp_rc" ] || [ "$scp_info" = 1 ]; then
		local lim=30
		[ "$scp_info" = 1 ] && lim=5
		run_side "$SCP" "$lim" "$@"
		# A server scp left hanging ends on its own (EOF or EPIPE).
		no_leftover_server || { bad "$name: scp's server process left running"; broken=1; }
		if [ -n "$scp_rc" ] && [ "$rc" -ne "$scp_rc" ]; then
			bad "$name: scp exit $rc, want $scp_rc (test assumption wrong?)"; broken=1
		fi
		fscp_line="$fscp_line; scp: $([ "$rc" -eq 124 ] && echo "hangs (killed after ${lim}s)" || echo "exit $rc, files: $files")"
	fi
	[ "$broken" = 0 ] && ok "$name: $fscp_line"
	return 0
}

F=a/b/c/dst
hcase "control: download" good 0 "" pattern --scp-rc 0 -- x:/h/f.bin dst/
hcase "control: -r download" good 0 "" "$F/dir/ok.txt:30 " --scp-rc 0 -- -r x:/h/dir dst/
hcase "control: upload" good 0 "" "" --scp-rc 0 -- up.bin x:/h/up/
hcase "READDIR names with / .. absolute, -r" names 1 "Server sent suspect path \"sub/x\" during readdir of \"/h/dir\"" "$F/dir/ok.txt:30 " --scp-rc 1 -- -r x:/h/dir dst/
hcase "READDIR names with / .. absolute, glob" names 0 "" "$F/ok.txt:30 " --scp-info -- 'x:/h/dir/*' dst/
hcase "packet length 2 GiB" biglen 255 "Connection closed" "" --scp-rc 255 -- x:/h/f.bin dst/
hcase "wrong id on STAT" badid 255 "Connection closed" "" --scp-rc 255 -- x:/h/f.bin dst/
# A protocol violation in the data phase gives the connection up (others,
# if any, take its pieces); with none left, scp's fatal() words and 255.
hcase "wrong id on READ, as scp" badid-read 255 "Unexpected reply" "$F/f.bin:0 " --scp-rc 255 -- x:/h/f.bin dst/
hcase "DATA longer than asked, as scp" longdata 255 "Received more data than asked for" "$F/f.bin:0 " --scp-rc 255 -- x:/h/f.bin dst/
# Legal but unusual: replies matched by id, not order.  (scp 9.2 stops at the
# EOF that overtakes earlier DATA and keeps 32 KiB, with exit 0.)
hcase "READ replies out of order" reorder 0 "" pattern --scp-info -- x:/h/f.bin dst/
hcase "short DATA" shortdata 1 "file changed during the copy" "$F/f.bin:1000 " --scp-info -- x:/h/f.bin dst/
# Every READ empty: taken as a file that shrank to nothing (xfer.c copies
# a shrinking file as far as it goes, as scp does); scp 9.2 asks forever.
hcase "empty DATA forever" emptydata 0 "" "$F/f.bin:0 " --scp-info -- x:/h/f.bin dst/
# Only the first READ empty, data after it: a hole, never a success.  (The
# hole at offset 0 once went unnoticed: exit 0 with an empty file.)
hcase "first READ empty, the rest full" firstempty 1 "file changed during the copy" "$F/f.bin:0 " --scp-info -- x:/h/f.bin dst/
hcase "EOF at half the announced size" eof-early 0 "" "$F/f.bin:$((SIZE / 2)) " --scp-rc 0 -- x:/h/f.bin dst/
hcase "size announced 1 TiB, file ends at 256 KiB" hugesize 0 "" pattern --scp-rc 0 -- x:/h/f.bin dst/
# The read past the listed size (fscp's probe: small for a small file) finds
# more: scp reads to end of file, so the copy is the whole 256 KiB.
hcase "size announced 1000 bytes, the file grew to 256 KiB" grown 0 "" pattern --scp-rc 0 -- x:/h/f.bin dst/
# -p with mode 06777 and extreme times: set-id bits dropped, times as sent (as scp).
hcase "-p, mode 06777, times 0 and 2^32-1" badattrs 0 "" pattern --stat "777 0 4294967295" --scp-rc 0 -- -p x:/h/f.bin dst/
hcase "endless listing, fresh names" endless 1 "remote readdir \"/h/dir\" failed" "" --scp-info -- -r x:/h/dir dst/
hcase "endless listing, same names" endless-same 1 "remote readdir \"/h/dir\" failed" "" --scp-info -- -r x:/h/dir dst/
# A status code past INT_MAX once read as sftp.c's -1 ("connection failed").
hcase "status code 0xffffffff on STAT" bigstatus 1 "scp: /h/f.bin: No such file or directory" "" --scp-rc 1 -- x:/h/f.bin dst/
hcase "status code 0xffffffff, -r" bigstatus 1 "scp: /h/dir: No such file or directory" "" --scp-rc 1 -- -r x:/h/dir dst/
hcase "READDIR name length past the packet" badstr 255 "Connection closed" "" --scp-rc 255 -- -r x:/h/dir dst/
# SFTP limits handles to 256 bytes; fscp refuses a longer one, scp 9.2 uses it.
hcase "4000-byte handle" bighandle 1 "lost connection" "" --scp-info -- x:/h/f.bin dst/
# OpenSSH's client ends a listing at an empty NAME batch; fscp did not, and waited forever.
hcase "endless listing, empty batches" endless-empty 0 "" "" --scp-rc 0 -- -r x:/h/dir dst/
hcase "no VERSION" noversion 255 "Connection closed" "" --scp-rc 255 -- x:/h/f.bin dst/
# scp's own result for a dying server depends on timing: 255 ("Connection
# closed", "Couldn't send packet") when it reads the end first, 1 ("lost
# connection", its SIGPIPE handler) when a write hits the closed pipe first;
# so print only.  fscp: "lost connection", 1, after its one reconnect.
hcase "server dies mid-download" die-read 1 "lost connection" "$F/f.bin:65536 " --scp-info -- x:/h/f.bin dst/
hcase "server dies mid-upload" die-write 1 "lost connection" "" --scp-info -- up.bin x:/h/up/
hcase "server dies mid -r upload" die-write 1 "lost connection" "" --scp-info -- -r up.bin x:/h/up/

checks_done

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# A copy survives what it can survive, and otherwise ends as scp ends.
# Against a private sshd on 127.0.0.1; the copies are slowed with -l so a
# fault lands mid-copy.  Each run has a time bound (a hang fails), and
# after each one no process fscp started is left.
#   - one of four connections killed mid-upload, mid-download, mid -r:
#     exit 0, the destination identical, -v names the connection that
#     failed and the one that took its pieces;
#   - every connection killed while sshd still accepts: the one fresh
#     reconnect finishes the copy;
#   - sshd gone entirely: scp's "lost connection" and exit 1, on the
#     standard route and on the bypass, the same as scp; what is left of a
#     download is a prefix of the source, never its full size with holes;
#   - a remote source that shrinks, grows or vanishes during a four-way
#     download, and a local one during an upload: what scp gives (a file
#     that grew is copied whole; one that shrank leaves a prefix, exit 0);
#   - SIGINT, SIGTERM, SIGHUP during a copy: exit 1 as scp, no child left.
# Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcroot=$(cd "$here/../.." && pwd)
: "${FSCP:=$PWD/src/fscp}"
SCP=${SCP:-/usr/bin/scp}
[ -x "$FSCP" ] || { echo "survive.sh: FSCP=$FSCP not built" >&2; exit 99; }
FSCP=$(cd "$(dirname "$FSCP")" && pwd)/$(basename "$FSCP")
# shellcheck source=../lib/sshd.sh
. "$srcroot/tests/lib/sshd.sh" || exit 99
W=$(mktemp -d /tmp/fscp-survive.XXXXXX) || exit 99
trap 'fscp_sshd_stop; rm -rf "$W"' EXIT
fscp_sshd_start "$W/sshd" || exit 99
H=$SSHD_HOME
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT
cd "$W" || exit 99

# shellcheck source=../lib/checks.sh
. "$srcroot/tests/lib/checks.sh" || exit 99
# shellcheck source=../lib/wait.sh
. "$srcroot/tests/lib/wait.sh" || exit 99

head -c $((32 << 20)) /dev/urandom >src.bin
mkdir -p tree
for i in 1 2 3 4 5 6 7 8; do head -c $((3 << 20)) /dev/urandom >"tree/f$i"; done
# 32 MiB at 80 Mbit/s: about 3.4 s, over all connections together.
LIMIT=80000

# The sshd processes serving one connection each (its listener's children).
sessions() { pgrep -P "$SSHD_PID"; }
# One of this copy's connections (not an earlier case's still closing),
# killed SECONDS after -v says all are up: under load a kill at a fixed
# time can land in a login, and then no connection has work to hand over.
# Call it with $W/err emptied, before run() starts the copy; $bg is the job.
kill_one_session() { fscp_sshd_kill_new_session "$1" "$W/err" "connections ready in"; }
kill_sessions() { wait_bytes "$1" $((2 << 20)); for p in $(sessions); do kill "$p" 2>/dev/null; done; }
# Run PROG ARGS... in its own session with a time bound, stderr to $W/err,
# its exit status in $rc; afterwards nothing it started may be left.
run() {
	local prog=$1
	shift
	setsid -w timeout -k 5 90 "$prog" -F "$SSH_CONFIG" -q "$@" \
		</dev/null >"$W/out" 2>"$W/err"
	rc=$?
	if ! no_leftovers; then
		bad "$name: a process it started is still running"
		pgrep -af -- "-F $SSH_CONFIG" | head -5
	fi
}
# Every ssh fscp or scp starts here is given this test's config (other
# tests may run at the same time).
no_leftovers() {
	local n=0
	while pgrep -f -- "-F $SSH_CONFIG" >/dev/null; do
		n=$((n + 1))
		[ "$n" -gt 20 ] && return 1
		sleep 0.1
	done
}
prefix_of() { # FILE SOURCE: FILE is a prefix of SOURCE (maybe all of it)
	local n
	n=$(stat -c %s "$1") || return 1
	[ "$n" -le "$(stat -c %s "$2")" ] && cmp -s -n "$n" "$1" "$2"
}
# What -v said about the connections, after a failed check.
show_conns() { grep -E "connection|ready|route" "$W/err" | head -30; }
took_over() {
	grep -q "connection [0-9]* failed" "$W/err" && grep -q "takes over" "$W/err"
}

export FSCP_ROUTE=bypass FSCP_CONNECTIONS=4

# --- one of four connections dies ---------------------------------------
name="one of 4 connections killed mid-upload"
rm -f "$H/dst.bin"
: >"$W/err"
kill_one_session 0.5
run "$FSCP" -v -l $LIMIT src.bin fscp-test:dst.bin
wait "$bg"
killed=$?
check "$name" "one of its connections was killed" test "$killed" = 0
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s src.bin "$H/dst.bin"
check "$name" "-v says who failed and who took over" took_over || show_conns

name="one of 4 connections killed mid-download"
cp src.bin "$H/src.bin"
rm -f dst.bin
: >"$W/err"
kill_one_session 0.5
run "$FSCP" -v -l $LIMIT fscp-test:src.bin dst.bin
wait "$bg"
killed=$?
check "$name" "one of its connections was killed" test "$killed" = 0
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s src.bin dst.bin
check "$name" "-v says who failed and who took over" took_over || show_conns

name="one of 4 connections killed mid -r upload"
rm -rf "$H/tree"
: >"$W/err"
kill_one_session 0.5
run "$FSCP" -v -r -l $LIMIT tree fscp-test:
wait "$bg"
killed=$?
check "$name" "one of its connections was killed" test "$killed" = 0
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "tree identical" diff -r tree "$H/tree"

name="one of 4 connections killed mid -r download"
rm -rf dtree
: >"$W/err"
kill_one_session 0.5
run "$FSCP" -v -r -l $LIMIT fscp-test:tree dtree
wait "$bg"
killed=$?
check "$name" "one of its connections was killed" test "$killed" = 0
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "tree identical" diff -r tree dtree

# --- every connection dies; sshd still there: one reconnect -------------
name="every connection killed, sshd up: the reconnect finishes"
rm -f dst.bin
kill_sessions dst.bin &
bg=$!
run "$FSCP" -v -l $LIMIT fscp-test:src.bin dst.bin
wait "$bg"
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s src.bin dst.bin
check "$name" "-v says it reconnected" grep -q "one fresh connection" "$W/err"

# --- sshd gone: as scp ends ---------------------------------------------
# The listener goes first, so the reconnect cannot succeed, then its
# connections; sshd is started again afterwards.
# Once the copy has written part of FILE.
kill_sshd() {
	local kids
	wait_bytes "$1" $((2 << 20))
	kids=$(sessions)
	kill "$SSHD_PID"
	# shellcheck disable=SC2086
	kill $kids 2>/dev/null
}
# scp's own outcome races when its connection dies mid-download: writing a
# request gets SIGPIPE ("lost connection", 1), reading the reply gets EOF
# or a reset (a fatal "Read packet: ...", 255).  An upload always writes:
# there fscp must match scp exactly; a download must end in the first.
for route in standard bypass; do
	for dir in down up; do
		name="sshd gone mid-$dir, route $route"
		if [ "$dir" = down ]; then a=(fscp-test:src.bin dst.bin) d=dst.bin; else a=(src.bin fscp-test:dst.bin) d=$H/dst.bin; fi
		for prog in "$SCP" "$FSCP"; do
			rm -f "$d"
			kill_sshd "$d" &
			bg=$!
			FSCP_ROUTE=$route run "$prog" -l $LIMIT "${a[@]}"
			wait "$bg"
			eval "rc_$(basename "$prog")=\$rc"
			tr -d '\r' <"$W/err" | grep -v "closed by remote host" >"$W/err.$(basename "$prog")"
			if [ "$prog" = "$FSCP" ] && [ "$dir" = down ]; then
				check "$name" "what is left is a prefix of the source" prefix_of "$d" src.bin
			elif [ "$prog" = "$FSCP" ]; then
				# Pieces written side by side cannot be cut once the server
				# is gone: what is left is short, never complete-looking.
				check "$name" "what is left is shorter than the source" \
					test "$(stat -c %s "$d")" -lt "$(stat -c %s src.bin)"
			fi
			# The same directory again: the same home, the same keys.
			fscp_sshd_stop
			fscp_sshd_start "$W/sshd" >/dev/null || exit 99
		done
		echo "  scp: exit $rc_scp, $(cat "$W/err.scp")"
		check "$name" "exit 1 and \"lost connection\" (got $rc_fscp, $(cat "$W/err.fscp"))" \
			test "$rc_fscp" = 1 -a "$(cat "$W/err.fscp")" = "lost connection"
		if [ "$dir" = up ]; then
			# shellcheck disable=SC2154
			check "$name" "exit status $rc_fscp as scp's $rc_scp" test "$rc_fscp" = "$rc_scp"
			check "$name" "the same message as scp" cmp -s "$W/err.scp" "$W/err.fscp"
		fi
	done
done

# --- sources that change under the copy ----------------------------------
cp src.bin "$H/src.bin"
name="remote source grows during a 4-way download"
head -c $((8 << 20)) src.bin >"$H/grow.bin"
(wait_bytes grow.bin $((1 << 20)); cat src.bin >>"$H/grow.bin") &
bg=$!
run "$FSCP" -l $LIMIT fscp-test:grow.bin grow.bin
wait "$bg"
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "copied whole, as scp reads to end of file" cmp -s grow.bin "$H/grow.bin"

name="remote source shrinks during a 4-way download"
cp src.bin "$H/shrink.bin"
(wait_bytes shrink.bin $((1 << 20)); truncate -s $((8 << 20)) "$H/shrink.bin") &
bg=$!
run "$FSCP" -l $LIMIT fscp-test:shrink.bin shrink.bin
wait "$bg"
check "$name" "exit 0 as scp (got $rc)" test "$rc" = 0
check "$name" "a prefix of the source as it was, at least what is left" \
	bash -c "cmp -s -n $((8 << 20)) shrink.bin src.bin && [ \$(stat -c %s shrink.bin) -ge $((8 << 20)) ]"
cmp -s -n "$(stat -c %s shrink.bin)" shrink.bin src.bin || bad "$name: not a prefix of the source"

# scp reads the open file to its end.  fscp opens each piece by name on
# its own connection, so a piece opened after the unlink fails: a known
# difference (man page); the copy then fails cleanly and keeps a prefix.
name="remote source removed during a 4-way download"
cp src.bin "$H/gone.bin"
(wait_bytes gone.bin $((1 << 20)); rm -f "$H/gone.bin") &
bg=$!
run "$FSCP" -l $LIMIT fscp-test:gone.bin gone.bin
wait "$bg"
if [ "$rc" = 0 ]; then
	check "$name" "copied whole" cmp -s gone.bin src.bin
else
	check "$name" "exit 1 (got $rc), scp's message for a missing file" \
		bash -c "[ $rc = 1 ] && grep -q 'No such file' '$W/err'"
	check "$name" "what is left is a prefix of the source" prefix_of gone.bin src.bin
fi

name="local source grows during a 4-way upload"
head -c $((8 << 20)) src.bin >lgrow.bin
(wait_bytes "$H/lgrow.bin" $((1 << 20)); cat src.bin >>lgrow.bin) &
bg=$!
run "$FSCP" -l $LIMIT lgrow.bin fscp-test:lgrow.bin
wait "$bg"
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "copied whole" cmp -s lgrow.bin "$H/lgrow.bin"

name="local source shrinks during a 4-way upload"
cp src.bin lshrink.bin
(wait_bytes "$H/lshrink.bin" $((1 << 20)); truncate -s $((8 << 20)) lshrink.bin) &
bg=$!
run "$FSCP" -l $LIMIT lshrink.bin fscp-test:lshrink.bin
wait "$bg"
check "$name" "exit 0 as scp (got $rc)" test "$rc" = 0
check "$name" "a prefix of the source as it was" prefix_of "$H/lshrink.bin" src.bin
unset FSCP_ROUTE FSCP_CONNECTIONS

# --- signals --------------------------------------------------------------
for sig in INT TERM HUP; do
	for route in standard bypass; do
		name="SIG$sig during a copy, route $route"
		rm -f dst.bin
		FSCP_ROUTE=$route FSCP_CONNECTIONS=4 setsid -w timeout -k 5 60 \
			"$FSCP" -F "$SSH_CONFIG" -q -l $LIMIT fscp-test:src.bin dst.bin \
			</dev/null >/dev/null 2>"$W/err" &
		pid=$!
		wait_bytes dst.bin $((1 << 20))
		# The program itself (under setsid and timeout: the last exec).
		pkill -"$sig" -f "^$FSCP -F $SSH_CONFIG" 2>/dev/null
		wait "$pid"
		rc=$?
		check "$name" "exit 1 as scp (got $rc)" test "$rc" = 1
		check "$name" "no ssh left" no_leftovers
	done
done

checks_done

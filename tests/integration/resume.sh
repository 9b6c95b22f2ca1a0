#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# --resume: a copy killed at about 60% (SIGKILL to fscp, or to every sshd
# child until fscp gives up) is finished by `fscp --resume` with the same
# command line, moving only what is missing: the file is identical and the
# bytes the second run moves (counted at the server: tests/tools/count-sftp)
# are at most the missing part plus a tenth of the file.  From the same
# killed state: without --resume the whole file moves again, as with scp; a
# source whose mtime changed, a corrupt journal and a journal path that is a
# symbolic link all mean a whole copy (the last two with a warning), and
# the symlink's target is left alone.  Upload and download, on the standard
# route, on fresh connections (FSCP_ROUTE=bypass, 4 connections) and, when
# RESUME_SSM=1, through ssm-parallel sessions (the fake aws CLI).
#
# The first run is held back with -l so that it is still running when the
# journal appears (after ~5 s); the kill waits for both the journal and 60%
# of the target's blocks, polled, never timed.
#
# RESUME_SLOW=1 (make check-slow: resume-slow.sh) uses a 1 GiB sparse file
# near and 256 MiB through a 20 ms delay relay ("far"); RESUME_PART=far
# runs only the far ones.
# Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"

RS_COUNTS=$(mktemp "${TMPDIR:-/tmp}/fscp-rs-count.XXXXXX") || exit 99
export FSCP_SFTP_SERVER="$srcdir/tests/tools/count-sftp $RS_COUNTS"
fscp_test_init
trap 'rm -f "$RS_COUNTS"; fscp__cleanup' EXIT
: "${FSCP_TOOLS_BUILDDIR:=$PWD/tests/tools}"
# route_ssm_init looks for the simulator from the build directory.
: "${FSCP_SSM_SIM:=$PWD/tests/tools/ssm-sim}"
export FSCP_SSM_SIM

export XDG_CACHE_HOME=$FSCP_WORK/cache
JDIR=$XDG_CACHE_HOME/fscp
L=$FSCP_WORK/rs
mkdir -p "$L"
cd "$L" || exit 99

rs_blocks() {	# allocated bytes of a file (0 when absent)
	local b
	b=$(stat -c '%b %B' "$1" 2>/dev/null) || { echo 0; return; }
	echo $((${b% *} * ${b#* }))
}
rs_sessions() {
	grep -c "subsystem 'sftp'" "$SSHD_DIR/sshd.log" 2>/dev/null || true
}
# Bytes the server's sftp sessions moved since the mark (the sessions' lines
# come a moment after the client exits: wait for one pair per session).
RS_MARK_LINES=0 RS_MARK_SESS=0
rs_mark() {
	RS_MARK_LINES=$(wc -l <"$RS_COUNTS")
	RS_MARK_SESS=$(rs_sessions)
}
rs_moved() {	# in|out
	local want n=0
	want=$((2 * ($(rs_sessions) - RS_MARK_SESS)))
	while [ "$(($(wc -l <"$RS_COUNTS") - RS_MARK_LINES))" -lt "$want" ] && [ $n -lt 200 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	tail -n +"$((RS_MARK_LINES + 1))" "$RS_COUNTS" | awk -v k="$1" '$1 == k { s += $2 } END { print s + 0 }'
}

# The source and target of a direction; the source is made once per case.
rs_paths() {	# up|down
	if [ "$1" = up ]; then
		SRC=$L/src.bin TGT=$SSHD_HOME/dst.bin
		ARGS=(src.bin "$RS_HOST:dst.bin") KIND=in
	else
		SRC=$SSHD_HOME/src.bin TGT=$L/dst.bin
		ARGS=("$RS_HOST:src.bin" dst.bin) KIND=out
	fi
}
rs_make_source() {	# path size sparse
	rm -f "$1"
	if [ "$3" = 1 ]; then
		# Holes, with random data at a few places to tell pieces apart.
		truncate -s "$2" "$1"
		local off
		for off in 0 $(($2 / 3)) $(($2 / 2)) $(($2 - (1 << 20))); do
			head -c $((1 << 20)) /dev/urandom | dd of="$1" bs=1M seek=$((off >> 20)) conv=notrunc status=none
		done
	else
		head -c "$2" /dev/urandom >"$1"
	fi
}

RS_PID=
# Start the copy held back to LIMIT (-l; 0: none), kill it (fscp or sshd) once the journal
# exists and 60% of the target is there.  Sets PRESENT (bytes in the target).
rs_kill_run() {	# name kill limit size
	local name=$1 how=$2 limit=$3 size=$4 n=0 kid
	rm -rf "$JDIR" "$TGT"
	local lim=()
	[ "$limit" != 0 ] && lim=(-l "$limit")
	"$FSCP" -F "$SSH_CONFIG" -q "${lim[@]}" "${ARGS[@]}" </dev/null >/dev/null 2>"$FSCP_WORK/err1" &
	RS_PID=$!
	while kill -0 "$RS_PID" 2>/dev/null; do
		if [ "$(rs_blocks "$TGT")" -ge $((size / 10 * 6)) ] &&
			compgen -G "$JDIR/*.journal" >/dev/null; then
			break
		fi
		sleep 0.1
	done
	if ! kill -0 "$RS_PID" 2>/dev/null; then
		wait "$RS_PID"
		bad "$name: the first run ended before the kill (rc $?)"
		sed 's/^/    /' "$FSCP_WORK/err1" | head -5
		return 1
	fi
	if [ "$how" = fscp ]; then
		kill -KILL "$RS_PID"
	else
		# Every connection's sshd, again and again: fscp reconnects once.
		while kill -0 "$RS_PID" 2>/dev/null && [ $n -lt 600 ]; do
			for kid in $(pgrep -P "$SSHD_PID"); do kill -KILL "$kid" 2>/dev/null; done
			sleep 0.1
			n=$((n + 1))
		done
	fi
	wait "$RS_PID" 2>/dev/null
	RS_PID=
	# Let the server's sessions end before counting from here on.
	n=0
	while [ -n "$(pgrep -P "$SSHD_PID")" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	PRESENT=$(rs_blocks "$TGT")
	[ "$PRESENT" -gt "$size" ] && PRESENT=$size
	echo "  $name: killed ($how) with $PRESENT of $size bytes in the target"
	return 0
}

# The killed state, kept to start each variant from it: the target
# rewritten in place (same inode; its mtime only moves on) and the journal.
rs_save() {
	cp --sparse=always "$TGT" "$FSCP_WORK/tgt.save"
	mkdir -p "$FSCP_WORK/j.save"
	rm -f "$FSCP_WORK/j.save/"*
	cp -p "$JDIR"/*.journal "$FSCP_WORK/j.save/"
}
rs_restore() {
	cp --sparse=always "$FSCP_WORK/tgt.save" "$TGT"
	rm -f "$JDIR"/*
	cp -p "$FSCP_WORK/j.save/"* "$JDIR/"
}

# A second run; sets MOVED, RC, ERR.
rs_second() {	# fscp leading args...
	rs_mark
	"$FSCP" "$@" -F "$SSH_CONFIG" -v -q "${ARGS[@]}" </dev/null >/dev/null 2>"$FSCP_WORK/err2"
	RC=$?
	MOVED=$(rs_moved "$KIND")
	ERR=$FSCP_WORK/err2
}

# After a second run that must copy the whole file: identical, all moved.
rs_whole() {	# name label size
	check "$1" "$2: identical" cmp -s "$SRC" "$TGT"
	check "$1" "$2: the whole file moves ($MOVED >= $3)" test "$MOVED" -ge "$3"
}

rs_case() {	# name up|down kill limit size sparse variants
	local name=$1 dir=$2 how=$3 limit=$4 size=$5 sparse=$6 variants=$7
	rs_paths "$dir"
	rs_make_source "$SRC" "$size" "$sparse"
	rs_kill_run "$name" "$how" "$limit" "$size" || return
	rs_save
	local missing=$((size - PRESENT)) most
	most=$((missing + size / 10))

	rs_second --resume
	echo "  $name: --resume moved $MOVED bytes (missing $missing, at most $most)"
	check "$name" "--resume exits 0" test "$RC" = 0
	check "$name" "--resume: the file is identical" cmp -s "$SRC" "$TGT"
	check "$name" "--resume moved at most the missing part + 10% ($MOVED <= $most)" \
		test "$MOVED" -le "$most"
	check "$name" "--resume: -v says what it kept" grep -q "bytes are there: moving" "$ERR"
	check "$name" "the journal is gone after success" \
		bash -c "! compgen -G '$JDIR/*.journal' >/dev/null"

	case " $variants " in *" plain "*)
		rs_restore
		rs_second
		rs_whole "$name" "without --resume" "$size"
		;;
	esac
	case " $variants " in *" corrupt "*)
		rs_restore
		sed -i '3s/^[0-9]/9&/' "$JDIR"/*.journal
		rs_second --resume
		rs_whole "$name" "corrupt journal" "$size"
		check "$name" "corrupt journal: a warning" grep -q "journal .* is corrupt" "$ERR"
		;;
	esac
	case " $variants " in *" symlink "*)
		rs_restore
		local j
		j=$(ls "$JDIR"/*.journal)
		mv "$j" "$FSCP_WORK/planted"
		ln -s "$FSCP_WORK/planted" "$j"
		cp "$FSCP_WORK/planted" "$FSCP_WORK/planted.orig"
		rs_second --resume
		rs_whole "$name" "symlinked journal" "$size"
		check "$name" "symlinked journal: a warning" grep -q "symbolic link" "$ERR"
		check "$name" "symlinked journal: its target is untouched" \
			cmp -s "$FSCP_WORK/planted" "$FSCP_WORK/planted.orig"
		;;
	esac
	case " $variants " in *" changed "*)
		rs_restore
		touch -d '2001-02-03 04:05:06' "$SRC"
		rs_second --resume
		rs_whole "$name" "changed source" "$size"
		check "$name" "changed source: -v says so" grep -q "source changed: copying it whole" "$ERR"
		;;
	esac
	rm -f "$SRC" "$TGT"
}

RS_HOST=fscp-test
ALL="plain corrupt symlink changed"
if [ "${RESUME_SLOW:-0}" = 1 ]; then
	# 1 GiB sparse near, held to ~100 MB/s; 256 MiB far, held to ~12.5 MB/s
	# a connection (fresh: 25 MB/s in all).
	BIG=$((1 << 30))
	[ "${RESUME_PART:-all}" = far ] && BIG=
	for dir in ${BIG:+down up}; do
		unset FSCP_ROUTE FSCP_CONNECTIONS
		rs_case "standard $dir 1 GiB sparse, fscp killed" "$dir" fscp 800000 "$BIG" 1 plain
		export FSCP_ROUTE=bypass FSCP_CONNECTIONS=4
		rs_case "fresh $dir 1 GiB sparse, sshd killed" "$dir" sshd 800000 "$BIG" 1 plain
	done
	unset FSCP_ROUTE FSCP_CONNECTIONS
	# The relay holds the path to 12.5 MB/s each way, however many
	# connections fscp opens (-s): a copy held back by -l instead would
	# read the server's answers to its writes only as its window empties,
	# and know of less than is there.
	route_relay_start -d 20 -r 12500000 -s
	trap 'kill "$ROUTE_RELAY_PID" 2>/dev/null; rm -f "$RS_COUNTS"; fscp__cleanup' EXIT
	RP=$ROUTE_RELAY_PORT
	sed -n "/^Host fscp-test/,\$p" "$SSH_CONFIG" |
		sed "s/^Host .*/Host far/; s/^\tPort .*/\tPort $RP/" >"$FSCP_WORK/far.cfg"
	cat "$FSCP_WORK/far.cfg" >>"$SSH_CONFIG"
	echo "[127.0.0.1]:$RP $(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")" >>"$SSHD_DIR/known_hosts"
	RS_HOST=far
	FAR=$((256 << 20))
	for dir in down up; do
		rs_case "far $dir 256 MiB, fscp killed" "$dir" fscp 0 "$FAR" 0 plain
		export FSCP_ROUTE=bypass FSCP_CONNECTIONS=4
		rs_case "far fresh $dir 256 MiB, sshd killed" "$dir" sshd 200000 "$FAR" 0 ""
		unset FSCP_ROUTE FSCP_CONNECTIONS
	done
else
	# 48 MiB held to ~4 MB/s: about 7 s to the kill.
	MID=$((48 << 20))
	for dir in down up; do
		unset FSCP_ROUTE FSCP_CONNECTIONS
		rs_case "standard $dir, fscp killed" "$dir" fscp 32000 "$MID" 0 "$ALL"
		export FSCP_ROUTE=bypass FSCP_CONNECTIONS=4
		rs_case "fresh $dir, sshd killed" "$dir" sshd 32000 "$MID" 0 plain
	done
	unset FSCP_ROUTE FSCP_CONNECTIONS
fi

if [ "${RESUME_SSM:-1}" = 1 ] && [ "${RESUME_SLOW:-0}" != 1 ]; then
	route_ssm_init
	I_PAR=i-0123456789abcdef0
	echo "$I_PAR 127.0.0.1 $SSHD_PORT - -" >"$FSCP_FAKE_AWS_INSTANCES"
	KEY=$(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")
	echo "[$I_PAR]:$SSHD_PORT $KEY" >"$FSCP_WORK/ssm_known_hosts"
	RS_HOST=$I_PAR
	# 12 MiB held to ~1 MB/s.
	rs_case "ssm-parallel down, fscp killed" down fscp 8000 $((12 << 20)) 0 ""
fi

checks_done

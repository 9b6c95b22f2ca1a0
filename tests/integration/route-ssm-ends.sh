#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Every child fscp starts ends with it (issue 23), through the fake aws CLI
# and the SSM simulator (tests/tools), wired as users wire SSM:
#   - after each kind of end (success, error, SIGINT to its process group
#     as a terminal sends it, SIGTERM and SIGHUP to fscp alone, a session
#     dropped mid-copy), for a 6-byte and a 20 MiB copy: once fscp has
#     exited, no process of its session (the aws CLIs in their start-up,
#     the shells of the ProxyCommands, ssh and what ssh's ProxyCommand left)
#     and no simulator session it started is still alive;
#   - a signal ends the copy with scp's status, 1 (killchild());
#   - a 6-byte download makes at most 2 StartSession calls (the session that
#     lists and one more), scp's makes 1; with FSCP_SSM_DIRECT=auto, one
#     describe-instances call too, and from a host with a direct address
#     at most 1 StartSession call (a session started beside the lookup);
#   - all of it again in a slower environment: each CLI start (start-session
#     and describe-instances alike) burns 5 times the CPU and, where a
#     cgroup (v1 cpu or v2) can be made here, fscp and everything under it
#     get half a CPU.
# No timing is asserted.  Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"
fscp_test_init

route_ssm_init
route_ssm_pair
export FSCP_SSM_DIRECT=off

cd "$FSCP_WORK" || exit 99
mkdir -p src dst "$SSHD_HOME/src" "$SSHD_HOME/dst"
printf 'hello\n' >src/tiny.txt
head -c $((20 << 20)) /dev/urandom >src/big.bin
cp src/tiny.txt src/big.bin "$SSHD_HOME/src/"

# The slow environment's CPU quota: half a CPU, for fscp and all under it.
CG=
cg_make() {
	local d
	if [ -w /sys/fs/cgroup/cpu ] && d=/sys/fs/cgroup/cpu/fscp-ends.$$ && mkdir "$d" 2>/dev/null; then
		if echo 100000 >"$d/cpu.cfs_period_us" && echo 50000 >"$d/cpu.cfs_quota_us"; then
			CG=$d
			return 0
		fi
		rmdir "$d"
	fi
	d=/sys/fs/cgroup/fscp-ends.$$
	[ -f /sys/fs/cgroup/cgroup.controllers ] || d=/sys/fs/cgroup/unified/fscp-ends.$$
	if mkdir "$d" 2>/dev/null; then
		if [ -f "$d/cpu.max" ] && echo "50000 100000" >"$d/cpu.max"; then
			CG=$d
			return 0
		fi
		rmdir "$d"
	fi
	return 1
}
ends_cleanup() {
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	fscp__cleanup
}
trap ends_cleanup EXIT

# Processes of session $1 that are alive (zombies are dead: this machine's
# init may be slow to reap what it inherits), and simulator sessions
# started since the log had $2 lines that are still alive.
leftovers() {
	local sid=$1 from=$2 pid
	ps -eo pid=,sid=,stat=,args= | awk -v s="$sid" '$2 == s && $3 !~ /^Z/'
	tail -n +"$((from + 1))" "$FSCP_SSM_SIM_LOG" | while read -r pid _; do
		ps -o pid=,sid=,stat=,args= -p "$pid" | awk '$3 !~ /^Z/'
	done
}

starts() { grep -c 'ssm start-session' "$FSCP_FAKE_AWS_LOG"; }
lookups() { grep -c 'ec2 describe-instances' "$FSCP_FAKE_AWS_LOG"; }

# run NAME WANT_RC ACTION PROG ARGS...: PROG in a session of its own (its
# pid is the session's id); ACTION: "-" none, "SIG@WHEN" signal SIG to it
# ("-SIG@WHEN": to its process group, as a terminal's ^C), "drop@WHEN" kill
# one simulator session.  WHEN is "cli", once the first CLI has started (so
# in its start-up, which burns the CPU the case gives it), or a file's
# path, once 2 MiB of it are written (mid-copy).  Polled, not timed: a
# sanitizer build on a loaded machine can take longer than any fixed time
# to reach main(), where fscp takes its signals.  Then the checks.
run() {
	local name=$1 want=$2 action=$3 prog=$4 pid rc sims0 left sig at dog t0=$SECONDS
	shift 4
	: >"$FSCP_FAKE_AWS_LOG"
	sims0=$(wc -l <"$FSCP_SSM_SIM_LOG")
	if [ -n "$CG" ]; then
		# shellcheck disable=SC2016
		setsid sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
			"$prog" -F "$SSH_CONFIG" -q "$@" </dev/null >"$FSCP_WORK/out" 2>"$FSCP_WORK/err" &
	else
		setsid "$prog" -F "$SSH_CONFIG" -q "$@" </dev/null >"$FSCP_WORK/out" 2>"$FSCP_WORK/err" &
	fi
	pid=$!
	# A hang fails (the watchdog's sleep ends with it: nothing it leaves
	# holds the test's output open).
	(
		exec >/dev/null 2>&1
		sleep 240 &
		s=$!
		trap 'kill $s; exit 0' TERM
		wait $s
		kill -KILL "$pid"
	) &
	dog=$!
	if [ "$action" != - ]; then
		sig=${action%@*} at=${action#*@}
		case $at in
		cli) wait_lines "$FSCP_FAKE_AWS_LOG" 'ssm start-session' 1 ;;
		*) wait_bytes "$at" $((2 << 20)) ;;
		esac
		case $sig in
		drop)	# One of the sessions that came up after the first.
			kill "$(tail -n +"$((sims0 + 2))" "$FSCP_SSM_SIM_LOG" | head -1 | cut -d' ' -f1)" 2>/dev/null ;;
		-*) kill "-${sig#-}" -- "-$pid" ;;
		*) kill "-$sig" "$pid" ;;
		esac
	fi
	wait "$pid"
	rc=$?
	left=$(leftovers "$pid" "$sims0")
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	check "$name" "exit status $rc, wants $want" test "$rc" = "$want" ||
		sed 's/^/    /' "$FSCP_WORK/err" | head -5
	if [ "$prog" = "$SCP" ]; then
		# Not asserted: scp's ssh hangs up on its ProxyCommand's shell
		# only, and what runs under it ends when it sees EOF.
		echo "note: $name: $(printf '%s' "$left" | grep -c .) processes left as scp exited"
	else
		check "$name" "nothing left once it exited" test -z "$left" ||
			printf '%s\n' "$left" | sed 's/^/    /' | head -10
	fi
	# Whatever was left must not disturb the next case.
	[ -z "$left" ] || { printf '%s\n' "$left" | awk '{ print $1 }' | xargs -r kill -KILL 2>/dev/null; sleep 1; }
	STARTS=$(starts) LOOKUPS=$(lookups)
	echo "  ($name: $((SECONDS - t0)) s)"
}

same() {	# name got want
	check "$1" "the copy is the source" cmp -s "$2" "$3"
}

auto_download() {	# name host max-starts: a 6-byte download, FSCP_SSM_DIRECT=auto
	rm -f dst/*
	FSCP_SSM_DIRECT=auto run "$1" 0 - "$FSCP" "$2:src/tiny.txt" dst/
	same "$1" dst/tiny.txt src/tiny.txt
	check "$1" "at most $3 StartSession calls ($STARTS)" test "$STARTS" -le "$3"
	check "$1" "1 describe-instances call ($LOOKUPS)" test "$LOOKUPS" -eq 1
}

cases() {	# label cpu-ms all (all=0: the 20 MiB cases that end as others
		# do are left out)
	local env=$1 ms=$2 all=$3 name
	export FSCP_FAKE_AWS_START_CPU_MS=$ms FSCP_FAKE_AWS_CPU_MS=$ms

	name="$env: 6-byte download"
	rm -f dst/*
	run "$name" 0 - "$FSCP" "$I_PAR:src/tiny.txt" dst/
	same "$name" dst/tiny.txt src/tiny.txt
	check "$name" "at most 2 StartSession calls ($STARTS)" test "$STARTS" -le 2

	# As users run it: the direct address is looked for (beside the first
	# session's start when a core is idle, else first).
	auto_download "$env: 6-byte download, FSCP_SSM_DIRECT=auto" "$I_PAR" 2
	auto_download "$env: 6-byte download from a host with a direct address" "$I_DIR" 1

	name="$env: 6-byte download, scp"
	rm -f dst/*
	run "$name" 0 - "$SCP" "$I_PAR:src/tiny.txt" dst/
	check "$name" "scp makes 1 StartSession call ($STARTS)" test "$STARTS" -eq 1

	name="$env: 6-byte upload"
	rm -f "$SSHD_HOME"/dst/*
	run "$name" 0 - "$FSCP" src/tiny.txt "$I_PAR:dst/"
	same "$name" "$SSHD_HOME/dst/tiny.txt" src/tiny.txt

	run "$env: download of a missing file" 1 - "$FSCP" "$I_PAR:src/missing" dst/
	run "$env: SIGINT to the group in the CLI's start-up" 1 -INT@cli "$FSCP" "$I_PAR:src/tiny.txt" dst/
	run "$env: SIGTERM in the CLI's start-up" 1 TERM@cli "$FSCP" "$I_PAR:src/tiny.txt" dst/
	run "$env: SIGHUP in the CLI's start-up" 1 HUP@cli "$FSCP" "$I_PAR:src/tiny.txt" dst/
	# ssh's route (6 bytes up: one session, as scp): ssh and its ProxyCommand.
	run "$env: SIGTERM to an upload on ssh's route" 1 TERM@cli "$FSCP" src/tiny.txt "$I_PAR:dst/"

	name="$env: 20 MiB download"
	rm -f dst/*
	run "$name" 0 - "$FSCP" "$I_PAR:src/big.bin" dst/
	same "$name" dst/big.bin src/big.bin
	# Mid-copy: once 2 MiB of the destination are written (each case
	# starts without one: a copy writes in place, over what was there).
	if [ "$all" = 1 ]; then
		rm -f dst/big.bin
		run "$env: 20 MiB download, SIGINT to the group mid-copy" 1 -INT@dst/big.bin "$FSCP" "$I_PAR:src/big.bin" dst/
	fi
	rm -f dst/big.bin
	run "$env: 20 MiB download, SIGTERM mid-copy" 1 TERM@dst/big.bin "$FSCP" "$I_PAR:src/big.bin" dst/
	if [ "$all" = 1 ]; then
		rm -f "$SSHD_HOME/dst/big.bin"
		run "$env: 20 MiB upload, SIGHUP mid-copy" 1 "HUP@$SSHD_HOME/dst/big.bin" "$FSCP" src/big.bin "$I_PAR:dst/"
	fi
	name="$env: 20 MiB download, a session dropped mid-copy"
	rm -f dst/*
	run "$name" 0 drop@dst/big.bin "$FSCP" "$I_PAR:src/big.bin" dst/
	same "$name" dst/big.bin src/big.bin
}

cases "today's" 300 1
if cg_make; then
	echo "slow environment: 1500 ms of CPU per CLI start, half a CPU ($CG)"
else
	echo "slow environment: 1500 ms of CPU per CLI start; NO CPU quota (no cgroup can be made here)"
fi
cases slow 1500 0

checks_done

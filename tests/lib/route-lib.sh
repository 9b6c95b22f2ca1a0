# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# shellcheck shell=bash
# Shared by the route-*.sh tests (not a test itself): compare.sh plus what a
# route test needs on top of it.
#
#   route_compare [fscp_compare options] -- ARGS...
#       fscp_compare, and per side the program's stderr and how many sshd
#       logins ("Accepted publickey" in sshd.log) and SSM sessions (lines in
#       $FSCP_SSM_SIM_LOG) it caused.  Pass -v in ARGS to see fscp's route.
#       Afterwards: ROUTE_ERR_scp / ROUTE_ERR_fscp (stderr files),
#       ROUTE_LOGINS_scp / _fscp, ROUTE_SSM_scp / _fscp.
#   route_expect NAME ROUTE [ERE]    fscp's -v line says `route ROUTE: ...`
#       and its reason matches ERE (grep -E): one check (checks.sh).
#
# The Makefile runs tests from the build directory: FSCP defaults to
# ./src/fscp there, srcdir to the source tree this file is in.

ROUTE_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/compare.sh
. "$ROUTE_LIB_DIR/compare.sh"
: "${srcdir:=$ROUTE_LIB_DIR/../..}"
# Absolute: the comparisons run the programs from other directories.
srcdir=$(cd "$srcdir" && pwd)
if [ -z "${FSCP:-}" ] && [ -x ./src/fscp ]; then
	FSCP=$PWD/src/fscp
fi
export FSCP srcdir

# Counters, read before (in the setup hook) and after (in the post hook) each
# side's program.
route__logins() {
	grep -c "Accepted publickey" "$SSHD_DIR/sshd.log" 2>/dev/null || true
}
route__ssm() {
	if [ -n "${FSCP_SSM_SIM_LOG:-}" ] && [ -f "$FSCP_SSM_SIM_LOG" ]; then
		wc -l <"$FSCP_SSM_SIM_LOG"
	else
		echo 0
	fi
}
# The side being run: fscp__run_side makes run/<side> first, scp's before fscp's.
route__side() {
	if [ -d "$FSCP_WORK/run/fscp" ]; then echo fscp; else echo scp; fi
}
route__setup() {
	if [ -n "$ROUTE_USER_SETUP" ]; then "$ROUTE_USER_SETUP" || return 1; fi
	local side
	side=$(route__side)
	route__logins >"$FSCP_WORK/ev.$side.logins0"
	route__ssm >"$FSCP_WORK/ev.$side.ssm0"
}
route__post() {
	local side
	side=$(route__side)
	# ssh's mux and proxy children may log a moment after scp exits.
	sleep 0.2
	route__logins >"$FSCP_WORK/ev.$side.logins1"
	route__ssm >"$FSCP_WORK/ev.$side.ssm1"
	tr -d '\r' <"$FSCP_WORK/run/$side/stderr" >"$FSCP_WORK/ev.$side.stderr"
	if [ -n "$ROUTE_USER_POST" ]; then "$ROUTE_USER_POST" || return 1; fi
}

route_compare() {
	local args=()
	ROUTE_USER_SETUP="" ROUTE_USER_POST="" ROUTE_NAME=""
	while [ $# -gt 0 ]; do
		case $1 in
		--setup) ROUTE_USER_SETUP=$2; shift 2 ;;
		--post) ROUTE_USER_POST=$2; shift 2 ;;
		--name) ROUTE_NAME=$2; args+=("$1" "$2"); shift 2 ;;
		--) break ;;
		*) args+=("$1"); shift ;;
		esac
	done
	rm -f "$FSCP_WORK"/ev.*
	fscp_compare --setup route__setup --post route__post "${args[@]}" "$@"
	local side
	for side in scp fscp; do
		printf -v "ROUTE_ERR_$side" '%s' "$FSCP_WORK/ev.$side.stderr"
		printf -v "ROUTE_LOGINS_$side" '%s' \
			$(($(cat "$FSCP_WORK/ev.$side.logins1") - $(cat "$FSCP_WORK/ev.$side.logins0")))
		printf -v "ROUTE_SSM_$side" '%s' \
			$(($(cat "$FSCP_WORK/ev.$side.ssm1") - $(cat "$FSCP_WORK/ev.$side.ssm0")))
	done
	echo "  logins: scp $ROUTE_LOGINS_scp, fscp $ROUTE_LOGINS_fscp; SSM sessions: scp $ROUTE_SSM_scp, fscp $ROUTE_SSM_fscp"
	echo "  fscp: $(grep -E '^[^ :]+: (route|bypass failed|[0-9]+ of [0-9]+ connections)' "$ROUTE_ERR_fscp" | tr '\n' '|')"
}

# The reason text of fscp's route line (the program is run as "scp").  A
# download may print two: where it listed, then the route it grew into
# ("(after listing)"); the last one is the route the data took.
route_line() {
	grep -E '^[^ :]+: route [a-z-]+: ' "${1:-$ROUTE_ERR_fscp}" | tail -1
}

route_expect() {
	local name=$1 route=$2 ere=${3:-} line
	line=$(route_line)
	if [ -z "$line" ]; then
		bad "$name: no route line in fscp -v output"
		sed 's/^/    /' "$ROUTE_ERR_fscp" | head -20
		return 1
	fi
	if ! printf '%s\n' "$line" | grep -qE "^[^ :]+: route $route: "; then
		bad "$name: route is not $route"
		echo "    $line"
		return 1
	fi
	if [ -n "$ere" ] && ! printf '%s\n' "$line" | grep -qE -- "$ere"; then
		bad "$name: route reason does not match /$ere/"
		echo "    $line"
		return 1
	fi
	ok "$name: $line"
}

# The number N in fscp's "route ...: ... N SSM sessions" / "N connections".
route_count_in_line() {
	route_line | sed -nE 's/.* ([0-9]+) (SSM sessions|connections?)([^0-9].*)?$/\1/p' | head -1
}

# The "N of M connections ready" line: prints "N M".
route_ready() {
	sed -nE 's/^[^ :]+: ([0-9]+) of ([0-9]+) connections ready in .*/\1 \2/p' "$ROUTE_ERR_fscp" | head -1
}

# The fixture of route-controlmaster.sh and route-proxied.sh: big.bin ($BIG
# bytes) and small.bin ($SMALL) on both sides, under src/, and dst/.
route_setup_big_small() {
	mkdir -p src dst "$SSHD_HOME/src" "$SSHD_HOME/dst"
	fscp_put_file src/big.bin "$BIG" 0640
	fscp_put_file "$SSHD_HOME/src/big.bin" "$BIG" 0604
	fscp_put_file src/small.bin "$SMALL" 0600
	fscp_put_file "$SSHD_HOME/src/small.bin" "$SMALL" 0600
	fscp_set_times src "$SSHD_HOME/src"
}

# route_relay_start OPTIONS...: a delay relay (tests/tools/delayrelay) in
# front of the test sshd, with OPTIONS (-d MS and so on).  Sets
# ROUTE_RELAY_PORT and ROUTE_RELAY_PID; the caller's EXIT trap kills it.
route_relay_start() {
	local relay=${FSCP_TOOLS_BUILDDIR:-$PWD/tests/tools}/delayrelay n=0
	[ -x "$relay" ] || fscp_hard_error "delayrelay not built ($relay)"
	rm -f "$FSCP_WORK/relay.port"
	"$relay" -l 127.0.0.1:0 -t "127.0.0.1:$SSHD_PORT" "$@" -p "$FSCP_WORK/relay.port" \
		>"$FSCP_WORK/relay.log" 2>&1 </dev/null &
	ROUTE_RELAY_PID=$!
	while [ ! -s "$FSCP_WORK/relay.port" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	[ -s "$FSCP_WORK/relay.port" ] || fscp_hard_error "relay did not start"
	ROUTE_RELAY_PORT=$(cat "$FSCP_WORK/relay.port")
}

# ---- test hosts (call after fscp_test_init) ----------------------------------

# route_host PATTERN KNOWN_HOSTS [LINE...]: append a Host entry for the test
# sshd to $SSH_CONFIG as users write one (key auth, strict host keys,
# BatchMode), with LINEs (e.g. "ProxyCommand ...") after the common ones.
route_host() {
	local pattern=$1 known=$2
	shift 2
	{
		printf '\nHost %s\n' "$pattern"
		printf '\t%s\n' "Port $SSHD_PORT" "User root" "IdentityFile $SSHD_DIR/id_ed25519" \
			"IdentitiesOnly yes" "UserKnownHostsFile $known" "GlobalKnownHostsFile /dev/null" \
			"StrictHostKeyChecking yes" "BatchMode yes" "LogLevel ERROR" "$@"
	} >>"$SSH_CONFIG"
}

# route_cm_host NAME: a host with a ControlPath (ControlMaster no, so only the
# master route_cm_start starts owns the socket).
route_cm_host() {
	route_host "$1" "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" "ControlMaster no" \
		"ControlPath $FSCP_WORK/cm-%C" "ControlPersist no"
}

# route_cm_start NAME: start a real master for NAME; sets MASTER_PID (the
# caller's EXIT trap kills it).
route_cm_start() {
	ssh -F "$SSH_CONFIG" -o ControlMaster=yes -fN "$1" </dev/null ||
		fscp_hard_error "cannot start the ControlMaster (ssh -M -fN $1)"
	MASTER_PID=$(ssh -F "$SSH_CONFIG" -O check "$1" 2>&1 | sed -nE 's/.*pid=([0-9]+).*/\1/p')
	[ -n "$MASTER_PID" ] || fscp_hard_error "the ControlMaster for $1 is not running"
}

# route_ssm_init: the fake aws CLI (source tree) and the SSM simulator (build
# tree) on PATH, their logs in $FSCP_WORK, and SSM hosts i-* / mi-* as users
# write them.  The fake aws ignores portNumber (its registry
# $FSCP_FAKE_AWS_INSTANCES has the real port); ssh checks the key under
# [i-...]:PORT in $FSCP_WORK/ssm_known_hosts.  Both start empty:
# route_ssm_instance fills them.
route_ssm_init() {
	PATH=$srcdir/tests/tools:$PATH
	: "${FSCP_SSM_SIM:=$PWD/tests/tools/ssm-sim}"
	[ -x "$FSCP_SSM_SIM" ] || fscp_hard_error "ssm-sim not built ($FSCP_SSM_SIM); run make or set FSCP_SSM_SIM"
	[ -x "$srcdir/tests/tools/aws" ] || fscp_hard_error "no fake aws in $srcdir/tests/tools"
	FSCP_SSM_SIM=$(cd "$(dirname "$FSCP_SSM_SIM")" && pwd)/$(basename "$FSCP_SSM_SIM")
	export PATH FSCP_SSM_SIM
	export AWS_DEFAULT_REGION=eu-west-1
	export FSCP_FAKE_AWS_INSTANCES=$FSCP_WORK/instances
	export FSCP_FAKE_AWS_LOG=$FSCP_WORK/aws.log
	export FSCP_SSM_SIM_LOG=$FSCP_WORK/ssm-sessions.log
	# A short session start-up, and 16 KiB per 2.4 ms message (~6.7 MiB/s
	# per session, 8x the real rate): the route depends on sizes only, not
	# on the rate, and the copies through one SSM session (scp's) stay short.
	export FSCP_SSM_SIM_SETUP_MS=300 FSCP_SSM_SIM_PAYLOAD=16384 FSCP_SSM_SIM_CYCLE_US=2400
	unset FSCP_SSM_DIRECT FSCP_ROUTE FSCP_CONNECTIONS
	: >"$FSCP_SSM_SIM_LOG"
	: >"$FSCP_FAKE_AWS_INSTANCES"
	: >"$FSCP_WORK/ssm_known_hosts"
	route_host "i-* mi-*" "$FSCP_WORK/ssm_known_hosts" \
		"ProxyCommand sh -c \"aws ssm start-session --target %h --document-name AWS-StartSSHSession --parameters 'portNumber=%p'\""
}

# route_ssm_instance ID PRIVATE [PUBKEY-FILE]: an instance the fake aws CLI
# knows, reached through SSM at the test sshd, with PRIVATE as its private
# address ("-": none, only SSM reaches it), and its host key on record for
# ssh under [ID]:PORT: the test sshd's, or the key in PUBKEY-FILE.
route_ssm_instance() {
	local id=$1 private=$2 pub=${3:-$SSHD_DIR/ssh_host_ed25519_key.pub}
	echo "$id 127.0.0.1 $SSHD_PORT $private -" >>"$FSCP_FAKE_AWS_INSTANCES"
	echo "[$id]:$SSHD_PORT $(cut -d' ' -f1,2 "$pub")" >>"$FSCP_WORK/ssm_known_hosts"
}

# route_ssm_reachable ID: ssh itself reaches the instance through the
# simulator, or the rig cannot run.
route_ssm_reachable() {
	ssh -F "$SSH_CONFIG" "$1" true </dev/null ||
		fscp_hard_error "ssh through the fake SSM ProxyCommand fails"
}

# route_ssm_pair: the two instances most route tests use, registered:
# I_PAR (no private address: only SSM reaches it, ssm-parallel) and I_DIR
# (private address 127.0.0.1, the test sshd: ssm-direct applies).
route_ssm_pair() {
	I_PAR=i-0123456789abcdef0
	I_DIR=i-0123456789abcdef1
	route_ssm_instance "$I_PAR" -
	route_ssm_instance "$I_DIR" 127.0.0.1
}

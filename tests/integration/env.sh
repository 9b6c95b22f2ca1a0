#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# fscp's environment variables.  A bad value of any FSCP_* variable fscp
# reads is an error before anything is copied: the message names the
# variable and what it takes, exit 1, no login, the destination untouched
# (upload and download).  An empty value is unset.  FSCP_VERBOSE=route shows
# the route lines of -v and nothing else.  Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/settings-lib.sh"
fscp_test_init
# No per-host setting file of the machine or of root's home takes part.
export XDG_CONFIG_HOME=$FSCP_WORK/xdg
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT FSCP_SSM_START_CPU FSCP_VERBOSE FSCP_CONFIG \
	FSCP_SYSTEM_CONFIG

# ---- bad values ----
# bad_value VAR VALUE MESSAGE
bad_value() {
	local var=$1 value=$2 msg=$3
	fscp_put_file "$FSCP_WORK/L/src.bin" 70000
	echo old-remote >"$SSHD_HOME/dst.bin"
	echo old-local >"$FSCP_WORK/L/dst.bin"
	fscp_put_file "$SSHD_HOME/remote.bin" 1000
	for dir in up down; do
		if [ $dir = up ]; then
			settings_run "$var=$value" -- src.bin fscp-test:dst.bin
		else
			settings_run "$var=$value" -- fscp-test:remote.bin dst.bin
		fi
		settings_check "$var=$value ($dir)" "exit 1 with 'fscp: $msg', no login, nothing copied" \
			test "$RUN_RC" = 1 -a "$RUN_ERR" = "fscp: $msg" -a -z "$RUN_OUT" -a "$RUN_LOGINS" = 0 \
			-a "$(cat "$SSHD_HOME/dst.bin")" = old-remote -a "$(cat "$FSCP_WORK/L/dst.bin")" = old-local
	done
	rm -f "$SSHD_HOME"/* "$FSCP_WORK"/L/*
}
bad_value FSCP_ROUTE standrad 'FSCP_ROUTE: "standrad" is not one of auto, standard, bypass'
# escaped as scp's log escapes what it cannot print
bad_value FSCP_ROUTE $'by\001pass' 'FSCP_ROUTE: "by\001pass" is not one of auto, standard, bypass'
bad_value FSCP_CONNECTIONS abc 'FSCP_CONNECTIONS: "abc" is not a number from 1 to 64'
bad_value FSCP_CONNECTIONS 65 'FSCP_CONNECTIONS: "65" is not a number from 1 to 64'
bad_value FSCP_SSM_DIRECT 'a b' 'FSCP_SSM_DIRECT: "a b" is not auto, off, a host name or an address'
bad_value FSCP_SSM_START_CPU 0.6s 'FSCP_SSM_START_CPU: "0.6s" is not a number of seconds from 0 to 60'
bad_value FSCP_VERBOSE yes 'FSCP_VERBOSE: "yes" is not route'
bad_value FSCP_CONFIG "$FSCP_WORK/none" "FSCP_CONFIG: $FSCP_WORK/none: No such file or directory"
bad_value FSCP_SYSTEM_CONFIG "$FSCP_WORK/none" "FSCP_SYSTEM_CONFIG: $FSCP_WORK/none: No such file or directory"

# ---- empty is unset; good values copy ----
for var in FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT FSCP_SSM_START_CPU FSCP_VERBOSE FSCP_CONFIG \
	FSCP_SYSTEM_CONFIG; do
	fscp_put_file "$FSCP_WORK/L/src.bin" 70000
	settings_run "$var=" -- src.bin fscp-test:dst.bin
	settings_check "$var=" "as unset: exit 0, copied, nothing said" \
		test "$RUN_RC" = 0 -a -z "$RUN_ERR" -a -f "$SSHD_HOME/dst.bin"
	rm -f "$SSHD_HOME"/* "$FSCP_WORK"/L/*
done
fscp_put_file "$FSCP_WORK/L/src.bin" 70000
settings_run FSCP_ROUTE=standard FSCP_CONNECTIONS=2 FSCP_SSM_DIRECT=off FSCP_SSM_START_CPU=0.3 \
	-- src.bin fscp-test:dst.bin
settings_check "good values" "exit 0, copied, nothing said" \
	test "$RUN_RC" = 0 -a -z "$RUN_ERR" -a -f "$SSHD_HOME/dst.bin"
rm -f "$SSHD_HOME"/* "$FSCP_WORK"/L/*

# ---- FSCP_VERBOSE=route: the route lines alone ----
only_route() {
	[ -n "$RUN_ERR" ] && ! grep -v '^fscp: route \|^fscp: bypass failed: ' <<<"$RUN_ERR" | grep -q .
}
fscp_put_file "$FSCP_WORK/L/src.bin" 70000
settings_run FSCP_VERBOSE=route -- src.bin fscp-test:dst.bin
settings_check "FSCP_VERBOSE=route" "exit 0 and only 'fscp: route standard: ...' on stderr" \
	eval 'test "$RUN_RC" = 0 && only_route && grep -q "^fscp: route standard: " <<<"$RUN_ERR"'
settings_run FSCP_VERBOSE=route FSCP_ROUTE=bypass -- src.bin fscp-test:dst.bin
settings_check "FSCP_VERBOSE=route, FSCP_ROUTE=bypass" "exit 0 and only 'fscp: route fresh: ... (forced)'" \
	eval 'test "$RUN_RC" = 0 && only_route && grep -q "^fscp: route fresh: .*(forced)" <<<"$RUN_ERR"'
route_line=$(grep '^fscp: route' <<<"$RUN_ERR")
settings_run FSCP_ROUTE=bypass -- -v src.bin fscp-test:dst.bin
settings_check "-v" "the same route line as FSCP_VERBOSE=route, and ssh's debug output" \
	eval 'test "$RUN_RC" = 0 && grep -qxF "$route_line" <<<"$RUN_ERR" && grep -q "^debug1: " <<<"$RUN_ERR"'
settings_run FSCP_ROUTE=bypass -- src.bin fscp-test:dst.bin
settings_check "neither" "no route line" test "$RUN_RC" = 0 -a -z "$RUN_ERR"
checks_done

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Remote to remote where the two sides take different routes: a host with a
# live ControlMaster (a real `ssh -M`) and an AWS SSM host (the fake aws CLI
# and the SSM simulator; describe-instances gives the test sshd's address,
# which presents the instance's key).  fscp -v must report a route per side
# (fresh for the master's host once the source is listed, ssm-direct for the
# instance), and the trees must equal scp's, both ways; an SSM host without
# a direct address costs one SSM session, as with scp.
# Exit 0 pass, 1 fail, 99 cannot run.
# make check may start this with /bin/sh: continue in bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"
fscp_test_init

route_ssm_init
route_ssm_pair
route_cm_host cm-test

MASTER_PID=
route_rr_cleanup() {
	if [ -n "$MASTER_PID" ]; then kill "$MASTER_PID" 2>/dev/null; fi
	fscp__cleanup
}
trap route_rr_cleanup EXIT
route_cm_start cm-test
route_ssm_reachable "$I_DIR"

# Above the 8 MiB from which a bypass of the master pays far away; this near
# (under 2 ms) the copy stays on the master once listed (from 64 MiB only).
setup() {
	mkdir -p "$SSHD_HOME/src/sub" "$SSHD_HOME/dst"
	fscp_put_file "$SSHD_HOME/src/big.bin" $((9 << 20)) 0640
	fscp_put_file "$SSHD_HOME/src/sub/small.bin" $((100 << 10)) 0600
	fscp_set_times "$SSHD_HOME/src"
}

# One route line per side (a side may print a second once it is listed).
routes_are() {	# name, ERE of the destination's route, ERE of the source's
	local lines
	lines=$(grep -E '^[^ :]+: route [a-z-]+: ' "$ROUTE_ERR_fscp")
	check "$1" "destination route /$2/" grep -qE -- "$2" <<<"$lines"
	check "$1" "source route /$3/" grep -qE -- "$3" <<<"$lines"
}

name="ControlMaster host to SSM host, -r -p"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -r -p cm-test:src "$I_DIR:dst/"
routes_are "$name" "route ssm-direct: .*direct address presents the instance's host key" \
	"route standard: ControlMaster socket .* is live; size unknown until listed"
check "$name" "fscp started no SSM session (log: $ROUTE_SSM_fscp)" test "$ROUTE_SSM_fscp" -eq 0

name="SSM host to ControlMaster host"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v "$I_DIR:src/big.bin" cm-test:dst/copy.bin
routes_are "$name" "route standard: ControlMaster socket .* is live; size unknown until listed" \
	"route ssm-direct: .*direct address presents the instance's host key"

# Without a direct address the data crosses one SSM session per side, as
# scp's does: fscp starts no more sessions than it uses.
name="SSM host without a direct route to a plain host"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v "$I_PAR:src/big.bin" fscp-test:dst/
routes_are "$name" "route standard: no ControlMaster or SSM proxy; size unknown until listed" \
	"route standard: AWS SSM ProxyCommand; .*fits one SSM session"
check "$name" "one SSM session each (scp $ROUTE_SSM_scp, fscp $ROUTE_SSM_fscp)" \
	test "$ROUTE_SSM_scp" -eq 1 -a "$ROUTE_SSM_fscp" -eq 1

checks_done

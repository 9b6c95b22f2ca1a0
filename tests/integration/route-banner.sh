#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The server's banner (sshd's Banner) on a bypass: ssh shows it as it logs
# in, at LogLevel INFO or more, with what cannot be printed escaped; no ssh
# logs in on a bypass, so fscp shows it, once, however many connections it
# opens.  Not with -q or LogLevel ERROR, and not beside a live master (scp's
# ssh then logs in through the master and shows none).  Every case compares
# stderr with scp's.
# Exit 0 pass, 1 fail, 99 cannot run.
# make check may start this with /bin/sh: continue in bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"

# sshd reads the file at each login; it must exist before sshd starts.
BANNER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fscp-banner.XXXXXX") || { echo "mktemp failed"; exit 99; }
printf 'Authorized use only.\tBadge \342\230\203 required.\n' >"$BANNER_DIR/banner"
printf 'bell\a escape\033[31m cr\r end \377 byte\n' >>"$BANNER_DIR/banner"
export FSCP_SSHD_EXTRA="Banner $BANNER_DIR/banner"
fscp_test_init
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT

MASTER_PID=
route_banner_cleanup() {
	if [ -n "$MASTER_PID" ]; then kill "$MASTER_PID" 2>/dev/null; fi
	rm -rf "$BANNER_DIR"
	fscp__cleanup
}
trap route_banner_cleanup EXIT

BIG=$((9 << 20))
SMALL=$((100 << 10))
setup() { route_setup_big_small; }
INFO=(-o LogLevel=INFO)

# The fixture's config says LogLevel ERROR; -o wins, as for ssh.
name="bypass upload, 2 connections: the banner once"
FSCP_ROUTE=bypass FSCP_CONNECTIONS=2 route_compare --name "$name" --setup setup --expect-rc 0 -- \
	"${INFO[@]}" src/small.bin fscp-test:dst/
check "$name" "scp showed the banner" grep -q "Authorized use only" "$ROUTE_ERR_scp"
check "$name" "two libssh logins, no ssh (fscp $ROUTE_LOGINS_fscp)" test "$ROUTE_LOGINS_fscp" -eq 2

name="bypass download, 2 connections: the banner once"
FSCP_ROUTE=bypass FSCP_CONNECTIONS=2 route_compare --name "$name" --setup setup --expect-rc 0 -- \
	"${INFO[@]}" fscp-test:src/small.bin dst/

# The auto route: a near download lists over its bypass connection (or,
# its banner late on a loaded machine, over ssh, which shows it itself).
route_compare --name "near download, auto route: the banner once" --setup setup --expect-rc 0 -- \
	"${INFO[@]}" fscp-test:src/big.bin dst/

route_compare --name "bypass upload, -q: no banner" --setup setup --expect-rc 0 -- \
	-q "${INFO[@]}" src/small.bin fscp-test:dst/
FSCP_ROUTE=bypass route_compare --name "bypass upload, -q forced: no banner" --setup setup \
	--expect-rc 0 -- -q "${INFO[@]}" src/small.bin fscp-test:dst/
FSCP_ROUTE=bypass route_compare --name "bypass upload, LogLevel ERROR: no banner" --setup setup \
	--expect-rc 0 -- src/small.bin fscp-test:dst/

# Beside a live master: scp's ssh logs in through it and shows no banner;
# fscp's fresh connections (forced: near, the copy stays on the master)
# show none either.
route_cm_host cm-banner
route_cm_start cm-banner
name="fresh upload beside a master: no banner"
FSCP_ROUTE=bypass FSCP_CONNECTIONS=2 route_compare --name "$name" --setup setup --expect-rc 0 -- \
	"${INFO[@]}" src/big.bin cm-banner:dst/
check "$name" "fresh logins for fscp (fscp $ROUTE_LOGINS_fscp, scp $ROUTE_LOGINS_scp)" \
	test "$ROUTE_LOGINS_fscp" -gt "$ROUTE_LOGINS_scp"

checks_done

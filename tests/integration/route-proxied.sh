#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The `proxied` route: a host behind a ProxyCommand or ProxyJump that is not
# AWS SSM (a bastion; here `ssh -W` through the test sshd, and a ProxyJump
# to it).  fscp -v names the route, its copies match scp's (contents, modes,
# -p times, exit status), and it opens one connection through the proxy, as
# ssh does; a small copy, FSCP_ROUTE=standard and a proxy that fails keep
# to the standard route; a changed host key is refused with nothing copied.
# Exit 0 pass, 1 fail, 99 cannot run.
# make check may start this with /bin/sh: continue in bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"
fscp_test_init
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT

# The bastion is the test sshd itself (fscp-test); the targets are the same
# sshd again, reached through it.
route_host "bastion-pc" "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" \
	"ProxyCommand ssh -F $SSH_CONFIG -W %h:%p fscp-test"
route_host "bastion-pj" "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" "ProxyJump fscp-test"
route_host "bastion-false" "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" \
	"ProxyCommand sh -c 'echo proxy says no >&2; exit 1'"
# The same target with a wrong key on record.
ssh-keygen -q -t ed25519 -N '' -f "$FSCP_WORK/other" >/dev/null ||
	fscp_hard_error "ssh-keygen failed"
echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$FSCP_WORK/other.pub")" >"$FSCP_WORK/wrong_known_hosts"
route_host "bastion-wrongkey" "$FSCP_WORK/wrong_known_hosts" "HostName 127.0.0.1" \
	"ProxyCommand ssh -F $SSH_CONFIG -W %h:%p fscp-test"

# From 8 MiB the proxied route pays (route.h ROUTE_PROXIED_MIN_BYTES).
BIG=$((9 << 20))
SMALL=$((100 << 10))
setup() { route_setup_big_small; }

# One connection through the proxy: the bastion's login plus the target's
# (scp makes the same two).
proxied_case() {	# name, then fscp_compare options and args
	local name=$1
	shift
	route_compare --name "$name" "$@"
	route_expect "$name" proxied "through the same proxy, with several SFTP channels"
	check "$name" "fscp logged in no more than twice (bastion + target; got $ROUTE_LOGINS_fscp)" \
		test "$ROUTE_LOGINS_fscp" -le 2
}
proxied_case "proxied: upload 9 MiB via ProxyCommand" --setup setup --expect-rc 0 --no-stderr -- \
	-v src/big.bin bastion-pc:dst/
proxied_case "proxied: upload -r -p via ProxyJump" --setup setup --expect-rc 0 --no-stderr --times -- \
	-v -r -p src bastion-pj:dst/
proxied_case "proxied: upload -p via ProxyJump" --setup setup --expect-rc 0 --no-stderr --times -- \
	-v -p src/big.bin bastion-pj:dst/

# A download lists over ssh first, then decides with the round trip that
# listing measured: near (under 2 ms) a second proxy and handshake do not
# pay, whatever the size, and the copy stays on the listing connection; a
# slower measure (a sanitizer build through two ssh hops) keeps it there
# while the climb measures ssh's goodput, or, slower still, takes the
# proxied route.
name="download of 9 MiB decided after listing"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p bastion-pc:src/big.bin dst/
check "$name" "it listed over ssh first" \
	grep -q "route standard: ProxyCommand is not AWS SSM.*size unknown until listed" "$ROUTE_ERR_fscp"
check "$name" "it decided after listing (stayed near, proxied farther)" \
	grep -qE "route stays standard: .*9.0 MiB to move|route stays standard: ProxyCommand .*the server answers within 2 ms|route stays standard: .*the copy \(9.0 MiB\) goes on over ssh|route proxied: .*9.0 MiB to move.*\(after listing\)" "$ROUTE_ERR_fscp"

# Through a near jump host a second connection adds only the jump's second
# layer of encryption: whatever the size, a download measured near stays on
# ssh's connection; one measured slower takes the proxied route.
name="download via ProxyJump decided after listing"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p bastion-pj:src/big.bin dst/
check "$name" "it stayed on ssh's for a near jump (or went proxied, measured far)" \
	grep -qE "route stays standard: ProxyJump .*the server answers (within 2 ms|in .* goes on over ssh)|route proxied: .*\(after listing\)" "$ROUTE_ERR_fscp"
if grep -q "route stays standard" "$ROUTE_ERR_fscp"; then
	# (the connection opened beside the listing, in case it paid, is cut)
	check "$name" "staying standard, no second connection joined the copy" \
		eval '! grep -q "joins the copy" "$ROUTE_ERR_fscp"'
fi

# Forced: the download grows onto the proxied route after listing.
name="forced download via ProxyJump"
export FSCP_ROUTE=bypass
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p bastion-pj:src/big.bin dst/
unset FSCP_ROUTE
route_expect "$name" proxied "(forced)"

name="small upload stays standard"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/small.bin bastion-pc:dst/
route_expect "$name" standard "ProxyCommand is not AWS SSM and no ControlMaster is live; 100.0 KiB to move"

name="FSCP_ROUTE=standard keeps a big copy on ssh"
export FSCP_ROUTE=standard
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin bastion-pj:dst/
unset FSCP_ROUTE
route_expect "$name" standard "forced to standard"

# A proxy that fails: the bypass falls back, and ssh's own try fails as
# scp's does (the proxy's words once, exit 255).  The rest of the stderr is
# ssh's, and ssh itself races there (it may or may not add
# "kex_exchange_identification: Connection closed by remote host").
name="failing proxy: as scp"
route_compare --name "$name" --setup setup --expect-rc 255 --no-stderr -- src/big.bin bastion-false:dst/
check "$name" "scp's words" grep -q "Connection closed" "$ROUTE_ERR_fscp"
check "$name" "the proxy's words come once" \
	test "$(grep -c "proxy says no" "$ROUTE_ERR_fscp")" -eq 1

# A changed key behind the bastion: refused, nothing copied, as ssh.
name="changed host key behind the bastion"
route_compare --name "$name" --setup setup --expect-rc 255 -- src/big.bin bastion-wrongkey:dst/
check "$name" "nothing copied" test ! -e "$SSHD_HOME/dst/big.bin"
check "$name" "ssh's warning" grep -q "REMOTE HOST IDENTIFICATION HAS CHANGED" "$ROUTE_ERR_fscp"

checks_done

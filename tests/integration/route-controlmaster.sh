#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The `fresh` route around a live ControlMaster, against a real `ssh -M`
# master and the test sshd: fscp -v names the route and the socket, its copy
# matches scp's (contents, modes, -p times, exit status), and sshd's log shows
# new logins for fscp where scp only opens a mux session on the master.  A
# small copy stays on the master; a dead socket file is not taken as a master.
# Exit 0 pass, 1 fail, 99 cannot run.
# make check may start this with /bin/sh: continue in bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"
fscp_test_init

route_cm_host cm-test
SOCK=$(ssh -F "$SSH_CONFIG" -G cm-test | awk '$1 == "controlpath" { print $2 }')
[ -n "$SOCK" ] || fscp_hard_error "ssh -G shows no ControlPath for cm-test"

MASTER_PID=
PROXY_MASTER_PID=
route_cm_cleanup() {
	if [ -n "$MASTER_PID" ]; then kill "$MASTER_PID" 2>/dev/null; fi
	if [ -n "$PROXY_MASTER_PID" ]; then kill "$PROXY_MASTER_PID" 2>/dev/null; fi
	fscp__cleanup
}
trap route_cm_cleanup EXIT

route_cm_start cm-test
[ -S "$SOCK" ] || fscp_hard_error "master is not running on $SOCK"
echo "master pid $MASTER_PID on $SOCK"

# Above the 8 MiB from which a bypass pays (route.h ROUTE_FRESH_MIN_BYTES),
# small enough to keep the test quick on a loaded machine.
BIG=$((9 << 20))
SMALL=$((100 << 10))
setup() { route_setup_big_small; }
sockre=$(printf '%s' "$SOCK" | sed 's/[][\.*^$/]/\\&/g')

# fresh: both directions, with and without -p.
fresh_case() {	# name, then fscp_compare options and args
	local name=$1
	shift
	route_compare --name "$name" "$@"
	route_expect "$name" fresh "ControlMaster socket $sockre is live"
	check "$name" "scp went through the master (0 new logins, got $ROUTE_LOGINS_scp)" \
		test "$ROUTE_LOGINS_scp" -eq 0
	check "$name" "fscp made new connections (got $ROUTE_LOGINS_fscp logins)" \
		test "$ROUTE_LOGINS_fscp" -ge 1
	local ready
	ready=$(route_ready)
	check "$name" "fscp reports its connections ready ('${ready:-none}')" test -n "$ready"
}
# Left to itself, a copy through this near master stays on it (a fresh
# connection's sshd, key exchange and second encryption stream do not pay
# for themselves beside a near master): the fresh route is asked for with
# FSCP_CONNECTIONS (an upload) or FSCP_ROUTE=bypass (a download).
# The round trip the master measured decides: near (under 2 ms) the copy
# stays on the master with no new login; a slower measure (a sanitizer
# build on a loaded machine) keeps it there while the climb measures the
# master's goodput (fresh connections join only if its window holds it
# back), or, slower still, grows fresh connections at once.  An upload
# whose master has not answered within 60 ms (a loaded machine) starts
# one bypass connection meanwhile, and -v says so: that one may log in
# before it is cut.
near_master_check() {
	local most=0
	grep -q "no route yet after .* ms: the bypass connections start" "$ROUTE_ERR_fscp" && most=1
	if grep -q "^fscp: climb: .* more$" "$ROUTE_ERR_fscp"; then
		check "$name" "the climb beside the master added fresh connections ($ROUTE_LOGINS_fscp logins)" \
			test "$ROUTE_LOGINS_fscp" -ge 1
	elif grep -q "route stays standard: .*(9.0 MiB) \(stays on the live master\|starts on the master\)" \
		"$ROUTE_ERR_fscp"; then
		check "$name" "stayed on the master: at most $most new login for fscp ($ROUTE_LOGINS_fscp)" \
			test "$ROUTE_LOGINS_fscp" -le "$most"
	else
		check "$name" "or grew fresh connections once the round trip was known" \
			grep -q "route fresh: .*9.0 MiB to move.*(after listing)" "$ROUTE_ERR_fscp"
	fi
}
export FSCP_CONNECTIONS=2
fresh_case "fresh: upload 9 MiB" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin cm-test:dst/
fresh_case "fresh: upload -r -p (9 MiB + 100 KiB)" --setup setup --expect-rc 0 --no-stderr --times -- -v -r -p src cm-test:dst/
unset FSCP_CONNECTIONS
export FSCP_ROUTE=bypass
fresh_case "fresh: download 9 MiB -p" --setup setup --expect-rc 0 --no-stderr --times -- -v -p cm-test:src/big.bin dst/
unset FSCP_ROUTE
name="near upload of 9 MiB stays on the master"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin cm-test:dst/
check "$name" "it started on the master" grep -q \
	"route standard: ControlMaster socket .* is live; 9.0 MiB to move: the copy starts on the master" \
	"$ROUTE_ERR_fscp"
near_master_check
name="near download of 9 MiB stays on the master"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p cm-test:src/big.bin dst/
check "$name" "it listed over the master" \
	grep -q "route standard: ControlMaster socket .* is live; size unknown until listed" "$ROUTE_ERR_fscp"
near_master_check

# -O has one stream: a big upload takes one fresh libssh connection (the
# remote scp on an exec channel); a download, its size unknown, stays on
# the master.  Legacy remote paths are absolute (not the SFTP root).
name="fresh: -O upload 9 MiB on an exec channel"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -O -p src/big.bin "cm-test:{HOME}/dst/"
route_expect "$name" fresh "ControlMaster socket $sockre is live"
check "$name" "fscp ran the remote scp on an exec channel" \
	grep -q "legacy protocol over a libssh exec channel" "$ROUTE_ERR_fscp"
check "$name" "scp went through the master (0 new logins, got $ROUTE_LOGINS_scp)" \
	test "$ROUTE_LOGINS_scp" -eq 0
check "$name" "fscp made one new connection (got $ROUTE_LOGINS_fscp logins)" \
	test "$ROUTE_LOGINS_fscp" -eq 1
name="-O download stays on the master"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v -O "cm-test:{HOME}/src/big.bin" dst/
route_expect "$name" standard "size unknown"
check "$name" "no new login for fscp ($ROUTE_LOGINS_fscp)" test "$ROUTE_LOGINS_fscp" -eq 0

# A small upload is cheaper on the master than a handshake: under what
# any route acts on, fscp asks no ssh -G, and ssh finds the master itself.
name="small upload stays on the master"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/small.bin cm-test:dst/
route_expect "$name" standard "100.0 KiB to move, under the .* from which any other route pays"
check "$name" "no new login for scp ($ROUTE_LOGINS_scp) or fscp ($ROUTE_LOGINS_fscp)" \
	test "$ROUTE_LOGINS_scp" -eq 0 -a "$ROUTE_LOGINS_fscp" -eq 0

# FSCP_ROUTE=standard: no bypass even for a big copy, through the master.
name="FSCP_ROUTE=standard keeps a big copy on the master"
export FSCP_ROUTE=standard
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin cm-test:dst/
unset FSCP_ROUTE
route_expect "$name" standard "forced to standard"
check "$name" "no new login for fscp ($ROUTE_LOGINS_fscp)" test "$ROUTE_LOGINS_fscp" -eq 0

# A master host behind a ProxyCommand (a relay 5 ms each way, so not near):
# a download lists over the master, and the fresh connections that join
# after the listing (at this round trip, if the climb finds the master's
# window holds the copy back) go through the same proxy, never straight
# to its address.
SSM_SIM=${FSCP_TOOLS_BUILDDIR:-$PWD/tests/tools}/ssm-sim
[ -x "$SSM_SIM" ] || fscp_hard_error "ssm-sim not built ($SSM_SIM)"
cat >"$FSCP_WORK/logproxy" <<EOF
#!/bin/sh
echo "\$*" >>"$FSCP_WORK/logproxy.log"
exec "$SSM_SIM" -s 0 -c 0 -d 5 -p 262144 "\$1:\$2"
EOF
chmod +x "$FSCP_WORK/logproxy"
route_host cm-proxy "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" "ControlMaster no" \
	"ControlPath $FSCP_WORK/cmp-%C" "ControlPersist no" "ProxyCommand $FSCP_WORK/logproxy %h %p"
route_cm_start cm-proxy
PROXY_MASTER_PID=$MASTER_PID
MASTER_PID=$(ssh -F "$SSH_CONFIG" -O check cm-test 2>&1 | sed -nE 's/.*pid=([0-9]+).*/\1/p')
name="download through a proxied master: fresh connections use the proxy"
: >"$FSCP_WORK/logproxy.log"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p cm-proxy:src/big.bin dst/
check "$name" "the listing measured the relay: the master's goodput decides, fresh ones join at once, or a busy machine keeps it on the master" \
	grep -q "starts on the master, and fresh connections join if\|route fresh: .*(after listing)\|cores idle since the copy began" \
	"$ROUTE_ERR_fscp"
if grep -q "route fresh: .*(after listing)\|^fscp: climb: .* more$" "$ROUTE_ERR_fscp"; then
	check "$name" "fscp's fresh connections ran the ProxyCommand ($(wc -l <"$FSCP_WORK/logproxy.log") runs)" \
		test -s "$FSCP_WORK/logproxy.log"
else
	check "$name" "or stayed on the master (near after all): no proxy run" \
		test ! -s "$FSCP_WORK/logproxy.log"
fi
kill "$PROXY_MASTER_PID" 2>/dev/null

# The master dies without removing its socket: a stale file is no master.
kill -9 "$MASTER_PID"
n=0
while kill -0 "$MASTER_PID" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
MASTER_PID=
[ -S "$SOCK" ] || fscp_hard_error "the killed master removed its socket $SOCK"
name="dead master socket is not fresh"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin cm-test:dst/
route_expect "$name" standard "ControlPath $sockre has no live master"
check "$name" "scp ($ROUTE_LOGINS_scp) and fscp ($ROUTE_LOGINS_fscp) log in anew" \
	test "$ROUTE_LOGINS_scp" -ge 1 -a "$ROUTE_LOGINS_fscp" -ge 1
checks_done

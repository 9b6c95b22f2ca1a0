#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The `proxied` route: a host behind a ProxyCommand or ProxyJump that is not
# AWS SSM (a bastion; here `ssh -W` through the test sshd, and a ProxyJump
# to it).  fscp -v names the route, its copies match scp's (contents, modes,
# -p times, exit status), and it opens one connection through the proxy, as
# ssh does; a small copy, FSCP_ROUTE=standard and a proxy that fails keep
# to the standard route; a changed host key is refused with nothing copied.
# Through a jump host 50 ms away (a delay relay) the count climbs: each
# connection's ssh -W holds it to ssh's window.
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
# A proxy that is not ssh: ssm-sim with every SSM effect off, a plain relay.
route_host "bastion-nc" "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" \
	"ProxyCommand ${FSCP_TOOLS_BUILDDIR:-$PWD/tests/tools}/ssm-sim -s 0 -c 0 -d 0 -m 0 -p 262144 127.0.0.1:%p"
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

# Connections the climb added ("climb: ... N connections, K more").
climbed() {
	sed -nE 's/^[^ :]+: climb: .* ([0-9]+) more$/\1/p' "$ROUTE_ERR_fscp" |
		awk '{ s += $1 } END { print s + 0 }'
}

# One connection through the proxy: the bastion's login plus the target's
# (scp makes the same two), and two more for each one the climb added (a
# slow build's near copy may last long enough for one).
proxied_case() {	# name, then fscp_compare options and args
	local name=$1 more
	shift
	route_compare --name "$name" "$@"
	route_expect "$name" proxied "connection through the same proxy"
	more=$(climbed)
	check "$name" "fscp logged in twice per connection (bastion + target; $more climbed; got $ROUTE_LOGINS_fscp)" \
		test "$ROUTE_LOGINS_fscp" -le $((2 * (1 + more)))
}
proxied_case "proxied: upload 9 MiB via ProxyCommand" --setup setup --expect-rc 0 --no-stderr -- \
	-v src/big.bin bastion-pc:dst/
proxied_case "proxied: upload -r -p via ProxyJump" --setup setup --expect-rc 0 --no-stderr --times -- \
	-v -r -p src bastion-pj:dst/
proxied_case "proxied: upload -p via ProxyJump" --setup setup --expect-rc 0 --no-stderr --times -- \
	-v -p src/big.bin bastion-pj:dst/

# The connection started beside a download's listing through a proxy:
# through ssh itself (ProxyJump's ssh -W, or a ProxyCommand that runs ssh,
# as both hosts here have) it carries a near copy as well as a far one,
# so it goes on whatever its key exchange (-vv) measured.
spec_went_on() {	# name
	local name=$1
	check "$name" "through ssh, the connection beside the listing did not stop" \
		eval '! grep -q "not far, the speculative connection stops" "$ROUTE_ERR_fscp"'
}

# A download lists over ssh first, then decides with the round trip that
# listing measured.  Through ssh itself, where ssh's window does not hold
# the copy back (under about 33 ms), ssh's copy would pass one ssh process
# more than fscp's connection through the same proxy: the copy leaves the
# listing ssh for the connection started beside it.  A slower measure still
# (a sanitizer build through two ssh hops) takes the proxied route with
# ssh's connection carrying its share.
near_jump_case() {	# name, then fscp's operands
	local name=$1 got
	shift
	route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -vv -p "$@" dst/
	check "$name" "it listed over ssh first" \
		grep -qE "route standard: (ProxyCommand is not AWS SSM|ProxyJump host is not reached through AWS SSM).*size unknown until listed" "$ROUTE_ERR_fscp"
	check "$name" "it decided after listing (within ssh's window: left ssh; measured far: proxied beside it)" \
		grep -qE "route proxied: .*the server answers in [0-9.]+ ms through ssh: the copy \(9.0 MiB\) leaves the listing ssh for a connection through the same proxy \(after listing\)|route proxied: .*9.0 MiB to move.*\(after listing\)" "$ROUTE_ERR_fscp"
	spec_went_on "$name"
	if grep -q "leaves the listing ssh" "$ROUTE_ERR_fscp"; then
		check "$name" "the connection opened while listing carried the copy" \
			grep -q "the connection opened while listing joins the copy" "$ROUTE_ERR_fscp"
		# ssh -v's last words: what its connection moved.
		got=$(sed -nE 's/^Transferred: sent [0-9]+, received ([0-9]+) bytes.*/\1/p' "$ROUTE_ERR_fscp" |
			sort -n | tail -1)
		check "$name" "the listing ssh rested: it received ${got:-nothing (no Transferred line)} bytes, not the file's 9 MiB" \
			eval 'test -n "$got" && test "$got" -lt 1048576'
		check "$name" "logins: scp's plus the connection's bastion and target ($(climbed) climbed; got $ROUTE_LOGINS_fscp, scp $ROUTE_LOGINS_scp)" \
			test "$ROUTE_LOGINS_fscp" -le $((ROUTE_LOGINS_scp + 2 + 2 * $(climbed)))
	fi
}
near_jump_case "download of 9 MiB via a ProxyCommand that runs ssh, decided after listing" \
	bastion-pc:src/big.bin

# Through a ProxyJump of one hop whose login, as the target's, asks nobody
# (a key, a known host key), the connection started beside the listing
# lists instead of ssh: ssh's listing would log in to the bastion and the
# target once more than the copy needs.
name="download of 9 MiB via ProxyJump, listed by fscp's own connection"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -vv -p bastion-pj:src/big.bin dst/
check "$name" "its own connection listed through the jump host" \
	grep -q "route proxied: the bypass connection lists through the proxy, without ssh" "$ROUTE_ERR_fscp"
check "$name" "no ssh listed (the only ssh run is the jump host's ssh -W)" \
	eval '! grep -q "running .*/ssh'"'"' .* '"'"'-s'"'"' " "$ROUTE_ERR_fscp"'
check "$name" "it decided after listing (near: that connection carries it; farther: proxied)" \
	grep -qE "route proxied: .*(the connection that listed carries it|9.0 MiB to move.*\(after listing\))" "$ROUTE_ERR_fscp"
spec_went_on "$name"
check "$name" "logins: scp's bastion and target, and two per connection the climb added ($(climbed) climbed; got $ROUTE_LOGINS_fscp, scp $ROUTE_LOGINS_scp)" \
	test "$ROUTE_LOGINS_fscp" -le $((ROUTE_LOGINS_scp + 2 * $(climbed)))

# Through a proxy that is not ssh (here a plain relay), the connection
# started beside a download lists instead of ssh, near or far: no ssh
# runs, and that connection carries the copy (near: alone; farther, the
# climb may add more through the same proxy).
name="download of 9 MiB via a plain relay, listed by fscp's own connection"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -vv -p bastion-nc:src/big.bin dst/
check "$name" "its own connection listed through the proxy" \
	grep -q "route proxied: the bypass connection lists through the proxy, without ssh" "$ROUTE_ERR_fscp"
check "$name" "no ssh ran" eval '! grep -q "running .*/ssh'"'"' " "$ROUTE_ERR_fscp"'
check "$name" "it decided after listing (near: that connection carries it; farther: proxied)" \
	grep -qE "route proxied: .*(the connection that listed carries it|9.0 MiB to move.*\(after listing\))" "$ROUTE_ERR_fscp"
check "$name" "it never stopped (it listed)" \
	eval '! grep -q "not far, the speculative connection stops" "$ROUTE_ERR_fscp"'
check "$name" "logins: scp's, and one per connection the climb added ($(climbed) climbed; got $ROUTE_LOGINS_fscp, scp $ROUTE_LOGINS_scp)" \
	test "$ROUTE_LOGINS_fscp" -le $((ROUTE_LOGINS_scp + $(climbed)))

# A download through a proxy that fails: fscp's own try fails, ssh's
# then fails as scp's does (the proxy's words once, exit 255).
name="failing proxy, download: as scp"
route_compare --name "$name" --setup setup --expect-rc 255 --no-stderr -- bastion-false:src/big.bin dst/
check "$name" "scp's words" grep -q "Connection closed" "$ROUTE_ERR_fscp"
check "$name" "the proxy's words come once" \
	test "$(grep -c "proxy says no" "$ROUTE_ERR_fscp")" -eq 1

# Forced: the download grows onto the proxied route after listing.
name="forced download via ProxyJump"
export FSCP_ROUTE=bypass
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p bastion-pj:src/big.bin dst/
unset FSCP_ROUTE
route_expect "$name" proxied "(forced)"

name="small upload stays standard"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/small.bin bastion-pc:dst/
route_expect "$name" standard "100.0 KiB to move, under the .* from which any other route pays"

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

# A jump host 50 ms away: one connection through its ssh -W moves what
# ssh's window allows, and the climb measures it and adds more while each
# doubling raises the goodput (on a busy machine it may stop at once: it
# prints why).  The relay is the bastion; the target is sshd behind it.
route_relay_start -d 25
trap 'kill "$ROUTE_RELAY_PID" 2>/dev/null; fscp__cleanup' EXIT
RP=$ROUTE_RELAY_PORT
echo "[127.0.0.1]:$RP $(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")" >"$FSCP_WORK/far_known_hosts"
sed -n "/^Host fscp-test/,\$p" "$SSH_CONFIG" | sed "s/^Host .*/Host bastion-far/; s/^\tPort .*/\tPort $RP/;
	s|^\tUserKnownHostsFile .*|\tUserKnownHostsFile $FSCP_WORK/far_known_hosts|" >"$FSCP_WORK/far.cfg"
printf '\n' >>"$SSH_CONFIG"
cat "$FSCP_WORK/far.cfg" >>"$SSH_CONFIG"
route_host "far-pj" "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" "ProxyJump bastion-far"
FAR=$((32 << 20))
setup_far() {
	mkdir -p src dst "$SSHD_HOME/dst"
	fscp_put_file src/far.bin "$FAR" 0644
}
name="upload of 32 MiB via a ProxyJump 50 ms away: the climb measures it"
route_compare --name "$name" --setup setup_far --expect-rc 0 --no-stderr -- -v src/far.bin far-pj:dst/
route_expect "$name" proxied "ProxyJump host is not reached through AWS SSM; 32.0 MiB to move: 1 connection"
echo "  $(grep -E '^[^ :]+: (climb: |[0-9]+ of [0-9]+ connections|debug: (connection|round trip))|^Transferred' "$ROUTE_ERR_fscp" | tr '\n' '|')"
check "$name" "the climb measured the proxied connection" \
	grep -qE "^[^ :]+: climb: goodput [0-9.]+ MB/s" "$ROUTE_ERR_fscp"
more=$(climbed)
echo "  climbed: $more"
check "$name" "scp's logins (bastion + target) per connection ($more climbed; got $ROUTE_LOGINS_fscp, scp $ROUTE_LOGINS_scp)" \
	test "$ROUTE_LOGINS_fscp" -le $((ROUTE_LOGINS_scp * (1 + more)))

# The download lists over fscp's own connection through the jump host
# (one hop, whose login asks nobody); the climb's join time is a login
# through a jump 50 ms away (many round trips), not the instant the pool
# of room behind it was made.
setup_far_down() {
	mkdir -p dst "$SSHD_HOME/src"
	fscp_put_file "$SSHD_HOME/src/far.bin" "$FAR" 0644
}
name="download of 32 MiB via a ProxyJump 50 ms away: the climb knows a join's cost"
route_compare --name "$name" --setup setup_far_down --expect-rc 0 --no-stderr -- -vv far-pj:src/far.bin dst/
# Through the jump's ssh a connection keeps a few of ssh's 2 MiB windows
# in flight (route_tuning: 4 over 8 channels), not what the round trip
# would ask for: more only waits in ssh -W's buffers.
if grep -q "route proxied: " "$ROUTE_ERR_fscp"; then
	check "$name" "through ssh -W: 1 MiB in flight per channel" \
		grep -qE "^[^ :]+: debug: round trip [0-9.]+ ms: 1024 KiB in flight per SFTP channel" \
		"$ROUTE_ERR_fscp"
	# ... on several channels: one was slower there (route_one_channel).
	check "$name" "through ssh -W: several SFTP channels on a connection" \
		grep -qE "^[^ :]+: debug: [0-9]+ SFTP channels on one connection" "$ROUTE_ERR_fscp"
else
	echo "  not checked: the copy stayed on ssh's route (no connection through the jump host's ssh)"
fi
join=$(sed -nE 's/^[^ :]+: climb: .*new ones take ([0-9.]+) s to join.*/\1/p' "$ROUTE_ERR_fscp" | head -1)
echo "  climb: $(grep -E '^[^ :]+: climb: ' "$ROUTE_ERR_fscp" | tr '\n' '|'); first join: ${join:-none}"
if [ -n "$join" ]; then
	check "$name" "a join through the jump took 0.3 s or more (got $join s)" \
		awk -v j="$join" 'BEGIN { exit !(j >= 0.3) }'
fi
more=$(climbed)
check "$name" "scp's logins per connection, the listing's included ($more climbed; got $ROUTE_LOGINS_fscp, scp $ROUTE_LOGINS_scp)" \
	test "$ROUTE_LOGINS_fscp" -le $((ROUTE_LOGINS_scp * (2 + more)))

# The same download through a jump host that is slow for fscp's own
# connection only: the ProxyCommand is ssh -W (so ssh lists, and the
# connection beside it carries the copy), and the jump host's own proxy
# sleeps when its grandparent is fscp (fscp's connection: fscp, ssh -W,
# proxy; the listing ssh's and scp's go at once).  The listing ends before
# the connection beside it is up.  The growth takes it while it still
# comes, and the climb goes on in it (it measured nothing before: that
# connection's pool had no room).  192 MiB leave the climb time for its
# first measure after that connection is in.
cat >"$FSCP_WORK/late-proxy" <<EOF2
#!/bin/sh
gp=\$(awk '{ print \$4 }' /proc/\$PPID/stat)
case \$(cat /proc/\$gp/comm) in *fscp*) sleep 1;; esac
exec ${FSCP_TOOLS_BUILDDIR:-$PWD/tests/tools}/ssm-sim -s 0 -c 0 -d 0 -m 0 -p 262144 "\$1"
EOF2
chmod +x "$FSCP_WORK/late-proxy"
awk 'b && /^Host /{ exit } /^Host bastion-far$/{ b = 1 } b' "$FSCP_WORK/far.cfg" |
	sed "s/^Host .*/Host bastion-far-late/" >>"$SSH_CONFIG"
printf '\tProxyCommand %s 127.0.0.1:%%p\n' "$FSCP_WORK/late-proxy" >>"$SSH_CONFIG"
route_host "far-late" "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" \
	"ProxyCommand ssh -F $SSH_CONFIG -W %h:%p bastion-far-late"
LATE=$((192 << 20))
setup_far_late() {
	mkdir -p dst "$SSHD_HOME/src"
	fscp_put_file "$SSHD_HOME/src/far.bin" "$LATE" 0644
}
name="download of 192 MiB behind a far proxy whose second connection comes late: it climbs"
route_compare --name "$name" --setup setup_far_late --expect-rc 0 --no-stderr -- -v far-late:src/far.bin dst/
echo "  $(grep -E '^[^ :]+: (climb: |[0-9]+ of [0-9]+ connections up)' "$ROUTE_ERR_fscp" | tr '\n' '|')"
check "$name" "the connection beside the listing was still coming" \
	grep -qE "^[^ :]+: 0 of 1 connections up in [0-9.]+ s: the copy starts" "$ROUTE_ERR_fscp"
check "$name" "the climb measured the copy" \
	grep -qE "^[^ :]+: climb: goodput [0-9.]+ (->|MB/s)" "$ROUTE_ERR_fscp"

checks_done

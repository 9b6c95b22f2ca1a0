#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Integration test of src/transport/sshconn.c through tests/tools/sshconn-try against a
# private sshd on 127.0.0.1 (tests/lib/sshd.sh).  Exit 0 pass, 1 fail, 99
# cannot run.  Run from the build directory (make check) or with
# SSHCONN_TRY=/path/to/sshconn-try bash tests/integration/sshconn.sh.
set -u

here=$(cd "$(dirname "$0")" && pwd)
srcroot=$(cd "$here/../.." && pwd)
try=${SSHCONN_TRY:-}
if [ -z "$try" ]; then
	for cand in ./tests/tools/sshconn-try "$srcroot/tests/tools/sshconn-try"; do
		if [ -x "$cand" ]; then
			try=$cand
			break
		fi
	done
fi
if [ -z "$try" ] || [ ! -x "$try" ]; then
	echo "sshconn.sh: sshconn-try not built (make tests/tools/sshconn-try)" >&2
	exit 99
fi
try=$(cd "$(dirname "$try")" && pwd)/$(basename "$try")

# shellcheck source=../lib/sshd.sh
. "$srcroot/tests/lib/sshd.sh" || exit 99
# shellcheck source=../lib/checks.sh
. "$srcroot/tests/lib/checks.sh" || exit 99
work=$(mktemp -d /tmp/fscp-sshconn.XXXXXX) || exit 99
agent_pid=
cleanup() {
	fscp_sshd_stop
	if [ -n "$agent_pid" ]; then
		kill "$agent_pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
fscp_sshd_start "$work/sshd" || exit 99

P=$SSHD_PORT
D=$SSHD_DIR
hostkey=$(cut -d' ' -f1,2 "$D/ssh_host_ed25519_key.pub")
ssh-keygen -q -t ed25519 -N '' -f "$work/other" || exit 99
otherkey=$(cut -d' ' -f1,2 "$work/other.pub")

# run NAME WANT_RC [GREP] -- sshconn-try args...: stdin from /dev/null, no
# controlling terminal, 30 s limit, so a prompt shows up as a hang/failure.
run() {
	local name=$1 want=$2 pat=$3 rc
	shift 4
	timeout 30 setsid "$try" "$@" </dev/null >"$work/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "$name: exit $rc, want $want"
		sed 's/^/    /' "$work/out"
		return 1
	fi
	if [ -n "$pat" ] && ! grep -q -- "$pat" "$work/out"; then
		bad "$name: output lacks '$pat'"
		sed 's/^/    /' "$work/out"
		return 1
	fi
	ok "$name"
	return 0
}

base=(-p "$P" -l root -B -I -i "$D/id_ed25519")
kh=$work/kh
mkdir -p "$kh"
echo "[127.0.0.1]:$P $hostkey" >"$kh/good"
echo "[127.0.0.1]:$P $otherkey" >"$kh/wrong"
: >"$kh/empty"

# --- host keys ---------------------------------------------------------
run "good key, sftp INIT/VERSION" 0 "VERSION 3" -- "${base[@]}" -k "$kh/good" -s yes -S 127.0.0.1
run "wrong key refused" 3 "Offending ED25519 key in $kh/wrong:1" -- "${base[@]}" -k "$kh/wrong" -s yes -S 127.0.0.1
run "wrong key not trusted with strict=no (ssh goes on unsafely; left to ssh)" 6 "warn about but accept" -- "${base[@]}" -k "$kh/wrong" -s no -S 127.0.0.1
run "unknown key, strict yes" 3 "Host key verification failed" -- "${base[@]}" -k "$kh/empty" -s yes -S 127.0.0.1
run "unknown key, ask + BatchMode" 3 "Host key verification failed" -- "${base[@]}" -k "$kh/empty" -s ask -S 127.0.0.1
run "unknown key, ask, no prompt (left to ssh)" 6 "ssh would ask" -- -p "$P" -l root -I -i "$D/id_ed25519" -k "$kh/empty" -s ask -S 127.0.0.1
check sshconn-try "refusals left known_hosts alone" test ! -s "$kh/empty"
run "key in second UserKnownHostsFile" 0 "VERSION 3" -- "${base[@]}" -k "$kh/empty" -k "$kh/good" -s yes -S 127.0.0.1
run "key in GlobalKnownHostsFile" 0 "VERSION 3" -- "${base[@]}" -k "$kh/empty" -g "$kh/good" -s yes -S 127.0.0.1
run "changed in one file, right in another" 0 "VERSION 3" -- "${base[@]}" -k "$kh/wrong" -k "$kh/good" -s yes -S 127.0.0.1
{
	echo "# comment"
	echo "other.example,!127.0.0.1 $otherkey"
	echo "@revoked [127.0.0.1]:$P $hostkey"
	echo "[127.0.0.1]:$P $hostkey"
} >"$kh/revoked"
run "@revoked key refused" 3 "REVOKED" -- "${base[@]}" -k "$kh/revoked" -s yes -S 127.0.0.1
echo "[127.0.0.1]:$P $hostkey" >"$kh/hashed"
ssh-keygen -q -H -f "$kh/hashed" >/dev/null 2>&1
check sshconn-try "ssh-keygen -H hashed the entry" grep -q '^|1|' "$kh/hashed"
run "hashed entry accepted" 0 "VERSION 3" -- "${base[@]}" -k "$kh/hashed" -s yes -S 127.0.0.1
echo "127.0.0.1 $hostkey" >"$kh/noport"
# ssh: "checking without port identifier", read-only.
run "entry without [host]:port accepted for port $P, as ssh does" 0 "VERSION 3" -- "${base[@]}" -k "$kh/noport" -s yes -S 127.0.0.1

# HostKeyAlias: the alias, no port; the host's own entries do not count.
echo "myalias $hostkey" >"$kh/alias"
echo "[myalias]:$P $hostkey" >"$kh/alias_port"
run "HostKeyAlias entry accepted" 0 "VERSION 3" -- "${base[@]}" -k "$kh/alias" -a myalias -s yes -S 127.0.0.1
run "HostKeyAlias looks up without port" 3 "" -- "${base[@]}" -k "$kh/alias_port" -a myalias -s yes -S 127.0.0.1
run "HostKeyAlias ignores the host's entry" 3 "" -- "${base[@]}" -k "$kh/good" -a myalias -s yes -S 127.0.0.1
# connect_host override (ssm-direct): connect to 127.0.0.1, verify as the
# instance name.
echo "[i-0123456789abcdef0]:$P $hostkey" >"$kh/instance"
echo "[i-0123456789abcdef0]:$P $otherkey" >"$kh/instance_wrong"
run "connect_host verified under instance name" 0 "VERSION 3" -- "${base[@]}" -k "$kh/instance" -s yes -c 127.0.0.1 -S i-0123456789abcdef0
run "connect_host with another key refused" 3 "CHANGED" -- "${base[@]}" -k "$kh/instance_wrong" -s yes -c 127.0.0.1 -S i-0123456789abcdef0
run "connect_host: host's own entry is no proof" 3 "" -- "${base[@]}" -k "$kh/good" -s yes -c 127.0.0.1 -S i-0123456789abcdef0
run "probe only, right key" 0 "CONNECTED" -- -p "$P" -k "$kh/instance" -s yes -B -x -c 127.0.0.1 i-0123456789abcdef0
run "probe only, unknown key" 3 "" -- -p "$P" -k "$kh/empty" -s yes -B -x -c 127.0.0.1 i-0123456789abcdef0

# accept-new adds to the FIRST user file, then strict checking passes.
: >"$kh/new1"
run "accept-new accepts" 0 "VERSION 3" -- "${base[@]}" -k "$kh/new1" -k "$kh/empty" -s accept-new -S 127.0.0.1
check sshconn-try "accept-new added one entry" test "$(grep -c "^\[127.0.0.1\]:$P ssh-ed25519 " "$kh/new1")" = 1
check sshconn-try "accept-new left the second file alone" test ! -s "$kh/empty"
run "added entry then passes strict" 0 "VERSION 3" -- "${base[@]}" -k "$kh/new1" -s yes -S 127.0.0.1
check sshconn-try "ssh accepts the added entry" ssh -F /dev/null -p "$P" -o UserKnownHostsFile="$kh/new1" \
	-o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o BatchMode=yes \
	-o IdentitiesOnly=yes -i "$D/id_ed25519" root@127.0.0.1 true
: >"$kh/newh"
run "accept-new, hashed" 0 "VERSION 3" -- "${base[@]}" -k "$kh/newh" -H -s accept-new -S 127.0.0.1
check sshconn-try "hashed entry written" grep -q "^|1|" "$kh/newh"
check sshconn-try "ssh-keygen -F finds the hashed entry" sh -c 'ssh-keygen -F "$1" -f "$2" >/dev/null' - "[127.0.0.1]:$P" "$kh/newh"
run "accept-new does not override a changed key" 3 "CHANGED" -- "${base[@]}" -k "$kh/wrong" -s accept-new -S 127.0.0.1

# --- authentication ----------------------------------------------------
run "auth: identity file" 0 "VERSION 3" -- -p "$P" -l root -B -I -A none -i "$D/id_ed25519" -k "$kh/good" -s yes -S 127.0.0.1
run "auth: wrong key" 4 "Permission denied" -- -p "$P" -l root -B -I -A none -i "$work/other" -k "$kh/good" -s yes -S 127.0.0.1
run "auth: missing file skipped, next one used" 0 "VERSION 3" -- -p "$P" -l root -B -I -A none -i "$work/nonexistent" -i "$D/id_ed25519" -k "$kh/good" -s yes -S 127.0.0.1
cp "$D/id_ed25519" "$work/enc" && chmod 600 "$work/enc"
ssh-keygen -q -p -P '' -N 'secret phrase' -f "$work/enc" >/dev/null 2>&1
run "auth: encrypted key skipped without prompting" 4 "Permission denied" -- -p "$P" -l root -A none -i "$work/enc" -k "$kh/good" -s yes -S 127.0.0.1
run "auth: no keys at all" 4 "Permission denied" -- -p "$P" -l root -B -A none -k "$kh/good" -s yes -S 127.0.0.1
if command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null; then
	eval "$(ssh-agent -s -a "$work/agent.sock")" >/dev/null
	agent_pid=$SSH_AGENT_PID
	ssh-add -q "$D/id_ed25519" 2>/dev/null
	run "auth: agent" 0 "VERSION 3" -- -p "$P" -l root -B -k "$kh/good" -s yes -S 127.0.0.1
	run "auth: IdentityAgent path" 0 "VERSION 3" -- -p "$P" -l root -B -A "$work/agent.sock" -k "$kh/good" -s yes -S 127.0.0.1
	run "auth: IdentityAgent none" 4 "" -- -p "$P" -l root -B -A none -k "$kh/good" -s yes -S 127.0.0.1
	run "auth: IdentitiesOnly skips the agent" 4 "" -- -p "$P" -l root -B -I -k "$kh/good" -s yes -S 127.0.0.1
	unset SSH_AUTH_SOCK SSH_AGENT_PID
fi

# --- connection, channels ----------------------------------------------
closed=$(fscp__free_port)
run "connect refused" 2 "Connection refused" -- -p "$closed" -k "$kh/good" -s yes -B -S 127.0.0.1
run "sftp INIT through a 14 MiB read buffer (reads return early)" 0 "VERSION 3" -- "${base[@]}" -k "$kh/good" -s yes -r 14680064 -S 127.0.0.1
run "Ciphers list libssh partly knows" 0 "VERSION 3" -- "${base[@]}" -k "$kh/good" -s yes -y "bogus-cipher,aes128-ctr" -S 127.0.0.1
run "Ciphers list libssh does not know: refuse" 2 "supports none of Ciphers" -- "${base[@]}" -k "$kh/good" -s yes -y "bogus-cipher" -S 127.0.0.1
# A listener that accepts but never speaks SSH: ConnectTimeout bounds the
# handshake too, as in ssh.
if command -v python3 >/dev/null; then
	silent=$(fscp__free_port)
	python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(5)
keep = []
while True:
    keep.append(s.accept()[0])' "$silent" &
	silent_pid=$!
	for _ in $(seq 50); do
		fscp__port_open "$silent" && break
		sleep 0.1
	done
	t0=$(date +%s)
	run "silent server: handshake times out" 2 "handshake" -- -p "$silent" -k "$kh/good" -s yes -B -t 2 -S 127.0.0.1
	t1=$(date +%s)
	check sshconn-try "handshake timeout took < 10 s" test $((t1 - t0)) -lt 10
	kill "$silent_pid" 2>/dev/null
	wait "$silent_pid" 2>/dev/null
fi
# A connection stopped while it logs in (fscp stops the ones a finished
# copy no longer needs) must end at once, not at the timeout (-t 60).  The
# relay passes the handshake, then holds the server's bytes for 1.5 s: the
# client waits for the answer to its service request when -X cuts it.
if command -v python3 >/dev/null; then
	stall=$(fscp__free_port)
	python3 "$srcroot/tests/tools/stall-relay" "$stall" "$P" 1.5 &
	stall_pid=$!
	for _ in $(seq 50); do
		fscp__port_open "$stall" && break
		sleep 0.1
	done
	run "cut while logging in: the open ends at once" 4 "authentication with" -- \
		"${base[@]}" -P "$stall" -k "$kh/good" -s yes -t 60 -X 700 -S 127.0.0.1
	sed -n 's/^sshconn-try: open returned \([0-9.]*\) s.*/\1/p' "$work/out" >"$work/cut"
	check sshconn-try "cut while logging in: the open returned within 2 s of the cut ($(cat "$work/cut") s)" \
		awk '{ ok = $1 < 2 } END { exit !ok }' "$work/cut"
	kill "$stall_pid" 2>/dev/null
	wait "$stall_pid" 2>/dev/null
else
	bad "python3 missing: the login-stall relay cannot run"
fi
run "compression" 0 "VERSION 3" -- "${base[@]}" -k "$kh/good" -s yes -C -S 127.0.0.1
run "exec stream, 64 MiB, small reads" 0 "BYTES 67108864 " -- "${base[@]}" -k "$kh/good" -s yes -n 1000 -e 'head -c 67108864 /dev/zero' 127.0.0.1
run "exec stream, 64 MiB, 8 MiB buffer" 0 "BYTES 67108864 " -- "${base[@]}" -k "$kh/good" -s yes -r 8388608 -e 'head -c 67108864 /dev/zero' 127.0.0.1
run "exec stream, nonzero exit reported by close" 0 "CLOSE 1" -- "${base[@]}" -k "$kh/good" -s yes -e 'echo x; exit 3' 127.0.0.1

checks_done

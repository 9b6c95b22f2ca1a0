#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Falling back from a bypass to the standard route, and never prompting:
#   - the only working key is in an ssh-agent and the config says
#     IdentitiesOnly yes with the key's .pub as IdentityFile: ssh logs in with
#     the agent's key, the libssh bypass cannot (it skips the agent under
#     IdentitiesOnly and has no private key file); a forced bypass must fail,
#     say so under -v, fall back and copy exactly as scp does;
#   - an unknown host key with StrictHostKeyChecking ask and BatchMode yes:
#     scp and fscp refuse alike (same status, same messages), fscp never asks
#     (no terminal, stdin /dev/null, time limit), whatever the route;
#   - FSCP_ROUTE=standard never opens a libssh connection (one login only).
# Exit 0 pass, 1 fail, 99 cannot run.

# make check may start this with /bin/sh: continue in bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
# No controlling terminal for anything below: a prompt would have nowhere to
# go but a hang or an error, never an answer.
if [ -z "${ROUTE_FALLBACK_SETSID:-}" ] && command -v setsid >/dev/null; then
	ROUTE_FALLBACK_SETSID=1 exec setsid -w bash "$0" "$@"
fi
. "$(dirname "$0")/../lib/route-lib.sh"
FSCP_TIMEOUT=60
fscp_test_init
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT

# The agent holds the only key sshd accepts for this login; on disk there is
# only its public half.
AGENT_PID=
route_fb_cleanup() {
	if [ -n "$AGENT_PID" ]; then kill "$AGENT_PID" 2>/dev/null; fi
	fscp__cleanup
}
trap route_fb_cleanup EXIT
eval "$(ssh-agent -s -a "$FSCP_WORK/agent.sock")" >/dev/null || fscp_hard_error "cannot start ssh-agent"
AGENT_PID=$SSH_AGENT_PID
export SSH_AUTH_SOCK
mkdir -p "$FSCP_WORK/agentkey"
ssh-keygen -q -t ed25519 -N '' -C fscp-agent-only -f "$FSCP_WORK/agentkey/id" >/dev/null ||
	fscp_hard_error "ssh-keygen failed"
ssh-add -q "$FSCP_WORK/agentkey/id" 2>/dev/null || fscp_hard_error "ssh-add failed"
rm -f "$FSCP_WORK/agentkey/id"
cat "$FSCP_WORK/agentkey/id.pub" >>"$SSHD_DIR/authorized_keys"
: >"$FSCP_WORK/empty_known_hosts"

cat >>"$SSH_CONFIG" <<EOF

Host fb-agent
	HostName 127.0.0.1
	Port $SSHD_PORT
	User root
	IdentityFile $FSCP_WORK/agentkey/id
	IdentitiesOnly yes
	UserKnownHostsFile $SSHD_DIR/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	LogLevel ERROR

Host fb-unknown
	HostName 127.0.0.1
	Port $SSHD_PORT
	User root
	IdentityFile $SSHD_DIR/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $FSCP_WORK/empty_known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking ask
	BatchMode yes
	LogLevel ERROR
EOF
ssh -F "$SSH_CONFIG" fb-agent true </dev/null ||
	fscp_hard_error "ssh cannot log in with the agent's key (fb-agent)"

MID=$((2 << 20))
setup() {
	mkdir -p src dst "$SSHD_HOME/src" "$SSHD_HOME/dst"
	fscp_put_file src/mid.bin "$MID" 0640
	fscp_put_file "$SSHD_HOME/src/mid.bin" "$MID" 0604
	fscp_put_file src/small.txt 1000 0644
	fscp_set_times src "$SSHD_HOME/src"
}

# 1. Authentication the bypass cannot do.
export FSCP_ROUTE=bypass
for dir in up down; do
	if [ $dir = up ]; then args=(src/mid.bin fb-agent:dst/); else args=(fb-agent:src/mid.bin dst/); fi
	name="bypass auth fails, falls back: $dir -p"
	route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p "${args[@]}"
	route_expect "$name" fresh "forced"
	check "$name" "fscp says the bypass failed and falls back" \
		grep -qE "bypass failed: .*; falling back to the standard route" "$ROUTE_ERR_fscp"
	check "$name" "one login each, the agent's (scp $ROUTE_LOGINS_scp, fscp $ROUTE_LOGINS_fscp)" \
		test "$ROUTE_LOGINS_scp" -eq 1 -a "$ROUTE_LOGINS_fscp" -eq 1
done
# Without -v the fallback is silent: the same output as scp's.
name="bypass auth fails, falls back silently (stderr as scp's)"
route_compare --name "$name" --setup setup --expect-rc 0 -- -r src fb-agent:dst/
unset FSCP_ROUTE

# 2. An unknown host key is refused, never asked about.
for route in auto bypass; do
	export FSCP_ROUTE=$route FSCP_CONNECTIONS=3
	name="unknown host key, ask + BatchMode, FSCP_ROUTE=$route: upload refused"
	route_compare --name "$name" --setup setup --expect-rc 255 -- src/mid.bin fb-unknown:dst/
	name="unknown host key, ask + BatchMode, FSCP_ROUTE=$route: download refused"
	route_compare --name "$name" --setup setup --expect-rc 255 -- fb-unknown:src/mid.bin dst/
	name="unknown host key, FSCP_ROUTE=$route, -v: no prompt, no key added"
	route_compare --name "$name" --setup setup --expect-rc 255 --no-stderr -- -v src/small.txt fb-unknown:dst/
	check "$name" "fscp printed no host key question" \
		eval '! grep -qiE "continue connecting|yes/no" "$ROUTE_ERR_fscp"'
	check "$name" "no login at all (scp $ROUTE_LOGINS_scp, fscp $ROUTE_LOGINS_fscp)" \
		test "$ROUTE_LOGINS_scp" -eq 0 -a "$ROUTE_LOGINS_fscp" -eq 0
	check "$name" "known_hosts still empty" test ! -s "$FSCP_WORK/empty_known_hosts"
done
unset FSCP_ROUTE FSCP_CONNECTIONS

# 3. FSCP_ROUTE=standard: ssh only, even when more connections are asked for.
export FSCP_ROUTE=standard FSCP_CONNECTIONS=4
name="FSCP_ROUTE=standard: one ssh, no libssh"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p src/mid.bin fscp-test:dst/
route_expect "$name" standard "forced to standard"
check "$name" "exactly one login each (scp $ROUTE_LOGINS_scp, fscp $ROUTE_LOGINS_fscp)" \
	test "$ROUTE_LOGINS_scp" -eq 1 -a "$ROUTE_LOGINS_fscp" -eq 1
check "$name" "no 'connections ready' line" test -z "$(route_ready)"
# The contrast: the same copy with the bypass forced logs in 4 times.
export FSCP_ROUTE=bypass
name="FSCP_ROUTE=bypass FSCP_CONNECTIONS=4: four libssh logins"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p src/mid.bin fscp-test:dst/
route_expect "$name" fresh "4 fresh connections"
check "$name" "four logins for fscp ($ROUTE_LOGINS_fscp)" test "$ROUTE_LOGINS_fscp" -eq 4
unset FSCP_ROUTE FSCP_CONNECTIONS

# 4. What ssh would say, said once, on a bypass: a missing -i file (ssh -G's
# warning; no ssh runs on the fresh route), a ProxyJump that cannot
# resolve (the bypass's proxy and the fallback's ssh would both say it), a
# -S program that does not exist (its name, as scp's perror; -S takes the
# standard route).
export FSCP_ROUTE=bypass FSCP_CONNECTIONS=2
route_compare --name "bypass: -i missing file, ssh's warning once" --setup setup --expect-rc 0 -- \
	-i "$FSCP_WORK/no-such-key" src/mid.bin fscp-test:dst/
# ssh -G itself, asked without scp's -oRequestTTY=no and stdin no
# terminal, says "Pseudo-terminal will not be allocated ..." at LogLevel
# INFO; scp's ssh never does, so neither may fscp.
route_compare --name "bypass: LogLevel INFO, stdin no terminal: nothing from ssh -G" --setup setup \
	--expect-rc 0 -- -o LogLevel=INFO src/mid.bin fscp-test:dst/
route_compare --name "bypass: -J that cannot resolve, its error once" --setup setup --expect-rc 255 -- \
	-J 'a b c' src/mid.bin fscp-test:dst/
# scp's own status there races its dead child (255 "Connection closed" or 1
# "lost connection"): fscp's first line is checked, as scp's perror says it.
name="bypass: -S missing program, scp's message"
(cd "$FSCP_WORK/L" && "$FSCP" -F "$SSH_CONFIG" -S "$FSCP_WORK/no-such-ssh" "$srcdir/README" \
	fscp-test:dst/ >/dev/null 2>"$FSCP_WORK/s-missing.err")
check "$name" "first line '<program>: No such file or directory'" \
	test "$(head -1 "$FSCP_WORK/s-missing.err")" = "$FSCP_WORK/no-such-ssh: No such file or directory"
unset FSCP_ROUTE FSCP_CONNECTIONS

# The last route_compare's fscp: its bypass connection listed, no ssh ran,
# and each tool logged in once; or, its TCP handshake not begun within the
# plan's wait, ssh did.
lists_without_ssh() {
	if grep -q "no TCP handshake yet: ssh lists" "$ROUTE_ERR_fscp"; then
		check "$1" "or, the handshake late, ssh listed" grep -q "Executing: program" \
			"$ROUTE_ERR_fscp"
	else
		check "$1" "-v says it lists without ssh" grep -q \
			"route fresh: the TCP handshake took .* ms: the bypass connection lists, without ssh" \
			"$ROUTE_ERR_fscp"
		check "$1" "no ssh ran" eval '! grep -q "Executing: program" "$ROUTE_ERR_fscp"'
		check "$1" "one login each (scp $ROUTE_LOGINS_scp, fscp $ROUTE_LOGINS_fscp)" \
			test "$ROUTE_LOGINS_scp" -eq 1 -a "$ROUTE_LOGINS_fscp" -eq 1
	fi
}

# 5. A download from a near server lists over the bypass connection itself,
# and no ssh runs, where a login without ssh looks likely (a known host key,
# a key file): one login, as scp's.  Near is the TCP handshake's round
# trip, however late sshd's banner; when the handshake has not even begun
# within the plan's wait (a machine too loaded to start the thread), ssh
# lists as before and -v says why.
name="near download: the bypass connection lists, without ssh"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p fscp-test:src/mid.bin dst/
lists_without_ssh "$name"
name="near download -r: listed over the bypass, as scp"
route_compare --name "$name" --setup setup --expect-rc 0 --times -- -r -p fscp-test:src dst/
# The login ssh could do and the bypass not (the agent's key only, under
# IdentitiesOnly): no key file to offer, so ssh lists, with its one login.
name="near download, agent key only: ssh lists"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v fb-agent:src/mid.bin dst/
check "$name" "ssh listed" grep -q "Executing: program" "$ROUTE_ERR_fscp"
check "$name" "no bypass login (scp $ROUTE_LOGINS_scp, fscp $ROUTE_LOGINS_fscp)" \
	test "$ROUTE_LOGINS_fscp" -eq "$ROUTE_LOGINS_scp"

# An upload under what fresh connections pay for (64 MiB) knows its size,
# not the round trip: as a download, it is decided again once the target
# is looked at, near over the bypass connection itself, and no ssh runs.
name="near upload: the bypass connection looks at the target and copies, without ssh"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p src/mid.bin fscp-test:dst/
check "$name" "-v says it is decided again" \
	grep -q "route standard: no ControlMaster or SSM proxy; .* to move, decided again once the target is looked at" \
	"$ROUTE_ERR_fscp"
lists_without_ssh "$name"
route_compare --name "near upload into a missing directory: scp's error" --setup setup \
	--expect-rc 1 -- src/mid.bin fscp-test:no/such/dir/
route_compare --name "near upload -r: over the bypass, as scp" --setup setup --expect-rc 0 \
	--times -- -r -p src fscp-test:dst/
name="near upload, agent key only: ssh copies"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/mid.bin fb-agent:dst/
check "$name" "ssh copied" grep -q "Executing: program" "$ROUTE_ERR_fscp"
check "$name" "no bypass login (scp $ROUTE_LOGINS_scp, fscp $ROUTE_LOGINS_fscp)" \
	test "$ROUTE_LOGINS_fscp" -eq "$ROUTE_LOGINS_scp"

# 6. libssh and libcrypto are opened when a bypass needs them, not at
# start-up: the standard route never loads them, a bypass does, and a
# libssh that cannot be loaded is a bypass that failed (the copy falls back
# to ssh, as scp copies).
name="libraries: fscp links neither libssh nor libcrypto"
needed=$(readelf -d "$FSCP" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
check "$name" "NEEDED: $needed" eval '[ -n "$needed" ] && ! grep -qE "libssh|libcrypto" <<<"$needed"'
# What fscp's own process (not ssh's) initialized, from LD_DEBUG=libs.
fscp_loaded() {
	local f
	for f in "$FSCP_WORK"/ld.*; do
		grep -q "initialize program: $FSCP\$" "$f" &&
			sed -n 's/.*calling init: .*\/\([^/]*\.so[.0-9]*\)$/\1/p' "$f"
	done | sort -u | tr '\n' ' '
}
lib_copy() {
	rm -f "$FSCP_WORK"/ld.* "$SSHD_HOME/dst/small.txt"
	(cd "$FSCP_WORK/L" && LD_DEBUG=libs LD_DEBUG_OUTPUT="$FSCP_WORK/ld" "$FSCP" -F "$SSH_CONFIG" \
		src/small.txt fscp-test:dst/ </dev/null >/dev/null 2>&1) &&
		cmp -s "$FSCP_WORK/L/src/small.txt" "$SSHD_HOME/dst/small.txt"
}
(cd "$FSCP_WORK/L" && setup)
# No journal anywhere (a failed copy leaves one): a copy that succeeds has
# none to remove, so it needs no journal name (libcrypto's SHA-256).
export XDG_CACHE_HOME=$FSCP_WORK/cache
export FSCP_ROUTE=standard
name="libraries: the standard route"
check "$name" "copies" lib_copy
loaded=$(fscp_loaded)
check "$name" "loads neither libssh nor libcrypto (fscp initialized: $loaded)" \
	eval '[ -n "$loaded" ] && ! grep -qE "libssh|libcrypto" <<<"$loaded"'
export FSCP_ROUTE=bypass
name="libraries: a bypass"
check "$name" "copies" lib_copy
loaded=$(fscp_loaded)
check "$name" "loads libssh and libcrypto (fscp initialized: $loaded)" \
	eval 'grep -q libssh <<<"$loaded" && grep -q libcrypto <<<"$loaded"'
# A file that is no library, first on the loader's path under libssh's name.
mkdir -p "$FSCP_WORK/badlib"
soname=$(ldconfig -p | awk '$1 ~ /^libssh\.so\.[0-9]+$/ { print $1; exit }')
[ -n "$soname" ] || fscp_hard_error "no libssh in ldconfig -p"
: >"$FSCP_WORK/badlib/$soname"
export LD_LIBRARY_PATH=$FSCP_WORK/badlib
name="libraries: libssh cannot be loaded, the bypass falls back"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p src/mid.bin fscp-test:dst/
check "$name" "-v says why" grep -qE "bypass failed: libssh cannot be loaded: .*; falling back to the standard route" \
	"$ROUTE_ERR_fscp"
check "$name" "one login each, ssh's (scp $ROUTE_LOGINS_scp, fscp $ROUTE_LOGINS_fscp)" \
	test "$ROUTE_LOGINS_scp" -eq 1 -a "$ROUTE_LOGINS_fscp" -eq 1
unset LD_LIBRARY_PATH FSCP_ROUTE XDG_CACHE_HOME

checks_done

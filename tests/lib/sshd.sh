# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# shellcheck shell=bash
# A private sshd on 127.0.0.1 for tests, demos and benchmarks.  Source this file.
#
#   fscp_sshd_start DIR   start it; DIR is a fresh directory made by the caller
#   fscp_sshd_stop        stop it and every process it started
#   FSCP_SSHD_EXTRA       sshd_config lines that come first (e.g. "MaxSessions 1")
#   fscp_sshd_kill_new_session SECONDS [FILE RE]   notes the connections'
#                         sshd processes there now and starts a job (its pid
#                         in $bg) that waits for a line of FILE matching RE
#                         (if given, at most 60 s), then SECONDS, then kills
#                         one connection's sshd not noted; the job exits 1
#                         when there was none.  Not itself run with "&": a
#                         background job may first run once the copy's
#                         connections are up, and would note them as old
#
# After fscp_sshd_start these are exported:
#   SSHD_DIR    DIR
#   SSHD_PORT   the port sshd listens on (127.0.0.1 only)
#   SSHD_PID    the pid of the listening sshd
#   SSH_CONFIG  DIR/ssh_config, with a "Host fscp-test" entry (user root, key auth);
#               fscp-test2 is a second name for the same sshd (remote to remote)
#   SSHD_HOME   DIR/home: what "fscp-test:" means (sftp-server runs with -d DIR/home)
#
# Needs root (sshd must be able to switch to the login user) and OpenSSH's
# sshd, ssh, ssh-keygen and sftp-server.  Returns non-zero with a message on
# stderr when anything is missing or sshd does not come up; tests turn that into
# exit 99 (automake's hard error) rather than a silent skip.

FSCP_SSHD_BIN=${FSCP_SSHD_BIN:-/usr/sbin/sshd}
# internal-sftp: the SFTP server inside sshd, the same code as sftp-server but
# started without the login shell, whose start-up files (on some machines a
# slow pyenv init in root's .bashrc) would otherwise weigh on every session.
# It may carry options ("internal-sftp -l INFO" logs the bytes of each file).
FSCP_SFTP_SERVER=${FSCP_SFTP_SERVER:-internal-sftp}

# A free TCP port on 127.0.0.1: the kernel picks one by binding port 0.  Another
# process can take it before sshd binds it, so the caller retries on collision.
fscp__free_port() {
	local py
	py=/usr/bin/python3
	[ -x "$py" ] || py=$(command -v python3 || true)
	if [ -n "$py" ]; then
		"$py" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
		return
	fi
	# No python: pick a random high port that ss does not show as listening.
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		if ! ss -ltnH "sport = :$p" 2>/dev/null | grep -q .; then
			echo "$p"
			return
		fi
	done
}

# True when something accepts TCP connections on 127.0.0.1:$1.
fscp__port_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Print the pids of all descendants of $1 (children first found, deepest last).
fscp__descendants() {
	local kid
	for kid in $(pgrep -P "$1" 2>/dev/null); do
		echo "$kid"
		fscp__descendants "$kid"
	done
}

fscp_sshd_start() {
	local dir=$1 tool port try log
	if [ -z "$dir" ]; then
		echo "fscp_sshd_start: usage: fscp_sshd_start DIR" >&2
		return 2
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "fscp_sshd_start: must run as root (sshd switches to the login user)" >&2
		return 1
	fi
	for tool in "$FSCP_SSHD_BIN" "${FSCP_SFTP_SERVER%% *}"; do
		[ "$tool" = internal-sftp ] && continue
		if [ ! -x "$tool" ]; then
			echo "fscp_sshd_start: $tool not found (install openssh-server)" >&2
			return 1
		fi
	done
	for tool in ssh ssh-keygen; do
		if ! command -v "$tool" >/dev/null; then
			echo "fscp_sshd_start: $tool not found (install openssh-client)" >&2
			return 1
		fi
	done

	mkdir -p "$dir" "$dir/home" /run/sshd || return 1
	dir=$(cd "$dir" && pwd) || return 1
	rm -f "$dir/ssh_host_ed25519_key" "$dir/id_ed25519"
	if ! ssh-keygen -q -t ed25519 -N '' -C fscp-test-host -f "$dir/ssh_host_ed25519_key" >/dev/null ||
		! ssh-keygen -q -t ed25519 -N '' -C fscp-test-user -f "$dir/id_ed25519" >/dev/null; then
		echo "fscp_sshd_start: ssh-keygen failed" >&2
		return 1
	fi
	cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
	chmod 600 "$dir/authorized_keys"

	log="$dir/sshd.log"
	for try in 1 2 3 4 5 6 7 8; do
		port=$(fscp__free_port) || return 1
		cat >"$dir/sshd_config" <<EOF
# Written by tests/lib/sshd.sh: a private sshd for fscp's tests.
# The caller's FSCP_SSHD_EXTRA first: sshd keeps a keyword's first value.
${FSCP_SSHD_EXTRA:-}
ListenAddress 127.0.0.1:$port
HostKey $dir/ssh_host_ed25519_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
PrintMotd no
PrintLastLog no
Subsystem sftp $FSCP_SFTP_SERVER -d $dir/home
MaxStartups 100:30:200
MaxSessions 64
LogLevel VERBOSE
# bash skips ~/.bashrc for ssh sessions once SHLVL >= 2: the login shell runs
# every session command (sftp-server too), and a heavy .bashrc would add
# seconds to each connection, for scp and fscp alike.
SetEnv SHLVL=1
EOF
		: >"$log"
		# setsid: its own session, so a test's terminal signals do not reach it.
		setsid "$FSCP_SSHD_BIN" -D -e -f "$dir/sshd_config" -E "$log" </dev/null >>"$log" 2>&1 &
		SSHD_PID=$!
		local waited=0 up=0
		while [ "$waited" -lt 100 ]; do # 100 x 0.1 s
			if ! kill -0 "$SSHD_PID" 2>/dev/null; then
				break
			fi
			if grep -q "Server listening on 127.0.0.1 port $port" "$log" 2>/dev/null &&
				fscp__port_open "$port"; then
				up=1
				break
			fi
			sleep 0.1
			waited=$((waited + 1))
		done
		if [ "$up" = 1 ]; then
			break
		fi
		if kill -0 "$SSHD_PID" 2>/dev/null; then
			kill "$SSHD_PID" 2>/dev/null
			wait "$SSHD_PID" 2>/dev/null
			echo "fscp_sshd_start: sshd did not listen on port $port within 10 s; its log:" >&2
			cat "$log" >&2
			SSHD_PID=
			return 1
		fi
		wait "$SSHD_PID" 2>/dev/null
		SSHD_PID=
		if grep -qi "address already in use" "$log"; then
			continue # lost the race for the port: pick another
		fi
		echo "fscp_sshd_start: sshd exited at start; its log:" >&2
		cat "$log" >&2
		return 1
	done
	if [ -z "$SSHD_PID" ]; then
		echo "fscp_sshd_start: no free port found after $try tries" >&2
		return 1
	fi

	cat >"$dir/ssh_config" <<EOF
# Written by tests/lib/sshd.sh.
Host fscp-test fscp-test2
	HostName 127.0.0.1
	Port $port
	User root
	IdentityFile $dir/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $dir/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	LogLevel ERROR
EOF
	# ssh looks the key up under the HostName with the port in brackets
	# ("[127.0.0.1]:P"); clients that look up the alias itself find it too.
	local key
	key=$(cut -d' ' -f1,2 "$dir/ssh_host_ed25519_key.pub")
	{
		echo "[127.0.0.1]:$port $key"
		echo "[fscp-test]:$port $key"
		echo "fscp-test $key"
		echo "[fscp-test2]:$port $key"
		echo "fscp-test2 $key"
	} >"$dir/known_hosts"

	export SSHD_DIR="$dir" SSHD_PORT="$port" SSHD_PID SSH_CONFIG="$dir/ssh_config" SSHD_HOME="$dir/home"

	if ! ssh -F "$SSH_CONFIG" fscp-test true </dev/null; then
		echo "fscp_sshd_start: 'ssh -F $SSH_CONFIG fscp-test true' failed; sshd log:" >&2
		cat "$log" >&2
		fscp_sshd_stop
		return 1
	fi
	return 0
}

# The per-connection sshd processes are the listener's children.  One that
# was there at the call may belong to an earlier copy still closing: the
# first new one is a connection of the copy started after the call.
fscp_sshd_kill_new_session() {	# seconds [file re]
	local old
	old=" $(pgrep -P "$SSHD_PID" | tr '\n' ' ') "
	(
		n=0
		while [ -n "${2:-}" ] && [ "$(grep -Ecs -- "$3" "$2")" -lt 1 ] && [ $n -lt 600 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		sleep "$1"
		for p in $(pgrep -P "$SSHD_PID"); do
			case $old in *" $p "*) continue ;; esac
			kill "$p" 2>/dev/null && exit 0
		done
		exit 1
	) &
	# shellcheck disable=SC2034 # read by the caller
	bg=$!
}

fscp_sshd_stop() {
	local pids
	if [ -n "${SSHD_PID:-}" ]; then
		# Per-connection sshd processes call setsid(), so find them by parentage.
		pids="$SSHD_PID $(fscp__descendants "$SSHD_PID")"
		# shellcheck disable=SC2086
		kill $pids 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
		local n=0
		local p alive
		while [ "$n" -lt 50 ]; do
			alive=
			for p in $pids; do
				kill -0 "$p" 2>/dev/null && alive=1
			done
			[ -n "$alive" ] || break
			sleep 0.1
			n=$((n + 1))
		done
		# shellcheck disable=SC2086
		kill -9 $pids 2>/dev/null
		SSHD_PID=
	fi
	return 0
}

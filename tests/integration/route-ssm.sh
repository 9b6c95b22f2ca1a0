#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The SSM routes against the fake `aws` CLI and the SSM data-channel
# simulator (tests/tools), wired through a ProxyCommand as users write it:
#   ssm-parallel  N SSM sessions (the simulator's log shows N), up and down;
#                 a session opens a file once, whatever its pieces;
#   FSCP_SSM_DIRECT=off forces it even when a direct address exists;
#   ssm-direct    describe-instances gives 127.0.0.1 (the test sshd), which
#                 presents the instance's known key: no SSM session at all
#                 (a download: at most one, started while it looks, and
#                 describe-instances once);
#   wrong key     the direct address (127.0.0.2, a second sshd with another
#                 host key) is refused and the copy still goes through SSM;
#   unknown instance: scp and fscp fail alike.
# Every copy is compared with scp's on the same input.
# Exit 0 pass, 1 fail, 99 cannot run.
# make check may start this with /bin/sh: continue in bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"
fscp_test_init

route_ssm_init

route_ssm_pair
I_BAD=i-0123456789abcdef2	# private address 127.0.0.2: another sshd, another key
I_NONE=i-0000000000000dead	# unknown to the fake CLI
route_ssm_instance "$I_BAD" 127.0.0.2
KEY=$(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")
# Its key is on record, but the fake CLI does not know it.
echo "[$I_NONE]:$SSHD_PORT $KEY" >>"$FSCP_WORK/ssm_known_hosts"

# The second sshd: 127.0.0.2 on the same port (the direct route uses the
# config's Port), its own host key.  Started by hand, as sshd.sh picks ports.
D2=$FSCP_WORK/sshd2
SSHD2_PID=
mkdir -p "$D2"
ssh-keygen -q -t ed25519 -N '' -C fscp-test-other-host -f "$D2/ssh_host_ed25519_key" >/dev/null ||
	fscp_hard_error "ssh-keygen failed"
sed -e "s|^ListenAddress .*|ListenAddress 127.0.0.2:$SSHD_PORT|" \
	-e "s|^HostKey .*|HostKey $D2/ssh_host_ed25519_key|" \
	-e "s|^PidFile .*|PidFile $D2/sshd.pid|" "$SSHD_DIR/sshd_config" >"$D2/sshd_config"
: >"$D2/sshd.log"
setsid "$FSCP_SSHD_BIN" -D -e -f "$D2/sshd_config" -E "$D2/sshd.log" </dev/null >>"$D2/sshd.log" 2>&1 &
SSHD2_PID=$!
route_ssm_cleanup() {
	if [ -n "$SSHD2_PID" ]; then
		# shellcheck disable=SC2046
		kill "$SSHD2_PID" $(fscp__descendants "$SSHD2_PID") 2>/dev/null
		wait "$SSHD2_PID" 2>/dev/null
	fi
	fscp__cleanup
}
trap route_ssm_cleanup EXIT
n=0
until grep -q "Server listening on 127.0.0.2 port $SSHD_PORT" "$D2/sshd.log" &&
	(exec 3<>"/dev/tcp/127.0.0.2/$SSHD_PORT") 2>/dev/null; do
	n=$((n + 1))
	if [ $n -gt 100 ] || ! kill -0 "$SSHD2_PID" 2>/dev/null; then
		cat "$D2/sshd.log" >&2
		fscp_hard_error "the second sshd did not listen on 127.0.0.2:$SSHD_PORT"
	fi
	sleep 0.1
done
route_ssm_reachable "$I_PAR"

SMALL=$((100 << 10))
MID=$((6 << 20))	# several SSM sessions (route.c route_ssm_sessions; the count
			# depends on the cores: one wave of CLI starts per core)
BIG=$((10 << 20))	# from 8 MiB on, a direct route is looked for
setup() {
	mkdir -p src dst "$SSHD_HOME/src" "$SSHD_HOME/dst"
	fscp_put_file src/mid.bin "$MID" 0640
	fscp_put_file "$SSHD_HOME/src/mid.bin" "$MID" 0604
	fscp_put_file src/big.bin "$BIG" 0600
	fscp_put_file src/small.bin "$SMALL" 0644
	fscp_set_times src "$SSHD_HOME/src"
}
# Each fscp SSM session shows up in the simulator's log.  The route line,
# one line, announces the sessions planned ("N of M connections ready": M);
# they start in waves, and a copy done before the last waves starts no more:
# between one and M sessions in the log, at least the N that came up.
sessions_match_route() {	# name
	local want ready up
	want=$(route_count_in_line)
	ready=$(route_ready)
	up=${ready%% *}
	check "$1" "the route line is one line ending in '; N SSM sessions' ($(route_line | tail -c 60))" \
		test -n "$want"
	check "$1" "fscp planned ${ready#* } connections (route line: ${want:-?}) and started $ROUTE_SSM_fscp SSM sessions, $up of them up" \
		test -n "$ready" -a "${want:-${ready#* }}" = "${ready#* }" -a "$ROUTE_SSM_fscp" -ge 1 \
		-a "$ROUTE_SSM_fscp" -le "${ready#* }" -a "${up:-0}" -le "$ROUTE_SSM_fscp"
	check "$1" "scp used one SSM session (log: $ROUTE_SSM_scp)" test "$ROUTE_SSM_scp" -eq 1
}

name="ssm-parallel: upload 6 MiB"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/mid.bin "$I_PAR:dst/"
route_expect "$name" ssm-parallel "AWS SSM ProxyCommand, no direct route.* [0-9]+ SSM sessions$"
sessions_match_route "$name"

# bash started with a socket on stdin and SHLVL unset thinks sshd runs it and
# reads ~/.bashrc (which here puts a failing `aws` first on PATH).  ssh
# gives its ProxyCommand pipes and so never hits that; fscp must not either.
POISON=$FSCP_WORK/poison
mkdir -p "$POISON/bin" "$POISON/home"
printf '#!/bin/sh\necho "poisoned aws ran" >&2\nexit 42\n' >"$POISON/bin/aws"
chmod +x "$POISON/bin/aws"
printf 'PATH=%s/bin:$PATH\n' "$POISON" >"$POISON/home/.bashrc"
name="ssm-parallel: the ProxyCommand shell reads no rc file"
saved_home=$HOME saved_shell=${SHELL:-} saved_shlvl=${SHLVL:-}
export HOME=$POISON/home SHELL=/bin/bash
unset SHLVL
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/mid.bin "$I_PAR:dst/"
export HOME=$saved_home SHELL=$saved_shell SHLVL=$saved_shlvl
route_expect "$name" ssm-parallel "AWS SSM ProxyCommand, no direct route"
check "$name" "no poisoned aws ran" bash -c "! grep -q 'poisoned aws' '$ROUTE_ERR_fscp'"
sessions_match_route "$name"

name="ssm-parallel: download 6 MiB -p"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p "$I_PAR:src/mid.bin" dst/
route_expect "$name" ssm-parallel "AWS SSM ProxyCommand, no direct route.* [0-9]+ SSM sessions$"
sessions_match_route "$name"

# -p over several SSM sessions: mode and both times as scp sets them.
name="ssm-parallel: upload -p keeps times (FSCP_CONNECTIONS=2)"
export FSCP_CONNECTIONS=2
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p src/mid.bin "$I_PAR:dst/x"
unset FSCP_CONNECTIONS
route_expect "$name" ssm-parallel "; 2 SSM sessions$"
sessions_match_route "$name"

# A piece hands its open handle to the next piece its session takes: a
# session opens the file once, not once per 64 KiB piece (an OPEN waits
# behind the data queued in the session).  -vv: "connection N: T tasks, O
# opens".
opens_below_tasks() {	# name
	local t
	t=$(sed -n 's/^fscp: debug: connection [0-9]*: \([0-9]*\) tasks, \([0-9]*\) opens.*/\1 \2/p' \
		"$ROUTE_ERR_fscp" | awk '{ t += $1; o += $2 } END { print t + 0, o + 0 }')
	check "$1" "the sessions took more than 4 pieces and sent fewer OPENs (tasks, opens: $t)" \
		test "${t% *}" -gt 4 -a "${t#* }" -lt "${t% *}"
}
export FSCP_CONNECTIONS=2
name="ssm-parallel: upload 6 MiB, one OPEN a session (FSCP_CONNECTIONS=2)"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -vv -p src/mid.bin "$I_PAR:dst/x"
route_expect "$name" ssm-parallel "; 2 SSM sessions$"
opens_below_tasks "$name"
name="ssm-parallel: download 6 MiB, one OPEN a session (FSCP_CONNECTIONS=2)"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -vv -p "$I_PAR:src/mid.bin" dst/
route_expect "$name" ssm-parallel "; 2 SSM sessions$"
opens_below_tasks "$name"
unset FSCP_CONNECTIONS

# Under a second session's gain no route but ssh's pays: fscp does not
# even ask ssh -G, and ssh runs the ProxyCommand as scp's does.
name="SSM: a copy that fits one session stays standard"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/small.bin "$I_PAR:dst/"
route_expect "$name" standard "100.0 KiB to move, under the 166.7 KiB from which any other route pays"
check "$name" "one SSM session each (scp $ROUTE_SSM_scp, fscp $ROUTE_SSM_fscp)" \
	test "$ROUTE_SSM_scp" -eq 1 -a "$ROUTE_SSM_fscp" -eq 1

name="ssm-direct: upload 10 MiB -p"
export FSCP_SSM_DIRECT=auto
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p src/big.bin "$I_DIR:dst/"
route_expect "$name" ssm-direct "direct address presents the instance's host key"
check "$name" "fscp started no SSM session (log: $ROUTE_SSM_fscp)" test "$ROUTE_SSM_fscp" -eq 0
check "$name" "fscp logged in directly ($ROUTE_LOGINS_fscp logins)" test "$ROUTE_LOGINS_fscp" -ge 1
check "$name" "fscp asked describe-instances about $I_DIR" \
	grep -q "ec2 describe-instances .*$I_DIR" "$FSCP_FAKE_AWS_LOG"

# A download's size is unknown: its first SSM session may start while the
# address is looked for (when a core is idle), and ends once it is found.
name="ssm-direct: download 6 MiB -p"
lookups0=$(grep -c "ec2 describe-instances" "$FSCP_FAKE_AWS_LOG")
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -p "$I_DIR:src/mid.bin" dst/
lookups=$(($(grep -c "ec2 describe-instances" "$FSCP_FAKE_AWS_LOG") - lookups0))
route_expect "$name" ssm-direct "direct address presents the instance's host key"
check "$name" "fscp started at most 1 SSM session (log: $ROUTE_SSM_fscp)" test "$ROUTE_SSM_fscp" -le 1
check "$name" "fscp asked describe-instances once ($lookups)" test "$lookups" -eq 1
check "$name" "fscp logged in directly ($ROUTE_LOGINS_fscp logins)" test "$ROUTE_LOGINS_fscp" -ge 1

name="ssm-direct: -O download -p on an exec channel"
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr --times -- -v -O -p "$I_DIR:{HOME}/src/mid.bin" dst/
route_expect "$name" ssm-direct "direct address presents the instance's host key"
check "$name" "fscp ran the remote scp on an exec channel" \
	grep -q "legacy protocol over a libssh exec channel" "$ROUTE_ERR_fscp"
check "$name" "fscp started no SSM session (log: $ROUTE_SSM_fscp)" test "$ROUTE_SSM_fscp" -eq 0

name="ssm-direct: FSCP_SSM_DIRECT=127.0.0.1 for an instance without an address"
export FSCP_SSM_DIRECT=127.0.0.1
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin "$I_PAR:dst/"
route_expect "$name" ssm-direct "direct address presents the instance's host key"
check "$name" "fscp started no SSM session (log: $ROUTE_SSM_fscp)" test "$ROUTE_SSM_fscp" -eq 0

name="FSCP_SSM_DIRECT=off: parallel even with a direct address"
export FSCP_SSM_DIRECT=off
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin "$I_DIR:dst/"
route_expect "$name" ssm-parallel "no direct route \\(FSCP_SSM_DIRECT=off\\)"
sessions_match_route "$name"

name="wrong host key at the direct address: refused, copy via SSM"
export FSCP_SSM_DIRECT=auto
before2=$(grep -c "Accepted publickey" "$D2/sshd.log")
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin "$I_BAD:dst/"
route_expect "$name" ssm-parallel "direct address 127\\.0\\.0\\.2 refused"
sessions_match_route "$name"
check "$name" "nobody logged in at the wrong-key address" \
	test "$(grep -c "Accepted publickey" "$D2/sshd.log")" -eq "$before2"
check "$name" "the wrong-key host was actually probed" \
	grep -q "from 127\\.0\\.0\\.[0-9]* port" "$D2/sshd.log"

# A fatal error in the planning while SSM sessions may still be coming up
# (the copy starts on the first): the same message and status as scp, and no
# crash at exit from a connection thread still in its handshake.
name="ssm-parallel: missing source, then a big one: scp's fatal error"
route_compare --name "$name" --setup setup --expect-rc 255 -- src/missing src/big.bin "$I_PAR:dst/"

# Unknown instance: the fake CLI's TargetNotConnected; ssh fails, scp exits 255.
# fscp (a bypass is tried for 6 MiB, then the fallback) must fail the same way.
name="unknown instance: both fail alike"
route_compare --name "$name" --setup setup --expect-rc 255 --no-stderr -- src/mid.bin "$I_NONE:dst/"
check "$name" "fscp shows the CLI's TargetNotConnected error" \
	grep -q "TargetNotConnected" "$ROUTE_ERR_fscp"
name="unknown instance, -v: the bypass fails, then the standard route"
route_compare --name "$name" --setup setup --expect-rc 255 --no-stderr -- -v src/mid.bin "$I_NONE:dst/"
check "$name" "fscp says the bypass failed and falls back" \
	grep -q "bypass failed: .*falling back to the standard route" "$ROUTE_ERR_fscp"
unset FSCP_SSM_DIRECT

# ssh's "checking without port identifier": an instance whose key was
# recorded before it moved off port 22 is still known, so the direct route
# (which checks the key as ssh does) is taken.
I_NP=i-0123456789abcdef5
printf '%s 127.0.0.1 %s 127.0.0.1 -\n' "$I_NP" "$SSHD_PORT" >>"$FSCP_FAKE_AWS_INSTANCES"
echo "$I_NP $KEY" >>"$FSCP_WORK/ssm_known_hosts"
name="ssm-direct: key recorded without the port"
export FSCP_SSM_DIRECT=auto
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/big.bin "$I_NP:dst/"
route_expect "$name" ssm-direct "direct address presents the instance's host key"
unset FSCP_SSM_DIRECT

# One SSM session's proxy (the simulator behind the fake CLI) killed in the
# middle of a 3-session copy: the other two finish its pieces, exit 0.
name="ssm-parallel: one session's proxy killed mid-copy, the others finish"
mkdir -p "$FSCP_WORK/pk"
head -c $((6 << 20)) /dev/urandom >"$FSCP_WORK/pk/six.bin"
rm -f "$SSHD_HOME/pk.bin"
(
	# Once the copy is under way (polled: a loaded machine starts late).
	wait_bytes "$SSHD_HOME/pk.bin" $((1 << 20))
	pkill -n -f "ssm-sim 127.0.0.1:$SSHD_PORT\$" 2>/dev/null
) &
pk=$!
export FSCP_CONNECTIONS=3
(cd "$FSCP_WORK/pk" && timeout -k 5 120 "$FSCP" -F "$SSH_CONFIG" -v -q -l 8000 six.bin "$I_PAR:pk.bin" \
	</dev/null >/dev/null 2>"$FSCP_WORK/pk/err")
rc=$?
unset FSCP_CONNECTIONS
wait "$pk"
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "the copy is whole" cmp -s "$FSCP_WORK/pk/six.bin" "$SSHD_HOME/pk.bin"
check "$name" "-v says a connection failed and another took over" \
	bash -c "grep -q 'connection [0-9]* failed' '$FSCP_WORK/pk/err' && grep -q 'takes over' '$FSCP_WORK/pk/err'"

# A changed host key on every bypass route: refused, nothing copied, the same
# messages and status as scp (ssh's warning from the standard route fscp
# falls back to).  The key on record for these instances is another one.
I_CHG=i-0123456789abcdef3	# private address 127.0.0.1: ssm-direct would apply
I_CHGP=i-0123456789abcdef4	# no address: ssm-parallel would apply
route_ssm_instance "$I_CHG" 127.0.0.1 "$D2/ssh_host_ed25519_key.pub"
route_ssm_instance "$I_CHGP" - "$D2/ssh_host_ed25519_key.pub"
WRONG=$(cut -d' ' -f1,2 "$D2/ssh_host_ed25519_key.pub")
echo "[127.0.0.1]:$SSHD_PORT $WRONG" >"$FSCP_WORK/changed_known_hosts"
nothing_copied() {
	check "$1" "nothing reached the remote dst/" \
		test -z "$(ls -A "$FSCP_WORK/run/fscp/R/dst" 2>/dev/null)"
	check "$1" "no key was added" bash -c "! grep -q 'Permanently added' '$ROUTE_ERR_fscp'"
}
export FSCP_SSM_DIRECT=auto
for t in "ssm-direct:$I_CHG" "ssm-parallel:$I_CHGP"; do
	name="changed host key, ${t%%:*} route: refused, nothing copied"
	route_compare --name "$name" --setup setup --expect-rc 255 -- src/big.bin "${t#*:}:dst/"
	nothing_copied "$name"
	check "$name" "ssh's verdict reached the user" \
		grep -q "Host key verification failed" "$ROUTE_ERR_fscp"
done
name="changed host key, fresh route (FSCP_ROUTE=bypass): refused, nothing copied"
export FSCP_ROUTE=bypass
route_compare --name "$name" --setup setup --expect-rc 255 -- \
	-o "UserKnownHostsFile=$FSCP_WORK/changed_known_hosts" src/big.bin fscp-test:dst/
unset FSCP_ROUTE
nothing_copied "$name"
unset FSCP_SSM_DIRECT

# AWS throttles StartSession calls that come too fast: a throttled session
# start is tried again a little later and the copy completes; scp's one
# session is never throttled.
name="ssm-parallel: throttled session starts are tried again"
export FSCP_CONNECTIONS=4 FSCP_FAKE_AWS_THROTTLE_AFTER=1 FSCP_FAKE_AWS_THROTTLE_WINDOW_MS=700
export FSCP_FAKE_AWS_THROTTLE_STATE=$FSCP_WORK/throttle.state
route_compare --name "$name" --setup setup --expect-rc 0 --no-stderr -- -v src/mid.bin "$I_PAR:dst/"
unset FSCP_CONNECTIONS FSCP_FAKE_AWS_THROTTLE_AFTER FSCP_FAKE_AWS_THROTTLE_WINDOW_MS FSCP_FAKE_AWS_THROTTLE_STATE
route_expect "$name" ssm-parallel "; 4 SSM sessions$"
check "$name" "-v says a throttled start tries again" \
	grep -q "SSM StartSession throttled: connection [0-9]* tries again" "$ROUTE_ERR_fscp"
check "$name" "no throttle message left on stderr" \
	bash -c "! grep -q 'Rate exceeded' '$ROUTE_ERR_fscp'"

checks_done

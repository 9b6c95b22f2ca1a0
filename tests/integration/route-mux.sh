#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The standard route on a live ControlMaster asks the master for its SFTP
# session itself, as scp's ssh would (transport/sshmux), against a real
# `ssh -M` master logging at DEBUG3 and the test sshd:
#  - copies match scp's (contents, modes, -p times, exit status, messages),
#    with no new login for either;
#  - fscp runs no ssh but ssh -G (a logging ssh wrapper given with -S);
#    under what any route acts on (route.h ROUTE_LEAST_BYTES) it runs no
#    ssh -G either, and scp's very ssh, whose own mux client asks the master;
#  - the master logs the same session request for both: tty, X11, agent,
#    subsystem, command, and the environment it sends (SendEnv, SetEnv);
#  - a master that refuses the session (ControlMaster ask, askpass says no):
#    scp's ssh and fscp connect on their own, each asked once.
# Exit 0 pass, 1 fail, 99 cannot run.
# make check may start this with /bin/sh: continue in bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"
fscp_test_init

# ssh under -S: the same ssh, each run logged (argv) first.  Not a shell
# script: a shell passes the environment on in an order of its own, and
# ssh sends SendEnv's variables in the order it gets them.
mkdir -p "$FSCP_WORK/bin"
cat >"$FSCP_WORK/bin/ssh" <<EOF
#!/usr/bin/python3 -S
import os, sys
with open("$FSCP_WORK/ssh-runs.log", "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
os.execv("/usr/bin/ssh", ["/usr/bin/ssh"] + sys.argv[1:])
EOF
chmod +x "$FSCP_WORK/bin/ssh"

route_cm_host mux-test
printf '\tSendEnv FSCP_MT_*\n\tSetEnv FSCP_MSET=1 "FSCP_MSP=a b"\n' >>"$SSH_CONFIG"
SOCK=$(ssh -F "$SSH_CONFIG" -G mux-test | awk '$1 == "controlpath" { print $2 }')
[ -n "$SOCK" ] || fscp_hard_error "ssh -G shows no ControlPath for mux-test"
export FSCP_MT_A=one FSCP_MT_B="two words" FSCP_OTHER=unsent

MASTER_PID=
mux_cleanup() {
	if [ -n "$MASTER_PID" ]; then kill "$MASTER_PID" 2>/dev/null; fi
	fscp__cleanup
}
trap mux_cleanup EXIT
# master_start [ssh options]: a master logging at DEBUG3 into master.log.
master_start() {
	: >"$FSCP_WORK/master.log"
	ssh -F "$SSH_CONFIG" "$@" -o ControlMaster=yes -o LogLevel=DEBUG3 \
		-E "$FSCP_WORK/master.log" -fN mux-test </dev/null || fscp_hard_error "cannot start the ControlMaster"
	MASTER_PID=$(ssh -F "$SSH_CONFIG" -O check mux-test 2>&1 | sed -nE 's/.*pid=([0-9]+).*/\1/p')
	[ -n "$MASTER_PID" ] || fscp_hard_error "the ControlMaster for mux-test is not running"
}
master_start

BIG=$((1 << 20))
# Above ROUTE_LEAST_BYTES, so that fscp decides, and asks the master itself.
SMALL=$((256 << 10))
setup() { route_setup_big_small; }
# Per side: the ssh runs, and the master's log lines of the session
# request and of the environment it sent on (channel numbers dropped).  The
# master appends to its log, so emptying it starts the side's part.
side_setup() {
	setup || return 1
	: >"$FSCP_WORK/ssh-runs.log"
	: >"$FSCP_WORK/master.log"
}
side_post() {
	local side
	side=$(route__side)
	cp "$FSCP_WORK/ssh-runs.log" "$FSCP_WORK/runs.$side"
	grep -E 'request tty|setting env|Ignored env|Sending subsystem|refused' "$FSCP_WORK/master.log" |
		sed -E 's/channel [0-9]+/channel N/g; s/^[^:]*: //' >"$FSCP_WORK/req.$side"
}

# case NAME [fscp_compare options] -- ARGS: scp and fscp through the master.
mux_case() {
	local name=$1
	shift
	route_compare --name "$name" --setup side_setup --post side_post "$@"
	check "$name" "no new login for scp ($ROUTE_LOGINS_scp) or fscp ($ROUTE_LOGINS_fscp)" \
		test "$ROUTE_LOGINS_scp" -eq 0 -a "$ROUTE_LOGINS_fscp" -eq 0
	if grep -q -- " -v " <<<" $* "; then
		check "$name" "fscp said its SFTP is a session on the master" \
			grep -q "SFTP is a session on the master at " "$ROUTE_ERR_fscp"
	fi
	check "$name" "scp's ssh ran for the session ($(wc -l <"$FSCP_WORK/runs.scp") runs)" \
		grep -q -- "-s -- mux-test sftp\$" "$FSCP_WORK/runs.scp"
	check "$name" "fscp ran ssh -G only ($(tr '\n' '|' <"$FSCP_WORK/runs.fscp"))" \
		test "$(grep -cv -- '^-G ' "$FSCP_WORK/runs.fscp")" -eq 0
	check "$name" "the master logged a session request for each" \
		test -s "$FSCP_WORK/req.scp" -a -s "$FSCP_WORK/req.fscp"
	check "$name" "the same request and environment ($(head -1 "$FSCP_WORK/req.fscp"))" \
		cmp -s "$FSCP_WORK/req.scp" "$FSCP_WORK/req.fscp"
	if ! cmp -s "$FSCP_WORK/req.scp" "$FSCP_WORK/req.fscp"; then
		diff "$FSCP_WORK/req.scp" "$FSCP_WORK/req.fscp" | sed 's/^/    /'
	fi
}
S=(-S "$FSCP_WORK/bin/ssh")
# -v: fscp's lines and ssh's debug differ; the rest compares stderr too.
mux_case "upload -p" --expect-rc 0 --times --no-stderr -- "${S[@]}" -v -p src/small.bin mux-test:dst/
check "upload -p" "the master sent on the variables SendEnv names" \
	grep -q 'setting env FSCP_MT_B = "two words"' "$FSCP_WORK/req.fscp"
check "upload -p" "... and no other" test "$(grep -c FSCP_OTHER "$FSCP_WORK/req.fscp")" -eq 0
mux_case "download -r -p" --expect-rc 0 --times --no-stderr -- "${S[@]}" -v -r -p mux-test:src dst/
mux_case "download of a missing file" --expect-rc 1 -- "${S[@]}" mux-test:src/nothing dst/
mux_case "upload into a missing directory" --expect-rc 1 -- "${S[@]}" src/small.bin mux-test:nowhere/x/
mux_case "upload of two files" --expect-rc 0 -- "${S[@]}" src/small.bin src/big.bin mux-test:dst/

# A tiny upload: no route but ssh's pays, so fscp runs what scp runs and
# ssh's mux client asks the master.
tiny_setup() { side_setup && fscp_put_file src/tiny.bin 4096 0644; }
name="tiny upload: scp's ssh, no ssh -G"
route_compare --name "$name" --setup tiny_setup --post side_post --expect-rc 0 --no-stderr -- \
	"${S[@]}" -v src/tiny.bin mux-test:dst/
route_expect "$name" standard "4.0 KiB to move, under the .* from which any other route pays"
check "$name" "no new login for scp ($ROUTE_LOGINS_scp) or fscp ($ROUTE_LOGINS_fscp)" \
	test "$ROUTE_LOGINS_scp" -eq 0 -a "$ROUTE_LOGINS_fscp" -eq 0
check "$name" "fscp ran the ssh scp ran ($(tr '\n' '|' <"$FSCP_WORK/runs.fscp"))" \
	cmp -s "$FSCP_WORK/runs.scp" "$FSCP_WORK/runs.fscp"
check "$name" "the same request and environment" \
	cmp -s "$FSCP_WORK/req.scp" "$FSCP_WORK/req.fscp"

# A master that asks before each session (ControlMaster ask), its askpass
# saying no: ssh connects on its own; fscp asks the master once too.
ssh -F "$SSH_CONFIG" -O exit mux-test 2>/dev/null
n=0
while kill -0 "$MASTER_PID" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
cat >"$FSCP_WORK/askpass" <<EOF
#!/bin/sh
echo asked >>"$FSCP_WORK/askpass.log"
exit 1
EOF
chmod +x "$FSCP_WORK/askpass"
SSH_ASKPASS=$FSCP_WORK/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=:fscp-test master_start -o ControlMaster=ask
asks() { cat "$FSCP_WORK/askpass.log" 2>/dev/null | wc -l; }
ask_setup() { side_setup || return 1; asks >"$FSCP_WORK/asks0.$(route__side)"; }
ask_post() {
	local side
	side=$(route__side)
	side_post || return 1
	echo $(($(asks) - $(cat "$FSCP_WORK/asks0.$side"))) >"$FSCP_WORK/asks.$side"
}
name="a master that refuses"
route_compare --name "$name" --setup ask_setup --post ask_post --expect-rc 0 --no-stderr -- \
	"${S[@]}" -v src/small.bin mux-test:dst/
check "$name" "the master asked once for scp ($(cat "$FSCP_WORK/asks.scp")) and once for fscp ($(cat "$FSCP_WORK/asks.fscp"))" \
	test "$(cat "$FSCP_WORK/asks.scp")" -eq 1 -a "$(cat "$FSCP_WORK/asks.fscp")" -eq 1
check "$name" "scp ($ROUTE_LOGINS_scp) and fscp ($ROUTE_LOGINS_fscp) logged in on their own" \
	test "$ROUTE_LOGINS_scp" -eq 1 -a "$ROUTE_LOGINS_fscp" -eq 1
check "$name" "fscp said the master opened no session" \
	grep -q "the master at .* opened no session (the master refused the session: Permission denied)" \
	"$ROUTE_ERR_fscp"
checks_done

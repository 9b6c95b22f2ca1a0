#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Which ssh runs: scp 9.2 runs its compiled-in /usr/bin/ssh unless -S names
# another program, never the first ssh on PATH.  A fake ssh first on PATH
# (it notes that it ran and fails) must be ignored by scp and fscp alike, on
# the standard route and on a bypass (whose ssh -G is fscp's own; through a
# ProxyJump, whose ssh -W runs the same ssh, as ssh run by its full path
# runs itself for the jump), and -v
# names the program as scp does ("Executing: program /usr/bin/ssh host ...").
# -S still picks the program for both.  Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/route-lib.sh"
fscp_test_init
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT FSCP_VERBOSE
# The build's default (configure --with-ssh-program); scp's is /usr/bin/ssh.
prog=${FSCP_TEST_SSH_PROGRAM:-/usr/bin/ssh}

fake="$FSCP_WORK/fakebin"
mkdir -p "$fake"
cat >"$fake/ssh" <<FAKE
#!/bin/sh
echo "\$0 \$*" >>"$FSCP_WORK/fake-ssh.log"
echo "fake ssh ran" >&2
exit 1
FAKE
chmod +x "$fake/ssh"
PATH=$fake:$PATH
export PATH
[ "$(command -v ssh)" = "$fake/ssh" ] || fscp_hard_error "the fake ssh is not first on PATH"

fake_ran() {
	if [ -s "$FSCP_WORK/fake-ssh.log" ]; then
		bad "$1: the ssh on PATH ran: $(cat "$FSCP_WORK/fake-ssh.log")"
		rm -f "$FSCP_WORK/fake-ssh.log"
	else
		ok "$1: the ssh on PATH did not run"
	fi
}

# (The post hook runs while run/<side> holds the side's stderr; scp's first.)
post_scp_or_fscp() {
	local side=scp
	if [ -d "$FSCP_WORK/run/fscp" ]; then side=fscp; fi
	cp "$FSCP_WORK/run/$side/stderr" "$FSCP_WORK/v.$side"
}
setup_up() { fscp_put_file src.bin 300000; }
setup_down() { fscp_put_file "$SSHD_HOME/remote.bin" 300000; }

fscp_compare --name "upload, fake ssh on PATH" --expect-rc 0 --setup setup_up -- src.bin fscp-test:
fake_ran "upload"
fscp_compare --name "download, fake ssh on PATH" --expect-rc 0 --setup setup_down -- fscp-test:remote.bin .
fake_ran "download"
FSCP_ROUTE=bypass fscp_compare --name "forced bypass (ssh -G), fake ssh on PATH" --expect-rc 0 \
	--setup setup_up -- src.bin fscp-test:
fake_ran "forced bypass"
fscp_compare --name "legacy protocol (-O), fake ssh on PATH" --expect-rc 0 --setup setup_up -- -O src.bin fscp-test:
fake_ran "legacy protocol"

# ProxyJump: scp's ssh runs the jump as /usr/bin/ssh -W (its own full
# path); fscp's proxied route runs the same command.
route_host "jumped" "$SSHD_DIR/known_hosts" "HostName 127.0.0.1" "ProxyJump fscp-test"
FSCP_ROUTE=bypass fscp_compare --name "ProxyJump, forced bypass, fake ssh on PATH" --expect-rc 0 \
	--setup setup_up --no-stderr --post post_scp_or_fscp -- -v src.bin jumped:
fake_ran "ProxyJump"
if grep -q "route proxied" "$FSCP_WORK/v.fscp"; then
	ok "the ProxyJump copy took the proxied route"
else
	bad "no 'route proxied' under -v: $(grep 'fscp: ' "$FSCP_WORK/v.fscp")"
fi

# -v: the program scp names, and the route fscp took without PATH's ssh.
FSCP_ROUTE=bypass fscp_compare --name "-v, forced bypass" --no-stderr --expect-rc 0 \
	--setup setup_up --post post_scp_or_fscp -- -v src.bin fscp-test:
fake_ran "-v, forced bypass"
if grep -q "route fresh" "$FSCP_WORK/v.fscp"; then
	ok "the forced bypass ran (ssh -G answered)"
else
	bad "no 'route fresh' under -v: $(grep 'fscp: ' "$FSCP_WORK/v.fscp")"
fi
# (An upload this size to a near plain host goes on fscp's own connection
# when its login asks nobody: the standard route is asked for.)
FSCP_ROUTE=standard fscp_compare --name "-v, standard route" --no-stderr --expect-rc 0 \
	--setup setup_up --post post_scp_or_fscp -- -v src.bin fscp-test:
want="Executing: program $prog host fscp-test, user (unspecified), command sftp"
for side in scp fscp; do
	if [ "$side" = scp ] && [ "$prog" != /usr/bin/ssh ]; then continue; fi
	if grep -qxF "$want" "$FSCP_WORK/v.$side"; then
		ok "$side -v says: $want"
	else
		bad "$side -v does not say '$want': $(grep Executing "$FSCP_WORK/v.$side")"
	fi
done

# -S still names the program: the fake one for both (both fail alike).
fscp_compare --name "-S names the fake ssh" --no-stderr --expect-rc "1|255" --setup setup_up -- \
	-S "$fake/ssh" src.bin fscp-test:
if [ -s "$FSCP_WORK/fake-ssh.log" ]; then
	ok "-S ran the named program"
	rm -f "$FSCP_WORK/fake-ssh.log"
else
	bad "-S $fake/ssh did not run it"
fi
checks_done

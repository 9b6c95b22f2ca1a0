#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Several SFTP channels on one connection, to a server 40 ms away (a delay
# relay in front of a private sshd on 127.0.0.1):
#   - uploads, downloads and -r trees arrive identical to what scp copies;
#     -vv shows an upload's channels were opened, and a download's
#     connections each with one channel and a window of its own;
#   - one sshd session (a connection and all its channels) killed mid-copy:
#     the other connection finishes, exit 0, destination identical;
#   - not forced, a download from the relay (whose TCP handshake is
#     local, as a forwarder's) lists over the bypass connection without
#     ssh and grows on it; so does one through a proxy that is not ssh
#     (the connection opened beside ssh's try lists through the proxy),
#     big or small; a new host key is recorded once;
#   - a server that allows one session per connection (MaxSessions 1)
#     refuses the extra channels: the copy goes on with one, exit 0;
#   - a server whose exit status and close come a moment after its EOF:
#     each channel's goodbye reads them, without waiting out its bound;
#   - nothing fscp started is left afterwards.
# Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcroot=$(cd "$here/../.." && pwd)
: "${FSCP:=$PWD/src/fscp}"
: "${FSCP_TOOLS_BUILDDIR:=$PWD/tests/tools}"
SCP=${SCP:-/usr/bin/scp}
RELAY=$FSCP_TOOLS_BUILDDIR/delayrelay
[ -x "$FSCP" ] || { echo "channels.sh: FSCP=$FSCP not built" >&2; exit 99; }
[ -x "$RELAY" ] || { echo "channels.sh: $RELAY not built" >&2; exit 99; }
FSCP=$(cd "$(dirname "$FSCP")" && pwd)/$(basename "$FSCP")
# shellcheck source=../lib/sshd.sh
. "$srcroot/tests/lib/sshd.sh" || exit 99
W=$(mktemp -d /tmp/fscp-channels.XXXXXX) || exit 99
relay_pid=''
stop_all() {
	[ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null && wait "$relay_pid" 2>/dev/null
	relay_pid=''
	fscp_sshd_stop
}
trap 'stop_all; rm -rf "$W"' EXIT
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT
cd "$W" || exit 99

# shellcheck source=../lib/checks.sh
. "$srcroot/tests/lib/checks.sh" || exit 99

# sshd (with extra config lines $1) behind a 20 ms each way relay; "far"
# is the relay's Host entry in $CFG.
start_far() {
	FSCP_SSHD_EXTRA=$1 fscp_sshd_start "$W/sshd$2" || exit 99
	H=$SSHD_HOME
	rm -f "$W/relay.port"
	"$RELAY" -l 127.0.0.1:0 -t "127.0.0.1:$SSHD_PORT" -d 20 -p "$W/relay.port" \
		>"$W/relay.log" 2>&1 </dev/null &
	relay_pid=$!
	local n=0
	while [ ! -s "$W/relay.port" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	[ -s "$W/relay.port" ] || { echo "relay did not start" >&2; exit 99; }
	local rp hk
	rp=$(cat "$W/relay.port")
	hk=$(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")
	echo "[127.0.0.1]:$rp $hk" >"$W/kh$2"
	CFG=$W/cfg$2
	cat >"$CFG" <<EOF
Host far
	HostName 127.0.0.1
	Port $rp
	User root
	IdentityFile $SSHD_DIR/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $W/kh$2
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
EOF
}

# Run PROG ARGS... with a time bound, stderr in $W/err, status in $rc;
# afterwards no process with this config may be left.
run() {
	local prog=$1
	shift
	setsid -w timeout -k 5 120 "$prog" -F "$CFG" -q "$@" </dev/null >"$W/out" 2>"$W/err"
	rc=$?
	local n=0
	while pgrep -f -- "-F $CFG" >/dev/null; do
		n=$((n + 1))
		if [ $n -gt 30 ]; then
			bad "$name: a process it started is still running"
			break
		fi
		sleep 0.1
	done
}
channels_used() { grep -q "SFTP channels on one connection" "$W/err"; }
one_wide_channel() { grep -q "one SFTP channel on the connection, with a window of" "$W/err"; }
no_channels() { ! channels_used; }
same_tree() { diff -r "$1" "$2" >/dev/null; }
# src.bin uploaded with -vv to far:$1 (forced over channels): exit 0,
# identical, and -vv shows the channels.
upload_over_channels() {
	rm -f "$H/$1"
	run "$FSCP" -vv src.bin "far:$1"
	check "$name" "exit 0 (got $rc)" test "$rc" = 0
	check "$name" "destination identical" cmp -s src.bin "$H/$1"
	check "$name" "-vv shows the channels" channels_used
}

head -c $((24 << 20)) /dev/urandom >src.bin
mkdir -p tree/sub
for i in 1 2 3 4 5 6; do head -c $((i * 300000)) /dev/urandom >"tree/f$i"; done
for i in 1 2 3; do head -c 5000 /dev/urandom >"tree/sub/s$i"; done

start_far "" 1
export FSCP_ROUTE=bypass FSCP_CONNECTIONS=2

name="upload over channels"
upload_over_channels up.bin

name="download over channels"
rm -f down.bin
run "$FSCP" -vv far:up.bin down.bin
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s src.bin down.bin
check "$name" "-vv shows one channel with its window per connection" one_wide_channel
check "$name" "-vv shows no connection with several channels" no_channels

# Not forced, a big upload takes the connections its channels need: the
# first one's key exchange (about the 40 ms round trip, more on a loaded
# machine) tells how many, one for each 25 ms (8 channels of 12.5 ms
# each), at least 2 and at most the 4 planned; the pool then has that
# many.
head -c $((64 << 20)) /dev/urandom >big.bin
name="far upload, not forced: the key exchange sizes the pool"
rm -f "$H/big.bin"
FSCP_ROUTE= FSCP_CONNECTIONS= run "$FSCP" -v big.bin far:big.bin
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s big.bin "$H/big.bin"
kex=$(sed -n 's/.*the key exchange took \([0-9.]*\) ms: \([0-9]*\) connections* starts* at once.*/\1 \2/p' "$W/err")
# -v rounds the figure to 0.1 ms: at a step (62.5, 87.5 ms) either count
# is right.
conns_for() { # MS OFFSET
	awk -v ms="$1" -v d="$2" 'BEGIN { k = int((ms + d) / 25 + 0.5); if (k < 2) k = 2; if (k > 4) k = 4; print k }'
}
ms=${kex% *} got=${kex#* }
want=$(conns_for "$ms" 0)
check "$name" "-v: the key exchange started the others ($kex)" test -n "$kex"
if [ -n "$kex" ] && [ "$got" != "$want" ] &&
	{ [ "$got" = "$(conns_for "$ms" -0.05)" ] || [ "$got" = "$(conns_for "$ms" 0.05)" ]; }; then
	want=$got
fi
check "$name" "as many as its round trip's channels need ($kex: $want)" test "$got" = "$want"
# The copy starts on the first with the others counted, or all are up
# first (the climb may add to the count that is ready at the end).
check "$name" "-v: the pool has that many" grep -qE "of $want connections (up|ready) in" "$W/err"
rm -f big.bin "$H/big.bin"

name="-r up and down over channels, as scp"
rm -rf "$H/t-fscp" "$H/t-scp" t-fscp t-scp
run "$SCP" -r tree far:t-scp
src_rc=$rc
run "$FSCP" -vv -r tree far:t-fscp
check "$name" "upload exit $src_rc as scp (got $rc)" test "$rc" = "$src_rc"
check "$name" "upload tree as scp's" same_tree "$H/t-scp" "$H/t-fscp"
check "$name" "upload tree identical" same_tree tree "$H/t-fscp"
run "$SCP" -r far:t-scp t-scp
src_rc=$rc
run "$FSCP" -vv -r far:t-fscp t-fscp
check "$name" "download exit $src_rc as scp (got $rc)" test "$rc" = "$src_rc"
check "$name" "download tree as scp's" same_tree t-scp t-fscp

# One connection's sshd process dies: all of its channels go at once.  The
# file has a 4 MiB piece for each of the 12 channels, so that the killed
# connection is one with work (with fewer pieces, one whose channels had
# none died unseen), and -l makes the copy last about 5 s.
head -c $((48 << 20)) /dev/urandom >kill.bin
name="one connection (and its channels) killed mid-upload"
rm -f "$H/k.bin"
fscp_sshd_kill_new_session 2
run "$FSCP" -vv -l 80000 kill.bin far:k.bin
wait "$bg"
check "$name" "one of its connections was killed" test "$?" = 0
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s kill.bin "$H/k.bin"
# (the kill may land while a connection still logs in, under a sanitizer)
check "$name" "-v says a connection failed" grep -qE "connection [0-9]+( of [0-9]+)?(: SFTP channel [0-9]+)? failed" "$W/err"
grep -qE "connection [0-9]+( of [0-9]+)?(: SFTP channel [0-9]+)? failed" "$W/err" ||
	grep -E "connection|route|ready" "$W/err" | sed 's/^/    fscp: /'

name="one connection (and its channels) killed mid-download"
rm -f k.bin
fscp_sshd_kill_new_session 2
run "$FSCP" -vv -l 40000 far:up.bin k.bin
wait "$bg"
check "$name" "one of its connections was killed" test "$?" = 0
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s src.bin k.bin

# Not forced: a download starts one bypass connection beside ssh's
# listing.  The relay's TCP handshake is local (a forwarder's is too), so
# that connection lists instead of ssh; the listing's round trip is the
# relay's, and the copy grows on it.
unset FSCP_ROUTE FSCP_CONNECTIONS
head -c 100000 /dev/urandom >small.bin
cp small.bin "$H/small.bin"
name="download behind the relay: the bypass connection lists, without ssh"
rm -f spec.bin
run "$FSCP" -vv far:up.bin spec.bin
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s src.bin spec.bin
check "$name" "-v says the handshake was near" \
	grep -q "route fresh: the TCP handshake took .* ms: the bypass connection lists, without ssh" "$W/err"
check "$name" "no ssh ran" eval '! grep -q "Executing: program" "$W/err"'
# 40 ms, or more on a loaded machine: not a near one's.
check "$name" "-vv: the listing measured the relay" \
	grep -qE "round trip (3[5-9]|[4-9][0-9]|[1-9][0-9]{2,})\.[0-9]+ ms" "$W/err"
check "$name" "-v: the copy grows after the listing" grep -q "route fresh: .* to move: .*(after listing)" "$W/err"
# Through a proxy that is not ssh (a plain relay 40 ms away) the bypass
# connection lists instead of ssh, and carries the copy, big or small.
SSM_SIM=$FSCP_TOOLS_BUILDDIR/ssm-sim
[ -x "$SSM_SIM" ] || { echo "channels.sh: $SSM_SIM not built" >&2; exit 99; }
sed -e "s|^Host far\$|Host farp|" -e "s|Port .*|Port $SSHD_PORT\n\tProxyCommand $SSM_SIM -s 0 -c 0 -d 20 -p 262144 %h:%p|" \
	"$CFG" >"$W/cfg-proxy"
echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")" >>"$W/kh1"
CFG_SAVE=$CFG CFG=$W/cfg-proxy
name="far download through a proxy: the bypass connection lists, without ssh"
rm -f spec.bin
run "$FSCP" -vv farp:up.bin spec.bin
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s src.bin spec.bin
check "$name" "-vv says it started while listing" grep -q "bypass connection starts while ssh lists" "$W/err"
check "$name" "-v says it listed through the proxy" \
	grep -q "route proxied: the bypass connection lists through the proxy, without ssh" "$W/err"
check "$name" "no ssh ran" eval '! grep -q "Executing: program" "$W/err"'
check "$name" "-v: the copy grows after the listing" grep -q "route proxied: .* to move: .*(after listing)" "$W/err"
# Its connections carry it on one channel each, with a window of their
# own (several channels would share one session's lock), and no channel
# more is asked for.
check "$name" "-vv: one channel with a window of its own" one_wide_channel
check "$name" "-vv: no connection opens several channels" eval '! channels_used'
name="far small download through a proxy: the connection that listed carries it"
rm -f s.bin
t0=$SECONDS
run "$FSCP" -v farp:small.bin s.bin
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s small.bin s.bin
check "$name" "the connection that listed carries it" \
	grep -q "route proxied: .*; the connection that listed carries it" "$W/err"
check "$name" "no ssh ran" eval '! grep -q "Executing: program" "$W/err"'
check "$name" "done within 10 s" test $((SECONDS - t0)) -le 10
CFG=$CFG_SAVE
# A host key not known yet under accept-new: ssh records it, once; the
# speculative connection leaves that to ssh.
name="accept-new: the key is recorded once"
cp "$CFG" "$W/cfg-new"
sed -i -e "s|StrictHostKeyChecking yes|StrictHostKeyChecking accept-new|" \
	-e "s|UserKnownHostsFile .*|UserKnownHostsFile $W/kh-new|" "$W/cfg-new"
: >"$W/kh-new"
rm -f n.bin
CFG_SAVE=$CFG CFG=$W/cfg-new
run "$FSCP" far:up.bin n.bin
CFG=$CFG_SAVE
check "$name" "exit 0 (got $rc)" test "$rc" = 0
check "$name" "destination identical" cmp -s src.bin n.bin
check "$name" "one line added to known_hosts ($(wc -l <"$W/kh-new"))" test "$(wc -l <"$W/kh-new")" = 1

# An upload through a far master: its SFTP takes four round trips to open
# (and to measure the round trip that decides); fresh connections start
# meanwhile rather than after it.  The master has a config of its own, so
# that run() does not wait for it.
name="far master upload: fresh connections start while its SFTP opens"
{ printf 'Host far\n\tControlMaster no\n\tControlPath %s/cm-%%C\n' "$W"; cat "$CFG"; } >"$W/cfg-cm"
cp "$W/cfg-cm" "$W/master.cfg"
if ssh -F "$W/master.cfg" -o ControlMaster=yes -fN far </dev/null; then
	CFG_SAVE=$CFG CFG=$W/cfg-cm
	rm -f "$H/cm-scp.bin" "$H/cm-fscp.bin"
	run "$SCP" src.bin far:cm-scp.bin
	src_rc=$rc
	run "$FSCP" -vv src.bin far:cm-fscp.bin
	CFG=$CFG_SAVE
	check "$name" "exit $src_rc as scp (got $rc)" test "$rc" = "$src_rc"
	check "$name" "destination identical, as scp's" cmp -s "$H/cm-scp.bin" "$H/cm-fscp.bin"
	check "$name" "destination identical" cmp -s src.bin "$H/cm-fscp.bin"
	check "$name" "-vv: they started before the route was known" \
		grep -q "no route yet after .* ms: the bypass connections start" "$W/err"
	# On a loaded machine (make -j2 check) less than half a core may
	# have been idle since the copy began: then it starts on the master,
	# and the climb decides.
	if grep -q "cores idle since the copy began: the copy" "$W/err"; then
		check "$name" "-v: a busy machine started it on the master" \
			grep -q "route stays standard: ControlMaster socket" "$W/err"
	else
		check "$name" "-v: the route is fresh" grep -q "route fresh: ControlMaster socket" "$W/err"
		check "$name" "-v: they came up" grep -q "connections ready in" "$W/err"
	fi
	ssh -F "$W/master.cfg" -O exit far 2>/dev/null
else
	bad "$name: the ControlMaster did not start"
fi

# A master that came over a long path (the relay) beside a direct path to
# the same server: the speculative connection's banner comes at once, so
# it stops there (not far); when the route then goes fresh, new
# connections start rather than waiting on the stopped one, and -v does
# not call the stop a failure.
name="far master, near server: the stopped connection is not a failure"
hk=$(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")
{ cat "$W/kh1"; echo "[127.0.0.1]:$SSHD_PORT $hk"; } >"$W/kh-split"
{
	printf 'Host far\n\tControlMaster no\n\tControlPath %s/cm-split\n' "$W"
	sed "s|UserKnownHostsFile .*|UserKnownHostsFile $W/kh-split|" "$CFG"
} >"$W/master-split.cfg"
sed "s|^\tPort .*|\tPort $SSHD_PORT|" "$W/master-split.cfg" >"$W/cfg-split"
no_failed_conn() { ! grep -q "connection [0-9]* of [0-9]* failed" "$W/err"; }
if ssh -F "$W/master-split.cfg" -o ControlMaster=yes -fN far </dev/null; then
	CFG_SAVE=$CFG CFG=$W/cfg-split
	rm -f "$H/split.bin"
	run "$FSCP" -vv src.bin far:split.bin
	CFG=$CFG_SAVE
	check "$name" "exit 0 (got $rc)" test "$rc" = 0
	check "$name" "destination identical" cmp -s src.bin "$H/split.bin"
	check "$name" "-v: no connection failed" no_failed_conn
	# A loaded machine can delay the banner past the bar, or start the
	# copy on the master; the stop and what follows it only then.
	if grep -q "not far, the speculative connection stops" "$W/err" &&
		grep -q "route fresh: ControlMaster socket" "$W/err"; then
		check "$name" "-vv says it stopped" \
			grep -q "connection 1 of [0-9]* stopped at the server's first bytes or key exchange" "$W/err"
		check "$name" "-v: new connections came up" grep -q "connections ready in" "$W/err"
	else
		echo "note: $name: no stop at the banner, or not fresh:" \
			"$(grep -E "first bytes|^fscp: route" "$W/err" | tr '\n' ' ')"
	fi
	ssh -F "$W/master-split.cfg" -O exit far 2>/dev/null
else
	bad "$name: the ControlMaster did not start"
fi

stop_all

# A server that allows one session per connection refuses the others.
start_far "MaxSessions 1" 2
name="MaxSessions 1: one channel per connection"
rm -f "$H/m.bin" m.bin
run "$FSCP" -vv src.bin far:m.bin
check "$name" "upload exit 0 (got $rc)" test "$rc" = 0
check "$name" "upload identical" cmp -s src.bin "$H/m.bin"
check "$name" "no extra channel in use" no_channels
run "$FSCP" -vv far:m.bin m.bin
check "$name" "download exit 0 (got $rc)" test "$rc" = 0
check "$name" "download identical" cmp -s src.bin m.bin
stop_all

# A server whose SFTP server ends a moment after its EOF: the exit status
# and the close come apart from the EOF.  After the EOF libssh's channel
# poll reads the socket no more, so the goodbye must read them another
# way, not wait out its bound on a socket nobody reads.
sftp_bin=/usr/lib/openssh/sftp-server
[ -x "$sftp_bin" ] || { echo "channels.sh: $sftp_bin not found" >&2; exit 99; }
cat >"$W/sftp-late" <<EOF
#!/bin/sh
$sftp_bin "\$@"
exec >&- 2>&-
sleep 0.3
EOF
chmod +x "$W/sftp-late"
FSCP_SFTP_SERVER=$W/sftp-late start_far "" 3
export FSCP_ROUTE=bypass FSCP_CONNECTIONS=2
name="a server that closes a moment after its EOF"
upload_over_channels late.bin
check "$name" "every channel's goodbye was answered" eval '! grep -q "did not end a channel" "$W/err"'
unset FSCP_ROUTE FSCP_CONNECTIONS

checks_done

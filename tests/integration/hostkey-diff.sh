#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Host keys, ssh's verdict case by case: for every row of the table below,
# the same known_hosts files and ssh_config are shown once to the real ssh
# (`ssh -F cfg hk true`) and once to fscp's bypass check (tests/tools/
# hostkey-try, which reads the config through ssh -G and verifies the key
# as the bypass routes do), against one private sshd on 127.0.0.1.
#
# Verdicts: accept (connected, known_hosts untouched), add (connected, a key
# recorded), refuse ("Host key verification failed."), defer (fscp only:
# ssh must decide, so fscp takes the standard route).  fscp must give ssh's
# verdict; a row may allow "defer" instead, where ssh would ask the user or
# go on trusting the key less.  Whatever the row says, fscp never accepts or
# adds where ssh refuses.  When both add, the recorded lines are compared.
#
# Exit 0 pass, 1 a mismatch, 99 cannot run.
set -u

here=$(cd "$(dirname "$0")" && pwd)
srcroot=$(cd "$here/../.." && pwd)
try=${HOSTKEY_TRY:-}
for cand in ./tests/tools/hostkey-try "$srcroot/tests/tools/hostkey-try"; do
	[ -z "$try" ] && [ -x "$cand" ] && try=$cand
done
if [ -z "$try" ] || [ ! -x "$try" ]; then
	echo "hostkey-diff.sh: hostkey-try not built (make tests/tools/hostkey-try)" >&2
	exit 99
fi
try=$(cd "$(dirname "$try")" && pwd)/$(basename "$try")

# shellcheck source=../lib/sshd.sh
. "$srcroot/tests/lib/sshd.sh" || exit 99
# shellcheck source=../lib/checks.sh
. "$srcroot/tests/lib/checks.sh" || exit 99
work=$(mktemp -d /tmp/fscp-hostkey.XXXXXX) || exit 99
trap 'fscp_sshd_stop; rm -rf "$work"' EXIT
fscp_sshd_start "$work/sshd" || exit 99

P=$SSHD_PORT
D=$SSHD_DIR
N="[127.0.0.1]:$P"
K=$(cut -d' ' -f1,2 "$D/ssh_host_ed25519_key.pub")
ssh-keygen -q -t ed25519 -N '' -f "$work/wrong" || exit 99
ssh-keygen -q -t rsa -b 2048 -N '' -f "$work/rsa" || exit 99
W=$(cut -d' ' -f1,2 "$work/wrong.pub")
R=$(cut -d' ' -f1,2 "$work/rsa.pub")
# A hashed known_hosts line for name $1 with key $2.
hashed() {
	printf '%s %s\n' "$1" "$2" >"$work/h"
	ssh-keygen -q -H -f "$work/h" >/dev/null 2>&1
	grep -v '^#' "$work/h"
	rm -f "$work/h" "$work/h.old"
}

c=$work/case

# run_case NAME ALLOW USER_KH GLOBAL_KH CONFIG_LINES
#   ALLOW: "same" (fscp must say what ssh says) or "defer" (defer allowed too)
#   USER_KH, GLOBAL_KH: known_hosts contents (printf %b), CONFIG_LINES: extra
#   ssh_config lines for the host (each "Key value", separated by ";").
run_case() {
	local name=$1 allow=$2 ukh=$3 gkh=$4 extra=$5 side v_ssh v_fscp out rc
	for side in ssh fscp; do
		rm -rf "$c.$side"
		mkdir -p "$c.$side"
		printf '%b' "$ukh" >"$c.$side/kh"
		: >"$c.$side/kh2"
		printf '%b' "$gkh" >"$c.$side/gkh"
		# ssh_config keeps the first value it reads: the row's lines come
		# before the defaults.
		{
			echo "Host hk"
			echo "$extra" | tr ';' '\n' | sed -e 's/^ *//' -e '/^$/d' -e 's/^/	/' -e "s#@DIR@#$c.$side#g"
			echo "	HostName 127.0.0.1"
			echo "	Port $P"
			echo "	User root"
			echo "	IdentityFile $D/id_ed25519"
			echo "	IdentitiesOnly yes"
			echo "	UserKnownHostsFile $c.$side/kh"
			echo "	GlobalKnownHostsFile $c.$side/gkh"
			echo "	LogLevel ERROR"
		} >"$c.$side/cfg"
		cp "$c.$side/kh" "$c.$side/kh.before"
		cp "$c.$side/kh2" "$c.$side/kh2.before"
	done

	# ssh, away from any terminal so "ask" cannot prompt.
	out=$(setsid -w ssh -F "$c.ssh/cfg" hk true </dev/null 2>&1)
	rc=$?
	if [ "$rc" = 0 ]; then
		v_ssh=accept
	elif printf '%s' "$out" | grep -q "Host key verification failed"; then
		v_ssh=refuse
	else
		v_ssh="error($rc: $out)"
	fi
	out=$(setsid -w "$try" -F "$c.fscp/cfg" hk </dev/null 2>"$c.fscp/err")
	v_fscp=$out
	for side in ssh fscp; do
		if ! cmp -s "$c.$side/kh" "$c.$side/kh.before" || ! cmp -s "$c.$side/kh2" "$c.$side/kh2.before"; then
			if [ "$side" = ssh ] && [ "$v_ssh" = accept ]; then v_ssh=add; fi
			if [ "$side" = fscp ] && [ "$v_fscp" = accept ]; then v_fscp=add; fi
		fi
	done

	local ok=0
	if [ "$v_fscp" = "$v_ssh" ]; then
		ok=1
	elif [ "$allow" = defer ] && [ "$v_fscp" = defer ]; then
		ok=1
	fi
	case $v_ssh in accept | add | refuse) ;; *) ok=0 ;; esac
	if [ "$v_ssh" = refuse ] && { [ "$v_fscp" = accept ] || [ "$v_fscp" = add ]; }; then
		ok=0
	fi
	# Both recorded the key: the same lines (hashed names differ by salt).
	if [ "$ok" = 1 ] && [ "$v_ssh" = add ]; then
		local f
		for f in kh kh2; do
			if grep -q '^|1|' "$c.ssh/$f" 2>/dev/null; then
				if [ "$(grep -c '^|1|' "$c.ssh/$f")" != "$(grep -c '^|1|' "$c.fscp/$f")" ] ||
					[ "$(cut -d' ' -f2- "$c.ssh/$f")" != "$(cut -d' ' -f2- "$c.fscp/$f")" ]; then
					ok=0
				fi
			elif ! cmp -s "$c.ssh/$f" "$c.fscp/$f"; then
				ok=0
			fi
		done
	fi
	if [ "$ok" = 1 ]; then
		ok "$(printf '%-34s ssh=%-7s fscp=%s' "$name" "$v_ssh" "$v_fscp")"
	else
		bad "$(printf '%-34s ssh=%-7s fscp=%s (allowed: %s)' "$name" "$v_ssh" "$v_fscp" "$allow")"
		sed 's/^/      fscp: /' "$c.fscp/err"
		for f in kh kh2; do
			diff "$c.ssh/$f" "$c.fscp/$f" | sed "s/^/      $f: /"
		done
	fi
}

S='StrictHostKeyChecking yes'
A='StrictHostKeyChecking accept-new'
O='StrictHostKeyChecking no'
Q='StrictHostKeyChecking ask'
B='BatchMode yes'

#        name                        allow  user known_hosts                 global              config
run_case plain-known                 same  "$N $K\n"                         ""                  "$S"
run_case unknown-strict              same  ""                                ""                  "$S"
run_case unknown-accept-new          same  ""                                ""                  "$A"
run_case unknown-no                  same  ""                                ""                  "$O"
run_case unknown-ask-batch           same  ""                                ""                  "$Q;$B"
run_case unknown-ask                 defer ""                                ""                  "$Q"
run_case changed-strict              same  "$N $W\n"                         ""                  "$S"
run_case changed-accept-new          same  "$N $W\n"                         ""                  "$A"
run_case changed-ask-batch           same  "$N $W\n"                         ""                  "$Q;$B"
run_case changed-no                  defer "$N $W\n"                         ""                  "$O"
run_case changed-then-known          same  "$N $W\n$N $K\n"                  ""                  "$S"
run_case hashed-known                same  "$(hashed "$N" "$K")\n"           ""                  "$S"
run_case hashed-other-name           same  "$(hashed otherhost "$K")\n"      ""                  "$S"
run_case hashed-changed              same  "$(hashed "$N" "$W")\n"           ""                  "$A"
run_case hashed-malformed            same  "|1|bad|worse $K\n"               ""                  "$S"
run_case comma-list                  same  "foo,$N,bar $K\n"                 ""                  "$S"
run_case wildcard-star               same  "[127.0.0.*]:$P $K\n"             ""                  "$S"
run_case wildcard-question           same  "[127.0.0.?]:$P $K\n"             ""                  "$S"
run_case wildcard-no-match           same  "[10.0.0.*]:$P $K\n"              ""                  "$S"
run_case negated-self                same  "[127.0.0.*]:$P,!$N $K\n"         ""                  "$S"
run_case negated-other               same  "[127.0.0.*]:$P,![127.0.0.2]:$P $K\n" ""              "$S"
run_case negated-self-accept-new     same  "[127.0.0.*]:$P,!$N $W\n"         ""                  "$A"
run_case portless-known              same  "127.0.0.1 $K\n"                  ""                  "$S"
run_case portless-changed            same  "127.0.0.1 $W\n"                  ""                  "$S"
run_case portless-changed-accept-new same  "127.0.0.1 $W\n"                  ""                  "$A"
run_case port-entry-wins             same  "127.0.0.1 $K\n$N $W\n"           ""                  "$A"
run_case alias-known                 same  "myalias $K\n"                    ""                  "HostKeyAlias myalias;$S"
run_case alias-miss                  same  "$N $K\n127.0.0.1 $K\n"           ""                  "HostKeyAlias myalias;$S"
run_case alias-accept-new            same  ""                                ""                  "HostKeyAlias myalias;$A"
run_case alias-changed               same  "myalias $W\n"                    ""                  "HostKeyAlias myalias;$A"
run_case checkhostip-known           same  "$N $K\n"                         ""                  "CheckHostIP yes;$S"
run_case checkhostip-accept-new      same  ""                                ""                  "CheckHostIP yes;$A"
run_case global-known                same  ""                                "$N $K\n"           "$S"
run_case global-changed              same  ""                                "$N $W\n"           "$A"
run_case global-unknown-accept-new   same  ""                                "other $K\n"        "$A"
run_case user-changed-global-known   same  "$N $W\n"                         "$N $K\n"           "$S"
run_case second-user-file            same  ""                                ""                  "UserKnownHostsFile @DIR@/kh @DIR@/kh2;$S"
run_case second-user-file-add        same  ""                                ""                  "UserKnownHostsFile @DIR@/kh2 @DIR@/kh;$A"
run_case no-user-file                same  ""                                ""                  "UserKnownHostsFile none;$O"
run_case revoked                     same  "@revoked $N $K\n$N $K\n"         ""                  "$S"
run_case revoked-accept-new          same  "@revoked $N $K\n"                ""                  "$A"
run_case revoked-wildcard-global     same  "$N $K\n"                         "@revoked * $K\n"   "$S"
run_case revoked-no                  defer "@revoked $N $K\n$N $K\n"         ""                  "$O"
run_case revoked-other-key           same  "@revoked $N $W\n$N $K\n"         ""                  "$S"
run_case cert-authority-only         same  "@cert-authority $N $K\n"         ""                  "$S"
run_case cert-authority-accept-new   same  "@cert-authority * $K\n"          ""                  "$A"
run_case bad-marker                  same  "@bogus $N $K\n"                  ""                  "$S"
run_case type-mismatch               same  "$N $R\n"                         ""                  "$S"
run_case type-mismatch-accept-new    same  "$N $R\n"                         ""                  "$A"
run_case type-mismatch-and-known     same  "$N $R\n$N $K\n"                  ""                  "$S"
run_case comments-and-junk           same  "# a comment\n\n   \ngarbage\n$N\n$N $K\n" ""          "$S"
run_case hash-known-hosts-add        same  ""                                ""                  "HashKnownHosts yes;$A"
run_case nohostauth-localhost        same  "$N $W\n"                         ""                  "NoHostAuthenticationForLocalhost yes;$S"
run_case nohostauth-localhost-alias  same  ""                                ""                  "NoHostAuthenticationForLocalhost yes;HostKeyAlias myalias;$S"
run_case knownhostscommand           defer ""                                ""                  "KnownHostsCommand /bin/echo $N $K;$S"
run_case uppercase-pattern           same  "[127.0.0.1]:$P,FOO $K\n"         ""                  "HostKeyAlias MyAlias;$S"
run_case alias-case                  same  "myalias $K\n"                    ""                  "HostKeyAlias MYALIAS;$S"

checks_done

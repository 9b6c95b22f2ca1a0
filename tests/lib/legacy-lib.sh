# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# shellcheck shell=bash
# Shared by the legacy-protocol tests (legacy*.sh): wrappers in
# $FSCP_WORK/bin made after fscp_test_init.
#
#   ssh-remote    an ssh for -S that runs the real ssh, but with the remote
#                 command's leading "scp" replaced by $REMOTE_SCP: the remote
#                 side of a -O copy becomes the program under test, reached
#                 through the real sshd (OpenSSH's regress/scp-ssh-wrapper.sh
#                 does the same without ssh).  $REMOTE_SCP_ARGS is put after
#                 it (e.g. "-F config" for the scp that -R runs remotely).
#                 Each call's argv goes, one word a line, to $SSH_ARGV_LOG
#                 when set.
#   scp-with R    scp (/usr/bin/scp) with -S ssh-remote and R as the remote scp
#   fscp-with R   the same with fscp as the client
# The client's argv[0] is "scp" in each, as compare.sh runs its programs.
legacy_make_wrappers() {
	local bin=$FSCP_WORK/bin
	mkdir -p "$bin"
	cat >"$bin/ssh-remote" <<'SH'
#!/bin/bash
if [ -n "${SSH_ARGV_LOG:-}" ]; then
	{ printf '%s\n' "$@"; echo ---; } >>"$SSH_ARGV_LOG"
fi
args=("$@")
# The remote command starts after "--" and the host.
for ((i = 0; i < ${#args[@]}; i++)); do
	if [ "${args[i]}" = -- ]; then
		c=$((i + 2))
		if [ -n "${REMOTE_SCP:-}" ] && [ "$c" -lt ${#args[@]} ]; then
			a=${args[c]}
			case $a in
			scp) a="$REMOTE_SCP${REMOTE_SCP_ARGS:+ $REMOTE_SCP_ARGS}" ;;
			"scp "*) a="$REMOTE_SCP${REMOTE_SCP_ARGS:+ $REMOTE_SCP_ARGS} ${a#scp }" ;;
			esac
			args[c]=$a
		fi
		break
	fi
done
exec ssh "${args[@]}"
SH
	local r client
	for client in scp fscp; do
		for r in scp fscp; do
			local cprog=$SCP rprog=$SCP
			[ "$client" = fscp ] && cprog=$FSCP
			[ "$r" = fscp ] && rprog=$FSCP
			cat >"$bin/$client-with-$r" <<SH
#!/bin/bash
export REMOTE_SCP=$rprog
exec -a scp $cprog -S $bin/ssh-remote "\$@"
SH
		done
	done
	chmod +x "$bin"/*
}

# A second name for the test sshd, for remote-to-remote copies.
legacy_add_second_host() {
	sed -n '/^Host fscp-test$/,$p' "$SSH_CONFIG" | sed 's/^Host fscp-test$/Host fscp-test2/' >>"$SSH_CONFIG"
}

# fscp_setup_trees plus files already at the destinations: dst/small.txt
# (bigger, mode 0604) and dst/file, on both ends.
legacy_setup_existing() {
	fscp_setup_trees
	fscp_put_file dst/small.txt 300000 0604
	fscp_put_file "$SSHD_HOME/dst/small.txt" 300000 0604
	fscp_put_file dst/file 10
	fscp_put_file "$SSHD_HOME/dst/file" 10
}

# legacy_raw_compare NAME INPUT ARGS...: feed the bytes INPUT (printf format)
# to `scp ARGS` and to `fscp ARGS` (server mode, no ssh) in fresh copies of
# the fixture tree, and compare the bytes each writes back, its stderr, its
# exit status and the tree it leaves: one check.
legacy_raw_compare() {
	local name=$1 input=$2 side prog
	shift 2
	for side in scp fscp; do
		prog=$SCP
		[ "$side" = fscp ] && prog=$FSCP
		local d=$FSCP_WORK/raw/$side
		rm -rf "$d"
		mkdir -p "$d/t"
		(cd "$d/t" && fscp_put_tree src && mkdir dst && fscp_set_times src)
		# shellcheck disable=SC2059
		(cd "$d/t" && umask 022 && printf "$input" |
			timeout "$FSCP_TIMEOUT" bash -c 'exec -a scp "$@"' scp "$prog" "$@" >"$d/out" 2>"$d/err")
		echo $? >"$d/rc"
		od -An -c "$d/out" >"$d/out.txt"
	done
	local s=$FSCP_WORK/raw/scp f=$FSCP_WORK/raw/fscp bad=""
	cmp -s "$s/rc" "$f/rc" || bad+="  exit: scp $(cat "$s/rc"), fscp $(cat "$f/rc")"$'\n'
	cmp -s "$s/out" "$f/out" || bad+="  bytes to the peer differ:"$'\n'"$(diff "$s/out.txt" "$f/out.txt" | head -20)"$'\n'
	cmp -s "$s/err" "$f/err" || bad+="  stderr differs: scp [$(cat "$s/err")] fscp [$(cat "$f/err")]"$'\n'
	local trees
	trees=$(fscp__cmp_trees times tree "$s/t" "$f/t") || bad+=$trees$'\n'
	if [ -n "$bad" ]; then
		bad "$name"
		printf '%s' "$bad"
	else
		ok "$name (exit $(cat "$s/rc"))"
	fi
}

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The per-host route setting files (fscp(1) FILES): the user's file sets a
# route per Host pattern; the system's "Route standard" binds, over the
# user's file and FSCP_ROUTE=bypass; FSCP_ROUTE wins over the user's file;
# the user's file is found through XDG_CONFIG_HOME, else ~/.config; -v and
# FSCP_VERBOSE=route say which file and line set the route; a bad line is
# an error (file and line, exit 1) before anything is copied.  Every copy is
# checked byte for byte.  Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/../lib/settings-lib.sh"
fscp_test_init
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT FSCP_SSM_START_CPU FSCP_VERBOSE FSCP_CONFIG
# No file of the machine or of root's home takes part.
C=$FSCP_WORK/conf
mkdir -p "$C/xdg/fscp" "$C/home/.config/fscp"
export XDG_CONFIG_HOME=$C/xdg HOME=$C/home FSCP_SYSTEM_CONFIG=$C/none
: >"$C/none"

fscp_put_file "$FSCP_WORK/L/src.bin" 300000
# copy NAME HOST [VAR=VALUE...]: upload src.bin to HOST:dst.bin with the
# route lines shown; leaves ROUTE (the route line) and checks the copy.
copy() {
	local name=$1 host=$2
	shift 2
	rm -f "$SSHD_HOME/dst.bin"
	settings_run FSCP_VERBOSE=route "$@" -- src.bin "$host":dst.bin
	ROUTE=$(grep '^fscp: route [a-z-]*: ' <<<"$RUN_ERR")
	settings_check "$name" "copied (exit 0, same bytes)" \
		eval 'test "$RUN_RC" = 0 && cmp -s "$FSCP_WORK/L/src.bin" "$SSHD_HOME/dst.bin"'
}
# has NAME TEXT: the run's stderr has the line TEXT.
has() {
	settings_check "$1" "says '$2'" grep -qxF -- "$2" <<<"$RUN_ERR"
}

# ---- the user's file, per host pattern ----
U=$C/xdg/fscp/config
cat >"$U" <<EOF
# fscp's route per host
Host fscp-test2
	Route standard
Host fscp-*
	Route bypass
EOF
copy "user file, bypass host" fscp-test
has "user file, bypass host" "fscp: route setting for fscp-test: Route bypass (Host fscp-*) in $U line 5"
settings_check "user file, bypass host" "on a bypass (forced)" grep -q '^fscp: route fresh: .*(forced)$' <<<"$ROUTE"
copy "user file, standard host" fscp-test2
has "user file, standard host" "fscp: route standard: route forced to standard by Route standard (Host fscp-test2) in $U line 3"
settings_check "user file, standard host" "one login (ssh's)" test "$RUN_LOGINS" = 1
copy "FSCP_ROUTE over the user's file" fscp-test2 FSCP_ROUTE=bypass
settings_check "FSCP_ROUTE over the user's file" "on a bypass" grep -q '^fscp: route fresh: ' <<<"$ROUTE"
copy "FSCP_ROUTE=standard over the user's bypass" fscp-test FSCP_ROUTE=standard
has "FSCP_ROUTE=standard over the user's bypass" "fscp: route standard: route forced to standard by FSCP_ROUTE=standard"
# -v shows the same lines among ssh's.
rm -f "$SSHD_HOME/dst.bin"
settings_run -- -v src.bin fscp-test2:dst.bin
has "-v" "fscp: route setting for fscp-test2: Route standard (Host fscp-test2) in $U line 3"
# FSCP_CONFIG names another file; ~/.config/fscp/config without XDG_CONFIG_HOME.
printf 'Host fscp-test\n  Route standard\n' >"$C/other"
copy "FSCP_CONFIG" fscp-test FSCP_CONFIG="$C/other"
has "FSCP_CONFIG" "fscp: route standard: route forced to standard by Route standard (Host fscp-test) in $C/other line 2"
cp "$C/other" "$C/home/.config/fscp/config"
copy "~/.config/fscp/config" fscp-test XDG_CONFIG_HOME=
has "~/.config/fscp/config" "fscp: route standard: route forced to standard by Route standard (Host fscp-test) in $C/home/.config/fscp/config line 2"

# ---- the system's file: Route standard binds ----
S=$C/system
cat >"$S" <<EOF
Host fscp-test !fscp-test2
Route standard
Host *
Route bypass
EOF
name="system standard over FSCP_ROUTE=bypass and the user's bypass"
copy "$name" fscp-test FSCP_SYSTEM_CONFIG="$S" FSCP_ROUTE=bypass
has "$name" "fscp: route standard: route forced to standard by Route standard (Host fscp-test !fscp-test2) in $S line 2"
settings_check "$name" "one login (ssh's)" test "$RUN_LOGINS" = 1
# Its bypass is a default only: the user's file wins.
copy "system default under the user's file" fscp-test2 FSCP_SYSTEM_CONFIG="$S"
has "system default under the user's file" "fscp: route standard: route forced to standard by Route standard (Host fscp-test2) in $U line 3"
rm -f "$U"
copy "system default" fscp-test2 FSCP_SYSTEM_CONFIG="$S"
has "system default" "fscp: route setting for fscp-test2: Route bypass (Host *) in $S line 4"
settings_check "system default" "on a bypass (forced)" grep -q '^fscp: route fresh: .*(forced)$' <<<"$ROUTE"

# ---- bad lines: file and line, exit 1, nothing copied ----
bad_line() {
	local name=$1 var=$2 file=$3 msg=$4
	echo old >"$SSHD_HOME/dst.bin"
	settings_run "$var=$file" -- src.bin fscp-test:dst.bin
	settings_check "$name" "exit 1 with 'fscp: $msg', no login, nothing copied" \
		test "$RUN_RC" = 1 -a "$RUN_ERR" = "fscp: $msg" -a "$RUN_LOGINS" = 0 \
		-a "$(cat "$SSHD_HOME/dst.bin")" = old
}
printf 'Host a\n\tRoute standard\nHost b\n\tRoute standrad\n' >"$C/bad1"
bad_line "bad Route value" FSCP_CONFIG "$C/bad1" "$C/bad1 line 4: Route \"standrad\" is not one of auto, standard, bypass"
printf '# policy\nHostName x\n' >"$C/bad2"
bad_line "bad keyword, system file" FSCP_SYSTEM_CONFIG "$C/bad2" "$C/bad2: line 2: Bad configuration option: hostname"
printf 'Host\n' >"$C/bad3"
bad_line "Host without a pattern" FSCP_CONFIG "$C/bad3" "$C/bad3 line 1: no argument after keyword \"host\""
printf 'Route bypass x\n' >"$C/xdg/fscp/config"
bad_line "bad line in the default user file" XDG_CONFIG_HOME "$C/xdg" "$C/xdg/fscp/config line 1: garbage at end of line; \"x\"."
checks_done

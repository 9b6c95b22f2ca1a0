#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Every message of scp 9.2's SFTP mode that this machine can make appear
# (tests/integration/scp-messages.tsv, one row each), with /usr/bin/scp and
# with fscp on the same input: stderr byte for byte, exit status and both
# trees (tests/lib/compare.sh).  Each row runs on the standard route, on a
# fresh bypass (FSCP_ROUTE=bypass) and, forced to bypass, on an AWS SSM host
# (ssm-direct for downloads, ssm-parallel for small uploads); rows that need
# a hostile server run once, behind -D.  A row marked "tested" in the table
# must have its case here, and a case its row.
# FSCP_MSG_ROUTES names the routes to run (default: all three);
# scp-messages-{standard,bypass,ssm}.sh run one each, so that make -j runs
# them side by side.
# Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
# As root, a private mount namespace: the read-only mount some rows need
# goes away with the test whatever way it ends.
if [ -z "${FSCP_MSG_NS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null; then
	FSCP_MSG_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/../lib/route-lib.sh"
TABLE=$srcdir/tests/integration/scp-messages.tsv
[ -r "$TABLE" ] || fscp_hard_error "no message table $TABLE"
fscp_test_init
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT

# Root reads everything by mode bits; these fail for root here (errors.sh
# explains the sysfs file; /proc/1/fdinfo of a process outside our pid
# namespace cannot be listed).  Rows that need them are skipped without.
UNREADABLE=/sys/bus/cpu/uevent
UNLISTABLE=/proc/1/fdinfo
have_unreadable() { [ -f "$UNREADABLE" ] && ! cat "$UNREADABLE" >/dev/null 2>&1; }
have_unlistable() { [ -d "$UNLISTABLE" ] && ! ls "$UNLISTABLE" >/dev/null 2>&1; }
NOUSER=fscp-no-such-user
! getent passwd "$NOUSER" >/dev/null || fscp_hard_error "user $NOUSER exists"

# ---- inputs ---------------------------------------------------------------
# Non-regular files: a FIFO, a socket and (as root) a character device.
put_specials() {
	mkdir -p "$1/sub"
	fscp_put_file "$1/a.txt" 1000
	fscp_put_file "$1/sub/b.txt" 77
	mkfifo "$1/fifo" "$1/sub/fifo2" || return 1
	"$FSCP_PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$1/sock" || return 1
	mknod "$1/null" c 1 3 2>/dev/null || true
}
setup_specials_local() { put_specials src; }
setup_specials_remote() { put_specials "$SSHD_HOME/src"; }
setup_trees() { fscp_setup_trees; }
setup_one_local() { fscp_put_file a.txt 1000; fscp_put_file b.txt 77; }
setup_remote_file() { fscp_put_tree src; fscp_put_file "$SSHD_HOME/file" 10; }
setup_local_file_remote_tree() { fscp_put_tree "$SSHD_HOME/src"; fscp_put_file file 10; }
setup_two_remote() { fscp_put_file "$SSHD_HOME/a.txt" 1000; fscp_put_file "$SSHD_HOME/b.txt" 77; fscp_put_file file 10; }
setup_two_remote_file() { setup_two_remote; fscp_put_file "$SSHD_HOME/file" 10; }
setup_fifo_remote() { mkdir -p "$SSHD_HOME/src"; mkfifo "$SSHD_HOME/src/fifo"; }
setup_linkdir_local() { fscp_put_linktree src; }
setup_linkdir_remote() { fscp_put_linktree "$SSHD_HOME/src"; }
# 66 nested directories: past sftp-client's MAX_DIR_DEPTH of 64.
deep() { local p=$1 i; for i in $(seq 66); do p=$p/d; done; mkdir -p "$p" && fscp_put_file "$p/f" 10; }
setup_deep_local() { deep src; }
setup_deep_remote() { deep "$SSHD_HOME/src"; }

# ---- one case per tested row ---------------------------------------------------
# m_cmp EXPECT-RC ARGS...: compare, named after the row and the route.
m_cmp() {
	local rc=$1
	shift
	fscp_compare --name "$ROW ($ROUTE)" --setup "$SETUP" ${POST:+--post "$POST"} \
		--expect-rc "$rc" -- "$@"
}
setup_odd_names() { mkdir -p src; mkfifo "src/a$(printf '\033')b" "src/é" 'src/back\slash'; }
case_vis_escape() { SETUP=setup_odd_names m_cmp 0 -r src $H:dst; }
case_msgbuf_cut() { SETUP=setup_trees m_cmp 1 src/small.txt "$H:/nonexistent-fscp/$(printf 'x%.0s' $(seq 1100))"; }
setup_odd_target() { setup_two_remote; fscp_put_file "$ODD" 10; }
ODD=$'f\033\xc3\xa9'
case_runerr_vis() {
	local loc
	for loc in C C.UTF-8; do
		LC_ALL=$loc SETUP=setup_odd_target m_cmp 1 "$H:a.txt" "$H:b.txt" "$ODD"
	done
}
# Command-line rows: no connection, so one run.
m_once() { [ "$ROUTE" = standard ] || return 0; m_cmp "$@"; }
setup_a() { fscp_put_file a 10; }
case_usage() { SETUP=setup_a m_once 1 -r a; }
case_bad_port() { SETUP=setup_a m_once 255 -P 0 a "$H:"; SETUP=setup_a m_once 255 -P x a "$H:"; }
case_bad_x() {
	SETUP=setup_a m_once 255 -X foo a "$H:"
	SETUP=setup_a m_once 255 -X buffer=x a "$H:"
	SETUP=setup_a m_once 255 -X nrequests=0 a "$H:"
}
case_invalid_operand() { SETUP=setup_a m_once 1 a "scp://$H:x/"; SETUP=setup_a m_once 1 a "scp://us@er@$H/"; }
case_r_port() { SETUP=setup_a m_once 255 -R "scp://$H/a" scp://fscp-test2:2222/x; }
case_up_nonreg() { SETUP=setup_specials_local m_cmp 0 -r src $H:dst; }
case_down_nonreg() { SETUP=setup_specials_remote m_cmp 0 -r $H:src dst; }
case_up_realpath() { SETUP=setup_trees m_cmp 1 -r src $H:/nonexistent-fscp/dir/sub; }
case_up_canon() { case_up_realpath; }
case_up_dir_failed() { SETUP=setup_remote_file m_cmp 1 -r src $H:file; }
case_down_readdir() { have_unlistable || return 77; SETUP=true m_cmp 1 -r "$H:$UNLISTABLE" dst; }
case_down_readdir_failed() { case_down_readdir; }
case_glob_readdir() { have_unlistable || return 77; SETUP=true m_cmp 1 "$H:$UNLISTABLE/*" dst; }
case_up_opendir() { have_unlistable || return 77; SETUP=true m_cmp 1 -r "$UNLISTABLE" $H:dst; }
case_expand_down() { SETUP=setup_trees m_cmp 1 "$H:~$NOUSER/x" $H:src/small.txt dst/; }
case_expand_up() { SETUP=setup_trees m_cmp 255 src/small.txt "$H:~$NOUSER/x"; }
case_expand_r2r() { SETUP=setup_trees m_cmp 255 "$H:~$NOUSER/x" fscp-test2:dst/; }
case_stat_local() { SETUP=setup_trees m_cmp 255 src/missing $H:dst/; }
case_up_notreg() { SETUP=setup_trees m_cmp 1 src/sub src/small.txt $H:dst/; }
case_up_file_failed() { case_up_notreg; }
case_up_link_dir() { SETUP=setup_linkdir_local m_cmp 1 -r src $H:dst; }
case_open_local_up() {
	# A socket fails in open(2), before scp looks at its type.
	SETUP=setup_specials_local m_cmp 1 src/sock src/a.txt $H:
	have_unreadable || return 77
	SETUP=setup_trees m_cmp 1 "$UNREADABLE" src/small.txt $H:dst/
}
# A FIFO as an upload source: scp opens it, waits in open(2) for a writer,
# then refuses it.  The setup's writer gets through its own open once the
# program has opened the FIFO for reading, and leaves a mark; post_fifo_top
# notes for each side whether the mark came (waiting for it only when it
# does not), then lets a writer still waiting go.
FIFO_MARK=$FSCP_WORK/fifo-opened
setup_fifo_top() {
	fscp_setup_trees && mkfifo fifo || return 1
	rm -f "$FIFO_MARK"
	sh -c 'exec 3>fifo && : >"$1"' sh "$FIFO_MARK" </dev/null >/dev/null 2>&1 &
}
post_fifo_top() {
	local i
	for i in $(seq 100); do [ -e "$FIFO_MARK" ] && break; sleep 0.1; done
	if [ -e "$FIFO_MARK" ]; then echo opened; else echo "not opened"; fi >>"$FSCP_WORK/fifo-sides"
	sh -c 'exec 3<>fifo'
	for i in $(seq 100); do [ -e "$FIFO_MARK" ] && break; sleep 0.1; done
}
case_up_fifo_top() {
	rm -f "$FSCP_WORK/fifo-sides"
	SETUP=setup_fifo_top POST=post_fifo_top m_cmp 1 fifo src/small.txt $H:dst/
	[ "$(cat "$FSCP_WORK/fifo-sides" 2>/dev/null)" = $'opened\nopened' ] && return 0
	bad "$ROW ($ROUTE): the FIFO opened by scp, fscp: $(tr '\n' , <"$FSCP_WORK/fifo-sides")"
}
case_dest_open() { SETUP=setup_trees m_cmp 1 src/small.txt $H:/nonexistent-fscp/dir/x; }
case_dest_open_slash() { SETUP=setup_trees m_cmp 1 src/small.txt $H:nodir/; }
case_up_exists_notdir() { case_up_dir_failed; }
case_remote_mkdir() { SETUP=setup_remote_file m_cmp 255 src/small.txt src/empty $H:file; }
case_up_depth() { SETUP=setup_deep_local m_cmp 1 -r src $H:dst; }
case_down_depth() { SETUP=setup_deep_remote m_cmp 1 -r $H:src dst; }
case_glob_nomatch() { SETUP=setup_trees m_cmp 1 $H:src/missing "$H:src/*.none" $H:src/small.txt dst/; }
# A read-only mount (root writes anywhere else): a character device made
# before it turned read-only opens for writing (and cannot be cut), but its
# mode and times cannot change; nor can those of a directory there.
have_ro() { [ "${FSCP_MSG_NS:-}" = 1 ]; }
setup_ro() {
	fscp_put_file "$SSHD_HOME/f" 1000
	mkdir -m 0500 "$SSHD_HOME/d"
	mkdir ro && mount -t tmpfs -o size=1m fscp-ro ro && mknod ro/null c 1 3 &&
		mkdir ro/d && mount -o remount,ro ro
}
post_ro() { umount ro && cp "$FSCP_WORK/run/scp/stderr" "$FSCP_WORK/ro-said"; }
# m_ro TEXT RC ARGS...: compare, and check that scp said TEXT (so that the
# case still makes its row's line).
m_ro() {
	local said=$1
	shift
	have_ro || return 77
	rm -f "$FSCP_WORK/ro-said"
	SETUP=setup_ro POST=post_ro m_cmp "$@"
	grep -qF "$said" "$FSCP_WORK/ro-said" 2>/dev/null && return 0
	bad "$ROW ($ROUTE): scp did not say '$said'"
}
case_local_chmod() {
	m_ro 'local chmod "ro/null": Read-only' 0 -p $H:f ro/null
	m_ro 'local ftruncate "ro/null"' 0 $H:f ro/null
}
case_local_times() { m_ro 'local set times "ro/null": Read-only' 0 -p $H:f ro/null; }
case_local_dir_chmod() { m_ro 'local chmod directory "ro/d": Read-only' 0 -r $H:d ro/; }
case_local_dir_times() { m_ro 'local set times on "ro/d": Read-only' 0 -rp $H:d ro/; }
case_down_notreg() { SETUP=setup_fifo_remote m_cmp 1 $H:src/fifo $H:src dst; }
case_down_link_dir() { SETUP=setup_linkdir_remote m_cmp 1 -r $H:src dst; }
case_glob_multi() { SETUP=setup_two_remote m_cmp 1 "$H:[ab].txt" file; }
case_local_mkdir() { SETUP=setup_local_file_remote_tree m_cmp 1 -r $H:src missing/dir; }
case_open_local_down() { SETUP=setup_local_file_remote_tree m_cmp 1 -r $H:src file; }
case_remote_open() { have_unreadable || return 77; SETUP=setup_trees m_cmp 1 "$H:$UNREADABLE" $H:src/small.txt dst/; }
case_verifydir() { SETUP=setup_two_remote m_cmp 1 $H:a.txt $H:b.txt file; }
case_dest_notdir() { SETUP=setup_two_remote_file m_cmp 1 $H:a.txt $H:b.txt fscp-test2:file; }
setup_r2r() { mkdir -p "$SSHD_HOME/src/d"; fscp_put_file "$SSHD_HOME/src/d/f" 77; ln -s d "$SSHD_HOME/src/ld"; }
case_crossload_failed() {
	have_unreadable && SETUP=setup_r2r m_cmp 1 "$H:$UNREADABLE" fscp-test2:x
	SETUP=setup_r2r m_cmp 1 "$H:src/d/f" fscp-test2:/nonexistent-fscp/x
	SETUP=setup_r2r m_cmp 1 -r "$H:src" fscp-test2:x
	have_unlistable && SETUP=setup_r2r m_cmp 1 -r "$H:$UNLISTABLE" fscp-test2:x
	return 0
}
case_stat_remote() { SETUP=setup_r2r m_cmp 1 -r "$H:src" fscp-test2:/nonexistent-fscp/x; }
case_origin_nonreg() { SETUP=setup_specials_remote m_cmp 0 -r $H:src fscp-test2:dst; }

# Rows a real sftp-server cannot reach: tests/tools/hostile-sftp behind -D
# (no ssh, so one run: the route does not apply), in the mode it names.
HOSTILE=$FSCP_WORK/hostile-sftp
cp "$srcdir/tests/tools/hostile-sftp" "$HOSTILE" && chmod +x "$HOSTILE" ||
	fscp_hard_error "cannot copy tests/tools/hostile-sftp"
setup_up() { fscp_put_file up.bin 3000; mkdir -p upd; cp up.bin upd/; mkdir dst; }
m_hostile() {
	local mode=$1 rc=$2
	shift 2
	[ "$ROUTE" = standard ] || return 0
	HOSTILE_SFTP=$mode fscp_compare --name "$ROW (-D ${H_PROG:-hostile-sftp} $mode)" \
		--setup "${H_SETUP:-setup_up}" --expect-rc "$rc" -- -D "$FSCP_WORK/${H_PROG:-hostile-sftp}" "$@"
}
# The first server started behaves, every later one answers INIT with a
# STATUS: the source of a remote to remote copy (its target opens first).
H_ONCE=$FSCP_WORK/hostile-once
printf '#!/bin/sh\nif [ -e "%s" ]; then HOSTILE_SFTP=badinit; export HOSTILE_SFTP; else : >"%s"; fi\nexec "%s"\n' \
	"$H_ONCE" "$H_ONCE" "$HOSTILE" >"$FSCP_WORK/hostile-second" && chmod +x "$FSCP_WORK/hostile-second" ||
	fscp_hard_error "cannot write hostile-second"
setup_up_once() { rm -f "$H_ONCE"; setup_up; }
case_down_canon() { m_hostile realpath-fail 1 -r x:/h/dir dst/; }
case_up_realpath_status() { m_hostile realpath-fail 1 -r upd x:/h/up/; }
case_readdir_status() {
	m_hostile readdir-fail 1 -r x:/h/dir dst/
	m_hostile readdir-fail 1 'x:/h/dir/*' dst/
}
case_close_remote() {
	m_hostile close-fail 1 up.bin x:/h/up/
	m_hostile close-fail 1 -r x:/h/dir dst/
}
case_expand_missing() {
	m_hostile good 1 'x:~someone/x' dst/
	m_hostile good 255 up.bin 'x:~someone/x'
}
case_connection_closed() { m_hostile noversion 255 x:/h/f.bin dst/; }
case_too_much_data() { m_hostile longdata 255 x:/h/f.bin dst/; }
# scp connects again for each remote source; fscp tries again after a
# refused INIT, so both say it twice here.
case_invalid_init() {
	m_hostile badinit 1 x:/h/f.bin x:/h/dir/ok.txt dst/
	m_hostile badinit 1 -r x:/h/dir dst/
}
case_sftp_connect() {
	m_hostile badinit 255 up.bin upd x:/h/up/
	m_hostile badinit 255 x:/h/f.bin y:/h/up/
	m_hostile badinit 255 up.bin x:/h/f.bin y:/h/up/
	H_PROG=hostile-second H_SETUP=setup_up_once m_hostile good 255 x:/h/f.bin y:/h/up/
}
case_find_request() { m_hostile badid-write 255 up.bin upd/up.bin x:/h/up/; }
case_unexpected_reply() {
	m_hostile badid-read 255 x:/h/f.bin dst/
	m_hostile badid-read 255 x:/h/f.bin y:/h/up/
}
case_setstat() { m_hostile mode-fail 1 -rp upd x:/h/up/; }
case_fsetstat() { m_hostile mode-fail 0 -p up.bin x:/h/up/; }

# ---- the table drives the run ---------------------------------------------------
rows=()
while IFS=$'\t' read -r id _ _ _ _ state; do
	case $id in '#'* | id | '') continue ;; esac
	fn=case_${id//-/_}
	if [ "$state" = tested ]; then
		declare -F "$fn" >/dev/null || fscp_hard_error "row $id is marked tested but has no case $fn"
		# FSCP_MSG_ROWS="id ...": run only those (when mending one).
		case " ${FSCP_MSG_ROWS:-$id} " in *" $id "*) rows+=("$id") ;; esac
	elif declare -F "$fn" >/dev/null; then
		fscp_hard_error "row $id has a case but is marked '$state'"
	fi
done <"$TABLE"
for fn in $(declare -F | awk '$3 ~ /^case_/ {print $3}'); do
	id=${fn#case_}
	grep -q "^${id//_/-}"$'\t' "$TABLE" || fscp_hard_error "case $fn has no row in the table"
done
echo "${#rows[@]} tested rows"

# The third route: an instance behind the fake AWS SSM ProxyCommand whose
# private address is the test sshd's.  Forced to bypass, fscp takes
# ssm-direct where it looks for a direct address (downloads, whose size is
# unknown) and ssm-parallel for small uploads; scp goes through SSM.
MSG_ROUTES=${FSCP_MSG_ROUTES:-standard bypass ssm}
for ROUTE in $MSG_ROUTES; do
	case $ROUTE in standard | bypass | ssm) ;; *) fscp_hard_error "FSCP_MSG_ROUTES: no route $ROUTE" ;; esac
done
I_DIR=i-0123456789abcdef1
if [[ " $MSG_ROUTES " == *" ssm "* ]]; then
	route_ssm_init
	route_ssm_instance "$I_DIR" 127.0.0.1
	route_ssm_reachable "$I_DIR"
fi

for ROUTE in $MSG_ROUTES; do
	H=fscp-test
	case $ROUTE in
	standard) unset FSCP_ROUTE ;;
	bypass) export FSCP_ROUTE=bypass ;;
	ssm) export FSCP_ROUTE=bypass; H=$I_DIR ;;
	esac
	for ROW in "${rows[@]}"; do
		"case_${ROW//-/_}"
		[ $? -eq 77 ] && echo "SKIP: $ROW ($ROUTE): what it needs is missing here"
	done
done
unset FSCP_ROUTE
# That the ssm pass is what it says: a download there takes ssm-direct.
if [[ " $MSG_ROUTES " == *" ssm "* ]]; then
	name="ssm pass: a -r download takes ssm-direct"
	FSCP_ROUTE=bypass route_compare --name "$name" --setup setup_specials_remote --expect-rc 0 \
		--no-stderr -- -v -r "$I_DIR:src" dst
	route_expect "$name" ssm-direct
fi
checks_done

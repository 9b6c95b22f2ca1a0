#!/bin/bash
# Every message of scp 9.2's SFTP mode that this machine can make appear
# (tests/integration/scp-messages.tsv, one row each), with /usr/bin/scp and
# with fscp on the same input: stderr byte for byte, exit status and both
# trees (tests/lib/compare.sh).  Each row runs on the standard route and on
# a fresh bypass (FSCP_ROUTE=bypass).  A row marked "tested" in the table
# must have its case here, and a case its row.
# Exit 0 pass, 1 fail, 99 cannot run.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(dirname "$0")/route-lib.sh"
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
	fscp_compare --name "$ROW ($ROUTE)" --setup "$SETUP" --expect-rc "$rc" -- "$@"
}
case_up_nonreg() { SETUP=setup_specials_local m_cmp 0 -r src fscp-test:dst; }
case_down_nonreg() { SETUP=setup_specials_remote m_cmp 0 -r fscp-test:src dst; }
case_up_realpath() { SETUP=setup_trees m_cmp 1 -r src fscp-test:/nonexistent-fscp/dir/sub; }
case_up_canon() { case_up_realpath; }
case_up_dir_failed() { SETUP=setup_remote_file m_cmp 1 -r src fscp-test:file; }
case_down_readdir() { have_unlistable || return 77; SETUP=true m_cmp 1 -r "fscp-test:$UNLISTABLE" dst; }
case_down_readdir_failed() { case_down_readdir; }
case_glob_readdir() { have_unlistable || return 77; SETUP=true m_cmp 1 "fscp-test:$UNLISTABLE/*" dst; }
case_up_opendir() { have_unlistable || return 77; SETUP=true m_cmp 1 -r "$UNLISTABLE" fscp-test:dst; }
case_expand_down() { SETUP=setup_trees m_cmp 1 "fscp-test:~$NOUSER/x" fscp-test:src/small.txt dst/; }
case_expand_up() { SETUP=setup_trees m_cmp 255 src/small.txt "fscp-test:~$NOUSER/x"; }
case_expand_r2r() { SETUP=setup_trees m_cmp 255 "fscp-test:~$NOUSER/x" fscp-test2:dst/; }
case_stat_local() { SETUP=setup_trees m_cmp 255 src/missing fscp-test:dst/; }
case_up_notreg() { SETUP=setup_trees m_cmp 1 src/sub src/small.txt fscp-test:dst/; }
case_up_file_failed() { case_up_notreg; }
case_up_link_dir() { SETUP=setup_linkdir_local m_cmp 1 -r src fscp-test:dst; }
case_open_local_up() { have_unreadable || return 77; SETUP=setup_trees m_cmp 1 "$UNREADABLE" src/small.txt fscp-test:dst/; }
case_dest_open() { SETUP=setup_trees m_cmp 1 src/small.txt fscp-test:/nonexistent-fscp/dir/x; }
case_dest_open_slash() { SETUP=setup_trees m_cmp 1 src/small.txt fscp-test:nodir/; }
case_up_exists_notdir() { case_up_dir_failed; }
case_remote_mkdir() { SETUP=setup_remote_file m_cmp 255 src/small.txt src/empty fscp-test:file; }
case_up_depth() { SETUP=setup_deep_local m_cmp 1 -r src fscp-test:dst; }
case_down_depth() { SETUP=setup_deep_remote m_cmp 1 -r fscp-test:src dst; }
case_glob_nomatch() { SETUP=setup_trees m_cmp 1 fscp-test:src/missing 'fscp-test:src/*.none' fscp-test:src/small.txt dst/; }
case_down_notreg() { SETUP=setup_fifo_remote m_cmp 1 fscp-test:src/fifo fscp-test:src dst; }
case_down_link_dir() { SETUP=setup_linkdir_remote m_cmp 1 -r fscp-test:src dst; }
case_glob_multi() { SETUP=setup_two_remote m_cmp 1 'fscp-test:[ab].txt' file; }
case_local_mkdir() { SETUP=setup_local_file_remote_tree m_cmp 1 -r fscp-test:src missing/dir; }
case_open_local_down() { SETUP=setup_local_file_remote_tree m_cmp 1 -r fscp-test:src file; }
case_remote_open() { have_unreadable || return 77; SETUP=setup_trees m_cmp 1 "fscp-test:$UNREADABLE" fscp-test:src/small.txt dst/; }
case_verifydir() { SETUP=setup_two_remote m_cmp 1 fscp-test:a.txt fscp-test:b.txt file; }
case_dest_notdir() { SETUP=setup_two_remote_file m_cmp 1 fscp-test:a.txt fscp-test:b.txt fscp-test2:file; }
case_origin_nonreg() { SETUP=setup_specials_remote m_cmp 0 -r fscp-test:src fscp-test2:dst; }

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

for ROUTE in standard bypass; do
	if [ "$ROUTE" = bypass ]; then export FSCP_ROUTE=bypass; else unset FSCP_ROUTE; fi
	for ROW in "${rows[@]}"; do
		"case_${ROW//-/_}"
		[ $? -eq 77 ] && echo "SKIP: $ROW ($ROUTE): what it needs is missing here"
	done
done
unset FSCP_ROUTE
fscp_test_done

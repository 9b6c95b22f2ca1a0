#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# fscp never runs scp: in a private mount namespace where /usr/bin/scp is
# /bin/false (bind-mounted over it, for the client and the test sshd alike),
# -O up, down and -r -p, fscp as the remote -t/-f, -O remote to remote (-3),
# SFTP remote to remote (-3) and -r -p, -R, and a local -r -p copy must all
# succeed.  The remote side is fscp (the
# -S wrapper of legacy-lib.sh): the remote /usr/bin/scp is gone too.
# SKIP (77) with the reason where the namespace cannot be made.
if [ -z "${FSCP_NO_SCP_NS:-}" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: needs root for unshare -m and a bind mount"
		exit 77
	fi
	if ! unshare -m --propagation private true 2>/dev/null; then
		echo "SKIP: unshare -m is not permitted here"
		exit 77
	fi
	FSCP_NO_SCP_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
if ! mount --bind /bin/false /usr/bin/scp; then
	echo "SKIP: cannot bind-mount /bin/false over /usr/bin/scp"
	exit 77
fi
. "$(dirname "$0")/../lib/compare.sh"
. "$(dirname "$0")/../lib/legacy-lib.sh"
if /usr/bin/scp -V >/dev/null 2>&1; then
	fscp_hard_error "/usr/bin/scp still runs after the bind mount"
fi
fscp_test_init
legacy_make_wrappers
legacy_add_second_host

L=$FSCP_WORK/L
H=$SSHD_HOME
FS="$FSCP_WORK/bin/fscp-with-fscp -F $SSH_CONFIG"

# check_copy NAME EXPECTED-TREE ACTUAL-TREE [times] -- COMMAND...: run COMMAND in
# L; it must exit 0 and leave ACTUAL-TREE equal to EXPECTED-TREE (with
# "times", mtimes too; not atimes: reading the source sets its own).
check_copy() {
	local name=$1 want=$2 got=$3 times=$4 rc out
	shift 5
	out=$(cd "$L" && "$@" 2>&1 </dev/null)
	rc=$?
	local bad=""
	[ "$rc" = 0 ] || bad="exit $rc: $out"
	if [ -z "$bad" ] && (cd "$L" && [ -f "$want" ]); then
		(cd "$L" && cmp "$want" "$got") >/dev/null 2>&1 || bad="$got is not a copy of $want"
	fi
	if [ -z "$bad" ] && ! diff <(cd "$L" && fscp_manifest "$want" "$times" | manifest_norm) \
		<(cd "$L" && fscp_manifest "$got" "$times" | manifest_norm) >"$FSCP_WORK/diff"; then
		bad="trees differ: $(head -20 "$FSCP_WORK/diff")"
	fi
	if [ -n "$bad" ]; then
		bad "$name: $bad"
	else
		ok "$name"
	fi
}
manifest_norm() {
	grep -v '^\. ' | sed 's/ atime=[^ ]*//'
}
fresh() {
	fscp__empty_dir "$L"
	fscp__empty_dir "$H"
	(cd "$L" && fscp_setup_trees)
}

fresh
check_copy "-O upload a file (fscp -t remote)" src/small.txt "$H/dst/small.txt" "" -- $FS -O src/small.txt "fscp-test:$H/dst/"
fresh
check_copy "-O download a file (fscp -f remote)" "$H/src/small.txt" dst/small.txt "" -- $FS -O "fscp-test:$H/src/small.txt" dst/
fresh
check_copy "-O -r -p upload" src "$H/dst/src" times -- $FS -O -r -p src "fscp-test:$H/dst/"
fresh
check_copy "-O -r -p download" "$H/src" dst/src times -- $FS -O -r -p "fscp-test:$H/src" dst/
fresh
check_copy "-O -3 -r remote to remote" "$H/src" "$H/dst/src" "" -- $FS -O -r "fscp-test:$H/src" "fscp-test2:$H/dst/"
fresh
check_copy "-3 -r remote to remote over SFTP" "$H/src" "$H/dst/src" "" -- "$FSCP" -F "$SSH_CONFIG" -3 -r "fscp-test:$H/src" "fscp-test2:$H/dst/"
fresh
check_copy "-r -p upload over SFTP" src "$H/dst/src" times -- "$FSCP" -F "$SSH_CONFIG" -r -p src "fscp-test:$H/dst/"
fresh
check_copy "-R (remote fscp, SFTP)" "$H/src/sub" "$H/dst/sub" "" -- env REMOTE_SCP_ARGS="-F $SSH_CONFIG" $FS -R -r "fscp-test:$H/src/sub" "fscp-test2:$H/dst/"
fresh
check_copy "local -r -p" src dst/src times -- "$FSCP" -r -p src dst/
fscp__empty_dir "$L"
fscp__empty_dir "$H"

checks_done

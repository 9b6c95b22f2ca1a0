# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# shellcheck shell=bash
# The one way an integration script reports what it checked.  Source it once
# near the top (compare.sh, and so route-lib.sh and settings-lib.sh, source it
# already):
#
#   . "$(dirname "$0")/../lib/checks.sh"
#
#   ok DESC...               a check that held: prints "PASS: DESC".
#   bad DESC...              a check that failed: prints "FAIL: DESC" and keeps
#                            DESC for the summary.  Print any detail after it.
#   check NAME DESC CMD...   runs CMD, then ok or bad "NAME: DESC" by its
#                            status, which it returns: `check ... || show_why`.
#   checks_skip REASON...    "SKIP: REASON" and exit 77: the test cannot apply
#                            here (no mandoc, not root).  Never without a reason.
#   checks_done              the script's last command: lists the failed checks,
#                            prints "SCRIPT: N passed, M failed" and exits 1 if
#                            any failed, 99 if none ran (nothing was tested),
#                            else 0.
#
# A rig that cannot run (no sshd, a tool not built) exits 99 with its reason on
# stderr (compare.sh's fscp_hard_error).  CHECKS_PASSED and CHECKS_FAILED hold
# the counts so far; count only through ok/bad/check, and not in a subshell
# (a pipeline's `while read` loop is one): its counts would be lost.
CHECKS_PASSED=0
CHECKS_FAILED=0
CHECKS_FAILED_NAMES=

ok() {
	CHECKS_PASSED=$((CHECKS_PASSED + 1))
	echo "PASS: $*"
}

bad() {
	CHECKS_FAILED=$((CHECKS_FAILED + 1))
	CHECKS_FAILED_NAMES="$CHECKS_FAILED_NAMES  $*
"
	echo "FAIL: $*"
}

check() {
	local n=$1 d=$2 rc=0
	shift 2
	"$@" || rc=$?
	if [ "$rc" = 0 ]; then ok "$n: $d"; else bad "$n: $d"; fi
	return "$rc"
}

checks_skip() {
	echo "SKIP: $*"
	exit 77
}

checks_done() {
	local me
	me=$(basename "$0")
	if [ "$CHECKS_FAILED" -gt 0 ]; then
		echo "Failed:"
		printf '%s' "$CHECKS_FAILED_NAMES"
	fi
	echo "$me: $CHECKS_PASSED passed, $CHECKS_FAILED failed"
	if [ "$CHECKS_FAILED" -gt 0 ]; then exit 1; fi
	if [ "$CHECKS_PASSED" = 0 ]; then
		echo "$me: no check ran" >&2
		exit 99
	fi
	exit 0
}

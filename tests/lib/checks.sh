# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# shellcheck shell=bash
# Counting checks for the integration scripts.  Source this file.
#   ok DESC / bad DESC     count and print a PASS / FAIL line
#   check NAME DESC CMD... run CMD: PASS "NAME: DESC" when it succeeds, else FAIL
# $pass and $fail hold the counts; the script ends with [ "$fail" = 0 ].
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() {
	local n=$1 d=$2
	shift 2
	if "$@"; then ok "$n: $d"; else bad "$n: $d"; fi
}

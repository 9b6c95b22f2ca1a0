#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# xfer_file.size is read by the progress meter while workers write it.
# xfer_size_race runs such a reader and writer through the real accessors:
# it must pass everywhere.  In a ThreadSanitizer build (the CI's tsan
# stage) xfer_size_race_plain, the same with the field made plain again
# (FSCP_TEST_PLAIN_SIZE), must be reported as a data race: so the stage
# would catch that race coming back.  Elsewhere that half is skipped.
# Exit 0 pass, 1 fail, 77 skip (not a TSan build), 99 cannot run.
set -u
# The programs are in the build tree, beside the fscp the tests run.
here=$(dirname "$(dirname "${FSCP:?run by make check}")")/tests/unit/engine
ok=$here/xfer_size_race plain=$here/xfer_size_race_plain
[ -x "$ok" ] && [ -x "$plain" ] || { echo "xfer_size_race not built" >&2; exit 99; }
out=$(mktemp) || exit 99
trap 'rm -f "$out"' EXIT
# halt_on_error makes the first report end the program, as in the CI.
TSAN_OPTIONS="${TSAN_OPTIONS:-} halt_on_error=1 exitcode=66" "$ok" >"$out" 2>&1
rc=$?
if [ "$rc" != 0 ]; then
	echo "FAIL: the atomic size: exit $rc"; cat "$out"; exit 1
fi
echo "ok: the atomic size: no race"
if ! nm "$plain" 2>/dev/null | grep -q __tsan_init; then
	echo "SKIP: not a ThreadSanitizer build (./configure --enable-tsan): the plain size is not checked"
	exit 77
fi
TSAN_OPTIONS="${TSAN_OPTIONS:-} halt_on_error=1 exitcode=66" "$plain" >"$out" 2>&1
rc=$?
if [ "$rc" = 66 ] && grep -q "ThreadSanitizer: data race" "$out" &&
    grep -q "xfer_file_size\|xfer_file_set_size\|xfer_file_resize" "$out"; then
	echo "ok: the plain size: ThreadSanitizer reports the race"
	exit 0
fi
echo "FAIL: the plain size: exit $rc, and ThreadSanitizer did not report the race:"
cat "$out"
exit 1

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The layers of src/, bottom to top, as the README's ARCHITECTURE section
# draws them: a file may include its own folder's headers and those of the
# folders below it, never one above.  Each folder's README says what lives
# there.  Exit 0 pass, 1 fail, 99 cannot run.
set -u
. "$(dirname "$0")/../lib/checks.sh" || exit 99
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../src" && pwd) || exit 99
LAYERS=(util policy transport sftp session engine scp cli)

rank() {	# folder -> its place, or nothing
	local i
	for i in "${!LAYERS[@]}"; do
		[ "${LAYERS[$i]}" = "$1" ] && { echo "$i"; return; }
	done
}

files=0
for dir in "$src"/*/; do
	d=$(basename "$dir")
	if [ -z "$(rank "$d")" ]; then
		bad "src/$d/ is in no layer (tests/integration/layers.sh)"
		continue
	fi
	check "src/$d/" "has a README" test -s "$dir/README"
done
for f in "$src"/*/*.[ch]; do
	files=$((files + 1))
	d=$(basename "$(dirname "$f")")
	me=$(rank "$d")
	[ -n "$me" ] || continue
	failed_before=$CHECKS_FAILED
	while IFS= read -r inc; do
		to=${inc%%/*}
		if [ "$inc" = "$to" ]; then
			bad "src/$d/$(basename "$f") includes \"$inc\": name its layer (\"layer/$inc\")"
			continue
		fi
		them=$(rank "$to")
		if [ -z "$them" ]; then
			bad "src/$d/$(basename "$f") includes \"$inc\" from no layer"
		elif [ "$them" -gt "$me" ]; then
			bad "src/$d/$(basename "$f") includes \"$inc\": $to is above $d"
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | grep -v '^config\.h$')
	[ "$CHECKS_FAILED" = "$failed_before" ] && ok "src/$d/$(basename "$f") includes only its layer and those below"
done
[ "$files" -gt 0 ] || { echo "no sources under $src" >&2; exit 99; }
checks_done

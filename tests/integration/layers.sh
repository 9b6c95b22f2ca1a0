#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# The layers of src/, bottom to top, as the README's ARCHITECTURE section
# draws them: a file may include its own folder's headers and those of the
# folders below it, never one above.  Each folder's README says what lives
# there.  Exit 0 pass, 1 fail, 99 cannot run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../src" && pwd) || exit 99
LAYERS=(util policy transport sftp session engine scp cli)

rank() {	# folder -> its place, or nothing
	local i
	for i in "${!LAYERS[@]}"; do
		[ "${LAYERS[$i]}" = "$1" ] && { echo "$i"; return; }
	done
}

fails=0 files=0
for dir in "$src"/*/; do
	d=$(basename "$dir")
	if [ -z "$(rank "$d")" ]; then
		echo "FAIL src/$d/ is in no layer (tests/integration/layers.sh)"
		fails=$((fails + 1))
		continue
	fi
	[ -s "$dir/README" ] || { echo "FAIL src/$d/README is missing"; fails=$((fails + 1)); }
done
for f in "$src"/*/*.[ch]; do
	files=$((files + 1))
	d=$(basename "$(dirname "$f")")
	me=$(rank "$d")
	[ -n "$me" ] || continue
	while IFS= read -r inc; do
		to=${inc%%/*}
		if [ "$inc" = "$to" ]; then
			echo "FAIL src/$d/$(basename "$f") includes \"$inc\": name its layer (\"layer/$inc\")"
			fails=$((fails + 1))
			continue
		fi
		them=$(rank "$to")
		if [ -z "$them" ]; then
			echo "FAIL src/$d/$(basename "$f") includes \"$inc\" from no layer"
			fails=$((fails + 1))
		elif [ "$them" -gt "$me" ]; then
			echo "FAIL src/$d/$(basename "$f") includes \"$inc\": $to is above $d"
			fails=$((fails + 1))
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | grep -v '^config\.h$')
done
[ "$files" -gt 0 ] || { echo "no sources under $src" >&2; exit 99; }
echo "layers.sh: $files files, $fails wrong includes or folders"
[ "$fails" = 0 ]

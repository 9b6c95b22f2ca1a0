#!/bin/bash
# man/fscp.1 documents every option of the usage text fscp prints (and
# --version), each as an entry of its OPTIONS section, and every FSCP_*
# variable the sources read, under ENVIRONMENT.
set -u
: "${FSCP:?FSCP is not set}" "${srcdir:?srcdir is not set}"
man=$srcdir/man/fscp.1
[ -f "$man" ] || { echo "HARD ERROR: no $man"; exit 99; }
fails=0

usage=$("$FSCP" 2>&1 >/dev/null)
# "[-346ABCOpqRrsTv]" gives one letter each, "[-c cipher]" its letter.
flags=$(sed -n 's/.*\[-\([0-9A-Za-z]*\)\].*/\1/p' <<<"$usage" | head -n 1)
withargs=$(grep -o '\[-[A-Za-z] [a-z_]*\]' <<<"$usage" | cut -c3)
[ -n "$flags" ] && [ -n "$withargs" ] || { echo "HARD ERROR: cannot read the usage text:"$'\n'"$usage"; exit 99; }

# The OPTIONS section alone, so a mention elsewhere does not count.
options=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man")
entry() {
	local re=$1 what=$2
	if grep -Eq "$re" <<<"$options"; then
		echo "PASS: $what"
	else
		echo "FAIL: $what has no entry under OPTIONS in man/fscp.1"
		fails=$((fails + 1))
	fi
}
for ((i = 0; i < ${#flags}; i++)); do
	c=${flags:i:1}
	entry "^\.B \\\\-$c\$" "-$c"
done
for c in $withargs; do
	entry "^\.BI \\\\-$c \"? " "-$c (with its argument)"
done
entry '^\.B \\-\\-version$' "--version"

# Every FSCP_ variable the code reads.
for v in $(grep -oh 'getenv("FSCP_[A-Z_]*")' "$srcdir"/src/*.c | sed 's/getenv("\(.*\)")/\1/' | sort -u); do
	[ "$v" = FSCP_DELEGATED ] && continue # fscp's own guard, set for the scp it runs
	if sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$man" | grep -q "^\.B $v\$"; then
		echo "PASS: $v under ENVIRONMENT"
	else
		echo "FAIL: $v (read in src/) is not under ENVIRONMENT in man/fscp.1"
		fails=$((fails + 1))
	fi
done
echo "$(basename "$0"): $fails failed"
[ "$fails" = 0 ]

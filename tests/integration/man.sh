#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# man/fscp.1 documents every option of the usage text fscp prints (and
# --version), each as an entry of its OPTIONS section, every FSCP_*
# variable the sources read, under ENVIRONMENT, and the text of every -v
# route message (policy/route.c's reasons, session/'s log_verbose lines).
set -u
. "$(dirname "$0")/../lib/checks.sh" || exit 99
: "${FSCP:?FSCP is not set}" "${srcdir:?srcdir is not set}"
man=$srcdir/man/fscp.1
[ -f "$man" ] || { echo "HARD ERROR: no $man"; exit 99; }

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
		ok "$what"
	else
		bad "$what has no entry under OPTIONS in man/fscp.1"
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
for v in $(grep -oh 'getenv("FSCP_[A-Z_]*")' "$srcdir"/src/*/*.c | sed 's/getenv("\(.*\)")/\1/' | sort -u); do
	if sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$man" | grep -q "^\.B $v\$"; then
		ok "$v under ENVIRONMENT"
	else
		bad "$v (read in src/) is not under ENVIRONMENT in man/fscp.1"
	fi
done
# The -v route messages: every fixed piece of every reason and log_verbose
# format in route.c and session.c is in the man page's text.
if command -v python3 >/dev/null; then
	if python3 - "$srcdir/src" "$man" <<'EOP'; then
import re, sys
src, man = sys.argv[1], sys.argv[2]
lit = r'((?:"(?:[^"\\]|\\.)*"\s*)+)'
pats = [r'snprintf\(\s*(?:out->reason|why),\s*sizeof\([^)]*\),\s*' + lit,
        r'standard\(out,\s*' + lit, r'\*why\s*=\s*' + lit, r'whyp\s*=\s*' + lit,
        r'special_why\s*=\s*' + lit, r'log_verbose\(\s*' + lit]
pieces = {}
for f in ('policy/route.c', 'session/facts.c', 'session/pool.c', 'session/session.c'):
    text = open(src + '/' + f).read()
    for p in pats:
        for m in re.finditer(p, text):
            fmt = ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
            for piece in re.split(r'%[-0-9.]*l*[sdfu]|%%', fmt):
                piece = ' '.join(piece.split()).strip(' ;:,()')
                if len(piece) >= 6:
                    pieces.setdefault(piece, '%s: "%s"' % (f, fmt))
# The man page as text: no requests, escapes or quotes, one line.
t = re.sub(r'^\.\S+ ?', '', open(man).read(), flags=re.M)
for a, b in (('\\-', '-'), ('\\e', '\\'), ('\\(ti', '~'), ('\\&', ''), ('\\|', ''), ('"', '')):
    t = t.replace(a, b)
t = ' '.join(re.sub(r'\\f[BIRP]', '', t).split())
missing = [(p, w) for p, w in pieces.items() if p not in t]
for p, w in missing:
    print('  -v message piece "%s" (%s) is not in man/fscp.1' % (p, w))
print('%d pieces of -v messages checked' % len(pieces))
sys.exit(1 if missing else 0)
EOP
		ok "the -v messages' pieces are in man/fscp.1"
	else
		bad "the -v messages' pieces are in man/fscp.1 (missing ones above)"
	fi
else
	echo "note: no python3; the -v messages are not checked against the man page"
fi
checks_done

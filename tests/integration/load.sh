#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Load (issue 8): many copies at once against one private sshd, every copy
# checked byte for byte.
#   1. 16 fscp processes at once: 16 uploads, then 16 downloads.
#   2. One fscp with 32 connections (FSCP_ROUTE=bypass FSCP_CONNECTIONS=32),
#      a tree of 48 files plus a 24 MiB one, up and back.
#   3. A directory of 20000 entries, -r up and -r down, with scp and with
#      fscp: wall time and peak memory (GNU time %M) are printed side by
#      side, never asserted (no timed assertions).
# Needs root, sshd, GNU time (/usr/bin/time) and python3; exit 99 without.
set -u
. "$(dirname "$0")/../lib/sshd.sh"
. "$(dirname "$0")/../lib/checks.sh" || exit 99
FSCP=${FSCP:?FSCP must name the fscp binary}
SCP=${SCP:-/usr/bin/scp}
GTIME=/usr/bin/time
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || { echo "HARD ERROR: python3 needed" >&2; exit 99; }
[ -x "$GTIME" ] || { echo "HARD ERROR: GNU time ($GTIME) needed: apt-get install time" >&2; exit 99; }
NPROC=16 NCONN=32 NENTRIES=20000

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fscp-load.XXXXXX") || exit 99
trap 'fscp_sshd_stop; rm -rf "$WORK"' EXIT
fscp_sshd_start "$WORK/sshd" || { echo "HARD ERROR: cannot start the test sshd" >&2; exit 99; }
# Tests run side by side under make -j: survive.sh looks for (and signals)
# processes by command line ("ssh .*fscp-test", "^$FSCP -F").  Our host is
# another alias of the same sshd, and fscp's first option is -B (already
# BatchMode in the config), so neither test mistakes the other's processes.
sed 's/^Host .*/Host fscp-load/' "$SSH_CONFIG" >"$WORK/ssh_config"
grep -qx 'Host fscp-load' "$WORK/ssh_config" || { echo "HARD ERROR: no Host line in $SSH_CONFIG" >&2; exit 99; }
SSH_CONFIG=$WORK/ssh_config
R=$SSHD_HOME
L=$WORK/L
mkdir -p "$L"
cd "$L" || exit 99
t_all=$SECONDS

# One line per file under $1: "path size sha256", sorted.
manifest() {
	"$PY" - "$1" <<'PY'
import hashlib, os, sys
top = sys.argv[1]
rows = []
for d, _, fs in os.walk(top):
    for f in fs:
        p = os.path.join(d, f)
        with open(p, "rb") as fh:
            h = hashlib.sha256(fh.read()).hexdigest()
        rows.append("%s %d %s" % (os.path.relpath(p, top), os.path.getsize(p), h))
print("\n".join(sorted(rows)))
PY
}
same_tree() { # NAME A B
	if [ "$(manifest "$2")" = "$(manifest "$3")" ]; then
		ok "$1: $(manifest "$2" | wc -l) files identical"
	else
		bad "$1: $2 and $3 differ"
		diff <(manifest "$2") <(manifest "$3") | head -n 5
	fi
}
cp_fscp() { timeout -k 5 300 "$FSCP" -B -F "$SSH_CONFIG" "$@" </dev/null; }

# ---- 1. 16 processes at once -------------------------------------------------
t0=$SECONDS
mkdir -p many "$R/many" back
for i in $(seq 1 $NPROC); do head -c $((4 * 1024 * 1024 + i * 4099)) /dev/urandom >"many/f$i"; done
pids=()
for i in $(seq 1 $NPROC); do cp_fscp "many/f$i" "fscp-load:many/" 2>"up$i.err" & pids+=($!); done
rcs=
for p in "${pids[@]}"; do wait "$p"; rcs="$rcs$? "; done
[ "$rcs" = "$(printf '0 %.0s' $(seq 1 $NPROC))" ] && ok "$NPROC uploads at once: all exit 0" ||
	{ bad "$NPROC uploads at once: exit statuses $rcs"; cat up*.err | head -n 5; }
same_tree "$NPROC uploads at once" many "$R/many"
pids=()
for i in $(seq 1 $NPROC); do cp_fscp "fscp-load:many/f$i" back/ 2>"dn$i.err" & pids+=($!); done
rcs=
for p in "${pids[@]}"; do wait "$p"; rcs="$rcs$? "; done
[ "$rcs" = "$(printf '0 %.0s' $(seq 1 $NPROC))" ] && ok "$NPROC downloads at once: all exit 0" ||
	{ bad "$NPROC downloads at once: exit statuses $rcs"; cat dn*.err | head -n 5; }
same_tree "$NPROC downloads at once" many back
echo "part 1 took $((SECONDS - t0)) s"

# ---- 2. one fscp, 32 connections ---------------------------------------------
t0=$SECONDS
mkdir -p wide/sub wide-back
for i in $(seq 1 48); do head -c $((64 * 1024 + i * 1021)) /dev/urandom >"wide/sub/s$i"; done
head -c $((24 * 1024 * 1024)) /dev/urandom >wide/big
for dir in up down; do
	if [ $dir = up ]; then args=(-r wide fscp-load:); else args=(-r fscp-load:wide wide-back/); fi
	rc=0
	# sshd logs one "Accepted publickey" per connection: count them.
	before=$(grep -c 'Accepted publickey' "$SSHD_DIR/sshd.log")
	FSCP_ROUTE=bypass FSCP_CONNECTIONS=$NCONN cp_fscp -v "${args[@]}" 2>"wide-$dir.err" || rc=$?
	logins=$(($(grep -c 'Accepted publickey' "$SSHD_DIR/sshd.log") - before))
	route=$(grep -m1 'fscp: route' "wide-$dir.err")
	if [ "$rc" -ne 0 ]; then
		bad "$NCONN connections, $dir: exit $rc"; grep -v '^debug' "wide-$dir.err" | head -n 5
	elif [[ $route != *"$NCONN fresh connections"* ]] || [ "$logins" -lt "$NCONN" ]; then
		bad "$NCONN connections, $dir: $logins logins; fscp -v says '$route'"
	else
		ok "$NCONN connections, $dir: $logins logins at sshd; $route"
	fi
done
same_tree "$NCONN connections, up" wide "$R/wide"
same_tree "$NCONN connections, down" wide wide-back/wide
echo "part 2 took $((SECONDS - t0)) s"

# ---- 3. 20000 entries, scp vs fscp -------------------------------------------
t0=$SECONDS
"$PY" - "$NENTRIES" <<'PY'
import os, sys
os.mkdir("wide-dir")
for i in range(int(sys.argv[1])):
    with open("wide-dir/e%05d" % i, "wb") as f:
        f.write(b"%d\n" % i * (i % 7))
PY
table=
for tool in scp fscp; do
	prog=$SCP
	[ $tool = fscp ] && prog=$FSCP
	mkdir -p "$R/$tool" "dl-$tool"
	for dir in up down; do
		if [ $dir = up ]; then args=(-r wide-dir "fscp-load:$tool/"); else args=(-r "fscp-load:$tool/wide-dir" "dl-$tool/"); fi
		rc=0
		timeout -k 5 600 "$GTIME" -o "$tool-$dir.time" -f '%e %M' \
			"$prog" -B -F "$SSH_CONFIG" "${args[@]}" </dev/null 2>"$tool-$dir.err" || rc=$?
		read -r secs kib <"$tool-$dir.time" 2>/dev/null || secs=? kib=?
		# GNU time prints "Command exited with non-zero status N" first on failure.
		[ "$rc" -eq 0 ] && ok "$NENTRIES entries, $tool -r $dir: exit 0" ||
			{ bad "$NENTRIES entries, $tool -r $dir: exit $rc"; head -n 5 "$tool-$dir.err"; secs=$(tail -n 1 "$tool-$dir.time"); kib=; }
		table="$table$(printf '  %-4s -r %-4s  %8s s  %10s KiB peak RSS' "$tool" "$dir" "$secs" "$kib")\n"
	done
	same_tree "$NENTRIES entries, $tool -r up" wide-dir "$R/$tool/wide-dir"
	same_tree "$NENTRIES entries, $tool -r down" wide-dir "dl-$tool/wide-dir"
done
echo "part 3 took $((SECONDS - t0)) s; a directory of $NENTRIES entries (printed, not asserted):"
printf '%b' "$table"

echo "load.sh took $((SECONDS - t_all)) s"
checks_done

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# bench/profile.sh: where the client spends its CPU on one copy, fscp against
# scp: perf record -g of each copy (its threads and children), then the top
# functions and the CPU per thread.  Without perf, valgrind --tool=callgrind
# (instructions, not time; much slower, so use a smaller --mb there).
# It measures; it asserts nothing.
#
# usage: bench/profile.sh [--fscp PATH] [--tools DIR] [--mb N] [--rtt MS]
#                         [--dir download|upload] [--out DIR] [--callgrind]
#   --mb N      file size (default 256)
#   --rtt MS    round trip through tests/tools/delayrelay (default 50; 0: the
#               sshd itself)
#   --out DIR   keep perf.data / callgrind files and reports there
#               (default: a directory under /var/tmp, printed at the end)
#   --call-graph MODE   perf's stack walking: fp (default; libc and libssh
#               have no frame pointers, so their callers are lost) or dwarf
#               (callers through them; perf.data of hundreds of MiB)
#   --only fscp|scp     profile one of the two
# Environment: FSCP_CONNECTIONS, FSCP_ROUTE pass through to fscp.  fscp runs
# with -v; its messages (route, connections) are kept in OUT/fscp.log.
#
# e.g. make && bash ../bench/profile.sh --fscp src/fscp --tools tests/tools

set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
fscp=$srcdir/src/fscp tools=$srcdir/tests/tools mb=256 rtt=50 dir=download out='' cg=0
callgraph=fp only=''
die() { printf 'profile: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--fscp) fscp=$2; shift ;;
	--tools) tools=$2; shift ;;
	--mb) mb=$2; shift ;;
	--rtt) rtt=$2; shift ;;
	--dir) dir=$2; shift ;;
	--out) out=$2; shift ;;
	--callgrind) cg=1 ;;
	--call-graph) callgraph=$2; shift ;;
	--only) only=$2; shift ;;
	-h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
	shift
done
[ -x "$fscp" ] || die "$fscp not built"
[ $cg = 1 ] || command -v perf >/dev/null || cg=1
[ $cg = 0 ] || command -v valgrind >/dev/null || die "neither perf nor valgrind installed"
out=${out:-$(mktemp -d /var/tmp/fscp-profile.XXXXXX)}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
W=$(mktemp -d /var/tmp/fscp-profile-w.XXXXXX) || die "mktemp failed"
. "$srcdir/tests/lib/sshd.sh" || die "cannot source tests/lib/sshd.sh"
relay=''
cleanup() {
	[ -n "$relay" ] && kill "$relay" 2>/dev/null
	fscp_sshd_stop
	rm -rf "$W"
}
trap cleanup EXIT
fscp_sshd_start "$W/sshd" || die "could not start sshd"
port=$SSHD_PORT
if [ "$rtt" != 0 ]; then
	"$tools/delayrelay" -l 127.0.0.1:0 -t "127.0.0.1:$SSHD_PORT" -d "$((rtt / 2))" \
		-p "$W/relay.port" >/dev/null 2>&1 </dev/null &
	relay=$!
	for _ in $(seq 100); do [ -s "$W/relay.port" ] && break; sleep 0.05; done
	port=$(cat "$W/relay.port") || die "delayrelay did not start"
	key=$(awk 'NR == 1 { print $2, $3 }' "$SSHD_DIR/known_hosts")
	printf '[127.0.0.1]:%s %s\n[fscp-test]:%s %s\n' "$port" "$key" "$port" "$key" \
		>>"$SSHD_DIR/known_hosts"
fi
sed "s/^\([[:space:]]*Port\) .*/\1 $port/" "$SSH_CONFIG" >"$W/ssh_config"
head -c "$((mb * 1048576))" /dev/urandom >"$SSHD_HOME/f.bin" || die "cannot write test data"
if [ "$dir" = upload ]; then
	src=$SSHD_HOME/f.bin dst=fscp-test:$SSHD_HOME/up.bin
	cp "$SSHD_HOME/f.bin" "$W/f.bin" && src=$W/f.bin
else
	src=fscp-test:$SSHD_HOME/f.bin dst=$W/down.bin
fi

prof() {	# name cmd...
	local name=$1
	shift
	[ -z "$only" ] || [ "$only" = "$name" ] || return 0
	rm -f "$W/down.bin" "$SSHD_HOME/up.bin"
	if [ $cg = 0 ]; then
		/usr/bin/time -o "$out/$name.time" \
			-f "$name: %e s wall, %U user + %S sys s CPU (children included)" \
			perf record -q --call-graph "$callgraph" -F 999 -o "$out/$name.perf.data" -- "$@" \
			>"$out/$name.log" 2>&1
		cat "$out/$name.time"
		perf report -i "$out/$name.perf.data" --no-children --sort comm,dso,sym --stdio -g none \
			2>/dev/null | grep -v '^$' >"$out/$name.symbols.txt"
		perf report -i "$out/$name.perf.data" --no-children --sort pid --stdio -g none \
			2>/dev/null | grep -v '^$' >"$out/$name.threads.txt"
		echo "== $name: CPU by thread (samples)"
		grep -v '^#' "$out/$name.threads.txt" | head -n 12
		echo "== $name: top functions (no children)"
		grep -E '^ +[0-9.]+%' "$out/$name.symbols.txt" | head -n 25
	else
		/usr/bin/time -o "$out/$name.time" -f "$name: %e s wall, %U user + %S sys s CPU" \
			valgrind -q --tool=callgrind --trace-children=yes --separate-threads=yes \
			--callgrind-out-file="$out/$name.callgrind.%p" "$@" >"$out/$name.log" 2>&1
		cat "$out/$name.time"
		echo "== $name: instructions by function (callgrind_annotate, every process/thread)"
		for f in "$out/$name".callgrind.*; do
			echo "-- $f"
			callgrind_annotate "$f" 2>/dev/null | sed -n '/^Ir/,$p' | head -n 20
		done
	fi
}
export FSCP_NO_PAGER=1
prof fscp "$fscp" -v -F "$W/ssh_config" "$src" "$dst"
prof scp /usr/bin/scp -F "$W/ssh_config" "$src" "$dst"
echo "profile: reports and data in $out" >&2

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# A hostile `scp -f` peer against the -O client (scp-semantics.md §10; the
# CVE-2019-6111/-6109/-6110 class): a -S program that ignores the request
# and sends a canned record stream.  fscp must refuse what scp refuses, with
# the same message and exit status, and write nothing outside the target.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

BIN=$FSCP_WORK/bin
mkdir -p "$BIN"
# The peer: sends $EVIL (printf-style escapes: \n, \0, \1 ...), ends its
# half of the socket (so the client sees EOF), then reads until the client
# hangs up.  Never reads the request, never answers an ack.
cat >"$BIN/evil" <<SH
#!$FSCP_PY
import codecs, os, socket
data = codecs.escape_decode(os.environ["EVIL"].encode())[0]
try:
    os.write(1, data)
    socket.socket(fileno=1).shutdown(socket.SHUT_WR)
    while os.read(0, 65536):
        pass
except OSError:
    pass
SH
chmod +x "$BIN/evil"

setup() {
	mkdir -p dst/sub
	chmod 0755 dst
}
# Nothing may appear beside L (the tests aim "../" names at it) or in /tmp.
OUTSIDE="$FSCP_WORK/evilfile $FSCP_WORK/evildir /tmp/fscp-evil-$$"
check_outside() {
	local p
	for p in $OUTSIDE; do
		if [ -e "$p" ]; then
			bad "$p was created outside the target"
			rm -rf "$p"
		fi
	done
}
evil() {
	local name=$1 stream=$2 rc=$3
	shift 3
	export EVIL=$stream
	fscp_compare --no-config --name "$name" --setup setup --expect-rc "$rc" -- -O -S "$BIN/evil" "$@"
	check_outside
}

evil "unrequested extra file" 'C0644 3 want\nhi\n\0C0644 3 extrafile\nno\n\0' 1 h:/x/want dst/
evil "extra file with -T is accepted" 'C0644 3 want\nhi\n\0C0644 3 extrafile\nok\n\0' 0 -T h:/x/want dst/
evil "name not matching a glob" 'C0644 3 b.bin\nhi\n\0' 1 'h:/x/*.txt' dst/
evil "name matching a glob" 'C0644 3 a.txt\nhi\n\0' 0 'h:/x/*.txt' dst/
evil "name matching a brace" 'C0644 3 b\nhi\n\0C0644 3 a\nhi\n\0' 0 'h:/x/{a,b}' dst/
evil "name with ../" 'C0644 3 ../../evilfile\nhi\n\0' 1 h:/x/evilfile dst/sub/
evil "name .." 'C0644 3 ..\nhi\n\0' 1 h:/x/.. dst/
evil "name ." 'D0755 0 .\nE\n' 1 -r h:/x/. dst/
evil "-r directory named ../" 'D0755 0 ../../evildir\nC0644 3 f\nhi\n\0E\n' 1 -r h:/x/d dst/sub/
evil "absolute name" "C0644 3 /tmp/fscp-evil-$$\nhi\n\0" 1 "h:/tmp/fscp-evil-$$" dst/
evil "empty name" 'C0644 3 \nhi\n\0' 1 h:/x/f dst/
evil "directory without -r" 'D0755 0 d\nC0644 3 f\nhi\n\0E\n' 1 h:/x/d dst/
evil "bad mode (three digits)" 'C755 2 f\nhi\0' 1 h:/x/f dst/
evil "bad mode (not octal)" 'C0855 2 f\nhi\0' 1 h:/x/f dst/
evil "size not a number" 'C0644 -1 f\nhi\0' 1 h:/x/f dst/
evil "size out of range" 'C0644 18446744073709551616 f\n' 1 h:/x/f dst/
evil "data cut short" 'C0644 1000 f\nhi' 1 h:/x/f dst/
evil "bad T record" 'T12 0 x 0\nC0644 3 f\nhi\n\0' 1 -p h:/x/f dst/
evil "-r mode of the target root kept" 'D0777 0 dst\nE\n' 0 -r h:/x/dst "{WORK}"
evil "shell noise before scp" 'No match.\n' 1 'h:/x/*' dst/
evil "fatal message" '\2scp: going away\n' 1 h:/x/f dst/
evil "error then a file" '\1scp: /x/a: No such file or directory\nC0644 3 f\nhi\n\0' 1 h:/x/f dst/
evil "message with bytes to escape" '\1scp: caf\351 \001 \033[31m x\nC0644 3 f\nhi\n\0' 1 h:/x/f dst/
evil "bad name with bytes to escape" 'C0644 3 \001\351/x\nhi\n\0' 1 h:/x/f dst/
evil "peer closes at once" '' 0 h:/x/f dst/
evil "E outside any directory" 'E\nC0644 3 f\nhi\n\0' 0 h:/x/f dst/

checks_done

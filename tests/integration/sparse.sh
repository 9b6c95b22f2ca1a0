#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: a sparse file larger than 2 GiB (2100 MiB, a few data blocks,
# one past 2^31), uploaded and downloaded; the copies' checksums must match.
# Slow-ish: about 8.4 GB written in all.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init

make_sparse() {
	local f=$1 off
	truncate -s 2100M "$f"
	for off in 0 1 1024 2048 2099; do # MiB; 2048 MiB is byte 2^31
		dd if="$FSCP_WORK/pool/r70000" of="$f" bs=1M seek="$off" conv=notrunc status=none
	done
	printf tail >>"$f"
}
setup_up() {
	mkdir -p src dst "$SSHD_HOME/dst"
	make_sparse src/big
}
setup_down() {
	mkdir -p dst "$SSHD_HOME/src"
	make_sparse "$SSHD_HOME/src/big"
}
# The sparse sources would be read (2 GiB of zeros) by the tree comparison;
# drop them once the copy is done.
drop_sources() {
	rm -rf src "$SSHD_HOME/src"
}

fscp_compare --name "upload 2100 MiB sparse file" --setup setup_up --post drop_sources --expect-rc 0 -- src/big fscp-test:dst/
fscp_compare --name "download 2100 MiB sparse file" --setup setup_down --post drop_sources --expect-rc 0 -- fscp-test:src/big dst/

checks_done

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp vs fscp: -q and the progress meter (on a pseudo-terminal), -P, and the
# scp:// URI form (port in the URI beats -P and the config; // for absolute
# paths; %XX and + decoding).  No test resolves a name other than fscp-test:
# an unknown host name would go to DNS.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init
command -v script >/dev/null || fscp_hard_error "script(1) (util-linux) is needed for the tty tests"

setup() {
	fscp_setup_trees
	# The same host with a wrong port: only -P or a URI port can reach sshd.
	sed "s/^\([[:space:]]*Port\) .*/\1 1/" "$SSH_CONFIG" >badport_config
}

fscp_compare --tty --name "-q on a tty: no output (upload)" --setup setup --expect-rc 0 -- -q src/small.txt src/sub/deeper/b.bin fscp-test:dst/
fscp_compare --tty --name "-q on a tty: no output (download -r)" --setup setup --expect-rc 0 -- -q -r fscp-test:src dst/
fscp_compare --tty --name "progress meter on a tty (upload)" --setup setup --expect-rc 0 -- src/small.txt "src/with space.txt" fscp-test:dst/
fscp_compare --tty --name "progress meter on a tty (download)" --setup setup --expect-rc 0 -- fscp-test:src/small.txt fscp-test:src/empty dst/
fscp_compare --name "no meter when stdout is not a tty" --setup setup --expect-rc 0 -- src/small.txt fscp-test:dst/

fscp_compare --no-config --name "-P overrides the config's port (upload)" --setup setup --expect-rc 0 -- -F badport_config -P "{PORT}" src/small.txt fscp-test:dst/
fscp_compare --no-config --name "-P overrides the config's port (download)" --setup setup --expect-rc 0 -- -F badport_config -P "{PORT}" fscp-test:src/small.txt dst/
# scp's own status races there (ssh dies before or after scp reads the
# pipe: 255 or "lost connection" 1), as in errors.sh.
fscp_compare --no-config --no-stderr --name "-P to a dead port beats the config's good one" --setup setup --expect-rc '255|1' -- -F "$SSH_CONFIG" -P 1 src/small.txt fscp-test:dst/

fscp_compare --name "scp:// upload, relative path" --setup setup --expect-rc 0 -- src/small.txt scp://fscp-test/dst/
fscp_compare --name "scp:// download, relative path" --setup setup --expect-rc 0 -- scp://fscp-test/src/small.txt dst/
fscp_compare --name "scp:// download, absolute path (//)" --setup setup --expect-rc 0 -- "scp://fscp-test/{HOME}/src/small.txt" dst/
fscp_compare --name "scp:// with user and port" --no-config --setup setup --expect-rc 0 -- -F badport_config "scp://root@fscp-test:{PORT}/src/small.txt" dst/
fscp_compare --name "scp:// port beats -P" --no-config --setup setup --expect-rc 0 -- -F badport_config -P 1 src/small.txt "scp://fscp-test:{PORT}/dst/"
fscp_compare --name "scp:// -P applies to a URI without port" --no-config --setup setup --expect-rc 0 -- -F badport_config -P "{PORT}" scp://fscp-test/src/small.txt dst/
fscp_compare --name "scp:// %20 and + decode to a space" --setup setup --expect-rc 0 -- "scp://fscp-test/src/with%20space.txt" "scp://fscp-test/src/with+space.txt" dst/
fscp_compare --name "scp:// no path is the home (-r)" --setup setup --expect-rc 0 -- -r scp://fscp-test dst/home
fscp_compare --name "scp:// invalid URI (IPv6 literal)" --setup setup --expect-rc 1 -- "scp://[::1]/x" dst/

checks_done

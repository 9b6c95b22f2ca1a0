#!/bin/bash
# Hostile-server cases where fscp does not yet say what scp 9.2 says (listed
# in XFAIL_TESTS): a wrong request id on READ and DATA longer than asked end
# scp with its own message and exit 255; fscp, which takes a protocol
# violation in the data phase for a dead connection, says "lost connection"
# and exits 1.  See HOSTILE_CASES=scp-exact in hostile-sftp.sh.
HOSTILE_CASES=scp-exact exec bash "$(dirname "$0")/hostile-sftp.sh"

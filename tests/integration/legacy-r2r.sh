#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Remote to remote, scp vs fscp: -O through the local host (-3, the default:
# ssh to the source runs "scp -f", a second ssh to the target runs "scp -t"
# on the first one's socket), and -R (ssh to the source host runs scp there,
# in either protocol).  The test sshd answers to two names, fscp-test and
# fscp-test2.  For -R the remote scp needs the test's ssh_config: the -S
# wrapper ssh-remote (legacy-lib.sh) puts "-F config" after the remote
# "scp", and logs every ssh argv into the local tree, which is compared, so
# the command lines must be scp's exactly.  The remote scp is /usr/bin/scp,
# run by name so that its messages read "scp: ..." on both sides.
. "$(dirname "$0")/../lib/compare.sh"
. "$(dirname "$0")/../lib/legacy-lib.sh"
fscp_test_init
legacy_make_wrappers
legacy_add_second_host

A=fscp-test:{HOME}
B=fscp-test2:{HOME}
fscp_compare --name "-O -3 file" --setup fscp_setup_trees --expect-rc 0 -- -O $A/src/small.txt $B/dst/
fscp_compare --name "-O file (default -3)" --setup fscp_setup_trees --expect-rc 0 -- -O -3 $A/src/small.txt $B/dst/new
fscp_compare --name "-O -3 several" --setup fscp_setup_trees --expect-rc 0 -- -O $A/src/small.txt $A/src/exec.sh $B/dst/
fscp_compare --name "-O -3 -r" --setup fscp_setup_trees --expect-rc 0 -- -O -r $A/src $B/dst/
fscp_compare --times --name "-O -3 -r -p" --setup fscp_setup_trees --expect-rc 0 -- -O -r -p $A/src $B/dst/
fscp_compare --name "-O -3 missing source" --setup fscp_setup_trees --expect-rc 1 -- -O $A/src/missing $B/dst/
fscp_compare --name "-O -3 missing source among others" --setup fscp_setup_trees --expect-rc 0 -- -O $A/src/missing $A/src/small.txt $B/dst/
fscp_compare --name "-O -3 directory without -r" --setup fscp_setup_trees --expect-rc 1 -- -O $A/src/sub $B/dst/
fscp_compare --name "-O -3 local and remote sources" --setup fscp_setup_trees --expect-rc 0 -- -O src/empty $A/src/small.txt $B/dst/
fscp_compare --name "-O -3 -q -l" --setup fscp_setup_trees --expect-rc 0 -- -O -q -l 80000 $A/src/small.txt $B/dst/

export SSH_ARGV_LOG=ssh-argv.log REMOTE_SCP=scp REMOTE_SCP_ARGS="-F $SSH_CONFIG"
W="-S $FSCP_WORK/bin/ssh-remote"
# shellcheck disable=SC2086
{
fscp_compare --name "-R file" --setup fscp_setup_trees --expect-rc 0 -- -R $W $A/src/small.txt $B/dst/
fscp_compare --name "-R -O file" --setup fscp_setup_trees --expect-rc 0 -- -R -O $W $A/src/small.txt $B/dst/
fscp_compare --name "-R -r -p several" --setup fscp_setup_trees --expect-rc 0 -- -R -r -p $W $A/src/sub $A/src/small.txt $B/dst/
fscp_compare --name "-R -O -r, options passed on" --setup fscp_setup_trees --expect-rc 0 -- -R -O -r -q -C -4 -o Compression=no $W $A/src/sub $B/dst/
fscp_compare --name "-R with users" --setup fscp_setup_trees --expect-rc 0 -- -R $W root@$A/src/small.txt root@$B/dst/
fscp_compare --name "-R missing source" --setup fscp_setup_trees --expect-rc 1 -- -R $W $A/src/missing $A/src/small.txt $B/dst/
fscp_compare --name "-R target user refused" --setup fscp_setup_trees --expect-rc 1 -- -R $W $A/src/small.txt "a'b@$B/dst/"
fscp_compare --name "-R target port" --setup fscp_setup_trees --expect-rc 255 -- -R $W $A/src/small.txt "scp://fscp-test2:2222/dst/"
fscp_compare --name "-R source URI port" --setup fscp_setup_trees --expect-rc 0 -- -R $W "scp://fscp-test:{PORT}/{HOME}/src/small.txt" "$B/dst/"
}
unset SSH_ARGV_LOG REMOTE_SCP REMOTE_SCP_ARGS

checks_done

# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# shellcheck shell=bash
# Shared by the settings tests (env.sh, route-config.sh; not a test itself):
# route-lib.sh (compare.sh's sshd and work dir, checks.sh), and a way to
# run fscp alone.
#
#   settings_run [VAR=VALUE...] -- ARGS...
#       fscp -F $SSH_CONFIG ARGS in $FSCP_WORK/L with argv[0] "fscp", the
#       variables set for it; leaves RUN_RC, RUN_OUT, RUN_ERR (CRs removed)
#       and RUN_LOGINS (sshd logins it caused).
#   settings_check NAME DESCRIPTION TEST...   checks.sh's check, and on a failure
#       the last run's stderr.
. "$(dirname "${BASH_SOURCE[0]}")/route-lib.sh"

settings_run() {
	local vars=() before
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	before=$(route__logins)
	(cd "$FSCP_WORK/L" && env "${vars[@]}" timeout "$FSCP_TIMEOUT" bash -c 'exec -a fscp "$@"' fscp \
		"$FSCP" -F "$SSH_CONFIG" "$@" </dev/null >"$FSCP_WORK/run.out" 2>"$FSCP_WORK/run.err")
	RUN_RC=$?
	# sshd logs a login a moment after the client saw it.
	sleep 0.2
	RUN_LOGINS=$(($(route__logins) - before))
	RUN_OUT=$(cat "$FSCP_WORK/run.out")
	RUN_ERR=$(tr -d '\r' <"$FSCP_WORK/run.err")
}

settings_check() {
	if ! check "$@"; then
		echo "    exit $RUN_RC, $RUN_LOGINS logins; stderr:"
		sed 's/^/    /' <<<"$RUN_ERR" | head -20
	fi
}

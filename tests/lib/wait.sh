# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# shellcheck shell=bash
# What a test does "during a copy" or "in the start-up" it does once the copy
# has got there, however slow the machine is to start it: polled, never a
# fixed sleep.  Each wait gives up after 60 s (the test then acts late and its
# checks say what followed); none of them fails a test by itself.
#
#   wait_bytes FILE N        until FILE holds N bytes
#   wait_lines FILE RE N     until N lines of FILE match the extended regex RE

wait_bytes() {
	local n=0
	while [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -lt "$2" ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
}

wait_lines() {
	local n=0
	while [ "$(grep -Ecs -- "$2" "$1")" -lt "$3" ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
}

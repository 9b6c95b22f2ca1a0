#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# resume.sh at full size (make check-slow): a 1 GiB sparse file near, on
# the standard route and on fresh connections, and 256 MiB through a 20 ms
# delay relay, up and down, each killed at about 60% and resumed.
# Exit 0 pass, 1 fail, 99 cannot run.
RESUME_SLOW=1 exec bash "$(dirname "$0")/resume.sh" "$@"

#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# scp-messages.sh's rows on the standard route only: the three routes run as
# three tests so that make -j runs them side by side.
FSCP_MSG_ROUTES=standard exec bash "$(dirname "$0")/scp-messages.sh" "$@"

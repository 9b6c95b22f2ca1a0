/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "policy/sshmsg.h"

#include <string.h>

/* The banner line of ssh's warning (sshconnect.c), in capitals since
 * OpenSSH's first releases. */
bool
sshmsg_is_host_key_changed(const char *msg)
{
	return msg != NULL && strstr(msg, "REMOTE HOST IDENTIFICATION HAS CHANGED") != NULL;
}

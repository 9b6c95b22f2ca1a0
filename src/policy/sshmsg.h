/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshmsg: what fscp recognises in ssh's words (as transport/hostkey and
 * sshconn write them, the way ssh does), one function per meaning.  Every
 * text of ssh that fscp acts on is matched here and nowhere else. */
#ifndef FSCP_SSHMSG_H
#define FSCP_SSHMSG_H

#include <stdbool.h>

/* The server showed a host key other than the one known for it: ssh's
 * "REMOTE HOST IDENTIFICATION HAS CHANGED" warning.  msg: NUL-terminated,
 * NULL-safe (false). */
bool sshmsg_is_host_key_changed(const char *msg);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* session_int: what session.c and exec.c share, not for outside
 * session/. */
#ifndef FSCP_SESSION_INT_H
#define FSCP_SESSION_INT_H

#include <stdbool.h>

struct sshcfg;
struct sshconn;

/* No ssh runs for this host, so what it would have said is ours to say:
 * ssh -G's warnings and the server's banner (from the first of the n
 * connections that has one), not beside a live master. */
void session_say_for_ssh(const struct sshcfg *cfg, bool master_live,
    struct sshconn *const *ssh, int n);

#endif

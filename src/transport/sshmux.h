/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshmux: a session on a live ControlMaster, asked for on its socket as
 * ssh's own mux client asks (OpenSSH's PROTOCOL.mux, "passenger" mode).
 *
 * Through a master, scp's ssh does no more than this: it says hello, checks
 * the master is alive, sends the session request (no tty, no X11, no agent,
 * the environment its SendEnv passes and its SetEnv) with its stdin, stdout
 * and stderr, and waits for the exit status.  The master then moves the
 * bytes between those descriptors and the server itself.  Asking here
 * saves starting that second ssh; the master, the server and the bytes on
 * the wire are the same.  The master takes one session per socket
 * connection, so each stream holds its own. */
#ifndef FSCP_SSHMUX_H
#define FSCP_SSHMUX_H

#include <stdbool.h>
#include <stddef.h>

#include "transport/stream.h"
#include "util/strv.h"

/* What the session request carries besides the command. */
struct sshmux_request {
	const char *path;		/* the ControlPath, as ssh -G expands it */
	bool subsystem;			/* cmd names a subsystem (ssh -s) */
	const char *cmd;		/* "sftp", or a command line */
	const struct strv *sendenv;	/* ssh -G's SendEnv patterns */
	const struct strv *setenv;	/* ssh -G's SetEnv NAME=VALUE entries */
};

/* Open the session: 0 with *out its stream (closing it waits for the
 * master's exit status, 255 when none came, as ssh's mux client exits).
 * Otherwise nothing was started and err says why: -1 when the socket
 * took no connection (ssh would connect on its own, and may become the
 * master), -2 when the master answered but opened no session (another
 * protocol, refused, failed: ssh would connect on its own, the live
 * master's socket left alone). */
int sshmux_open(const struct sshmux_request *rq, struct fscp_stream *out,
    char *err, size_t errlen);

/* Lower level, for the unit tests: the environment entries (NAME=VALUE,
 * env's order) that SendEnv passes, then SetEnv's, as ssh's mux client
 * sends them; and the TERM it sends (SetEnv's, else env's, else ""). */
void sshmux_env(char *const *env, const struct strv *sendenv, const struct strv *setenv,
    struct strv *out);
const char *sshmux_term(char *const *env, const struct strv *setenv);

#endif

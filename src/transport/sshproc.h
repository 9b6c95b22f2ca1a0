/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshproc: the standard route, child processes run exactly as scp runs them.
 *
 *  - sshproc_sftp: `ssh -x -oPermitLocalCommand=no ... -s -- host sftp`,
 *    its stdin/stdout on one end of a socketpair that becomes our stream;
 *  - sshproc_direct: -D sftp_server_path run directly (no ssh);
 *  - sshproc_run: a plain command (cp for local copies), waited for. */
#ifndef FSCP_SSHPROC_H
#define FSCP_SSHPROC_H

#include <stdbool.h>

#include "policy/options.h"
#include "transport/stream.h"

/* Spawn ssh (or -S program) for SFTP; 0, or -1 when it cannot be run.
 * alone: with -oControlPath=none, for when the live master answered but
 * opened no session (sshmux), where ssh itself goes on to connect on its
 * own. */
int sshproc_sftp(const struct fscp_opts *o, const char *host, const char *user,
    int port, bool alone, struct fscp_stream *out);
/* "-p port" (port >= 0) and "-l user" (user != NULL), as scp adds them. */
void sshproc_push_port_user(struct strv *argv, int port, const char *user);
/* The ssh argv scp's do_cmd() runs for a legacy command (cmd, e.g.
 * "scp -t dst"); second: do_cmd2()'s, with -oBatchMode=yes after -l. */
void sshproc_exec_argv(const struct fscp_opts *o, const char *host, const char *user,
    int port, bool second, const char *cmd, struct strv *argv);
/* Spawn it with its stdin/stdout on our stream (prints scp's -v
 * "Executing: program ..." line); 0, or -1 when it cannot be run. */
int sshproc_exec(const struct fscp_opts *o, const char *host, const char *user,
    int port, const char *cmd, struct fscp_stream *out);
/* The socket of a stream made here, or -1 (another kind of stream). */
int sshproc_stream_fd(const struct fscp_stream *s);
/* Run argv with stdin and stdout on fd (< 0: ours) and wait; its exit
 * status (255 if it could not run). */
int sshproc_run_on(const struct strv *argv, int fd);
/* Spawn the -D program as "sftp-server". */
int sshproc_direct(const struct fscp_opts *o, struct fscp_stream *out);
/* Run argv and wait; returns its exit status (or 255 if it could not run). */
int sshproc_run(const struct strv *argv);

#endif

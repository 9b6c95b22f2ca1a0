/* sshproc: the standard route, child processes run exactly as scp runs them.
 *
 *  - sshproc_sftp: `ssh -x -oPermitLocalCommand=no ... -s -- host sftp`,
 *    its stdin/stdout on one end of a socketpair that becomes our stream;
 *  - sshproc_direct: -D sftp_server_path run directly (no ssh);
 *  - sshproc_run: a plain command (cp for local copies), waited for. */
#ifndef FSCP_SSHPROC_H
#define FSCP_SSHPROC_H

#include "args.h"
#include "stream.h"

/* The full ssh argv scp would use for an SFTP session to host.
 * user NULL / port < 0 when not given. */
void sshproc_sftp_argv(const struct fscp_opts *o, const char *host,
    const char *user, int port, struct strv *argv);
/* Spawn ssh (or -S program) for SFTP; 0, or -1 when it cannot be run. */
int sshproc_sftp(const struct fscp_opts *o, const char *host, const char *user,
    int port, struct fscp_stream *out);
/* Spawn the -D program as "sftp-server". */
int sshproc_direct(const struct fscp_opts *o, struct fscp_stream *out);
/* Run argv and wait; returns its exit status (or 255 if it could not run). */
int sshproc_run(const struct strv *argv);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* pool_dial: how the pool makes and unmakes one connection (libssh, then
 * SFTP), and closing one that was handed out.  Apart from pool.c so that a
 * test can give the pool a fake dialer (struct pool_dialer). */
#include "config.h"
#include "session/pool.h"

#include <signal.h>
#include <string.h>

#include "util/proc.h"
#include "policy/sshmsg.h"
#include "transport/sshconn.h"
#include "sftp/sftp.h"

/* sshconn's messages can be ssh's multi-line warnings: -v wants one line. */
const char *
pool_one_line(char *msg)
{
	char *nl;

	if (sshmsg_is_host_key_changed(msg))
		return "it presents a different host key than the one known for the instance";
	while (*msg == '\n' || *msg == '@')
		msg += strspn(msg, "@\n ");
	if ((nl = strchr(msg, '\n')) != NULL)
		*nl = '\0';
	return msg;
}

void
pool_reap(pid_t pid)
{
	if (pid <= 0)
		return;
	/* ssh sends SIGHUP to its ProxyCommand when done; so do we, to its
	 * whole group, and reap it. */
	(void)proc_end(pid, SIGHUP);
}

/* Close one connection: its SFTP channel (or ssh), its libssh session and
 * its ProxyCommand.  Returns true when it ended badly (a non-zero exit
 * status of ssh or of the SFTP channel). */
bool
pool_close_parts(struct sftp_conn *sftp, struct sshconn *ssh, pid_t pid)
{
	bool bad = sftp != NULL && sftp_close(sftp) != 0;

	/* A connection's channels share its session and proxy: whoever
	 * closes the last of them ends the proxy. */
	if (ssh == NULL || sshconn_close(ssh))
		pool_reap(pid);
	return bad;
}

/* The channels' SFTP hello goes with their subsystem request; the limits
 * request too when the round trip is known without it (ask_limits) and the
 * server is OpenSSH (its sftp-server reads requests in order, and answers
 * one it does not know with a status), which saves the round trip after
 * VERSION that asking first would cost. */
static int
pool_dial_streams(struct sshconn *c, int n, bool ask_limits, struct fscp_stream *out,
    struct sftp_hello *sent, char *err, size_t errlen)
{
	sftp_hello_make(sent, ask_limits && sshconn_server_openssh(c));
	return sshconn_sftp_streams(c, n, sent->bytes, sent->len, out, err, errlen);
}

static struct sftp_conn *
pool_dial_sftp(struct fscp_stream st, size_t buflen, const struct sftp_hello *sent,
    struct sftp_limits *known, double rtt_ms, char *err, size_t errlen)
{
	struct sftp_conn *c = sftp_open_sent(st, buflen, known, sent, err, errlen);

	if (c != NULL)
		sftp_note_rtt(c, rtt_ms);
	if (c != NULL && !known->known)
		*known = sftp_limits_of(c);
	return c;
}

/* A channel nobody took: no goodbye waited for on it (a far speculative
 * connection cut short would otherwise cost a round trip per channel). */
static void
pool_dial_undo(struct sftp_conn *sftp, struct sshconn *ssh, pid_t pid)
{
	sftp_discard(sftp);
	(void)pool_close_parts(NULL, ssh, pid);
}

const struct pool_dialer pool_dial_ssh = {
	.open = sshconn_open,
	.measure_rtt = sshconn_measure_rtt,
	.streams = pool_dial_streams,
	.ref = sshconn_ref,
	.sftp = pool_dial_sftp,
	.undo = pool_dial_undo,
};

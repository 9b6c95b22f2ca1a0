/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshconn: a fresh, direct libssh session and its channels as byte streams.
 *
 * Used by the bypass routes (fresh, ssm-direct, ssm-parallel).  The session
 * speaks over a socket fscp connected itself (TCP, honouring AddressFamily and
 * ConnectTimeout) or over an already-connected proxy socket; libssh never
 * reads ssh_config and never runs a ProxyCommand.
 *
 * Host keys are checked as ssh checks them (every UserKnownHostsFile, every
 * GlobalKnownHostsFile, HostKeyAlias, "[host]:port" for port != 22, hashed
 * entries, @revoked, StrictHostKeyChecking, BatchMode) and never more loosely:
 * an unknown key under "ask" is refused (SSHCONN_ERR_HOSTKEY) so the caller
 * can fall back to plain ssh, which asks.
 *
 * Authentication is public key only: the agent (SSH_AUTH_SOCK or IdentityAgent,
 * skipped when IdentitiesOnly is set because libssh 0.10 cannot filter agent
 * keys), then each IdentityFile.  No password or keyboard-interactive: failure
 * is SSHCONN_ERR_AUTH and the caller falls back to the route scp would take.
 *
 * THREADS: a struct sshconn and every stream made from it belong to ONE thread
 * (libssh sessions are not thread-safe), except the streams of
 * sshconn_sftp_streams with n > 1: each of those may be used by its own
 * thread (the session then serialises every libssh call, and a thread
 * waiting to read is woken when libssh filed something for its channel).
 */
#ifndef FSCP_SSHCONN_H
#define FSCP_SSHCONN_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/sshcfg.h"
#include "transport/stream.h"

struct sshconn;

enum sshconn_err {
	SSHCONN_OK = 0,
	SSHCONN_ERR_CONNECT,	/* TCP/proxy/handshake failed or timed out */
	SSHCONN_ERR_HOSTKEY,	/* ssh would refuse the host key: changed, revoked, unknown under strict checking */
	SSHCONN_ERR_AUTH,	/* no non-interactive method worked */
	SSHCONN_ERR_CHANNEL,	/* channel or subsystem refused, session broken */
	SSHCONN_ERR_HOSTKEY_DEFER,	/* ssh would ask, or go on trusting the key less: let ssh decide */
};

/* Default receive buffer of a stream: each read asks libssh for this many
 * bytes, which makes libssh 0.10 advertise a window of about this size. */
#define SSHCONN_READ_BUF_DEFAULT (4u << 20)
/* OpenSSH >= 8.9 senders slow down with windows of 16 MB or more. */
#define SSHCONN_READ_BUF_MAX (15u << 20)

struct sshconn_params {
	const struct sshcfg *cfg;	/* host, port, user, known hosts, alias, strict,
					   batchmode, identities, agent, algorithms */
	int proxy_fd;		/* >= 0: a connected socket (e.g. a ProxyCommand child
				   run by fscp).  sshconn owns it from then on: it is
				   closed by sshconn_close, or by sshconn_open when
				   that fails; the caller reaps the child.
				   < 0: TCP connect here. */
	const char *connect_host;	/* NULL: cfg->hostname; else connect here but
					   verify the host key under cfg's identity */
	int connect_port;	/* 0: cfg->port */
	bool compress;		/* zlib (Compression / scp -C) */
	bool may_prompt;	/* false: never touch the terminal */
	bool probe_only;	/* connect + verify host key, then stop (no auth) */
	size_t read_buf;	/* 0: SSHCONN_READ_BUF_DEFAULT; capped at _MAX */
	/* Called once (from sshconn_open's thread, inside libssh) when the
	 * server's banner is in, with the ms since the connect began: a hint
	 * of the round trip before the handshake's own round trips.  NULL:
	 * not wanted. */
	void (*on_first_byte)(void *arg, double ms);
	/* Called once (from sshconn_open's thread) when the key exchange is
	 * done, before the host key is checked, with the ms from the client's
	 * key exchange message to the server's reply: one round trip end to
	 * end, through any proxy, plus both ends' key computation (-1: not
	 * measured).  False: the connection is not wanted, and sshconn_open
	 * stops there (SSHCONN_ERR_CONNECT) before anything logs in.  NULL:
	 * not wanted. */
	bool (*on_kex)(void *arg, double ms);
	/* Called from sshconn_open's thread as a direct TCP connect begins
	 * (ms < 0: the name is looked up, the first address tried) and once
	 * it is up, with the round trip of its handshake (TCP's own sample),
	 * a floor of the path's: a local forwarder answers for a far server.
	 * Never through a proxy.  NULL: not wanted. */
	void (*on_connect)(void *arg, double ms);
	/* Called once with the connected socket (or the proxy's), before the
	 * handshake: shutdown() on a dup of it aborts a connection still
	 * logging in.  NULL: not wanted. */
	void (*on_socket)(void *arg, int fd);
	void *cb_arg;
	bool never_add;		/* a host key ssh would record: HOSTKEY_DEFER */
	int handshake_timeout;	/* seconds for the SSH handshake + auth; 0: the
				   ConnectTimeout, or 120 s when none is set.
				   Reset to "none" once logged in: libssh 0.10 would
				   apply it to every channel read (they then return
				   0 early) and to channel opens. */
};

/* Open and authenticate a session (or only verify the host key when
 * probe_only).  On failure *out is NULL and err holds an ssh-like message
 * (several lines for a changed host key: print it when falling back is not
 * possible; under -v a one-line reason is enough).  Unknown keys accepted
 * under accept-new/no are appended to the first UserKnownHostsFile and
 * "Warning: Permanently added ..." goes to stderr, as ssh does.  Algorithm
 * lists: libssh drops names it does not know; a list with none left fails
 * with SSHCONN_ERR_CONNECT (never a silent switch to libssh's defaults). */
enum sshconn_err sshconn_open(const struct sshconn_params *p, struct sshconn **out,
    char *err, size_t errlen);

/* A non-interactive login looks likely, from the local files alone: a
 * known host key, public key authentication on, and an agent or an
 * unencrypted identity file to offer. */
bool sshconn_may_log_in(const struct sshcfg *cfg);

/* A new "sftp" subsystem channel as a byte stream.  Its read serves from an
 * internal buffer of read_buf bytes, so that libssh keeps the channel
 * window open (its window only grows as the application reads); read
 * returns as soon as at least one byte is there.  close sends
 * EOF, waits for the server's exit status, closes and frees the channel;
 * it returns 0 when the exit status was 0 (or none was sent). */
enum sshconn_err sshconn_sftp_stream(struct sshconn *c, struct fscp_stream *out,
    char *err, size_t errlen);

/* Up to n "sftp" channels on one session at once (a far server gives each
 * its own window: more in flight without another handshake).  Fills
 * out[0..got-1] and returns got (>= 1; fewer when the server allows fewer
 * sessions, MaxSessions), -1 when none came up.  Call it before any other
 * stream exists; with got > 1 every stream of c may have its own thread.
 * Each channel sends hello (hello_len bytes, may be 0) behind its
 * subsystem request as soon as the server's window lets it, as ssh sends
 * what its stdin has: with the answer at the latest. */
int sshconn_sftp_streams(struct sshconn *c, int n, const void *hello, size_t hello_len,
    struct fscp_stream *out, char *err, size_t errlen);

/* The server's version banner says OpenSSH (whose sftp-server reads its
 * requests in order from the first). */
bool sshconn_server_openssh(const struct sshconn *c);

/* The same over an "exec" channel running cmd (legacy scp protocol, tests). */
enum sshconn_err sshconn_exec_stream(struct sshconn *c, const char *cmd,
    struct fscp_stream *out, char *err, size_t errlen);

/* Drop the caller's reference; the session is disconnected and freed (with
 * proxy_fd) when its last stream is closed too.  True when that happened
 * now (the caller may then end the proxy).  NULL-safe (false). */
bool sshconn_close(struct sshconn *c);
/* Another reference to c (closed with sshconn_close). */
struct sshconn *sshconn_ref(struct sshconn *c);

/* How long the TCP connect took, in ms: about one round trip.  -1 when the
 * session runs over a proxy socket. */
double sshconn_connect_ms(const struct sshconn *c);

/* One round trip on the session, in ms: the login's, when nothing held it
 * back, else one measured now (a global request OpenSSH answers at once);
 * -1 when it failed, or with free_only when it would take a round trip.
 * Before any shared stream exists. */
double sshconn_measure_rtt(struct sshconn *c, bool free_only);

/* The host key of the server as "TYPE SHA256:..." (for -v); NULL-safe. */
const char *sshconn_hostkey_desc(const struct sshconn *c);
/* What the server sent to show before the login (sshd's Banner), as sent;
 * NULL when nothing (or c is NULL). */
const char *sshconn_banner(const struct sshconn *c);

#endif

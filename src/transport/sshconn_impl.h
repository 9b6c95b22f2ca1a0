/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshconn's insides, shared by its files and nothing else: the session
 * (sshconn.c), getting in (sshconn_login.c: TCP, host key, public key
 * authentication) and the channels as streams (sshconn_chan.c). */
#ifndef FSCP_SSHCONN_IMPL_H
#define FSCP_SSHCONN_IMPL_H

#include "transport/sshconn.h"
#include "util/log.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "transport/sshlib.h"

/* Seconds a closing channel waits for the server's exit status. */
#define SSHCONN_CLOSE_TIMEOUT 3

/* How long a thread waiting on a shared session's socket sleeps at most
 * before it looks at its channel again (ms). */
#define SSHCONN_SHARED_POLL_MS 50

struct sshconn {
	ssh_session s;
	int fd;			/* the socket under the session */
	/* Once ssh_connect has taken fd, libssh closes it (when it
	 * disconnects, is freed, or its peer goes away during a call): fscp
	 * must not touch the number after that, as another thread may have
	 * opened something else under it (the journal's file, a proxy's pipe). */
	bool lib_owns_fd;
	size_t read_buf;
	char keydesc[160];
	char *banner;		/* the server's SSH_MSG_USERAUTH_BANNER, NULL if none */
	double connect_ms;	/* TCP connect time (about one round trip); -1 via a proxy */
	bool loopback;		/* connected by TCP to a loopback address */
	/* The handshake's steps (the server's banner, the key exchange),
	 * timed from libssh's progress callback while sshconn_open's thread
	 * alone runs the session. */
	struct ssh_callbacks_struct progress;
	double t0;		/* when the connect began */
	double banner_ms;	/* the server's banner came; -1: not yet */
	double kex_sent;	/* when the client's key exchange init went; 0: not yet */
	double kex_ms;		/* init to the server's reply; -1: not measured */
	double service_ms;	/* the login service's request to its answer;
				   -1: not measured */
	void (*on_first_byte)(void *arg, double ms);	/* sshconn_params' */
	void *cb_arg;
	/* Several channels used by several threads (sshconn_sftp_streams with
	 * n > 1): every libssh call takes lock, and nobody blocks inside
	 * libssh waiting for data.  One thread at a time (poller) sleeps in
	 * poll() on the socket with the lock released; the others wait on
	 * their channel's cond.  libssh's callbacks mark the channels it
	 * filled, and whoever let it read the socket wakes those only (and
	 * one other to poll next), not every thread per packet. */
	bool shared;
	struct sshconn_chan *poller;	/* the polling thread's channel, or NULL */
	struct sshconn_chan *chans;	/* the open channels' streams */
	int wake[2];		/* pipe that ends the poller's sleep early */
	int refs;		/* the owner's and one per open stream */
	pthread_mutex_t lock;
};

/* One channel as a stream.  Reads go through buf so that every
 * ssh_channel_read asks for a lot and libssh grows the window to match. */
struct sshconn_chan {
	struct sshconn *c;
	ssh_channel ch;
	unsigned char *buf;
	size_t cap, off, len;
	bool exec;		/* a command's channel: its stderr is shown */
	/* On a shared session, under c->lock: ready once libssh filed data,
	 * an EOF or a close for the channel since its thread last looked;
	 * waiting while that thread sleeps on cond. */
	struct ssh_channel_callbacks_struct cb;
	pthread_cond_t cond;
	bool ready, waiting;
	struct sshconn_chan *next;	/* in c->chans */
};

/* err (may be NULL) says why. */
void sshconn_seterr(char *err, size_t errlen, const char *fmt, ...) FSCP_PRINTF(3, 4);
/* Drop a reference; true when that was the last (the session is freed). */
bool sshconn_unref(struct sshconn *c);

/* ---- sshconn_login.c ---------------------------------------------------- */

/* A TCP connection to host:port within timeout_s (0: none); -1 with err.
 * on_connect (may be NULL) is told as sshconn_params says. */
int sshconn_tcp_connect(const char *host, int port, int family, int timeout_s,
    void (*on_connect)(void *, double), void *arg, char *err, size_t errlen);
bool sshconn_peer_is_loopback(int fd);
/* The server's host key, checked as ssh checks it. */
enum sshconn_err sshconn_verify_hostkey(struct sshconn *c, const struct sshconn_params *p,
    char *err, size_t errlen);
/* Public key authentication: the agent, then each IdentityFile. */
enum sshconn_err sshconn_auth_run(struct sshconn *c, const struct sshconn_params *p,
    long timeout_s, char *err, size_t errlen);

#endif

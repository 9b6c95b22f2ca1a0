/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* pool: connections to one host opened side by side, each with up to per
 * SFTP channels (route_channels decides from the round trip), handed out
 * as they come up.  A session has at most one pool at a time. */
#ifndef FSCP_POOL_H
#define FSCP_POOL_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy/options.h"
#include "policy/sshcfg.h"
#include "transport/sshconn.h"

struct pool;
struct sftp_conn;
struct sftp_limits;
struct sftp_hello;

/* How one connection is made and unmade: pool_dial_ssh (libssh and SFTP)
 * unless a test fakes it.  Each is called from the pool's threads. */
struct pool_dialer {
	enum sshconn_err (*open)(const struct sshconn_params *p, struct sshconn **out,
	    char *err, size_t errlen);
	double (*measure_rtt)(struct sshconn *c, bool free_only);
	/* Up to n SFTP channels; *sent says what each sent with its
	 * subsystem request (the SFTP hello, or nothing).  ask_limits: the
	 * round trip is known without the limits request's, which may then
	 * go with the hello. */
	int (*streams)(struct sshconn *c, int n, bool ask_limits, struct fscp_stream *out,
	    struct sftp_hello *sent, char *err, size_t errlen);
	struct sshconn *(*ref)(struct sshconn *c);
	/* A channel's SFTP handshake, after what streams sent; when known
	 * says nothing yet, it is filled with what this server told (for the
	 * pool's other channels).  rtt_ms: a round trip the connection
	 * measured already (its keepalives; < 0: none), which the SFTP one
	 * never exceeds. */
	struct sftp_conn *(*sftp)(struct fscp_stream st, size_t buflen,
	    const struct sftp_hello *sent, struct sftp_limits *known, double rtt_ms,
	    char *err, size_t errlen);
	/* Undo a channel nobody took (sftp, ssh may be NULL; pid 0: none). */
	void (*undo)(struct sftp_conn *sftp, struct sshconn *ssh, pid_t pid);
};
extern const struct pool_dialer pool_dial_ssh;

/* How the pool's connections are made. */
struct pool_how {
	const char *proxy;	/* expanded ProxyCommand, or NULL */
	const char *direct;	/* ssm-direct address, or NULL */
	bool compress;
	int n;			/* connections */
	int per;		/* SFTP channels each, at most */
	size_t window;		/* each connection's receive window (0: the
				   transport's default) */
	bool probe;		/* the first says how many more start */
	bool upload;		/* ... for a copy that writes (route_plan_probe) */
	bool spec;		/* speculative: nobody waits for it yet */
	bool far_only;		/* ... wanted only for a far server: it stops
				   at a near server's first bytes */
	double delay_s;		/* > 0: the first connects this late, unless
				   the pool is stopped before */
	int wave;		/* > 0: SSM sessions start this many at a time,
				   each wave when route_plan_ssm_wave says */
	long long bytes;	/* the copy's size (-1: not known yet) */
	bool fixed;		/* the user set the count: waves, no re-plan */
	double start_cpu_s;	/* FSCP_SSM_START_CPU (0: measured) */
	bool gather;		/* the proxy hands data over in small messages
				   (SSM): its relay lets them gather */
	size_t proxy_pipe;	/* the pipe from the proxy holds this much
				   (0: the system's; route_proxy_pipe) */
	int limit;		/* > 0: no more than this many start until
				   pool_trim says how many (a size unknown) */
	int room;		/* > 0: this many more are held for the climb
				   (pool_climb); not with waves */
	const struct pool_dialer *dial;	/* NULL: pool_dial_ssh */
};

/* One channel that came up: its SFTP session, the libssh session it runs
 * on (one reference each) and the connection's proxy process (0: none). */
struct pool_conn {
	struct sftp_conn *sftp;
	struct sshconn *ssh;
	pid_t pid;
};

/* Start connecting; o and cfg must outlive the pool. */
struct pool *pool_start(const struct fscp_opts *o, const struct sshcfg *cfg,
    const struct pool_how *h);
/* Wait until every job is done, the first connection has failed (then
 * true: nothing came up to wait for), or, staged, one is up. */
bool pool_wait(struct pool *b, bool staged);
/* Wait until every job is done or the pool is stopped. */
void pool_wait_all(struct pool *b);
/* The finished channels nobody took yet, into out (room for pool_size);
 * failed ones are said under -v and closed.  Returns how many. */
int pool_take_done(struct pool *b, struct pool_conn *out);
/* The next channel that comes up (blocks); false when none is left or the
 * pool is stopped.  Called from the engine's threads. */
bool pool_next(struct pool *b, struct pool_conn *out);
/* No more are handed out (pool_end closes them). */
void pool_stop(struct pool *b);
/* Stop, join every thread, close what nobody took, free b (NULL: nothing).
 * report: say under -v how many came up. */
void pool_end(struct pool *b, bool report);
/* The size is known (bytes): SSM waves start up to n sessions in all (never
 * fewer than started, never more than the pool has): the new limit, or
 * -1 when it did not change or the pool has no waves. */
int pool_trim(struct pool *b, int n, long long bytes);
/* How far the copy is (bytes moved of total), for a pool that starts its
 * sessions in waves: it starts none that could not be up before the end.
 * pool_progress_tick_s: how often it wants to be told (0: never, for
 * NULL or a pool without waves). */
void pool_progress(struct pool *b, unsigned long long moved, unsigned long long total);
double pool_progress_tick_s(const struct pool *b);

/* The climb (pool_how.room): k more connections start now, from the
 * held ones; returns how many did.  pool_climb_end: no more will, and
 * pool_next stops waiting for them.  pool_coming: channels started and
 * not yet up or failed (0 for NULL). */
int pool_climb(struct pool *b, int k);
void pool_climb_end(struct pool *b);
int pool_coming(struct pool *b);
/* Connections still held for the climb (0 for NULL or once it ended). */
int pool_room(struct pool *b);
/* Planned connections a probing pool gave up once its first measured
 * (route_plan_probe; 0 for NULL). */
int pool_dropped(struct pool *b);

/* Channels not handed out yet (0 for NULL); of those, the ones planned
 * or climbed to (not the climb's room, unless the pool has nothing else
 * or was adopted with room);
 * all jobs; connections up. */
int pool_count(struct pool *b);
int pool_count_planned(struct pool *b);
int pool_size(const struct pool *b);
int pool_up(struct pool *b);
bool pool_speculative(const struct pool *b);
/* The round trip of the first connection's TCP handshake (ms), once it
 * is up; waits at most handshake_s from its begin and max_s from the
 * pool's start.  -1 when it was not up by then, failed first, or went
 * through a proxy. */
double pool_connect_ms(struct pool *b, double handshake_s, double max_s);
/* A speculative pool is wanted after all: a probing one whose first
 * connection has not yet said how many start starts up to want now.
 * Returns the connections it stands for (up, coming or failed); 0 for one
 * cut at the server's first bytes (not far), which cannot serve.  Its
 * climb's room, if any, then counts for the pieces (pool_count_planned). */
int pool_adopt(struct pool *b, int want);
/* The first connection's error, on one line; seconds since the start;
 * seconds from the start to the last connection up (< 0: none is). */
const char *pool_first_error(struct pool *b);
double pool_age(const struct pool *b);
double pool_ready_s(struct pool *b);

/* Close one channel's parts: its SFTP session, its libssh reference and,
 * with the last reference, its proxy.  True when it ended badly. */
bool pool_close_parts(struct sftp_conn *sftp, struct sshconn *ssh, pid_t pid);
/* Hang up on a proxy process and wait for it (0: none). */
void pool_reap(pid_t pid);
/* sshconn's messages can be ssh's multi-line warnings: -v wants one line
 * (msg is cut at its first line end). */
const char *pool_one_line(char *msg);

#endif

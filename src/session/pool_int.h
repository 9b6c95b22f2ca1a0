/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* pool_int: the pool's state, shared by pool.c (starting, handing out,
 * ending), pool_job.c (one connection's way up) and pool_wave.c (the pacer
 * that starts an SSM pool's later waves). */
#ifndef FSCP_POOL_INT_H
#define FSCP_POOL_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "policy/options.h"
#include "policy/route.h"
#include "policy/sshcfg.h"
#include "sftp/sftp.h"
#include "transport/sshconn.h"
#include "transport/stream.h"
#include "session/pool.h"

struct proxycmd_meter;

struct pool_job {
	const struct fscp_opts *o;
	const struct sshcfg *cfg;
	const char *proxy;		/* expanded ProxyCommand or NULL */
	const char *direct;		/* ssm-direct address or NULL */
	bool compress;
	struct pool *pool;
	int chan;			/* 0: the connection's own job; 1..: another
					   SFTP channel on that connection */
	struct fscp_stream stream;	/* a channel's, before its SFTP starts */
	struct sftp_hello hello;	/* what the connection's channels sent
					   with their subsystem request (the
					   own job's; len 0: nothing) */
	/* results */
	enum sshconn_err rc;
	char err[512];
	struct sshconn *ssh;		/* one reference per job */
	struct sftp_conn *sftp;
	pid_t pid;		/* the ProxyCommand; written under pool->lock */
	double ready_s;		/* seconds from the pool's start */
	bool done, taken;	/* under pool->lock */
	bool unused;		/* a channel slot the connection did not open */
	bool stopped;		/* its handshake was cut at the server's first
				   bytes (not far): no failure, under pool->lock */
	int abort_fd;		/* a dup of its socket while it connects, under
				   pool->lock; -1 when none */
	/* An SSM pool's measuring (the pacer's, pool_wave.c) */
	double start_s;		/* its thread started, seconds from t0 */
	int wave_no;		/* the wave it started in (from 1) */
	double up_cpu_s;	/* its proxy's CPU once it came up; < 0: not yet */
};

/* Connections being opened side by side, each with up to per SFTP
 * channels: jobs[c * per + k] is connection c's channel k.  The copy may
 * start on the first ones while the rest are still coming up (pool_next). */
struct pool {
	struct pool_job *jobs;
	pthread_t *tids;	/* one per job that has a thread ... */
	bool *has_tid;		/* ... which these say, under lock: POSIX
				   gives pthread_t no "none" value */
	int n;			/* jobs: connections * per */
	int per;
	size_t window;		/* each connection's receive window (0: default) */
	int ok;			/* connections up so far */
	int chans;		/* channels up so far */
	bool probe;		/* the first connection says how many more start */
	bool upload;		/* ... for a copy that writes */
	bool spec;		/* opened before the listing, in case it pays */
	bool never_add;		/* began speculative: new host keys are ssh's to
				   add; adopted since (spec false), its room
				   counts for the pieces (pool_count_planned) */
	bool far_only;		/* speculative, wanted only for a far server */
	bool gather;		/* pool_how's */
	size_t proxy_pipe;	/* pool_how's */
	double delay_s;		/* the first connection waits this long after t0 */
	double connect_began;	/* the first connection's TCP connect began
				   (clock_now; 0: not yet) */
	double connect_ms;	/* the round trip of its handshake; 0: not yet */
	int wave;		/* > 0: SSM sessions start in waves of this many,
				   when measurements say (pool_wave.c) */
	int waves;		/* waves started so far */
	long long bytes;	/* the copy's size; -1: not known yet */
	bool fixed;		/* the user set the count (FSCP_CONNECTIONS) */
	double start_cpu_s;	/* FSCP_SSM_START_CPU; 0: measured */
	struct proxycmd_meter *meter;	/* bytes the SSM proxies moved */
	unsigned long long moved, total;	/* the copy's progress (pool_progress;
				   total 0: not told yet) */
	int planned;		/* connections the plan started with */
	int dropped;		/* ... of which the probe gave up (pool_expand) */
	int held;		/* the last held connections wait for the climb
				   (pool_climb): not started, not given up */
	bool climbing;		/* ... and the copy waits for them too */
	int climbed;		/* connections the climb started */
	pthread_t pacer;	/* starts the later waves, ... */
	bool has_pacer;		/* ... when there is one */
	bool expanded;		/* ... it has */
	int started;		/* connections whose thread was started */
	int limit;		/* no more than this many are started */
	bool sized;		/* the limit is final (else the pacer waits for
				   the listing to set it: pool_trim) */
	double t0, last;	/* start, and when the latest came up */
	bool stop;		/* no more wanted: abort what is still connecting */
	bool joined;		/* its owner is joining the threads */
	char *proxy, *direct;	/* the jobs' (outlive the caller's copies) */
	struct sftp_limits limits;	/* the first SFTP handshake's, for the rest */
	double rtt_ms;		/* the first keepalive's round trip, for the
				   rest (pool_rtt); < 0: none yet */
	const struct pool_dialer *dial;	/* how a connection is made */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* Under b->lock: start the connections up to (not including) upto. */
void pool_start_upto(struct pool *b, int upto);
/* Under b->lock: the connections not started are not wanted. */
void pool_give_up(struct pool *b);
/* Under b->lock: a probing pool now has total connections (the first
 * included); the others' slots are given up. */
void pool_expand(struct pool *b, int total);
/* Under b->lock: the connections that run (the plan's less those a probe
 * gave up, and the climb's). */
int pool_running(const struct pool *b);
/* The pacer's thread (pool_wave.c): starts the later waves. */
void *pool_pacer(void *arg);
/* How often the pacer measures (s). */
double pool_wave_tick_s(void);
/* A connection's thread (pool_job.c): brings connection j up, with its
 * channels. */
void *pool_connect_one(void *arg);
/* Under j->pool->lock: the job is over, one way or the other. */
void pool_job_finish(struct pool_job *j);
/* Start the SFTP of the got streams of j's connection (st), each extra
 * channel on a thread of its own; the slots it did not get are given up. */
void pool_channels_start(struct pool_job *j, struct fscp_stream *st, int got);

#endif

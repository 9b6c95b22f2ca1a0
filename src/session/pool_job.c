/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* pool_job: one connection of a pool on its way up, on its own thread
 * (pool_connect_one): its proxy, the libssh handshake and login, its SFTP
 * channels (each extra one's SFTP handshake on a thread of its own,
 * pool_channel_one), and what its first measurements (the server's first
 * bytes, the key exchange, the round trip) make a probing pool start.
 * pool.c starts these threads and joins them. */
#include "config.h"
#include "session/pool.h"
#include "session/pool_int.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/proc.h"
#include "policy/awsmsg.h"
#include "policy/route.h"
#include "policy/route_plan.h"
#include "transport/proxycmd.h"
#include "transport/sshconn.h"
#include "sftp/sftp.h"

/* Under j->pool->lock: the job is over, one way or the other. */
void
pool_job_finish(struct pool_job *j)
{
	struct pool *b = j->pool;

	if (j->abort_fd >= 0)
		close(j->abort_fd);
	j->abort_fd = -1;
	j->done = true;
	j->ready_s = clock_now() - b->t0;
	if (j->rc == SSHCONN_OK) {
		b->chans++;
		if (j->chan == 0)
			b->ok++;
		b->last = j->ready_s;
	}
	pthread_cond_broadcast(&b->cond);
}

/* A channel's SFTP handshake; the server's limits are asked once per
 * pool (all its connections go to one server). */
static struct sftp_conn *
pool_sftp_open(struct pool_job *j, struct fscp_stream st)
{
	struct pool *b = j->pool;
	struct sftp_limits known;
	struct sftp_conn *c;
	double ka;

	pthread_mutex_lock(&b->lock);
	known = b->limits;
	ka = b->rtt_ms;
	pthread_mutex_unlock(&b->lock);
	/* The limits' round trip may have waited for a delayed ACK (a proxy
	 * without TCP_NODELAY); the keepalives before it took that wait
	 * (pool_rtt). */
	c = b->dial->sftp(st, j->o->sftp_buflen, &(j - j->chan)->hello, &known, ka, j->err,
	    sizeof(j->err));
	if (c != NULL && known.known) {
		pthread_mutex_lock(&b->lock);
		if (!b->limits.known)
			b->limits = known;
		pthread_mutex_unlock(&b->lock);
	}
	return c;
}

/* Another channel of a connection that is up: its SFTP handshake. */
static void *
pool_channel_one(void *arg)
{
	struct pool_job *j = arg;

	j->sftp = pool_sftp_open(j, j->stream);
	j->rc = j->sftp != NULL ? SSHCONN_OK : SSHCONN_ERR_CHANNEL;
	pthread_mutex_lock(&j->pool->lock);
	/* The proxy is the connection's; a job still running has none, so
	 * that stopping the pool does not hang up on a connection in use. */
	j->pid = (j - j->chan)->pid;
	pool_job_finish(j);
	pthread_mutex_unlock(&j->pool->lock);
	return NULL;
}

/* The connection's channel slots past the first: those it opened get a
 * thread for their SFTP handshake, the rest are marked unused. */
void
pool_channels_start(struct pool_job *j, struct fscp_stream *st, int got)
{
	struct pool *b = j->pool;
	int base = (int)(j - b->jobs);

	pthread_mutex_lock(&b->lock);
	for (int k = 1; k < b->per; k++) {
		struct pool_job *x = &b->jobs[base + k];

		if (k < got && !b->stop) {
			x->stream = st[k];
			x->ssh = b->dial->ref(j->ssh);
			if (pthread_create(&b->tids[base + k], NULL, pool_channel_one, x) == 0) {
				b->has_tid[base + k] = true;
				continue;
			}
			x->stream.ops->close(x->stream.ctx);
			b->dial->undo(NULL, x->ssh, 0);
			x->ssh = NULL;
		} else if (k < got) {
			st[k].ops->close(st[k].ctx);
		}
		x->rc = SSHCONN_ERR_CHANNEL;
		x->unused = x->taken = x->done = true;
	}
	pthread_mutex_unlock(&b->lock);
}

/* Wait s seconds unless the pool is stopped meanwhile: true when the
 * time passed. */
static bool
pool_job_pause(struct pool_job *j, double s)
{
	struct pool *b = j->pool;
	double due = clock_now() + s;
	bool stop;

	pthread_mutex_lock(&b->lock);
	while (!b->stop && clock_now() < due) {
		struct timespec ts = clock_deadline(due - clock_now());

		(void)pthread_cond_timedwait(&b->cond, &b->lock, &ts);
	}
	stop = b->stop;
	pthread_mutex_unlock(&b->lock);
	return !stop;
}

/* Whether the pool was stopped: a try cut short is not one to retry. */
static bool
pool_stopped(struct pool *b)
{
	bool stop;

	pthread_mutex_lock(&b->lock);
	stop = b->stop;
	pthread_mutex_unlock(&b->lock);
	return stop;
}

/* The connection's socket, kept (as a dup) so that stopping the pool can
 * cut a handshake short instead of waiting for it. */
static void
pool_job_socket(void *arg, int fd)
{
	struct pool_job *j = arg;

	pthread_mutex_lock(&j->pool->lock);
	if (j->abort_fd >= 0)
		close(j->abort_fd);
	j->abort_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (j->pool->stop && j->abort_fd >= 0)
		shutdown(j->abort_fd, SHUT_RDWR);
	pthread_mutex_unlock(&j->pool->lock);
}

/* The connections a connection's channels are sized for (route_channels):
 * those that run. */
static int
pool_channel_conns(struct pool *b)
{
	int running;

	pthread_mutex_lock(&b->lock);
	running = pool_running(b);
	pthread_mutex_unlock(&b->lock);
	return running;
}

/* A speculative pool wanted only for a far server measured ms (the
 * server's first bytes, or its key exchange): not far, it stops, before
 * the rest of its handshake costs the server and this machine CPU.
 * Under b->lock; true when it stopped. */
static bool
pool_spec_stops(struct pool_job *j, double ms, const char *what)
{
	struct pool *b = j->pool;

	if (!b->far_only || !b->spec || b->expanded || !route_plan_spec_stops(ms))
		return false;
	log_debug(1, "%s after %.1f ms: not far, the speculative connection stops", what, ms);
	b->stop = true;
	j->stopped = true;
	if (j->abort_fd >= 0)
		shutdown(j->abort_fd, SHUT_RDWR);
	pthread_cond_broadcast(&b->cond);
	return true;
}

/* Under b->lock: a probing pool's first connection told "what ... ms",
 * and route_plan_probe says conns start now (0: wait), why for -v. */
static void
pool_probe_at(struct pool *b, const char *what, double ms, int conns, const char *why)
{
	if (!b->probe || b->expanded || conns <= 0)
		return;
	log_verbose("%s %.1f ms: %d connection%s at once%s%s", what, ms, conns,
	    conns == 1 ? " starts" : "s start", why != NULL ? ": " : "", why != NULL ? why : "");
	pool_expand(b, conns);
}

/* The first connection's banner came: a far server's others start now. */
static void
pool_first_byte(void *arg, double ms)
{
	struct pool_job *j = arg;
	struct pool *b = j->pool;
	/* Only a probing pool asks (b->probe is set at its start): this runs
	 * inside libssh, before its key exchange message goes. */
	const char *why = NULL;
	int conns = b->probe ? route_plan_probe(ROUTE_PROBE_BANNER, ms, b->planned,
	    proc_cores(), b->upload, &why) : 0;

	log_debug(2, "the server's first bytes came after %.1f ms", ms);
	pthread_mutex_lock(&b->lock);
	/* Not far, a far-only pool stops: the plan wants none. */
	if (!pool_spec_stops(j, ms, "the server's first bytes came"))
		pool_probe_at(b, "the server's first bytes came after", ms, conns, why);
	pthread_mutex_unlock(&b->lock);
}

/* The first connection's key exchange took ms, about one round trip:
 * through a proxy, where the banner comes late after the proxy's and the
 * server's start, the nearer measure; for an upload, what sizes the
 * pool.  False: it stops. */
static bool
pool_kex(void *arg, double ms)
{
	struct pool_job *j = arg;
	struct pool *b = j->pool;
	const char *why = NULL;
	int conns = b->probe ? route_plan_probe(ROUTE_PROBE_KEX, ms, b->planned, proc_cores(),
	    b->upload, &why) : 0;
	bool stops;

	log_debug(2, "the key exchange took %.1f ms", ms);
	pthread_mutex_lock(&b->lock);
	stops = pool_spec_stops(j, ms, "the key exchange was done");
	if (!stops)
		pool_probe_at(b, "the key exchange took", ms, conns, why);
	pthread_mutex_unlock(&b->lock);
	return !stops;
}

/* The first connection's TCP connect began (ms < 0) or is up. */
static void
pool_connected(void *arg, double ms)
{
	struct pool_job *j = arg;
	struct pool *b = j->pool;

	if (ms >= 0)
		log_debug(2, "the TCP handshake took %.2f ms", ms);
	pthread_mutex_lock(&b->lock);
	if (ms < 0)
		b->connect_began = clock_now();
	else
		b->connect_ms = ms > 0 ? ms : 1e-3;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/* The first connection is in and measured the round trip: a near
 * server is worth fewer connections (CPU-bound), a far one all. */
static void
pool_probe_done(struct pool_job *j, double rtt)
{
	struct pool *b = j->pool;
	const char *why;
	int conns = route_plan_probe(ROUTE_PROBE_LOGIN, rtt, b->planned, proc_cores(), b->upload,
	    &why);

	pthread_mutex_lock(&b->lock);
	if (b->probe && !b->expanded) {
		if (why != NULL)
			log_verbose("server answers in %.2f ms and this machine has %d cores: "
			    "%d fresh connection%s: %s", rtt, proc_cores(), conns,
			    conns == 1 ? "" : "s", why);
		pool_expand(b, conns);
	}
	pthread_mutex_unlock(&b->lock);
}

/* The round trip, for the channel count (route_channels) and for a
 * probing pool's count of connections.  The login's service request has
 * usually measured it; when a delayed ACK held that back, keepalives
 * measure it, a round trip in series before the connection's channels
 * open (sshconn_measure_rtt).  All of a pool's connections go the same
 * way (one server, one kind of proxy), so one that comes up after another
 * has measured takes that one's.  A probing pool's first connection with
 * one channel needs none once its far banner has started the others.  A
 * download's one channel through a proxy measures too: a proxy without
 * TCP_NODELAY (nc) may hold the first small exchange after the login for
 * a delayed ACK, and the keepalives take that wait, not the SFTP round
 * trip the route decides by.  (Not an SSM session's: its round trips are dear, and its
 * data channel, not a window, caps it.) */
static double
pool_rtt(struct pool_job *j, bool first)
{
	struct pool *b = j->pool;
	double rtt;
	bool need;

	pthread_mutex_lock(&b->lock);
	rtt = b->rtt_ms;
	need = b->per > 1 || (j->proxy != NULL && b->window > 0) || (first && !b->expanded);
	pthread_mutex_unlock(&b->lock);
	if (rtt >= 0)
		return rtt;
	/* Not needed, it is still taken when the login measured it: the
	 * limits request then need not (pool_dial_streams). */
	rtt = b->dial->measure_rtt(j->ssh, !need);
	pthread_mutex_lock(&b->lock);
	if (rtt >= 0 && b->rtt_ms < 0)
		b->rtt_ms = rtt;
	pthread_mutex_unlock(&b->lock);
	return rtt;
}

void *
pool_connect_one(void *arg)
{
	struct pool_job *j = arg;
	struct sshconn_params p = {
		.cfg = j->cfg, .proxy_fd = -1, .compress = j->compress,
		.connect_host = j->direct, .may_prompt = false,
	};
	bool lead = j == j->pool->jobs;	/* the pool's first connection */
	bool first = lead && j->pool->probe;
	struct fscp_stream st[ROUTE_MAX_CHANNELS];
	int got = 0;

	struct proxycmd_hold *hold = NULL;

	p.on_socket = pool_job_socket;
	p.cb_arg = j;
	/* A speculative connection leaves adding a new host key to ssh's. */
	p.never_add = j->pool->never_add;
	p.read_buf = j->pool->window;
	if (lead) {
		p.on_first_byte = pool_first_byte;
		p.on_connect = pool_connected;
		if (j->pool->far_only || (j->pool->probe && j->pool->upload))
			p.on_kex = pool_kex;
	}
	if (lead && j->pool->delay_s > 0) {
		if (!pool_job_pause(j, j->pool->t0 + j->pool->delay_s - clock_now())) {
			j->rc = SSHCONN_ERR_CONNECT;
			snprintf(j->err, sizeof(j->err), "not needed after all");
			goto out;
		}
		log_debug(1, "no route yet after %.0f ms: the bypass connections start",
		    j->pool->delay_s * 1e3);
	}
	for (int attempt = 0;; attempt++) {
		if (j->proxy != NULL) {
			pid_t pid = 0;
			struct proxycmd_how how = { .meter = j->pool->meter,
				.gather = j->pool->gather, .out_pipe = j->pool->proxy_pipe };

			p.proxy_fd = proxycmd_spawn_metered(j->proxy, &pid, &hold, &how,
			    j->err, sizeof(j->err));
			pthread_mutex_lock(&j->pool->lock);
			j->pid = pid;
			if (j->pool->stop && pid > 0)
				proc_hangup(pid);
			pthread_mutex_unlock(&j->pool->lock);
			if (p.proxy_fd < 0) {
				j->rc = SSHCONN_ERR_CONNECT;
				goto out;
			}
		}
		j->rc = j->pool->dial->open(&p, &j->ssh, j->err, sizeof(j->err));
		if (j->rc == SSHCONN_OK)
			break;
		/* AWS refuses StartSession calls that come too fast: try again
		 * a little later (0.5, 1, 2 s), then give this one up; the copy
		 * goes on with the sessions it has. */
		if (j->rc != SSHCONN_ERR_CONNECT || attempt >= 3 || pool_stopped(j->pool) ||
		    !proxycmd_hold_has(hold, awsmsg_is_throttled, 200) ||
		    !pool_job_pause(j, 0.5 * (1 << attempt)))
			goto out;
		log_verbose("SSM StartSession throttled: connection %d tries again",
		    (int)(j - j->pool->jobs) / j->pool->per + 1);
		proxycmd_hold_end(hold, false);
		hold = NULL;
		pthread_mutex_lock(&j->pool->lock);
		pid_t old = j->pid;

		j->pid = 0;
		pthread_mutex_unlock(&j->pool->lock);
		pool_reap(old);
	}
	double rtt = pool_rtt(j, first);

	if (first)
		pool_probe_done(j, rtt);
	/* A far server gives every channel its own window: what more round
	 * trips in flight need, without another handshake. */
	got = j->pool->dial->streams(j->ssh, j->pool->per > 1 ?
	    route_channels(rtt, pool_channel_conns(j->pool), j->pool->per) : 1, rtt >= 0, st,
	    &j->hello, j->err, sizeof(j->err));
	if (got < 1) {
		j->rc = SSHCONN_ERR_CHANNEL;
		goto out;
	}
	if (got > 1)
		log_debug(1, "%d SFTP channels on one connection", got);
	else if (j->pool->window > 0)
		log_debug(1, "one SFTP channel on the connection, with a window of %zu KiB",
		    (j->pool->window < SSHCONN_READ_BUF_MAX ? j->pool->window :
		    SSHCONN_READ_BUF_MAX) >> 10);
	pool_channels_start(j, st, got);
	j->sftp = pool_sftp_open(j, st[0]);
	if (j->sftp == NULL)
		j->rc = SSHCONN_ERR_CHANNEL;
out:
	if (got < 1)
		pool_channels_start(j, st, 0);
	if (first && j->rc != SSHCONN_OK) {
		/* The caller falls back (or goes on with what it has). */
		pthread_mutex_lock(&j->pool->lock);
		pool_expand(j->pool, 1);
		pthread_mutex_unlock(&j->pool->lock);
	}
	/* A connection that came up shows what its proxy said; a failed one's
	 * words come again from ssh's own try (or -v says why it failed). */
	proxycmd_hold_end(hold, j->rc == SSHCONN_OK);
	pthread_mutex_lock(&j->pool->lock);
	pool_job_finish(j);
	pthread_mutex_unlock(&j->pool->lock);
	if (j->rc == SSHCONN_OK)
		log_debug(1, "connection ready in %.2f s", j->ready_s);
	return NULL;
}

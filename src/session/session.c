/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* session: the connections one host gets, as the route decides.
 *
 * session_open gathers the facts (facts.c) and asks the route, then opens
 * ssh exactly as scp would (standard) or a pool of fresh libssh
 * connections (pool.c), and falls back to the standard route when the
 * bypass cannot connect or log in without prompting.  After a download's
 * listing, session_grow adds the connections its size pays for. */
#include "config.h"
#include "session/session.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/mtext.h"
#include "util/proc.h"
#include "util/xmalloc.h"
#include "policy/sshcfg.h"
#include "transport/proxycmd.h"
#include "transport/sshconn.h"
#include "transport/sshproc.h"
#include "sftp/sftp.h"
#include "session/facts.h"
#include "session/pool.h"

struct session {
	char *host, *user;
	int port;
	enum route_kind route;
	/* The engine's joiner thread adds connections (session_next_conn)
	 * while the main thread may reconnect, reserve room or drop them:
	 * lock guards every write of conns, ssh, proxy_pids and nconns.
	 * Reads are the main thread's, while no joiner runs. */
	pthread_mutex_t lock;
	struct sftp_conn **conns;	/* nconns SFTP sessions */
	struct sshconn **ssh;		/* libssh sessions (bypass), else NULL */
	pid_t *proxy_pids;		/* ProxyCommand children we run, 0 if none */
	int nconns;
	int data_from;			/* the copy uses conns[data_from..]; the
					   ones before (a listing) rest */
	struct route_tuning tune;	/* chunk and bytes in flight per channel */
	struct pool *pending;		/* connections still coming up */
	struct sshcfg *cfg;		/* ssh -G's answer (NULL: not asked or failed) */
	bool master_live;		/* the ControlPath answered */
	char *bypass_proxy;		/* how the bypass connects, for a reconnect */
	char *bypass_direct;
	bool bypass_compress;
	bool may_grow;			/* standard until the size is known */
};

static void session_reserve(struct session *s, int more);
static int session_bypass_wait(struct session *s, const struct pool_how *h, bool staged);

/* The pool is done with: see pool_end. */
static void
session_pool_end(struct session *s, bool report)
{
	pool_end(s->pending, report);
	s->pending = NULL;
}

/* One channel that came up, into the session's arrays (reserved when its
 * pool was installed). */
static struct sftp_conn *
session_add(struct session *s, const struct pool_conn *c)
{
	pthread_mutex_lock(&s->lock);
	s->conns[s->nconns] = c->sftp;
	s->ssh[s->nconns] = c->ssh;
	s->proxy_pids[s->nconns] = c->pid;
	s->nconns++;
	pthread_mutex_unlock(&s->lock);
	return c->sftp;
}

/* Every channel of the pool that is done and not taken yet. */
static void
session_take_done(struct session *s)
{
	struct pool_conn *got = xcalloc((size_t)pool_size(s->pending), sizeof(*got));
	int n = pool_take_done(s->pending, got);

	for (int i = 0; i < n; i++)
		(void)session_add(s, &got[i]);
	free(got);
}

struct sftp_conn *
session_next_conn(struct session *s)
{
	struct pool_conn c;

	return pool_next(s->pending, &c) ? session_add(s, &c) : NULL;
}

void
session_stop_pending(struct session *s)
{
	pool_stop(s->pending);
}

int
session_pending_count(const struct session *s)
{
	return pool_count(s->pending);
}

/* Open h->n bypass connections at once and add those that work to the
 * session.  Unstaged: wait for all.  Staged: return as soon as one is up
 * (at once when the session has connections already), leaving the others
 * to session_next_conn.  Returns how many channels were added, 0 when the
 * first connection failed (the caller then falls back; the others are
 * closed) or for a speculative pool (session_spec_adopt takes it). */
static int
session_open_bypass(struct session *s, const struct fscp_opts *o, const struct pool_how *h,
    bool staged)
{
	session_pool_end(s, true);	/* one pool at a time */
	s->pending = pool_start(o, s->cfg, h);
	return session_bypass_wait(s, h, staged);
}

/* The rest of session_open_bypass, once the session's pool has started
 * from h. */
static int
session_bypass_wait(struct session *s, const struct pool_how *h, bool staged)
{
	int had = s->nconns;
	bool first_failed = false;
	struct pool *b = s->pending;

	if (h->spec)
		return 0;
	if (!(staged && had > 0))
		first_failed = pool_wait(b, staged);
	if (had == 0 && first_failed) {
		log_route("bypass failed: %s; falling back to the standard route",
		    pool_first_error(b));
		session_pool_end(s, false);	/* closes them all */
		return 0;
	}
	session_reserve(s, pool_size(b));
	session_take_done(s);
	if (!staged)
		session_pool_end(s, true);
	else if (session_pending_count(s) > 0)
		log_verbose("%d of %d %sconnections up in %.2f s: the copy starts, the others "
		    "join as they come up", pool_up(b), h->n, had > 0 ? "more " : "",
		    pool_age(b));
	else
		session_pool_end(s, true);
	return s->nconns - had;
}

/* The speculative connections, now that the route says they pay (of want
 * connections).  A pool that has them all stays the session's: they join
 * the copy as they come up.  A smaller one (the one beside
 * a listing, mostly up by now) is waited for and taken, and makes room
 * for the next pool.  Returns the connections it stands for. */
static int
session_spec_adopt(struct session *s, int want)
{
	struct pool *b = s->pending;
	int conns;

	if (!pool_speculative(b))
		return 0;
	conns = pool_adopt(b, want);
	if (conns < want) {
		pool_wait_all(b);
		conns = pool_up(b);
		session_take_done(s);
		session_pool_end(s, false);
		return conns;
	}
	/* The connection that listed carries the copy meanwhile. */
	session_reserve(s, pool_size(b));
	session_take_done(s);
	if (session_pending_count(s) > 0)
		log_verbose("%d of %d connections up in %.2f s: the copy starts, the others "
		    "join as they come up", pool_up(b), conns, pool_age(b));
	else
		session_pool_end(s, true);
	return conns;
}

/* No ssh runs for this host, so what it would have said is ours to say:
 * ssh -G's warnings, and the server's banner (sshd's Banner), which ssh
 * shows as it logs in at LogLevel INFO or more, escaped as ssh escapes
 * it; once, from the first connection that has one.  Not beside a live
 * master: scp's ssh then logs in through it and shows no banner. */
static void
session_say_for_ssh(const struct sshcfg *cfg, bool master_live, struct sshconn *const *ssh,
    int n)
{
	if (cfg->warnings != NULL)
		fputs(cfg->warnings, stderr);
	if (master_live || !cfg->loginfo)
		return;
	for (int i = 0; i < n; i++) {
		const char *b = ssh != NULL ? sshconn_banner(ssh[i]) : NULL;

		if (b != NULL) {
			char *v = mtext_vis(b);

			fputs(v, stderr);
			free(v);
			return;
		}
	}
}

/* A server whose banner comes this soon is near (sshd's own start takes
 * 5-6 ms here): a download from it lists over the speculative connection. */
#define SESSION_NEAR_BANNER_MS	8.0

/* Near, the speculative connection lists, and ssh does not run: its login
 * costs more CPU than a near copy can spare (in a 0.45 s download of 256
 * MiB, ~75 ms of ssh's, most of it its sntrup761 key exchange, and ~100
 * ms of sshd's), and a failed try costs little this near (ssh then
 * lists, as before).  Only where a non-interactive login looks likely.
 * True when the session has its first connection. */
static bool
session_spec_lists(struct session *s, const struct fscp_opts *o)
{
	struct pool *b = s->pending;
	double ms;

	if (!sshconn_may_log_in(s->cfg))
		return false;
	ms = pool_first_byte_ms(b, SESSION_NEAR_BANNER_MS / 1e3);
	if (ms < 0 || ms >= SESSION_NEAR_BANNER_MS) {
		log_debug(1, "no first bytes from the server within %.0f ms: ssh lists",
		    SESSION_NEAR_BANNER_MS);
		return false;
	}
	(void)pool_adopt(b, 1);
	pool_wait_all(b);
	if (pool_up(b) > 0) {
		session_reserve(s, pool_size(b));
		session_take_done(s);
	}
	if (s->nconns == 0) {
		log_route("bypass failed: %s; falling back to the standard route",
		    pool_first_error(b));
		session_pool_end(s, false);
		return false;
	}
	session_pool_end(s, false);
	log_route("route fresh: the server's first bytes came after %.1f ms: the bypass "
	    "connection lists, without ssh", ms);
	session_say_for_ssh(s->cfg, false, s->ssh, s->nconns);
	s->route = ROUTE_FRESH;
	s->bypass_compress = o->compress || s->cfg->compression;
	return true;
}

/* SSM sessions for a download were planned before its size was known,
 * and only the one that lists and one more started: now that the listing
 * has told, the waves start up to what the copy is worth (each start
 * costs a CLI's CPU, which the running sessions' relays need, and a
 * StartSession call). */
static void
session_ssm_trim(struct session *s, const struct fscp_opts *o, long long bytes)
{
	struct route_ssm_cost c = { .cores = proc_cores(), .start_cpu_s = o->ssm_start_cpu_s };
	char size[32];
	int limit;

	if (s->route != ROUTE_SSM_PARALLEL || s->pending == NULL || bytes < 0 ||
	    o->connections > 0)
		return;
	limit = pool_trim(s->pending, route_ssm_sessions(bytes, &c, ROUTE_SSM_MAX_SESSIONS, NULL));
	if (limit < 0)
		return;
	route_format_bytes(bytes, size, sizeof(size));
	log_verbose("listed: %s to move, %d SSM session%s in all", size, limit,
	    limit == 1 ? "" : "s");
}

/* ---- what the command line reads ---------------------------------- */

struct sftp_conn **
session_conns(const struct session *s, int *n)
{
	*n = s->nconns - s->data_from;
	return s->conns + s->data_from;
}

struct sftp_conn *
session_list_conn(const struct session *s)
{
	return s->conns[0];
}

struct sftp_conn *
session_data_conn(struct session *s)
{
	struct sftp_conn *c;

	for (int i = s->nconns - 1; i >= 0; i--)
		if (s->ssh != NULL && s->ssh[i] != NULL)
			return s->conns[i];
	if ((c = session_next_conn(s)) != NULL)
		return c;
	return s->conns[0];
}

const struct route_tuning *
session_tuning(const struct session *s)
{
	return &s->tune;
}

bool
session_is_for(const struct session *s, const char *host, const char *user, int port)
{
	return s != NULL && strcmp(s->host, host) == 0 && s->port == port &&
	    (s->user == NULL ? user == NULL : user != NULL && strcmp(s->user, user) == 0);
}

void
session_end_pending(struct session *s)
{
	session_pool_end(s, true);
}

/* Make room for more connections in the session's arrays; connections
 * before from (ssh pipes of a standard route) have no libssh session. */
static void
session_reserve(struct session *s, int more)
{
	pthread_mutex_lock(&s->lock);
	size_t cap = (size_t)(s->nconns + more);

	s->conns = xrealloc(s->conns, cap * sizeof(*s->conns));
	if (s->ssh == NULL) {
		s->ssh = xcalloc(cap, sizeof(*s->ssh));
		s->proxy_pids = xcalloc(cap, sizeof(*s->proxy_pids));
	} else {
		s->ssh = xrealloc(s->ssh, cap * sizeof(*s->ssh));
		s->proxy_pids = xrealloc(s->proxy_pids, cap * sizeof(*s->proxy_pids));
	}
	pthread_mutex_unlock(&s->lock);
}

/* The quickest SFTP round trip among the connections; -1 when none was
 * measured. */
static double
session_rtt(const struct session *s)
{
	double best = -1;

	for (int i = 0; i < s->nconns; i++) {
		double ms = sftp_rtt_ms(s->conns[i]);

		/* A server without limits@openssh.com: the TCP connect's. */
		if (ms < 0 && s->ssh && s->ssh[i])
			ms = sshconn_connect_ms(s->ssh[i]);
		if (ms >= 0 && (best < 0 || ms < best))
			best = ms;
	}
	return best;
}

/* Bytes in flight per connection: SSM sessions have their own budget;
 * everything else keeps the round trip covered and no more. */
static void
session_set_inflight(struct session *s)
{
	double ms = session_rtt(s);
	struct route_tuning t;

	route_tuning(s->route, ms, &t);
	s->tune = t;
	log_debug(1, "round trip %.2f ms: %llu KiB in flight per SFTP channel (%llu KiB "
	    "uploading)", ms, (unsigned long long)(t.read_inflight >> 10),
	    (unsigned long long)(t.write_inflight >> 10));
}

struct session_closer {
	struct sftp_conn *sftp;
	struct sshconn *ssh;
	pid_t pid;
	bool bad;
};

static void *
session_close_one(void *arg)
{
	struct session_closer *k = arg;

	k->bad = pool_close_parts(k->sftp, k->ssh, k->pid);
	return NULL;
}

/* Close connections from index keep on; returns how many of them ended
 * badly (a non-zero exit status of ssh or of the SFTP channel).  Each close
 * waits a round trip for the server's exit status: through SSM that is
 * ~40 ms, so twelve sessions are closed side by side, not in turn. */
static int
session_drop_from(struct session *s, int keep)
{
	int n = s->nconns - keep, bad = 0;
	struct session_closer *closers;
	pthread_t *tids;
	bool *started;	/* POSIX gives pthread_t no "none" value */

	if (n <= 0)
		return 0;
	closers = xcalloc((size_t)n, sizeof(*closers));
	tids = xcalloc((size_t)n, sizeof(*tids));
	started = xcalloc((size_t)n, sizeof(*started));
	for (int i = 0; i < n; i++) {
		closers[i].sftp = s->conns[keep + i];
		closers[i].ssh = s->ssh ? s->ssh[keep + i] : NULL;
		closers[i].pid = s->proxy_pids ? s->proxy_pids[keep + i] : 0;
		started[i] = n > 1 &&
		    pthread_create(&tids[i], NULL, session_close_one, &closers[i]) == 0;
		if (!started[i])
			session_close_one(&closers[i]);
	}
	for (int i = 0; i < n; i++) {
		if (started[i])
			pthread_join(tids[i], NULL);
		bad += closers[i].bad;
	}
	free(closers);
	free(tids);
	free(started);
	pthread_mutex_lock(&s->lock);
	s->nconns = keep;
	pthread_mutex_unlock(&s->lock);
	return bad;
}

/* false when the server answered INIT with something else (scp's error(),
 * said here; the caller's next line depends on the operand). */
static bool
session_open_standard(struct session *s, const struct fscp_opts *o)
{
	struct fscp_stream st;
	char err[256];

	if (o->sftp_direct != NULL) {
		if (sshproc_direct(o, &st) != 0)
			log_fatal("Unable to open sftp connection");
	} else if (sshproc_sftp(o, s->host, s->user, s->port, &st) != 0) {
		session_pool_end(s, false);	/* a speculative one: no thread at exit */
		log_fatal("Unable to open sftp connection");
	}
	s->conns = xcalloc(1, sizeof(*s->conns));
	s->conns[0] = sftp_open(st, o->sftp_buflen, NULL, err, sizeof(err));
	if (s->conns[0] == NULL) {
		session_pool_end(s, false);
		if (strcmp(err, SFTP_CLOSED) == 0)
			log_fatal("%s", err);
		log_error("%s", err);
		return false;
	}
	s->nconns = 1;
	s->route = ROUTE_STANDARD;
	return true;
}

/* How long an upload through a master waits for its SFTP to open before
 * fresh connections start anyway: twice what a near one takes here. */
#define SESSION_SPEC_DELAY_S	0.06

/* Worth a speculative connection beside ssh's listing: a host the bypass
 * may grow onto after the listing (a plain one, or one behind a proxy
 * that is not SSM; a live master lists without a handshake anyway). */
static bool
session_spec_wanted(const struct route_input *in, int want)
{
	return want == 0 && in->cfg != NULL && !in->master_live && !in->ssm &&
	    in->connections_wanted != 1 && !in->legacy_or_special;
}

/* How often a lookup running beside the start is looked in on (the idle
 * CPU since it started is measured again). */
#define SESSION_LOOKUP_POLL_S	0.05

/* An SSM download of unknown size whose direct address is looked for
 * (f->direct_later): the lookup runs on its own thread, and the first
 * session (h, one of them) starts beside it as soon as the CPU idle
 * since the lookup started says it would not slow the lookup down
 * (route_lookup_beside_now), else after it as h says.  Returns -1 when the
 * lookup found a direct address (f says the new route; a session started
 * beside it is ended, most likely still in its CLI's start-up), else what
 * session_open_bypass returns. */
static int
session_open_looking(struct session *s, const struct fscp_opts *o, struct facts *f,
    const struct pool_how *h)
{
	struct pool_how one = *h;
	struct proc_cpu_sample a, b;
	struct facts_lookup *l;
	bool beside = false;
	double t0;

	one.limit = 1;
	session_pool_end(s, true);
	proc_cpu_sample(&a);
	t0 = clock_now();
	l = facts_lookup_start(f, o);
	while (!facts_lookup_wait(l, beside ? 1.0 : SESSION_LOOKUP_POLL_S)) {
		double idle;

		if (beside)
			continue;
		proc_cpu_sample(&b);
		idle = proc_idle_cores(&a, &b);
		if (!route_lookup_beside_now(idle, clock_now() - t0))
			continue;
		log_verbose("%.1f cores idle: 1 SSM session starts while the direct address is "
		    "looked for", idle);
		s->pending = pool_start(o, s->cfg, &one);
		beside = true;
	}
	if (facts_lookup_end(l)) {
		session_pool_end(s, false);
		return -1;
	}
	if (beside)
		return session_bypass_wait(s, &one, true);
	if (h->limit > 0)
		log_verbose("size unknown: %d SSM sessions start until the listing tells it",
		    h->limit);
	return session_open_bypass(s, o, h, true);
}

static struct session *
session_open_n(const struct fscp_opts *o, const char *host, const char *user, int port,
    long long bytes, const char *sample, int want)
{
	struct session *s = xcalloc(1, sizeof(*s));
	struct facts f;
	struct route_input in;
	struct route_decision d;
	struct sshcfg *cfg;
	char *proxy = NULL, *direct;
	bool compress;

	pthread_mutex_init(&s->lock, NULL);
	s->host = xstrdup(host);
	s->user = user ? xstrdup(user) : NULL;
	s->port = port;
	facts_gather(&f, o, host, user, port, bytes, want, false);
	in = f.in;
	d = f.d;
	cfg = s->cfg = f.cfg;
	direct = f.direct;
again:
	if (d.kind != ROUTE_STANDARD && cfg != NULL) {
		int n;

		if (d.kind != ROUTE_SSM_DIRECT)
			proxy = facts_proxy_command(o, cfg);
		compress = o->compress || cfg->compression;
		if (!compress && d.kind == ROUTE_SSM_PARALLEL && facts_sample_compresses(sample)) {
			log_verbose("data compresses well: zlib on over SSM");
			compress = true;
		}
		/* SSM sessions come up over a second or more, some later than
		 * others: the copy starts on the first.  Direct connections:
		 * the first one tells the round trip (a far one by its banner
		 * already); a near server is given fewer, and the copy starts
		 * while the others connect. */
		bool probe_first = d.kind != ROUTE_SSM_PARALLEL && proxy == NULL &&
		    in.connections_wanted == 0 && d.connections > 1;

		/* An SSM session is capped by its data channel, not a window:
		 * more channels in it gain nothing. */
		int per = d.kind == ROUTE_SSM_PARALLEL ? 1 : ROUTE_MAX_CHANNELS;

		struct pool_how h = { .proxy = proxy, .direct = direct,
			.compress = compress, .n = d.connections, .per = per,
			.probe = probe_first, .wave = d.wave, .wave_s = d.wave_s,
			.limit = d.before_size };

		if (f.direct_later) {
			n = session_open_looking(s, o, &f, &h);
			if (n < 0) {
				/* A direct address: taken instead (the session
				 * that started beside the lookup has ended). */
				in = f.in;
				d = f.d;
				direct = f.direct;
				free(proxy);
				proxy = NULL;
				goto again;
			}
		} else {
			if (h.limit > 0)
				log_verbose("size unknown: %d SSM sessions start until the listing "
				    "tells it", h.limit);
			n = session_open_bypass(s, o, &h,
			    d.kind == ROUTE_SSM_PARALLEL || probe_first);
		}
		if (n > 0) {
			session_say_for_ssh(cfg, in.master_live, s->ssh, s->nconns);
			s->route = d.kind;
			s->bypass_proxy = proxy ? xstrdup(proxy) : NULL;
			s->bypass_direct = direct ? xstrdup(direct) : NULL;
			s->bypass_compress = compress;
		}
	}
	s->may_grow = s->route == ROUTE_STANDARD && d.grow && cfg != NULL && o->sftp_direct == NULL;
	if (s->nconns == 0 && s->may_grow && session_spec_wanted(&in, want)) {
		/* A download's size comes with its listing, over ssh; far away the
		 * bypass connection would then cost its handshake in series.  It
		 * starts now, beside ssh's: session_grow takes it when the copy
		 * pays for it and ends it (cut short) when not. */
		free(proxy);
		proxy = cfg->proxycommand != NULL || cfg->proxyjump != NULL ?
		    facts_proxy_command(o, cfg) : NULL;
		if (proxy != NULL || (cfg->proxycommand == NULL && cfg->proxyjump == NULL)) {
			log_debug(1, "a bypass connection starts while ssh lists");
			struct pool_how h = { .proxy = proxy,
				.compress = o->compress || cfg->compression, .n = 1,
				.per = ROUTE_MAX_CHANNELS, .spec = true };

			(void)session_open_bypass(s, o, &h, true);
			if (proxy == NULL)
				(void)session_spec_lists(s, o);
		}
	} else if (s->nconns == 0 && s->may_grow && in.master_live && bytes >= 0 &&
	    in.connections_wanted == 0 && cfg->proxycommand == NULL && cfg->proxyjump == NULL) {
		/* An upload through a master waits for the round trip its SFTP
		 * measures as it opens (ssh's start and 4 round trips: 30 ms
		 * near, 220 ms at 50 ms); fresh connections take about 10
		 * round trips.  Unless the master has answered first, they
		 * start after SESSION_SPEC_DELAY_S: the first one's banner
		 * tells a far server, and the others start at once.  A near
		 * copy thus pays for no handshake it does not use (one cut
		 * after its login made a 64 MiB copy 9% slower). */
		log_debug(1, "fresh connections start if the master's SFTP is slow to open");
		struct pool_how h = { .compress = o->compress || cfg->compression,
			.n = ROUTE_FRESH_CONNS - 1, .per = ROUTE_MAX_CHANNELS, .probe = true,
			.spec = true, .delay_s = SESSION_SPEC_DELAY_S };

		(void)session_open_bypass(s, o, &h, true);
	}
	if (s->nconns == 0) {
		if (!session_open_standard(s, o)) {
			free(proxy);
			facts_free(&f);
			(void)session_close(s);
			return NULL;
		}
		if (s->pending != NULL)
			session_reserve(s, pool_size(s->pending));
	}
	session_set_inflight(s);
	s->master_live = in.master_live;
	free(proxy);
	facts_free(&f);
	/* Through a master the size may be known already (an upload): the
	 * master's SFTP has just measured the round trip, so whether fresh
	 * connections pay is known now, before the planning, and they come
	 * up while it runs. */
	if (s->may_grow && s->master_live && bytes >= 0)
		(void)session_grow(s, o, bytes);
	return s;
}

/* A legacy stream on a bypass: the exec channel, and the connection (and
 * proxy) it alone uses. */
struct session_exec {
	struct fscp_stream ch;
	struct sshcfg *cfg;	/* ssh -G's answer */
	struct sshconn *ssh;
	pid_t proxy_pid;
};

static ssize_t
session_exec_read(void *ctx, void *buf, size_t n)
{
	struct session_exec *x = ctx;

	return x->ch.ops->read(x->ch.ctx, buf, n);
}

static ssize_t
session_exec_write(void *ctx, const void *buf, size_t n)
{
	struct session_exec *x = ctx;

	return x->ch.ops->write(x->ch.ctx, buf, n);
}

static void
session_exec_free(struct session_exec *x)
{
	if (x->cfg != NULL) {
		sshcfg_free(x->cfg);
		free(x->cfg);
	}
	free(x);
}

static int
session_exec_close(void *ctx)
{
	struct session_exec *x = ctx;
	int rc = x->ch.ops->close(x->ch.ctx);

	sshconn_close(x->ssh);
	pool_reap(x->proxy_pid);
	session_exec_free(x);
	return rc;
}

static const struct fscp_stream_ops session_exec_ops = {
	.read = session_exec_read,
	.write = session_exec_write,
	.close = session_exec_close,
};

/* One libssh connection for x, through the host's proxy (not for a
 * direct SSM address); false with the reason in err. */
static bool
session_exec_connect(struct session_exec *x, const struct fscp_opts *o,
    const struct facts *f, const char *cmd, char *err, size_t errlen)
{
	struct sshconn_params p = {
		.cfg = x->cfg, .proxy_fd = -1, .connect_host = f->direct,
		.compress = o->compress || x->cfg->compression, .may_prompt = false,
	};
	char *proxy = f->d.kind == ROUTE_SSM_DIRECT ? NULL : facts_proxy_command(o, x->cfg);

	if (proxy != NULL) {
		p.proxy_fd = proxycmd_spawn(proxy, &x->proxy_pid, err, errlen);
		free(proxy);
		if (p.proxy_fd < 0)
			return false;
	}
	if (sshconn_open(&p, &x->ssh, err, errlen) != SSHCONN_OK)
		return false;
	if (sshconn_exec_stream(x->ssh, cmd, &x->ch, err, errlen) != SSHCONN_OK) {
		sshconn_close(x->ssh);
		x->ssh = NULL;
		return false;
	}
	return true;
}

int
session_exec_open(const struct fscp_opts *o, const char *host, const char *user,
    int port, long long bytes, const char *cmd, struct fscp_stream *out)
{
	struct session_exec *x = xcalloc(1, sizeof(*x));
	struct facts f;
	char err[512] = "";
	bool ok = false;

	facts_gather(&f, o, host, user, port, bytes, 0, true);
	x->cfg = f.cfg;
	/* The legacy protocol is one stream: only a route that is faster with
	 * one connection pays (a fresh one beside a busy master, a direct
	 * path around SSM).  A master with the size unknown stays. */
	if (x->cfg != NULL && !f.d.grow &&
	    (f.d.kind == ROUTE_FRESH || f.d.kind == ROUTE_SSM_DIRECT)) {
		ok = session_exec_connect(x, o, &f, cmd, err, sizeof(err));
		if (!ok)
			log_route("bypass failed: %s; falling back to the standard route",
			    err[0] ? pool_one_line(err) : "connection failed");
	} else if (f.d.kind != ROUTE_STANDARD) {
		log_route("route standard: the legacy protocol has one stream");
	}
	if (!ok) {
		facts_free(&f);
		pool_reap(x->proxy_pid);
		session_exec_free(x);
		return -1;
	}
	session_say_for_ssh(x->cfg, f.in.master_live, &x->ssh, 1);
	facts_free(&f);
	log_verbose("legacy protocol over a libssh exec channel: %s", cmd);
	out->ops = &session_exec_ops;
	out->ctx = x;
	out->desc = "libssh exec channel";
	return 0;
}

struct session *
session_open(const struct fscp_opts *o, const char *host, const char *user, int port,
    long long bytes, const char *sample)
{
	return session_open_n(o, host, user, port, bytes, sample, 0);
}

struct session *
session_open_one(const struct fscp_opts *o, const char *host, const char *user, int port)
{
	return session_open_n(o, host, user, port, -1, NULL, 1);
}

bool
session_grow(struct session *s, const struct fscp_opts *o, long long bytes)
{
	struct route_input in = { .cfg = s->cfg, .bytes = bytes, .master_live = s->master_live };
	struct route_decision d;
	int had = s->nconns;

	session_ssm_trim(s, o, bytes);
	if (!s->may_grow)
		return false;
	s->may_grow = false;
	in.connections_wanted = o->connections;
	in.cores = proc_cores();
	in.rtt_ms = session_rtt(s);
	route_decide(&in, &d);
	/* Listed over a bypass connection of its own (near): it is one of
	 * the connections, and carries the copy. */
	bool listed_bypass = s->ssh != NULL && s->ssh[0] != NULL;

	if (d.kind != ROUTE_FRESH && d.kind != ROUTE_PROXIED) {
		session_pool_end(s, false);	/* a speculative one, cut short */
		if (listed_bypass)
			log_route("route fresh: %s; the connection that listed carries it",
			    d.reason);
		else
			log_route("route stays standard: %s", d.reason);
		return false;
	}
	/* Fresh: the ssh connection is one of them already.  Proxied: the
	 * listing one has ssh's narrow windows, the new one comes on top. */
	int want = d.kind == ROUTE_PROXIED ? d.connections : d.connections - 1;
	double rtt = in.rtt_ms;
	int near = route_near_connections(rtt, in.cores);
	bool near_only = near > 0 && in.connections_wanted == 0 && d.kind == ROUTE_FRESH;
	/* Through the host's proxy whenever it has one (beside a master too:
	 * a direct connect would go where the config does not send it). */
	bool via_proxy = d.kind == ROUTE_PROXIED || s->cfg->proxycommand != NULL ||
	    s->cfg->proxyjump != NULL;
	char *proxy = via_proxy ? facts_proxy_command(o, s->cfg) : NULL;

	if (near_only && listed_bypass) {
		want = near - 1;
		if (want <= 0) {
			log_route("route fresh: %s (after listing); the server answers in %.2f ms "
			    "and this machine has %d cores: the connection that listed carries it",
			    d.reason, rtt, in.cores);
			session_pool_end(s, false);
			free(proxy);
			return false;
		}
		log_route("route fresh: %s (after listing); the server answers in %.2f ms and "
		    "this machine has %d cores: the connection that listed and %d more",
		    d.reason, rtt, in.cores, want);
	} else if (near_only) {
		/* The listing measured the round trip: a near server is bound
		 * by CPU, and the data goes faster over a libssh connection than
		 * through an ssh process (256 MiB: 0.80 s against 1.1 s).  Open
		 * what a near server is given; the listing connection rests. */
		want = near;
		log_route("route %s: %s (after listing); the server answers in %.2f ms and "
		    "this machine has %d cores: %d fresh connection%s", route_name(d.kind),
		    d.reason, rtt, in.cores, near, near == 1 ? "" : "s");
	} else {
		log_route("route %s: %s (after listing)", route_name(d.kind), d.reason);
	}
	if (via_proxy && proxy == NULL) {
		session_pool_end(s, false);
		log_route("route stays standard: the proxy command cannot be run here");
		return false;
	}
	/* The one started beside ssh's listing counts; a far server's others
	 * join while the listing connection starts on the data (at 50 ms a
	 * libssh connection takes half a second). */
	int adopted = session_spec_adopt(s, want);

	if (adopted > 0)
		log_verbose("the connection opened while listing joins the copy");
	want -= adopted;
	if (want > 0) {
		struct pool_how h = { .proxy = proxy,
			.compress = o->compress || s->cfg->compression, .n = want,
			.per = ROUTE_MAX_CHANNELS };

		(void)session_open_bypass(s, o, &h, !near_only);
	}
	if (s->nconns == had && session_pending_count(s) == 0) {
		log_route("route standard: no fresh connection came up; the listing one "
		    "carries the copy");
		free(proxy);
		return false;
	}
	if (near_only && !listed_bypass)
		s->data_from = had;
	s->route = d.kind;
	s->bypass_proxy = proxy;
	s->bypass_compress = o->compress || s->cfg->compression;
	session_set_inflight(s);
	return s->nconns > had || session_pending_count(s) > 0;
}

struct sftp_conn *
session_reconnect(struct session *s, const struct fscp_opts *o)
{
	int had = s->nconns;

	if (s->route == ROUTE_STANDARD || s->cfg == NULL)
		return NULL;
	struct pool_how h = { .proxy = s->bypass_proxy, .direct = s->bypass_direct,
		.compress = s->bypass_compress, .n = 1, .per = 1 };

	if (session_open_bypass(s, o, &h, false) <= 0 || s->nconns == had)
		return NULL;
	return s->conns[s->nconns - 1];
}

int
session_close(struct session *s)
{
	int bad;

	if (s == NULL)
		return 0;
	session_pool_end(s, true);
	bad = session_drop_from(s, 0);
	if (s->cfg) {
		sshcfg_free(s->cfg);
		free(s->cfg);
	}
	free(s->conns);
	free(s->ssh);
	free(s->proxy_pids);
	free(s->host);
	free(s->user);
	free(s->bypass_proxy);
	free(s->bypass_direct);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return bad;
}

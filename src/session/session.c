/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* session: the connections one host gets, as the route decides.
 *
 * session_open gathers the facts (facts.c) and asks the route and its plan
 * (policy/route_plan), then opens what the plan says: ssh exactly as scp
 * would (standard) or a pool of fresh libssh connections (pool.c), and
 * falls back to the standard route when the bypass cannot connect or log
 * in without prompting.  After a download's listing, session_grow adds
 * the connections the plan's growth says, and during the copy the climb
 * (session_climb.c) adds more while they pay.  Nothing here decides. */
#include "config.h"
#include "session/session.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/cpuidle.h"
#include "util/log.h"
#include "util/mtext.h"
#include "util/proc.h"
#include "util/xmalloc.h"
#include "policy/proxyjump.h"
#include "policy/route_plan.h"
#include "policy/sshcfg.h"
#include "transport/sshconn.h"
#include "transport/sshmux.h"
#include "transport/sshproc.h"
#include "sftp/sftp.h"
#include "session/facts.h"
#include "session/pool.h"
#include "session/session_climb.h"
#include "session/session_int.h"

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
	struct route_facts facts;	/* what the plan is given (points to cfg) */
	struct cpuidle_sample cpu0;	/* /proc/stat when the session opened */
	char *bypass_proxy;		/* how the bypass connects, for a reconnect */
	char *bypass_direct;
	bool bypass_compress;
	bool may_grow;			/* standard until the size is known */
	double spec_ready_s;		/* how long the speculative connection
					   took to come up (< 0: none did) */
	struct session_climb climb;	/* the main thread's, during the copy */
};

static void session_reserve(struct session *s, int more);
static int session_bypass_wait(struct session *s, const struct pool_how *h, bool staged);
static double session_rtt(const struct session *s);

/* The pool a plan says, made with proxy, direct and compress. */
static struct pool_how
session_how(const struct session *s, const struct route_pool_plan *p, const char *proxy,
    const char *direct, bool compress)
{
	struct pool_how h = { .proxy = proxy, .direct = direct, .compress = compress,
		.n = p->n, .per = p->per, .window = p->window, .probe = p->probe,
		.upload = p->upload, .spec = p->spec,
		.far_only = p->far_only, .room = p->room,
		.delay_s = p->delay_s, .wave = p->wave, .limit = p->limit,
		.bytes = p->bytes, .fixed = p->fixed, .start_cpu_s = p->start_cpu_s,
		/* Through SSM, the data channel's small messages. */
		.gather = s->facts.ssm,
		.proxy_pipe = route_proxy_pipe(proxy) };

	return h;
}

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

int
session_planned_count(const struct session *s)
{
	return pool_count_planned(s->pending);
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
		    "join as they come up", pool_up(b), h->n - pool_dropped(b),
		    had > 0 ? "more " : "", pool_age(b));
	else
		session_pool_end(s, true);
	return s->nconns - had;
}

/* The speculative connections, now that the route says they pay (of want
 * connections).  A pool that has them all stays the session's while some
 * still come up: they join the copy as they do, and the climb goes on in
 * its room.  A smaller one (the one beside a listing, mostly up by now)
 * is waited for and taken, and makes room for the next pool.  Returns
 * the connections it stands for. */
static int
session_spec_adopt(struct session *s, int want)
{
	struct pool *b = s->pending;
	int conns;

	if (!pool_speculative(b))
		return 0;
	conns = pool_adopt(b, want);
	s->spec_ready_s = pool_ready_s(b);
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
	if (pool_coming(b) > 0)
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
void
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

/* The speculative connection lists instead of ssh where a non-interactive
 * login looks likely: through a proxy that is not ssh itself (the plan's
 * spec_lists_proxy, proxy its command), or when its TCP handshake took
 * less than the plan's spec_lists_ms (near).  True when the session has
 * its first connection. */
static bool
session_spec_lists(struct session *s, const struct route_plan *p, const char *proxy)
{
	struct pool *b = s->pending;
	double ms = -1;

	if (!sshconn_may_log_in(s->cfg))
		return false;
	if (!p->spec_lists_proxy) {
		ms = pool_connect_ms(b, p->spec_handshake_s, p->spec_wait_s);
		if (ms < 0 || ms >= p->spec_lists_ms) {
			if (ms < 0)
				log_debug(1, "no TCP handshake yet: ssh lists");
			else
				log_debug(1, "the TCP handshake took %.2f ms: not near, ssh lists",
				    ms);
			return false;
		}
	}
	(void)pool_adopt(b, 1);
	pool_wait_all(b);
	s->spec_ready_s = pool_ready_s(b);
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
	if (p->spec_lists_proxy) {
		log_route("route proxied: the bypass connection lists through the proxy, "
		    "without ssh");
		s->route = ROUTE_PROXIED;
		free(s->bypass_proxy);
		s->bypass_proxy = xstrdup(proxy);
	} else {
		log_route("route fresh: the TCP handshake took %.2f ms: the bypass connection "
		    "lists, without ssh", ms);
		s->route = ROUTE_FRESH;
	}
	session_say_for_ssh(s->cfg, false, s->ssh, s->nconns);
	s->bypass_compress = s->facts.compress;
	return true;
}

/* SSM sessions for a download were planned before its size was known,
 * and only the one that lists and one more started: now that the listing
 * has told, the waves start up to what the plan says the copy is worth. */
static void
session_ssm_trim(struct session *s, const struct route_measure *m)
{
	int total = route_plan_ssm_total(&s->facts, s->route, m);
	char size[32];
	int limit;

	if (s->pending == NULL || total <= 0)
		return;
	limit = pool_trim(s->pending, total, m->bytes);
	if (limit < 0)
		return;
	route_format_bytes(m->bytes, size, sizeof(size));
	log_verbose("listed: %s to move, %d SSM session%s in all", size, limit,
	    limit == 1 ? "" : "s");
}

/* The climb's tick, or the SSM waves' (they are told how far the copy
 * is), whichever is sooner. */
double
session_tick_s(const struct session *s)
{
	double climb = session_climb_tick_s(&s->climb), waves = pool_progress_tick_s(s->pending);

	return climb > 0 && (waves <= 0 || climb < waves) ? climb : waves;
}

double
session_tick(struct session *s, uint64_t moved, uint64_t total)
{
	pool_progress(s->pending, moved, total);
	return session_climb_tick(&s->climb, s->pending, &s->facts, moved, total);
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
	/* One connection for one stream: nothing to climb to. */
	pool_climb_end(s->pending);
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
	bool via_ssh = proxyjump_via_ssh(s->bypass_proxy);
	/* Every connection reaches the same server: the first's length. */
	uint32_t read_len = s->nconns > 0 ? sftp_max_read(s->conns[0]) : 0;

	route_tuning(s->route, ms, route_one_channel(s->facts.upload, via_ssh), via_ssh,
	    read_len, &t);
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

/* false when the session has no SFTP: err says why and whether that is
 * scp's fatal() (ssh did not start, or closed the connection); when the
 * server answered INIT with something else, scp's error() is said here
 * (the caller's next line depends on the operand). */
static bool
session_open_standard(struct session *s, const struct fscp_opts *o, bool on_master,
    struct session_err *err)
{
	struct fscp_stream st;
	char msg[256];
	int rc = -1;

	if (on_master) {
		/* The session scp's ssh would ask the master for, without
		 * that ssh.  When the master opens none, ssh runs and
		 * connects on its own, as scp's would have; once the master
		 * has answered, it is not asked a second time. */
		struct sshmux_request rq = { .path = s->cfg->controlpath, .subsystem = true,
			.cmd = "sftp", .sendenv = &s->cfg->sendenv, .setenv = &s->cfg->setenv };

		if ((rc = sshmux_open(&rq, &st, msg, sizeof(msg))) == 0)
			log_verbose("SFTP is a session on the master at %s", rq.path);
		else
			log_verbose("the master at %s opened no session (%s): ssh connects on its own",
			    rq.path, msg);
	}
	if (rc != 0)
		rc = o->sftp_direct != NULL ? sshproc_direct(o, &st) :
		    sshproc_sftp(o, s->host, s->user, s->port, rc == -2, &st);

	if (rc != 0) {
		session_pool_end(s, false);	/* a speculative one: no thread at exit */
		err->fatal = true;
		snprintf(err->msg, sizeof(err->msg), "Unable to open sftp connection");
		return false;
	}
	s->conns = xcalloc(1, sizeof(*s->conns));
	s->conns[0] = sftp_open(st, o->sftp_buflen, NULL, msg, sizeof(msg));
	if (s->conns[0] == NULL) {
		session_pool_end(s, false);
		snprintf(err->msg, sizeof(err->msg), "%s", msg);
		err->fatal = strcmp(msg, SFTP_CLOSED) == 0;
		if (!err->fatal)
			log_error("%s", msg);
		return false;
	}
	s->nconns = 1;
	s->route = ROUTE_STANDARD;
	return true;
}

/* How often a lookup running beside the start is looked in on (the idle
 * CPU since it started is measured again). */
#define SESSION_LOOKUP_POLL_S	0.05

/* -v: the SSM sessions that start before the listing tells the size. */
static void
session_say_limit(int limit)
{
	if (limit > 0)
		log_verbose("size unknown: %d SSM session%s start%s until the listing tells it",
		    limit, limit == 1 ? "" : "s", limit == 1 ? "s" : "");
}

/* An SSM download of unknown size whose direct address is looked for
 * (f->direct_later): the lookup runs on its own thread, and the plan's
 * first sessions (beside of them, from h) start beside it as soon as the
 * CPU idle since the lookup started says it would not slow the lookup down
 * (route_lookup_beside_now), else after it as h says.  Returns -1 when the
 * lookup found a direct address (f says the new route; a session started
 * beside it is ended, most likely still in its CLI's start-up), else what
 * session_open_bypass returns. */
static int
session_open_looking(struct session *s, const struct fscp_opts *o, struct facts *f,
    const struct pool_how *h, int beside_n)
{
	struct pool_how one = *h;
	struct cpuidle_sample a, b;
	struct facts_lookup *l;
	bool beside = false;
	double t0;

	one.limit = beside_n;
	session_pool_end(s, true);
	cpuidle_sample(&a);
	t0 = clock_now();
	l = facts_lookup_start(f, o);
	while (!facts_lookup_wait(l, beside ? 1.0 : SESSION_LOOKUP_POLL_S)) {
		double idle;

		if (beside)
			continue;
		cpuidle_sample(&b);
		idle = cpuidle_cores(&a, &b);
		if (!route_lookup_beside_now(idle, clock_now() - t0))
			continue;
		log_verbose("%.1f cores idle: %d SSM session%s start%s while the direct address "
		    "is looked for", idle, beside_n, beside_n == 1 ? "" : "s",
		    beside_n == 1 ? "s" : "");
		s->pending = pool_start(o, s->cfg, &one);
		beside = true;
	}
	if (facts_lookup_end(l)) {
		session_pool_end(s, false);
		return -1;
	}
	if (beside)
		return session_bypass_wait(s, &one, true);
	session_say_limit(h->limit);
	return session_open_bypass(s, o, h, true);
}

/* The bypass the plan p says, for the route f decided.  Returns the
 * channels that came up (0: the caller falls back to ssh), or -1 when a
 * direct address was found meanwhile (f says the new route: plan again). */
static int
session_open_route(struct session *s, const struct fscp_opts *o, struct facts *f,
    const char *sample, const struct route_plan *p)
{
	char *proxy = NULL;
	bool compress = p->compress;
	struct pool_how h;
	int n;

	if (p->pool.via_proxy && (proxy = facts_proxy_command(o, s->cfg)) == NULL) {
		log_route("route standard: the proxy command cannot be run here");
		return 0;
	}
	if (p->compress_sample && facts_sample_compresses(sample)) {
		log_verbose("data compresses well: zlib on over SSM");
		compress = true;
	}
	h = session_how(s, &p->pool, proxy, f->direct, compress);
	if (f->direct_later) {
		n = session_open_looking(s, o, f, &h, p->beside);
	} else {
		session_say_limit(h.limit);
		n = session_open_bypass(s, o, &h, p->pool.staged);
	}
	if (n > 0) {
		session_say_for_ssh(s->cfg, s->facts.master_live, s->ssh, s->nconns);
		session_climb_begin(&s->climb, s->pending, p->pool.n, p->pool.room, 0, -1,
		    session_rtt(s));
		s->route = p->kind;
		s->bypass_proxy = proxy;
		proxy = NULL;
		s->bypass_direct = f->direct ? xstrdup(f->direct) : NULL;
		s->bypass_compress = compress;
	}
	free(proxy);
	return n;
}

/* The plan's speculative pool, beside ssh's listing or the master's. */
static void
session_open_spec(struct session *s, const struct fscp_opts *o, const struct route_plan *p)
{
	char *proxy = NULL;
	struct pool_how h;

	if (p->spec.via_proxy && (proxy = facts_proxy_command(o, s->cfg)) == NULL)
		return;
	log_debug(1, "%s", p->spec_why);
	h = session_how(s, &p->spec, proxy, NULL, p->compress);
	(void)session_open_bypass(s, o, &h, p->spec.staged);
	/* Through a proxy, proxy is its command (above). */
	if (p->spec_lists_ms > 0 || p->spec_lists_proxy)
		(void)session_spec_lists(s, p, proxy);
	free(proxy);
}

static struct session *
session_open_n(const struct fscp_opts *o, const char *host, const char *user, int port,
    long long bytes, bool upload, const char *sample, int want, struct session_err *err)
{
	struct session *s = xcalloc(1, sizeof(*s));
	struct route_measure m = { .bytes = bytes, .rtt_ms = -1, .idle_cores = -1 };
	struct route_plan p;
	struct facts f;

	memset(err, 0, sizeof(*err));
	pthread_mutex_init(&s->lock, NULL);
	s->host = xstrdup(host);
	s->spec_ready_s = -1;
	s->user = user ? xstrdup(user) : NULL;
	s->port = port;
	facts_gather(&f, o, host, user, port, bytes, want, false);
	s->cfg = f.cfg;
	facts_route(&f, o, want, &s->facts);
	s->facts.upload = upload;
	cpuidle_sample(&s->cpu0);
	/* Planned again when a direct address turned up beside the start. */
	do
		route_plan_open(&s->facts, &f.d, &m, &p);
	while (p.pool.n > 0 && session_open_route(s, o, &f, sample, &p) < 0);
	s->may_grow = p.grow;
	if (s->nconns == 0 && p.spec.n > 0)
		session_open_spec(s, o, &p);
	if (s->nconns == 0) {
		if (!session_open_standard(s, o, p.on_master, err)) {
			facts_free(&f);
			(void)session_close(s);
			return NULL;
		}
		if (s->pending != NULL)
			session_reserve(s, pool_size(s->pending));
	}
	session_set_inflight(s);
	facts_free(&f);
	if (p.grow_at_open)
		(void)session_grow(s, o, bytes);
	return s;
}

struct session *
session_open(const struct fscp_opts *o, const char *host, const char *user, int port,
    long long bytes, bool upload, const char *sample, struct session_err *err)
{
	return session_open_n(o, host, user, port, bytes, upload, sample, 0, err);
}

struct session *
session_open_one(const struct fscp_opts *o, const char *host, const char *user, int port,
    bool upload, struct session_err *err)
{
	return session_open_n(o, host, user, port, -1, upload, NULL, 1, err);
}

/* What the session has measured since it opened, for the plan. */
static void
session_measure(const struct session *s, struct route_measure *m)
{
	struct cpuidle_sample now;

	m->rtt_ms = session_rtt(s);
	m->listed_bypass = s->ssh != NULL && s->ssh[0] != NULL;
	cpuidle_sample(&now);
	m->idle_cores = cpuidle_cores(&s->cpu0, &now);
}

bool
session_grow(struct session *s, const struct fscp_opts *o, long long bytes)
{
	struct route_measure m = { .bytes = bytes };
	struct route_growth g;
	struct pool_how h;
	int had = s->nconns, want;
	char *proxy = NULL;

	session_ssm_trim(s, &m);
	if (!s->may_grow)
		return false;
	s->may_grow = false;
	session_measure(s, &m);
	route_plan_grow(&s->facts, &m, &g);
	if (!g.grow) {
		session_pool_end(s, false);	/* a speculative one, cut short */
		log_route("%s", g.reason);
		return false;
	}
	log_route("%s", g.reason);
	if (g.pool.via_proxy && (proxy = facts_proxy_command(o, s->cfg)) == NULL) {
		session_pool_end(s, false);
		log_route("route stays standard: the proxy command cannot be run here");
		return false;
	}
	/* The one started beside ssh's listing counts; when the copy is to
	 * measure the master first, none joins before the climb says. */
	want = g.pool.n;
	if (want == 0 && pool_speculative(s->pending))
		session_pool_end(s, false);
	/* The listing one rests: the copy waits for the connection started
	 * beside it (mostly up by now); if that one failed, the listing one
	 * carries the copy after all (below). */
	if (g.rest_listing && pool_speculative(s->pending))
		(void)pool_wait(s->pending, true);
	int adopted = session_spec_adopt(s, want);
	/* The room of the one opened beside the listing, if it is still
	 * coming (the listing was quicker). */
	int room = adopted > 0 ? pool_room(s->pending) : 0;

	if (adopted > 0)
		log_verbose("the connection opened while listing joins the copy");
	want -= adopted;
	h = session_how(s, &g.pool, proxy, NULL, s->facts.compress);
	h.n = want;
	if (want > 0) {
		(void)session_open_bypass(s, o, &h, g.pool.staged);
		session_climb_begin(&s->climb, s->pending, g.pool.n + 1, g.pool.room, 0, -1,
		    session_rtt(s));
	} else if (g.pool.room > 0 && s->pending == NULL) {
		/* Every planned one is up (or none is planned yet): a pool of
		 * room only, to climb in. */
		s->pending = pool_start(o, s->cfg, &h);
		session_reserve(s, pool_size(s->pending));
		/* The one taken beside ssh's listing, or the one that
		 * listed instead of ssh, tells how long a new connection
		 * takes to join. */
		session_climb_begin(&s->climb, s->pending, g.pool.n + 1, g.pool.room, g.window_Bps,
		    s->spec_ready_s, session_rtt(s));
	} else if (room > 0) {
		/* The climb goes on in that room, and the connection's own
		 * time to come up is the first join. */
		session_climb_begin(&s->climb, s->pending, g.pool.n + 1,
		    room < g.pool.room ? room : g.pool.room, g.window_Bps, s->spec_ready_s,
		    session_rtt(s));
		if (!s->climb.on)
			pool_climb_end(s->pending);
	}
	if (s->nconns == had && session_pending_count(s) == 0) {
		log_route("route standard: no fresh connection came up; the listing one "
		    "carries the copy");
		free(proxy);
		return false;
	}
	if (g.rest_listing)
		s->data_from = had;
	s->route = g.kind;
	free(s->bypass_proxy);
	s->bypass_proxy = proxy;
	s->bypass_compress = s->facts.compress;
	session_set_inflight(s);
	return s->nconns > had || session_pending_count(s) > 0;
}

struct sftp_conn *
session_reconnect(struct session *s, const struct fscp_opts *o)
{
	struct route_pool_plan p;
	struct pool_how h;
	int had = s->nconns;

	if (s->route == ROUTE_STANDARD || s->cfg == NULL)
		return NULL;
	s->climb.on = false;	/* the pool it climbed in is ended */
	route_plan_reconnect(&p);
	h = session_how(s, &p, s->bypass_proxy, s->bypass_direct, s->bypass_compress);
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

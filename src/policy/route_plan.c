/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* route_plan: how a session carries the route out, pure (see route_plan.h).
 *
 * Opening.  SSM sessions come up over a second or more, some later than
 * others: the copy starts on the first, one channel each (a session is
 * capped by its data channel, not a window).  Direct connections (fresh,
 * ssm-direct): the first one tells the round trip (a far one by its banner
 * already), a near server is given fewer, and the copy starts while the
 * others connect.  Through a proxy every connection costs one more proxy,
 * so they all start as the route says.
 *
 * A standard route that decides again after the listing may start a
 * connection beside ssh's meanwhile (a far server's handshake then costs
 * nothing in series), and near, that one lists instead of ssh.
 *
 * Growth.  The listing measured the round trip: far, new connections join
 * the copy already running on the listing one; near, the copy is bound by
 * CPU, so a near server gets what route_near_connections gives and the
 * listing connection (an ssh process, slower than libssh) rests.  Through
 * a jump host near, the listing ssh rests too, and the connection started
 * beside it carries the copy.
 * Beside a near master nothing is added: the copy stays on it
 * (route_decide). */
#include "config.h"
#include "policy/route_plan.h"
#include "policy/proxyjump.h"
#include "policy/sshcfg.h"

#include <stdio.h>
#include <string.h>

/* How long an upload through a master waits for its SFTP to open before
 * fresh connections start anyway: twice what a near one takes here. */
#define ROUTE_PLAN_SPEC_DELAY_S	0.06

/* A download from a server whose TCP handshake took under ROUTE_NEAR_MS
 * lists over the speculative connection, and ssh does not run: its login
 * costs more CPU than a near copy can spare (most of it its sntrup761 key
 * exchange, and sshd's as much), and a failed try costs little this near
 * (ssh then lists, as before).  The handshake, not the server's banner:
 * the banner waits for sshd's start, which a slow or busy server takes
 * tens of ms for.  A local forwarder to a far server passes as near;
 * only a login that fails then costs a far one in series.  ssh not yet
 * started, the session waits for the handshake SPEC_WAIT_S at most from
 * the start (a name's lookup, libssh's loading) and SPEC_HANDSHAKE_S
 * from its begin (TCP's sample decides; the wait only bounds how late
 * ssh starts for a far server, with room for a busy machine's
 * scheduling). */
#define ROUTE_PLAN_SPEC_WAIT_S		0.05
#define ROUTE_PLAN_SPEC_HANDSHAKE_S	0.01

/* A banner later than this after the connect means a far server: a
 * probing pool's other connections start at once instead of after the
 * first's login. */
#define ROUTE_PLAN_FAR_BANNER_MS	10.0

/* The climb.  An addition must raise the goodput by this share, over an
 * interval of the same length, or the climb stops: less is within what a
 * busy machine's intervals differ by, and each connection costs the
 * server an sshd and both ends a stream of crypto. */
#define ROUTE_CLIMB_GAIN	0.10
/* A copy on ssh's one connection (a master's, a listing one's) that moves
 * at least this share of what its window allows is bound by the window
 * (the round trip measured idle is shorter than a loaded one): new
 * connections may raise it. */
#define ROUTE_CLIMB_WINDOW_SHARE	0.7
/* At most this many in all (a file is cut into pieces per connection,
 * and sshd drops unauthenticated connections beyond MaxStartups, 10 by
 * default: one addition stays under it). */
#define ROUTE_CLIMB_MAX_CONNS	16
#define ROUTE_CLIMB_STEP_MAX	8
/* An interval spans this many round trips at least, and never less than
 * ROUTE_CLIMB_MIN_S (the goodput of a shorter one is mostly noise). */
#define ROUTE_CLIMB_RTTS	10
#define ROUTE_CLIMB_MIN_S	0.25

/* Connections wanted for this session: the caller's cap, else the user's. */
static int
plan_wanted(const struct route_facts *f)
{
	return f->want > 0 ? f->want : f->connections;
}

/* Whether b's connections go through ssh itself (a jump host's ssh -W). */
static bool
plan_via_ssh(const struct route_facts *f, const struct route_pool_plan *b)
{
	return b->via_proxy && f->cfg != NULL &&
	    proxyjump_host_via_ssh(f->cfg->proxycommand, f->cfg->proxyjump);
}

/* The channels each connection of b opens, and the window it grants
 * (route_one_channel says which shape; b->via_proxy is set). */
static void
plan_channels(const struct route_facts *f, struct route_pool_plan *b)
{
	bool one = route_one_channel(f->upload, plan_via_ssh(f, b));

	b->per = one ? 1 : ROUTE_MAX_CHANNELS;
	b->window = one ? (size_t)ROUTE_INFLIGHT_MAX : 0;
}

/* Worth a speculative connection beside ssh's listing: a host the bypass
 * may grow onto after the listing (a plain one, or one behind a proxy
 * that is not SSM; a live master lists without a handshake anyway). */
static bool
plan_spec_wanted(const struct route_facts *f)
{
	return f->want == 0 && f->cfg != NULL && !f->master_live && !f->ssm &&
	    f->connections != 1 && !f->special;
}

/* The speculative pools of a standard route that decides again later. */
static void
plan_spec(const struct route_facts *f, const struct route_measure *m, struct route_plan *p)
{
	struct route_pool_plan *s = &p->spec;

	if (plan_spec_wanted(f)) {
		/* A download's size comes with its listing, over ssh; far
		 * away the bypass connection would then cost its handshake in
		 * series.  It starts now, beside ssh's: the growth takes it
		 * when the copy pays for it and ends it (cut short) when not. */
		s->n = 1;
		s->via_proxy = f->has_proxy;
		plan_channels(f, s);
		s->spec = s->staged = true;
		/* Through any proxy that is not ssh (nc, a plain relay) it
		 * lists instead of ssh, near or far: there, fscp's own
		 * connection lists and copies as fast as ssh's with less CPU
		 * (one ssh process and one proxy fewer).  When it may not (a
		 * login that could ask), ssh lists, and a near copy stays on
		 * ssh: this one stops at a near banner.  Through ssh itself
		 * it carries a near copy as well as a far one (route_decide),
		 * so it comes up whatever it measures; it lists too through a
		 * ProxyJump of one hop whose login asks nobody: ssh's listing
		 * would log in to the hop and the target once more than the
		 * copy needs.  Behind a ProxyCommand that runs ssh, whose
		 * login fscp cannot see, ssh lists. */
		s->far_only = s->via_proxy && !plan_via_ssh(f, s);
		p->spec_lists_proxy = s->far_only || (s->via_proxy && f->jump_batch &&
		    f->cfg->proxycommand == NULL);
		if (!f->has_proxy) {
			p->spec_lists_ms = ROUTE_NEAR_MS;
			p->spec_wait_s = ROUTE_PLAN_SPEC_WAIT_S;
			p->spec_handshake_s = ROUTE_PLAN_SPEC_HANDSHAKE_S;
		}
		/* The growth may take it while it still connects (the
		 * listing was quicker): it then stays the session's pool,
		 * and the climb, whose count the user did not set, goes on
		 * in it. */
		if (f->connections == 0)
			s->room = ROUTE_CLIMB_MAX_CONNS - 1;
		p->spec_why = "a bypass connection starts while ssh lists";
	} else if (f->master_live && m->bytes >= 0 && plan_wanted(f) == 0 && !f->has_proxy) {
		/* An upload through a master waits for the round trip its SFTP
		 * measures as it opens (ssh's start and 4 round trips: 30 ms
		 * near, 220 ms at 50 ms); fresh connections take about 10
		 * round trips.  Unless the master has answered first, they
		 * start after ROUTE_PLAN_SPEC_DELAY_S: the first one's banner
		 * tells a far server, and the others start at once.  A near
		 * copy thus pays for no handshake it does not use (one cut
		 * after its login made a 64 MiB copy 9% slower), and on a
		 * slow machine, whose master answers late, the first stops
		 * at a near server's banner: beside a near master the copy
		 * stays on it (route_decide). */
		s->n = ROUTE_FRESH_CONNS - 1;
		plan_channels(f, s);
		s->probe = s->spec = s->staged = s->far_only = true;
		s->delay_s = ROUTE_PLAN_SPEC_DELAY_S;
		p->spec_why = "fresh connections start if the master's SFTP is slow to open";
	}
}

bool
route_plan_on_master(const struct route_facts *f)
{
	const char *cm = f->cfg != NULL ? f->cfg->controlmaster : NULL;

	return f->master_live && !f->special && sshcfg_has_controlpath(f->cfg) &&
	    (cm == NULL || strcmp(cm, "auto") == 0 || strcmp(cm, "autoask") == 0 ||
	    strcmp(cm, "no") == 0);
}

void
route_plan_open(const struct route_facts *f, const struct route_decision *d,
    const struct route_measure *m, struct route_plan *p)
{
	struct route_pool_plan *b = &p->pool;

	memset(p, 0, sizeof(*p));
	p->kind = d->kind;
	p->compress = f->compress;
	if (d->kind != ROUTE_STANDARD && f->cfg != NULL) {
		/* ssm-direct goes around the proxy; every other bypass
		 * connects where the config sends ssh. */
		b->via_proxy = d->kind != ROUTE_SSM_DIRECT && f->has_proxy;
		b->probe = d->kind != ROUTE_SSM_PARALLEL && !b->via_proxy &&
		    plan_wanted(f) == 0 && d->connections > 1;
		b->n = d->connections;
		b->upload = f->upload;
		plan_channels(f, b);
		if (d->kind == ROUTE_SSM_PARALLEL) {
			/* Its data channel, not a window, caps a session. */
			b->per = 1;
			b->window = 0;
		}
		b->wave = d->wave;
		b->limit = d->before_size;
		/* A direct route the user did not size may climb; so may one
		 * through a proxy, whose connection may be held to a window
		 * of the proxy's own (ssh -W's, through a jump host). */
		if ((b->probe || d->kind == ROUTE_PROXIED) && plan_wanted(f) == 0 &&
		    b->n < ROUTE_CLIMB_MAX_CONNS)
			b->room = ROUTE_CLIMB_MAX_CONNS - b->n;
		/* A pool that may climb stays the session's after its first. */
		b->staged = d->kind == ROUTE_SSM_PARALLEL || b->probe || b->room > 0;
		b->bytes = m->bytes;
		b->fixed = plan_wanted(f) > 0;
		b->start_cpu_s = f->ssm_start_cpu_s;
		p->compress_sample = d->kind == ROUTE_SSM_PARALLEL && !f->compress;
		/* Beside a direct address's lookup, one session: a second
		 * CLI would slow the lookup down. */
		p->beside = 1;
	}
	p->on_master = route_plan_on_master(f);
	/* d->grow comes only with the standard route; a bypass that failed
	 * falls back to ssh and has its size planned already. */
	p->grow = d->grow && f->cfg != NULL;
	if (!p->grow)
		return;
	plan_spec(f, m, p);
	/* Through a master the size may be known already (an upload): the
	 * master's SFTP has just measured the round trip, so whether fresh
	 * connections pay is known now, before the planning, and they come
	 * up while it runs. */
	p->grow_at_open = f->master_live && m->bytes >= 0;
}

void
route_plan_grow(const struct route_facts *f, const struct route_measure *m,
    struct route_growth *g)
{
	struct route_input in = { .cfg = f->cfg, .bytes = m->bytes, .master_live = f->master_live,
		.connections_wanted = f->connections, .cores = f->cores, .rtt_ms = m->rtt_ms,
		.idle_known = m->idle_cores >= 0, .idle_cores = m->idle_cores,
		.listed_bypass = m->listed_bypass && f->has_proxy };
	struct route_decision d;
	struct route_pool_plan *b = &g->pool;

	memset(g, 0, sizeof(*g));
	route_decide(&in, &d);
	if (d.kind != ROUTE_FRESH && d.kind != ROUTE_PROXIED) {
		/* Listed over a bypass connection of its own (near, or through
		 * a proxy that is not ssh): it carries the copy. */
		if (m->listed_bypass)
			snprintf(g->reason, sizeof(g->reason), "route %s: %s; the connection "
			    "that listed carries it", f->has_proxy ? "proxied" : "fresh", d.reason);
		else
			snprintf(g->reason, sizeof(g->reason), "route stays standard: %s",
			    d.reason);
		return;
	}
	if (d.window_Bps > 0) {
		/* The copy goes on over ssh (a master's or the listing one's,
		 * standard tuning, scp's window) in a pool of room only: the
		 * climb measures it before any new connection starts. */
		g->grow = true;
		g->kind = ROUTE_STANDARD;
		g->window_Bps = d.window_Bps;
		b->via_proxy = d.kind == ROUTE_PROXIED || f->has_proxy;
		plan_channels(f, b);
		b->staged = true;
		b->room = ROUTE_CLIMB_MAX_CONNS - 1;
		snprintf(g->reason, sizeof(g->reason), "route stays standard: %s",
		    d.reason);
		return;
	}
	if (d.rest_listing) {
		/* Near, through ssh itself: the copy moves to the connection
		 * started beside the listing (the session waits for it), and
		 * is bound by CPU: what route_near_connections gives, unless
		 * the user set the count. */
		int near = route_near_connections(m->rtt_ms, f->cores);

		g->grow = true;
		g->kind = ROUTE_PROXIED;
		g->rest_listing = true;
		b->n = f->connections > 0 ? d.connections : near > 0 ? near : 1;
		b->via_proxy = true;
		plan_channels(f, b);
		snprintf(g->reason, sizeof(g->reason), "route proxied: %s (after listing)",
		    d.reason);
		return;
	}
	/* Fresh, or listed through the proxy: the listing connection is one
	 * of them already.  Proxied after ssh listed: ssh has its narrow
	 * windows, the new one comes on top. */
	int want = d.kind == ROUTE_PROXIED && !m->listed_bypass ? d.connections :
	    d.connections - 1;
	int near = route_near_connections(m->rtt_ms, f->cores);
	bool near_only = near > 0 && f->connections == 0 && d.kind == ROUTE_FRESH;

	g->grow = true;
	g->kind = d.kind;
	if (near_only && m->listed_bypass) {
		want = near - 1;
		if (want <= 0) {
			g->grow = false;
			snprintf(g->reason, sizeof(g->reason), "route fresh: %s (after listing); the "
			    "server answers in %.2f ms and this machine has %d cores: the "
			    "connection that listed carries it", d.reason, m->rtt_ms, f->cores);
			return;
		}
		snprintf(g->reason, sizeof(g->reason), "route fresh: %s (after listing); the server "
		    "answers in %.2f ms and this machine has %d cores: the connection that "
		    "listed and %d more", d.reason, m->rtt_ms, f->cores, want);
	} else if (near_only) {
		/* A near server is bound by CPU, and the data goes faster over
		 * a libssh connection than through an ssh process (256 MiB:
		 * 0.80 s against 1.1 s): the listing connection rests. */
		want = near;
		g->rest_listing = true;
		snprintf(g->reason, sizeof(g->reason), "route %s: %s (after listing); the server "
		    "answers in %.2f ms and this machine has %d cores: %d fresh connection%s",
		    route_name(d.kind), d.reason, m->rtt_ms, f->cores, near, near == 1 ? "" : "s");
	} else {
		snprintf(g->reason, sizeof(g->reason), "route %s: %s (after listing)",
		    route_name(d.kind), d.reason);
	}
	b->n = want;
	/* Through the host's proxy whenever it has one (beside a master
	 * too: a direct connect would go where the config does not send it). */
	b->via_proxy = d.kind == ROUTE_PROXIED || f->has_proxy;
	plan_channels(f, b);
	/* Far, the listing connection starts on the data meanwhile (at 50
	 * ms a libssh connection takes half a second). */
	b->staged = !near_only;
	/* Far, with the count not the user's: the copy may climb (the
	 * listing connection counts).  Through a proxy too: what one
	 * connection moves there may be held to the proxy's own window
	 * (ssh -W's through a jump host), and only the goodput tells. */
	if (b->staged && f->connections == 0 && want + 1 < ROUTE_CLIMB_MAX_CONNS)
		b->room = ROUTE_CLIMB_MAX_CONNS - want - 1;
}

uint64_t
route_plan_climb_settle_bytes(const struct route_climb *c)
{
	/* A few windows: the channel's and TCP's ramp are behind it (a
	 * master 25 ms away measured 54-69 MB/s over its first interval,
	 * 70-76 after).  Elsewhere the first acknowledged byte: an upload
	 * puts a whole window in flight per channel before its first
	 * answer, and on a slow machine far away an interval that starts
	 * before that one measures nothing moved. */
	return c->window_Bps > 0 ? 4 * ROUTE_SSH_WINDOW : 1;
}

double
route_plan_climb_settle_s(const struct route_climb *c, double interval_s)
{
	/* A fresh connection beside a master 25 ms away, measured over the
	 * interval right after it joined: 3-8% below the master alone, and
	 * taken back; the copies where it stayed took 2.2-2.4 s, not 3.4. */
	return c->window_Bps > 0 ? interval_s : 0;
}

double
route_plan_climb_interval_s(double rtt_ms)
{
	double s = rtt_ms > 0 ? rtt_ms / 1000.0 * ROUTE_CLIMB_RTTS : 0;

	return s > ROUTE_CLIMB_MIN_S ? s : ROUTE_CLIMB_MIN_S;
}

int
route_plan_climb(const struct route_facts *f, struct route_climb *c,
    const struct route_climb_measure *m, char *reason, size_t len)
{
	double mbs = m->goodput_Bps / 1e6, gain = 0;
	bool after = c->before_Bps > 0;
	int add;

	if (c->done) {
		snprintf(reason, len, "climb: over");
		return 0;
	}
	c->done = true;
	if (after)
		gain = m->goodput_Bps / c->before_Bps - 1;
	if (f->connections > 0) {
		snprintf(reason, len, "climb: FSCP_CONNECTIONS=%d is fixed: %d connections",
		    f->connections, c->conns);
		return 0;
	}
	if (m->left_s == 0 || !(m->goodput_Bps > 0)) {
		snprintf(reason, len, "climb: %s with %d connections: it stops there",
		    m->left_s == 0 ? "all the data is moved" : "no data moved over the interval",
		    c->conns);
		return 0;
	}
	/* The last addition made the copy slower (more CPU, more sshd, more
	 * streams than the path or the machine carries): its connections
	 * stop taking work, and the copy goes on as before it. */
	if (after && gain < 0 && c->last_add > 0) {
		int back = c->last_add;

		snprintf(reason, len, "climb: goodput %.1f -> %.1f MB/s (%+.0f%%) with %d "
		    "connections: the %d added last take no more work", c->before_Bps / 1e6,
		    mbs, gain * 100, c->conns, back);
		c->conns -= back;
		c->last_add = 0;
		return -back;
	}
	if (after && gain < ROUTE_CLIMB_GAIN) {
		snprintf(reason, len, "climb: goodput %.1f -> %.1f MB/s (%+.0f%%) with %d "
		    "connections, under +%.0f%%: it stops there", c->before_Bps / 1e6, mbs,
		    gain * 100, c->conns, ROUTE_CLIMB_GAIN * 100);
		return 0;
	}
	if (!(m->idle_cores >= ROUTE_CLIMB_IDLE_CORES)) {
		snprintf(reason, len, "climb: goodput %.1f MB/s with %d connections, %.2f cores "
		    "idle: CPU-bound, it stops there", mbs, c->conns, m->idle_cores);
		return 0;
	}
	if (m->room <= 0 || c->conns >= ROUTE_CLIMB_MAX_CONNS) {
		snprintf(reason, len, "climb: goodput %.1f MB/s with %d connections: no room for "
		    "more", mbs, c->conns);
		return 0;
	}
	if (!after && c->window_Bps > 0) {
		/* On ssh's one connection so far: a new one is worth
		 * its handshake only when the window is what holds the copy
		 * back, and when the copy lasts long enough for one to join:
		 * about an interval, as many round trips as a handshake takes
		 * and the CPU of one on a busy machine. */
		double join = m->interval_s;

		if (m->goodput_Bps < ROUTE_CLIMB_WINDOW_SHARE * c->window_Bps) {
			snprintf(reason, len, "climb: goodput %.1f MB/s on ssh's connection, "
			    "whose window allows %.1f MB/s: the window does not hold it back, "
			    "it stays there", mbs, c->window_Bps / 1e6);
			return 0;
		}
		if (m->left_s >= 0 && m->left_s < 2 * join) {
			snprintf(reason, len, "climb: goodput %.1f MB/s on ssh's connection: the "
			    "copy ends in %.2f s, a new connection takes about %.2f s to join: "
			    "it stays there", mbs, m->left_s, join);
			return 0;
		}
	}
	if (m->join_s >= 0 && m->left_s >= 0 && m->left_s < 2 * m->join_s) {
		snprintf(reason, len, "climb: goodput %.1f MB/s with %d connections: the copy "
		    "ends in %.2f s, new ones take %.2f s to join: it stops there", mbs,
		    c->conns, m->left_s, m->join_s);
		return 0;
	}
	/* Each step doubles, as a window does in slow start, so that a far
	 * copy reaches its best count in a few intervals. */
	add = c->conns < 1 ? 1 : c->conns;
	if (add > ROUTE_CLIMB_STEP_MAX)
		add = ROUTE_CLIMB_STEP_MAX;
	if (add > m->room)
		add = m->room;
	if (c->conns + add > ROUTE_CLIMB_MAX_CONNS)
		add = ROUTE_CLIMB_MAX_CONNS - c->conns;
	if (after)
		snprintf(reason, len, "climb: goodput %.1f -> %.1f MB/s (%+.0f%%), %.2f cores idle: "
		    "%d connections, %d more", c->before_Bps / 1e6, mbs, gain * 100,
		    m->idle_cores, c->conns, add);
	else
		snprintf(reason, len, "climb: goodput %.1f MB/s, %.2f cores idle: %d connections, "
		    "%d more", mbs, m->idle_cores, c->conns, add);
	c->done = false;
	c->before_Bps = m->goodput_Bps;
	c->conns += add;
	c->last_add = add;
	return add;
}

int
route_plan_ssm_total(const struct route_facts *f, enum route_kind kind,
    const struct route_measure *m)
{
	struct route_ssm_cost c = { .cores = f->cores, .start_cpu_s = f->ssm_start_cpu_s };

	/* Each start costs a CLI's CPU, which the running sessions' relays
	 * need, and a StartSession call: only what the size pays for. */
	if (kind != ROUTE_SSM_PARALLEL || m->bytes < 0 || f->connections > 0)
		return 0;
	return route_ssm_sessions(m->bytes, &c, ROUTE_SSM_MAX_SESSIONS, NULL);
}

bool
route_plan_exec(const struct route_facts *f, const struct route_decision *d, bool *via_proxy)
{
	/* One stream: only a route that is faster with one connection pays
	 * (a fresh one beside a busy master, a direct path around SSM).  A
	 * master with the size unknown stays. */
	*via_proxy = d->kind != ROUTE_SSM_DIRECT && f->has_proxy;
	return f->cfg != NULL && !d->grow &&
	    (d->kind == ROUTE_FRESH || d->kind == ROUTE_SSM_DIRECT);
}

void
route_plan_reconnect(struct route_pool_plan *p)
{
	/* The engine asks when every connection died with work left: one
	 * that comes up soon is worth more than several channels. */
	memset(p, 0, sizeof(*p));
	p->n = 1;
	p->per = 1;
	/* A download's one channel keeps its window (plan_channels); an
	 * upload's replies are small, so it costs one nothing. */
	p->window = (size_t)ROUTE_INFLIGHT_MAX;
}

bool
route_plan_spec_stops(double ms)
{
	/* The bar is the round trip at which ssh's window allows
	 * ROUTE_WINDOW_SURE_RATE: nearer, the copy stays on ssh until its
	 * goodput is measured (route_decide's window_Bps), and the
	 * speculative connection would be cut unused.  Each measure spans
	 * at least one round trip: a banner two (TCP's handshake, then the
	 * server's first bytes) and the starts of a proxy and of the
	 * server, a key exchange one and both ends' computation.  One
	 * within the bar is from such a server (a loaded machine's delays
	 * only let more go on); none from farther stops. */
	return ms >= 0 && ms < (double)ROUTE_SSH_WINDOW / ROUTE_WINDOW_SURE_RATE * 1000.0;
}

/* An upload's data in flight is its channels', each held to the server's
 * window on it (route_channels), not its connections': it takes the
 * connections that carry the channels a round trip of ms is worth, each
 * with the most channels, and more join only as the climb measures them
 * pay.  Connections past those add sshd processes, handshakes and
 * channels that the copy does not need (256 MiB 50 ms away: two beat
 * four in each of the three benchmark environments).  Never fewer than
 * two: a connection's server side, one sshd and one SFTP server, handles
 * its data in series, and a second lets the server overlap them (64 MiB
 * 10 ms away: 1.02 s on one connection, 0.83 s on two).  ms: the login's
 * round trip, or the key exchange's (a round trip and both ends'
 * computation). */
static int
plan_upload_conns(double ms, int n)
{
	double want = ms / ROUTE_CHANNEL_MS * ROUTE_FRESH_CONNS / ROUTE_MAX_CHANNELS + 0.5;
	int k = want >= 2 ? (int)want : 2;

	return k < n ? k : n;
}

int
route_plan_probe(enum route_probe_stage stage, double ms, int n, int cores, bool upload,
    const char **why)
{
	int near, k = n;

	*why = NULL;
	if (stage == ROUTE_PROBE_BANNER) {
		/* The banner comes after the server's start as well as the
		 * round trip: far enough to start the others, too coarse to
		 * size an upload by (its key exchange is next). */
		return ms >= ROUTE_PLAN_FAR_BANNER_MS && !upload ? n : 0;
	}
	if (stage == ROUTE_PROBE_KEX) {
		/* Only an upload waits for it, and a near one waits on for
		 * the login's round trip, which tells how near. */
		if (!upload || !(ms >= ROUTE_PLAN_FAR_BANNER_MS))
			return 0;
		k = plan_upload_conns(ms, n);
	} else if ((near = route_near_connections(ms, cores)) > 0) {
		/* Near, CPU binds, not the channels' windows. */
		if (near < n)
			*why = "a server this near is bound by CPU, and more only compete for it";
		return near < n ? near : n;
	} else if (upload && ms >= 0) {
		k = plan_upload_conns(ms, n);
	}
	if (k < n)
		*why = "they carry the SFTP channels an upload this far needs";
	return k;
}

bool
route_plan_pace_take(const struct route_pace *p)
{
	if (p->my_Bps <= 0 || p->others_Bps <= 0 || p->best_Bps <= 0 || p->piece <= 0 ||
	    p->queued < p->piece)
		return true;
	/* The copy ends when the last connection does: compare when it ends
	 * if this one takes the piece with when it ends if it leaves it.  The
	 * others share the rest at their summed rate; a piece is one
	 * connection's, so left to them it is counted as the fastest one's,
	 * after the rest.  That way the fastest connection with nothing in
	 * hand always takes, and the tail never waits on all of them. */
	double rest = (p->others_left + p->queued - p->piece) / p->others_Bps;
	double take_mine = (p->my_left + p->piece) / p->my_Bps;
	double leave_mine = p->my_left / p->my_Bps, leave_theirs = rest + p->piece / p->best_Bps;
	double end_take = take_mine > rest ? take_mine : rest;
	double end_leave = leave_mine > leave_theirs ? leave_mine : leave_theirs;

	return end_take <= end_leave;
}

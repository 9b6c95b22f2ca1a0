/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for route_plan: what a session opens and how it grows, from
 * the facts and the measurements.  The expected values are what session.c
 * decided itself before the plan moved to policy/. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "policy/route_plan.h"
#include "policy/proxyjump.h"
#include "policy/sshcfg.h"
#include "policy/ssmcmd.h"
#include "route_cfgs.h"

#define MiB (1024LL * 1024)
#define GiB (1024LL * 1024 * 1024)

enum { NO = 0, YES = 1 };

/* The facts a row stands for, as facts_gather and facts_route make them. */
struct fact_row {
	const char *cfg;	/* NULL: ssh -G failed */
	bool master_live, direct_ok, special, compress;
	int want, connections, cores;
	bool jump_batch;	/* one ProxyJump hop whose login asks nobody */
};

static void
plan_facts(const struct fact_row *r, struct sshcfg *cfg, long long bytes, bool one_stream,
    struct route_input *in, struct route_facts *f)
{
	memset(in, 0, sizeof(*in));
	memset(f, 0, sizeof(*f));
	if (r->cfg != NULL) {
		ck_assert_int_eq(sshcfg_parse(r->cfg, cfg), 0);
		in->cfg = f->cfg = cfg;
		in->ssm = f->ssm = ssmcmd_match(cfg->proxycommand, NULL);
		f->has_proxy = cfg->proxycommand != NULL || cfg->proxyjump != NULL;
	}
	in->master_live = f->master_live = r->master_live;
	in->direct_ok = r->direct_ok;
	in->direct_why = "no address";
	in->bytes = bytes;
	in->one_stream = one_stream;
	in->connections_wanted = r->want > 0 ? r->want : r->connections;
	in->cores = f->cores = r->cores;
	in->legacy_or_special = f->special = r->special;
	f->want = r->want;
	f->connections = r->connections;
	f->compress = r->compress;
	f->jump_batch = r->jump_batch;
	/* A size known before anything opens is an upload's; a download's
	 * comes with its listing. */
	f->upload = bytes >= 0;
}

/* The shape route_one_channel gives a pool: one channel with a window
 * that covers a connection's reads, or channels of the transport's. */
static void
plan_check_shape(const char *name, const struct route_facts *f,
    const struct route_pool_plan *b)
{
	bool one = route_one_channel(f->upload, b->via_proxy && f->cfg != NULL &&
	    proxyjump_host_via_ssh(f->cfg->proxycommand, f->cfg->proxyjump));

	ck_assert_msg(b->per == (one ? 1 : ROUTE_MAX_CHANNELS), "%s: %d channels", name,
	    b->per);
	ck_assert_msg(b->window == (one ? (size_t)ROUTE_INFLIGHT_MAX : 0), "%s: window %zu",
	    name, b->window);
}

/* The opening: the bypass pool, the speculative one, growing later. */
static const struct open_row {
	const char *name;
	struct fact_row f;
	long long bytes;
	enum route_kind kind;
	/* the bypass pool */
	int n, per;
	bool via_proxy, probe, staged;
	int limit;
	bool compress_sample;
	/* standard until the size is known */
	bool grow, grow_at_open;
	int spec_n;
	bool spec_proxy, spec_probe, spec_delayed, spec_lists;
} open_rows[] = {
	{ "plain huge", { CFG_PLAIN, .cores = 2 }, 10 * GiB, ROUTE_FRESH,
	  4, 8, NO, YES, YES, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "plain huge, 8 asked", { CFG_PLAIN, .connections = 8, .cores = 2 }, 10 * GiB,
	  ROUTE_FRESH, 8, 8, NO, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "plain forced", { CFG_PLAIN, .cores = 2 }, -2, ROUTE_FRESH,
	  4, 8, NO, YES, YES, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	/* An upload under what fresh connections pay for is decided again
	 * once the target is looked at, as a download after its listing. */
	{ "plain small", { CFG_PLAIN, .cores = 2 }, MiB, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, YES, NO, 1, NO, NO, NO, YES },
	{ "plain small, 2 asked", { CFG_PLAIN, .connections = 2, .cores = 2 }, MiB,
	  ROUTE_STANDARD, 0, 0, NO, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "plain tiny", { CFG_PLAIN, .cores = 2 }, 100 * 1024, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "plain download", { CFG_PLAIN, .cores = 2 }, -1, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, YES, NO, 1, NO, NO, NO, YES },
	{ "plain download, 1 asked", { CFG_PLAIN, .connections = 1, .cores = 2 }, -1,
	  ROUTE_STANDARD, 0, 0, NO, NO, NO, 0, NO, YES, NO, 0, NO, NO, NO, NO },
	{ "plain download, one connection", { CFG_PLAIN, .want = 1, .cores = 2 }, -1,
	  ROUTE_STANDARD, 0, 0, NO, NO, NO, 0, NO, YES, NO, 0, NO, NO, NO, NO },
	{ "proxy download", { CFG_NC, .cores = 2 }, -1, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, YES, NO, 1, YES, NO, NO, NO },
	{ "jump download", { CFG_JUMP, .cores = 2 }, -1, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, YES, NO, 1, YES, NO, NO, NO },
	{ "jump download, logins ask nobody", { CFG_JUMP, .cores = 2, .jump_batch = YES }, -1,
	  ROUTE_STANDARD, 0, 0, NO, NO, NO, 0, NO, YES, NO, 1, YES, NO, NO, NO },
	{ "ssh -W download, logins ask nobody", { CFG_SSH_W, .cores = 2, .jump_batch = YES },
	  -1, ROUTE_STANDARD, 0, 0, NO, NO, NO, 0, NO, YES, NO, 1, YES, NO, NO, NO },
	{ "ssh -W download", { CFG_SSH_W, .cores = 2 }, -1, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, YES, NO, 1, YES, NO, NO, NO },
	{ "proxy big", { CFG_NC, .cores = 2 }, GiB, ROUTE_PROXIED,
	  1, 8, YES, NO, YES, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "jump big", { CFG_JUMP, .cores = 2 }, GiB, ROUTE_PROXIED,
	  1, 8, YES, NO, YES, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "jump big, 2 asked", { CFG_JUMP, .connections = 2, .cores = 2 }, GiB, ROUTE_PROXIED,
	  2, 8, YES, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "master download", { CFG_CM_AUTO, YES, .cores = 2 }, -1, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, YES, NO, 0, NO, NO, NO, NO },
	{ "master upload", { CFG_CM_AUTO, YES, .cores = 2 }, 16 * MiB, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, YES, YES, 3, NO, YES, YES, NO },
	{ "master upload, 4 asked", { CFG_CM_AUTO, YES, .connections = 4, .cores = 2 },
	  16 * MiB, ROUTE_FRESH, 4, 8, NO, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "master small", { CFG_CM_AUTO, YES, .cores = 2 }, 4 * MiB, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "master behind a proxy", { CFG_CORKSCREW, YES, .cores = 2 }, 16 * MiB,
	  ROUTE_STANDARD, 0, 0, NO, NO, NO, 0, NO, YES, YES, 0, NO, NO, NO, NO },
	{ "ssm 20 MiB", { CFG_SSM_DOC, .cores = 2 }, 20 * MiB, ROUTE_SSM_PARALLEL,
	  12, 1, YES, NO, YES, 0, YES, NO, NO, 0, NO, NO, NO, NO },
	{ "ssm 20 MiB, -C", { CFG_SSM_DOC, .compress = YES, .cores = 2 }, 20 * MiB,
	  ROUTE_SSM_PARALLEL, 12, 1, YES, NO, YES, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "ssm download", { CFG_SSM_DOC, .cores = 2 }, -1, ROUTE_SSM_PARALLEL,
	  22, 1, YES, NO, YES, 2, YES, NO, NO, 0, NO, NO, NO, NO },
	{ "ssm download, one core", { CFG_SSM_DOC, .cores = 1 }, -1, ROUTE_SSM_PARALLEL,
	  16, 1, YES, NO, YES, 1, YES, NO, NO, 0, NO, NO, NO, NO },
	{ "ssm direct", { CFG_SSM_DOC, .direct_ok = YES, .cores = 2 }, GiB, ROUTE_SSM_DIRECT,
	  4, 8, NO, YES, YES, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "ssm direct small", { CFG_SSM_DOC, .direct_ok = YES, .cores = 2 }, MiB,
	  ROUTE_SSM_DIRECT, 1, 8, NO, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "special", { CFG_PLAIN, .special = YES, .cores = 2 }, -1, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
	{ "no config", { NULL, YES, .cores = 2 }, GiB, ROUTE_STANDARD,
	  0, 0, NO, NO, NO, 0, NO, NO, NO, 0, NO, NO, NO, NO },
};

START_TEST(plan_open_table)
{
	const struct open_row *r = &open_rows[_i];
	struct route_input in;
	struct route_facts f;
	struct route_decision d;
	struct route_measure m = { .rtt_ms = -1, .idle_cores = -1 };
	struct route_plan p;
	struct sshcfg cfg;

	/* -2: forced to bypass, 10 KiB. */
	m.bytes = r->bytes == -2 ? 10 * 1024 : r->bytes;
	plan_facts(&r->f, &cfg, m.bytes, false, &in, &f);
	if (r->bytes == -2)
		in.force = ROUTE_FORCE_BYPASS;
	route_decide(&in, &d);
	route_plan_open(&f, &d, &m, &p);
	ck_assert_msg(p.kind == r->kind, "%s: %s (%s)", r->name, route_name(p.kind), d.reason);
	ck_assert_msg(p.pool.n == r->n && p.pool.per == r->per, "%s: %d x %d", r->name,
	    p.pool.n, p.pool.per);
	ck_assert_msg(p.pool.via_proxy == r->via_proxy && p.pool.probe == r->probe &&
	    p.pool.staged == r->staged, "%s: proxy %d probe %d staged %d", r->name,
	    p.pool.via_proxy, p.pool.probe, p.pool.staged);
	ck_assert_msg(p.pool.limit == r->limit, "%s: limit %d", r->name, p.pool.limit);
	if (r->n > 0 && r->kind != ROUTE_SSM_PARALLEL)
		plan_check_shape(r->name, &f, &p.pool);
	ck_assert_int_eq(p.pool.wave, d.wave);
	ck_assert_msg(p.compress_sample == r->compress_sample, "%s", r->name);
	ck_assert_int_eq(p.beside, r->n > 0 ? 1 : 0);
	ck_assert_msg(p.grow == r->grow && p.grow_at_open == r->grow_at_open,
	    "%s: grow %d at open %d", r->name, p.grow, p.grow_at_open);
	ck_assert_msg(p.spec.n == r->spec_n, "%s: spec %d", r->name, p.spec.n);
	if (r->spec_n > 0) {
		ck_assert(p.spec.spec);
		plan_check_shape(r->name, &f, &p.spec);
		ck_assert_int_eq(p.spec.via_proxy, r->spec_proxy);
		ck_assert_int_eq(p.spec.probe, r->spec_probe);
		ck_assert_int_eq(p.spec.delay_s > 0, r->spec_delayed);
		/* The one beside a master, or through a proxy other than ssh,
		 * pays only far away: it stops at a near banner.  Through ssh
		 * it carries a near copy too. */
		ck_assert_int_eq(p.spec.far_only, r->spec_delayed || (r->spec_proxy &&
		    !proxyjump_host_via_ssh(cfg.proxycommand, cfg.proxyjump)));
		ck_assert_ptr_nonnull(p.spec_why);
		/* The one beside a listing keeps the climb's room (the
		 * growth may take it before it is up); 16 in all. */
		ck_assert_msg(p.spec.room == (r->spec_delayed ? 0 : 15), "%s: spec room %d",
		    r->name, p.spec.room);
	}
	ck_assert_msg((p.spec_lists_ms > 0) == r->spec_lists, "%s: lists %f", r->name,
	    p.spec_lists_ms);
	/* Through a proxy that is not ssh itself, it lists instead of ssh
	 * (near or far: no handshake of its own to measure); through a
	 * ProxyJump of one hop whose login asks nobody too, not behind a
	 * ProxyCommand that runs ssh. */
	ck_assert_msg(p.spec_lists_proxy == (r->spec_n > 0 && r->spec_proxy &&
	    (!proxyjump_host_via_ssh(cfg.proxycommand, cfg.proxyjump) ||
	    (r->f.jump_batch && cfg.proxycommand == NULL))),
	    "%s: lists through the proxy %d", r->name, p.spec_lists_proxy);
	if (r->spec_lists) {
		/* Near is the TCP handshake's round trip, as the listing's
		 * (not the banner, which waits for sshd's start); ssh waits
		 * for it a bounded while, and longer from the start (the
		 * lookup) than from the handshake's begin. */
		ck_assert_double_eq(p.spec_lists_ms, ROUTE_NEAR_MS);
		ck_assert(p.spec_handshake_s * 1e3 > p.spec_lists_ms);
		ck_assert(p.spec_wait_s > p.spec_handshake_s);
		ck_assert(p.spec_wait_s < 0.1);
	} else {
		ck_assert(p.spec_wait_s == 0 && p.spec_handshake_s == 0);
	}
	if (r->f.cfg != NULL)
		sshcfg_free(&cfg);
}
END_TEST

/* The growth after the listing, with what the listing measured. */
static const struct grow_row {
	const char *name;
	struct fact_row f;
	long long bytes;
	double rtt;
	bool listed_bypass;
	bool grow;
	enum route_kind kind;
	int n;
	bool via_proxy, staged, rest_listing;
	const char *reason_has;
} grow_rows[] = {
	{ "near small", { CFG_PLAIN, .cores = 2 }, 16 * MiB, 0.1, NO, NO, 0, 0, NO, NO, NO,
	  "route stays standard: no ControlMaster or SSM proxy; 16.0 MiB to move" },
	{ "near small, listed", { CFG_PLAIN, .cores = 2 }, 16 * MiB, 0.1, YES, NO, 0, 0, NO,
	  NO, NO, "route fresh: no ControlMaster or SSM proxy; 16.0 MiB to move; the "
	  "connection that listed carries it" },
	{ "near big", { CFG_PLAIN, .cores = 2 }, 64 * MiB, 0.1, NO, YES, ROUTE_FRESH, 1, NO,
	  NO, YES, "(after listing); the server answers in 0.10 ms and this machine has 2 "
	  "cores: 1 fresh connection" },
	{ "near big, listed", { CFG_PLAIN, .cores = 2 }, 64 * MiB, 0.1, YES, NO, 0, 0, NO, NO,
	  NO, "has 2 cores: the connection that listed carries it" },
	{ "near big, 8 cores, listed", { CFG_PLAIN, .cores = 8 }, 64 * MiB, 0.1, YES, YES,
	  ROUTE_FRESH, 3, NO, NO, NO, "has 8 cores: the connection that listed and 3 more" },
	{ "near big, 8 cores", { CFG_PLAIN, .cores = 8 }, 64 * MiB, 0.1, NO, YES, ROUTE_FRESH,
	  4, NO, NO, YES, "has 8 cores: 4 fresh connections" },
	{ "near big, 4 asked", { CFG_PLAIN, .connections = 4, .cores = 2 }, 64 * MiB, 0.1, NO,
	  YES, ROUTE_FRESH, 3, NO, YES, NO, "4 fresh connections with wide windows (after "
	  "listing)" },
	{ "far", { CFG_PLAIN, .cores = 2 }, 16 * MiB, 50, NO, YES, ROUTE_FRESH, 3, NO, YES,
	  NO, "route fresh: no ControlMaster or SSM proxy; 16.0 MiB to move: 4 fresh" },
	{ "not measured", { CFG_PLAIN, .cores = 2 }, 64 * MiB, -1, NO, YES, ROUTE_FRESH, 3,
	  NO, YES, NO, "(after listing)" },
	{ "proxy near big", { CFG_NC, .cores = 2 }, 64 * MiB, 0.1, NO, NO, 0, 0, NO, NO, NO,
	  "route stays standard: ProxyCommand is not AWS SSM and no ControlMaster is live; "
	  "the server answers within 2 ms" },
	{ "proxy far", { CFG_NC, .cores = 2 }, 8 * MiB, 50, NO, YES, ROUTE_PROXIED, 1, YES,
	  YES, NO, "(after listing)" },
	/* Listed through nc by the connection started beside ssh's try
	 * (no ssh runs): it carries the copy, near or far, and far it may
	 * climb; no window rule (there is no ssh copy to go on with). */
	{ "proxy near big, listed", { CFG_NC, .cores = 2 }, 64 * MiB, 0.1, YES, NO, 0, 0, NO,
	  NO, NO, "route proxied: ProxyCommand is not AWS SSM and no ControlMaster is live; "
	  "the server answers within 2 ms; the connection that listed carries it" },
	{ "proxy small, listed", { CFG_NC, .cores = 2 }, 4 * MiB, 50, YES, NO, 0, 0, NO, NO,
	  NO, "route proxied: ProxyCommand is not AWS SSM and no ControlMaster is live; 4.0 "
	  "MiB to move; the connection that listed carries it" },
	{ "proxy far, listed", { CFG_NC, .cores = 2 }, 64 * MiB, 50, YES, YES, ROUTE_PROXIED, 0,
	  YES, YES, NO, "64.0 MiB to move: 1 connection through the same proxy (after listing)" },
	{ "proxy 10 ms, listed", { CFG_NC, .cores = 2 }, 64 * MiB, 10, YES, YES, ROUTE_PROXIED,
	  0, YES, YES, NO, "64.0 MiB to move: 1 connection through the same proxy" },
	{ "proxy 10 ms", { CFG_NC, .cores = 2 }, 64 * MiB, 10, NO, YES, ROUTE_STANDARD, 0, YES,
	  YES, NO, "route stays standard: ProxyCommand is not AWS SSM; the server "
	  "answers in 10.00 ms, where ssh's window allows 210 MB/s: the copy (64.0 MiB) goes "
	  "on over ssh, and a connection through the same proxy joins if it moves near that" },
	{ "jump 20 ms", { CFG_JUMP, .cores = 2 }, 64 * MiB, 20, NO, YES, ROUTE_PROXIED, 1, YES,
	  NO, YES, "ProxyJump host is not reached through AWS SSM; the server answers in "
	  "20.00 ms through ssh: the copy (64.0 MiB) leaves the listing ssh" },
	{ "near jump", { CFG_JUMP, .cores = 2 }, GiB, 0.1, NO, YES, ROUTE_PROXIED, 1, YES, NO,
	  YES, "route proxied: ProxyJump host is not reached through AWS SSM; the server "
	  "answers in 0.10 ms through ssh: the copy (1.0 GiB) leaves the listing ssh for a "
	  "connection through the same proxy (after listing)" },
	{ "near jump, 8 cores", { CFG_JUMP, .cores = 8 }, GiB, 0.1, NO, YES, ROUTE_PROXIED, 4,
	  YES, NO, YES, "leaves the listing ssh" },
	{ "near jump, 3 asked", { CFG_JUMP, .connections = 3, .cores = 8 }, GiB, 0.1, NO, YES,
	  ROUTE_PROXIED, 3, YES, NO, YES, "leaves the listing ssh" },
	{ "near ssh -W", { CFG_SSH_W, .cores = 2 }, 64 * MiB, 1.5, NO, YES, ROUTE_PROXIED, 1,
	  YES, NO, YES, "ProxyCommand is not AWS SSM; the server answers in 1.50 ms through "
	  "ssh" },
	{ "near jump, small", { CFG_JUMP, .cores = 2 }, 4 * MiB, 0.1, NO, NO, 0, 0, NO, NO,
	  NO, "route stays standard: ProxyJump host is not reached through AWS SSM and no "
	  "ControlMaster is live; 4.0 MiB to move" },
	{ "master near", { CFG_CM_AUTO, YES, .cores = 2 }, 256 * MiB, 0.1, NO, NO, 0, 0,
	  NO, NO, NO, "answers in 0.10 ms, within what the master's window covers: the copy (256.0 MiB) stays" },
	{ "master near, slow machine, 8 cores", { CFG_CM_AUTO, YES, .cores = 8 }, GiB, 0.8,
	  NO, NO, 0, 0, NO, NO, NO, "a new sshd, a key exchange and a second encryption" },
	{ "master near, slow machine under a quota", { CFG_CM_AUTO, YES, .cores = 1 }, GiB,
	  4.5, NO, NO, 0, 0, NO, NO, NO, "within what the master's window covers" },
	{ "master near, 4 asked", { CFG_CM_AUTO, YES, .connections = 4, .cores = 2 },
	  256 * MiB, 0.1, NO, YES, ROUTE_FRESH, 3, NO, YES, NO, "4 connections (after" },
	{ "master near small", { CFG_CM_AUTO, YES, .cores = 2 }, 16 * MiB, 0.1, NO, NO, 0, 0,
	  NO, NO, NO, "route stays standard: ControlMaster socket" },
	{ "master far", { CFG_CM_AUTO, YES, .cores = 2 }, 16 * MiB, 50, NO, YES, ROUTE_FRESH,
	  3, NO, YES, NO, "(after listing)" },
	{ "master 10 ms", { CFG_CM_AUTO, YES, .cores = 2 }, 512 * MiB, 10, NO, YES,
	  ROUTE_STANDARD, 0, NO, YES, NO, "route stays standard: ControlMaster socket "
	  "/root/.ssh/cm-x is live; the server answers in 10.00 ms, where the master's window "
	  "allows 210 MB/s: the copy (512.0 MiB) starts on the master, and fresh connections "
	  "join if it moves near that" },
	{ "master 40 ms", { CFG_CM_AUTO, YES, .cores = 2 }, 512 * MiB, 40, NO, YES, ROUTE_FRESH,
	  3, NO, YES, NO, "(after listing)" },
	{ "master far behind a proxy", { CFG_CORKSCREW, YES, .cores = 2 }, 16 * MiB, 50, NO,
	  YES, ROUTE_FRESH, 3, YES, YES, NO, "ControlMaster socket /tmp/cm-old is live" },
};

/* Beside a master the copy goes on while fresh connections come up, on
 * the same cores: far away, fresh connections start at once only with
 * half a core idle since the copy began (a cgroup quota counts; a whole
 * one, which a one-core quota never shows, kept a master 150 ms away at
 * scp's speed); with less,
 * and where the master's window may or may not bind (10 ms), the copy
 * starts on the master and the climb measures its goodput and the idle CPU
 * on its copy alone, whatever the start cost.  Without a master the one
 * ssh is no match for fresh connections far away, idle or not. */
START_TEST(plan_grow_idle)
{
	static const struct fact_row master = { CFG_CM_AUTO, YES, .cores = 2 };
	static const struct fact_row plain = { CFG_PLAIN, .cores = 2 };
	static const struct fact_row asked = { CFG_CM_AUTO, YES, .connections = 4, .cores = 2 };
	struct route_input in;
	struct route_facts f;
	struct sshcfg cfg;
	struct route_measure m = { .bytes = 64 * MiB, .rtt_ms = 50, .idle_cores = 0.4 };
	struct route_growth g;
	struct route_decision d;

	plan_facts(&master, &cfg, m.bytes, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_msg(g.grow && g.kind == ROUTE_STANDARD && g.pool.n == 0 &&
	    g.pool.room > 0 && g.window_Bps > 40e6 && g.window_Bps < 43e6, "%s", g.reason);
	ck_assert_msg(strstr(g.reason, "0.40 cores idle since the copy began: the copy (64.0 "
	    "MiB) starts on the master, and fresh connections join") != NULL, "%s", g.reason);
	/* The legacy protocol's one stream has nothing to climb with. */
	in.one_stream = true;
	in.rtt_ms = m.rtt_ms;
	in.idle_known = true;
	in.idle_cores = m.idle_cores;
	route_decide(&in, &d);
	ck_assert_msg(d.kind == ROUTE_STANDARD && d.window_Bps == 0 &&
	    strstr(d.reason, "stays on the live master") != NULL, "%s", d.reason);
	/* Nor has a copy whose round trip is not measured: no window. */
	in.one_stream = false;
	in.rtt_ms = 0;
	route_decide(&in, &d);
	ck_assert_msg(d.kind == ROUTE_STANDARD && d.window_Bps == 0 &&
	    strstr(d.reason, "stays on the live master") != NULL, "%s", d.reason);
	for (int k = 0; k < 2; k++) {
		m.idle_cores = k == 0 ? 0.5 : 1.0;
		route_plan_grow(&f, &m, &g);
		ck_assert_msg(g.grow && g.kind == ROUTE_FRESH && g.pool.n == 3 &&
		    g.window_Bps == 0, "%s", g.reason);
	}
	/* 10 ms, busy or idle since the start: the climb decides. */
	m.rtt_ms = 10;
	for (int k = 0; k < 2; k++) {
		m.idle_cores = k == 0 ? 0.2 : 1.0;
		route_plan_grow(&f, &m, &g);
		ck_assert_msg(g.grow && g.kind == ROUTE_STANDARD && g.pool.n == 0 &&
		    g.pool.room > 0 && g.window_Bps > 200e6 && g.window_Bps < 220e6, "%s",
		    g.reason);
	}
	m.rtt_ms = 10;
	sshcfg_free(&cfg);
	/* The user's count is the user's. */
	m.idle_cores = 0.2;
	plan_facts(&asked, &cfg, m.bytes, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_msg(g.grow && g.kind == ROUTE_FRESH, "%s", g.reason);
	sshcfg_free(&cfg);
	m.rtt_ms = 50;
	plan_facts(&plain, &cfg, m.bytes, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_msg(g.grow && g.kind == ROUTE_FRESH, "%s", g.reason);
	sshcfg_free(&cfg);
}
END_TEST

START_TEST(plan_grow_table)
{
	const struct grow_row *r = &grow_rows[_i];
	struct route_input in;
	struct route_facts f;
	struct sshcfg cfg;
	/* Not measured, or a core idle and more: the rows' plans (less idle
	 * beside a master: plan_grow_idle). */
	static const double idle[] = { -1, 1.0, 1.5 };

	plan_facts(&r->f, &cfg, r->bytes, false, &in, &f);
	for (size_t k = 0; k < sizeof(idle) / sizeof(idle[0]); k++) {
		struct route_measure m = { .bytes = r->bytes, .rtt_ms = r->rtt,
			.listed_bypass = r->listed_bypass, .idle_cores = idle[k] };
		struct route_growth g;

		route_plan_grow(&f, &m, &g);
		ck_assert_msg(g.grow == r->grow, "%s: grow %d (%s)", r->name, g.grow, g.reason);
		ck_assert_msg(strstr(g.reason, r->reason_has) != NULL,
		    "%s: reason \"%s\" lacks \"%s\"", r->name, g.reason, r->reason_has);
		if (!r->grow)
			continue;
		ck_assert_msg(g.kind == r->kind && g.pool.n == r->n, "%s: %s %d", r->name,
		    route_name(g.kind), g.pool.n);
		plan_check_shape(r->name, &f, &g.pool);
		ck_assert_msg(g.pool.via_proxy == r->via_proxy && g.pool.staged == r->staged &&
		    g.rest_listing == r->rest_listing, "%s: proxy %d staged %d rest %d",
		    r->name, g.pool.via_proxy, g.pool.staged, g.rest_listing);
		ck_assert(!g.pool.probe && !g.pool.spec);
		/* Staying on a master for now: a climb that measures it first. */
		ck_assert_msg((g.window_Bps > 0) == (g.kind == ROUTE_STANDARD) &&
		    (g.window_Bps == 0 || g.pool.room > 0), "%s: window %.0f room %d",
		    r->name, g.window_Bps, g.pool.room);
		/* Through a proxy as direct: the climb measures each
		 * addition (a jump host's ssh -W holds each connection to
		 * ssh's window). */
		if (g.window_Bps > 0)
			ck_assert_int_eq(g.pool.room, 15);
		/* Listed through the proxy: that connection is one, the climb
		 * may add the rest. */
		if (r->listed_bypass && r->kind == ROUTE_PROXIED)
			ck_assert_int_eq(g.pool.room, 15);
	}
	sshcfg_free(&cfg);
}
END_TEST

/* SSM sessions started before the size: as many as it pays for, once
 * known, unless the user chose. */
START_TEST(plan_ssm_total)
{
	struct route_facts f = { .cores = 2 };
	struct route_measure m = { .bytes = 20 * MiB, .rtt_ms = -1 };
	struct route_ssm_cost c = { .cores = 2 };

	ck_assert_int_eq(route_plan_ssm_total(&f, ROUTE_SSM_PARALLEL, &m), 12);
	ck_assert_int_eq(route_plan_ssm_total(&f, ROUTE_FRESH, &m), 0);
	ck_assert_int_eq(route_plan_ssm_total(&f, ROUTE_STANDARD, &m), 0);
	m.bytes = 100 * MiB;
	ck_assert_int_eq(route_plan_ssm_total(&f, ROUTE_SSM_PARALLEL, &m),
	    route_ssm_sessions(m.bytes, &c, ROUTE_SSM_MAX_SESSIONS, NULL));
	f.ssm_start_cpu_s = 1.5;
	m.bytes = 20 * MiB;
	ck_assert_int_lt(route_plan_ssm_total(&f, ROUTE_SSM_PARALLEL, &m), 12);
	ck_assert_int_gt(route_plan_ssm_total(&f, ROUTE_SSM_PARALLEL, &m), 1);
	m.bytes = -1;
	ck_assert_int_eq(route_plan_ssm_total(&f, ROUTE_SSM_PARALLEL, &m), 0);
	m.bytes = 20 * MiB;
	f.connections = 8;
	ck_assert_int_eq(route_plan_ssm_total(&f, ROUTE_SSM_PARALLEL, &m), 0);
}
END_TEST

/* The legacy protocol's one stream: a libssh exec channel only where one
 * fresh connection beats ssh. */
START_TEST(plan_exec)
{
	static const struct {
		struct fact_row f;
		long long bytes;
		bool exec, via_proxy;
	} t[] = {
		{ { CFG_CM_AUTO, YES, .cores = 2 }, GiB, YES, NO },
		{ { CFG_CORKSCREW, YES, .cores = 2 }, GiB, YES, YES },
		{ { CFG_SSM_DOC, .direct_ok = YES, .cores = 2 }, GiB, YES, NO },
		{ { CFG_PLAIN, .cores = 2 }, GiB, YES, NO },
		{ { CFG_PLAIN, .cores = 2 }, MiB, NO, NO },
		{ { CFG_CM_AUTO, YES, .cores = 2 }, -1, NO, NO },
		{ { CFG_NC, .cores = 2 }, GiB, NO, YES },
		{ { CFG_SSM_DOC, .cores = 2 }, GiB, NO, YES },
		{ { NULL, .cores = 2 }, GiB, NO, NO },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct route_input in;
		struct route_facts f;
		struct route_decision d;
		struct sshcfg cfg;
		bool via = !t[i].via_proxy;

		plan_facts(&t[i].f, &cfg, t[i].bytes, true, &in, &f);
		route_decide(&in, &d);
		ck_assert_msg(route_plan_exec(&f, &d, &via) == t[i].exec, "row %zu: %s (%s)", i,
		    route_name(d.kind), d.reason);
		ck_assert_msg(via == t[i].via_proxy, "row %zu: via proxy %d", i, via);
		if (t[i].f.cfg != NULL)
			sshcfg_free(&cfg);
	}
}
END_TEST

/* A download's connections: one channel and a window of their own where
 * they connect directly or through a plain proxy; through ssh itself (a
 * jump host), and uploading, channels. */
START_TEST(plan_download_one_channel)
{
	static const struct fact_row plain = { CFG_PLAIN, .cores = 2 };
	static const struct fact_row jump = { CFG_JUMP, .cores = 2 };
	static const struct fact_row ssh_w = { CFG_SSH_W, .cores = 2 };
	static const struct fact_row nc = { CFG_NC, .cores = 2 };
	static const struct fact_row ssm = { CFG_SSM_DOC, .direct_ok = YES, .cores = 2 };
	struct route_measure m = { .bytes = 256 * MiB, .rtt_ms = 50, .idle_cores = -1 };
	struct route_input in;
	struct route_facts f;
	struct route_decision d;
	struct route_growth g;
	struct route_plan p;
	struct route_tuning t;
	struct sshcfg cfg;

	ck_assert(route_one_channel(false, false));
	ck_assert(!route_one_channel(true, false));
	ck_assert(!route_one_channel(false, true));
	ck_assert(!route_one_channel(true, true));

	/* Far and plain, after the listing: one channel each. */
	plan_facts(&plain, &cfg, -1, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_msg(g.grow && g.kind == ROUTE_FRESH && g.pool.per == 1 &&
	    g.pool.window == (size_t)ROUTE_INFLIGHT_MAX, "%s: %d", g.reason, g.pool.per);
	/* The same host, uploading: channels, each held to the server's
	 * window. */
	f.upload = true;
	route_plan_grow(&f, &m, &g);
	ck_assert(g.grow && g.pool.per == ROUTE_MAX_CHANNELS && g.pool.window == 0);
	sshcfg_free(&cfg);

	/* Through a jump host, or a ProxyCommand that runs ssh: channels,
	 * whichever way. */
	plan_facts(&jump, &cfg, -1, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_msg(g.grow && g.kind == ROUTE_PROXIED && g.pool.via_proxy &&
	    g.pool.per == ROUTE_MAX_CHANNELS && g.pool.window == 0, "%s", g.reason);
	sshcfg_free(&cfg);
	plan_facts(&ssh_w, &cfg, -1, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_msg(g.grow && g.pool.via_proxy && g.pool.per == ROUTE_MAX_CHANNELS,
	    "%s", g.reason);
	sshcfg_free(&cfg);

	/* Through a plain proxy (nc), listed by ssh or by the connection
	 * through it: one channel, as direct; uploading, channels.  The
	 * connection started beside the listing has that shape too. */
	plan_facts(&nc, &cfg, -1, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_msg(g.grow && g.kind == ROUTE_PROXIED && g.pool.via_proxy &&
	    g.pool.per == 1 && g.pool.window == (size_t)ROUTE_INFLIGHT_MAX, "%s", g.reason);
	m.listed_bypass = true;
	route_plan_grow(&f, &m, &g);
	ck_assert_msg(g.grow && g.pool.per == 1, "%s", g.reason);
	m.listed_bypass = false;
	route_decide(&in, &d);
	route_plan_open(&f, &d, &m, &p);
	ck_assert_msg(p.spec.n == 1 && p.spec.via_proxy && p.spec.per == 1 &&
	    p.spec.window == (size_t)ROUTE_INFLIGHT_MAX, "%s", d.reason);
	f.upload = true;
	route_plan_grow(&f, &m, &g);
	ck_assert(g.grow && g.pool.per == ROUTE_MAX_CHANNELS && g.pool.window == 0);
	sshcfg_free(&cfg);

	/* SSM with a direct address: around the proxy, so one channel. */
	plan_facts(&ssm, &cfg, -1, false, &in, &f);
	route_decide(&in, &d);
	route_plan_open(&f, &d, &m, &p);
	ck_assert_msg(p.kind == ROUTE_SSM_DIRECT && !p.pool.via_proxy && p.pool.per == 1 &&
	    p.pool.window == (size_t)ROUTE_INFLIGHT_MAX, "%s", d.reason);
	sshcfg_free(&cfg);

	/* The engine's side: the one channel has its share of the
	 * connection's reads, which its window covers; near, the floor. */
	route_tuning(ROUTE_FRESH, 50, true, false, 0, &t);
	ck_assert_int_eq(t.channels, 1);
	ck_assert_uint_eq(t.read_inflight, route_inflight_bytes(50, false) /
	    ROUTE_ONE_CHANNEL_SHARE);
	ck_assert_uint_le(t.read_inflight, (uint64_t)ROUTE_INFLIGHT_MAX);
	route_tuning(ROUTE_SSM_DIRECT, 0.1, true, false, 0, &t);
	ck_assert_int_eq(t.channels, 1);
	ck_assert_uint_eq(t.read_inflight, ROUTE_INFLIGHT_MIN);
	route_tuning(ROUTE_FRESH, 50, false, false, 0, &t);
	ck_assert_int_eq(t.channels, 4);
	ck_assert_uint_eq(t.read_inflight, route_inflight_bytes(50, false) / 4);
	/* Through a plain proxy, one channel with the connection's whole
	 * budget, never less than scp keeps. */
	route_tuning(ROUTE_PROXIED, 0.1, true, false, 0, &t);
	ck_assert_int_eq(t.channels, 1);
	ck_assert_uint_eq(t.read_inflight, ROUTE_SSH_WINDOW);
	route_tuning(ROUTE_PROXIED, 50, true, false, 0, &t);
	ck_assert_uint_eq(t.read_inflight, route_inflight_bytes(50, false));
	route_tuning(ROUTE_PROXIED, 150, true, false, 0, &t);
	ck_assert_uint_eq(t.read_inflight, ROUTE_INFLIGHT_MAX);
}
END_TEST

START_TEST(plan_reconnect)
{
	struct route_pool_plan p;

	memset(&p, 0xff, sizeof(p));
	route_plan_reconnect(&p);
	ck_assert_int_eq(p.n, 1);
	ck_assert_int_eq(p.per, 1);
	/* Its one channel has the window a download's has. */
	ck_assert_uint_eq(p.window, (size_t)ROUTE_INFLIGHT_MAX);
	ck_assert(!p.via_proxy && !p.probe && !p.spec && !p.staged);
	ck_assert_int_eq(p.limit, 0);
}
END_TEST

/* A probing pool's first connection: a far banner starts all at once, a
 * near one waits for the login, whose round trip may mean fewer.  An
 * upload waits for the key exchange, about a round trip, and starts
 * those that carry the channels it is worth, each with the most. */
START_TEST(plan_probe)
{
	enum { B = ROUTE_PROBE_BANNER, K = ROUTE_PROBE_KEX, L = ROUTE_PROBE_LOGIN };
	static const struct {
		int stage;
		bool upload;
		double ms;
		int n, cores, want;
	} t[] = {
		{ B, false, 50, 8, 8, 8 },	/* far banner: all now */
		{ B, false, 10, 8, 8, 8 },
		{ B, false, 2, 8, 8, 0 },	/* near banner: wait for the login */
		{ B, false, -1, 8, 8, 0 },	/* none within the wait */
		{ K, false, 50, 8, 8, 0 },	/* a download does not wait for it */
		{ L, false, 0.1, 8, 8, 4 },	/* near: half the cores */
		{ L, false, 0.1, 3, 8, 3 },	/* ... never more than planned */
		{ L, false, 0.1, 8, 1, 1 },
		{ L, false, 5.0, 8, 8, 8 },	/* far: all */
		{ L, false, -1, 8, 8, 8 },	/* not measured: all */
		/* Uploads: a banner's time is the server's start as well ... */
		{ B, true, 50, 4, 2, 0 },
		{ B, true, 150, 4, 2, 0 },
		/* ... the key exchange 50 ms away is worth 16 channels, two
		 * connections of 8 ... */
		{ K, true, 50, 4, 2, 2 },
		{ L, true, 50, 4, 2, 2 },
		/* ... 150 ms more than four carry: all that are planned ... */
		{ K, true, 150, 4, 2, 4 },
		{ L, true, 150, 4, 2, 4 },
		/* ... 12 ms two, with a few channels each (the server's side
		 * of one connection handles its data in series) ... */
		{ K, true, 12, 4, 2, 2 },
		{ L, true, 12, 4, 2, 2 },
		{ L, true, 12, 1, 2, 1 },	/* never more than planned */
		/* ... near, the login tells, and CPU binds as for a download. */
		{ K, true, 3, 4, 2, 0 },
		{ L, true, 0.1, 4, 8, 4 },
		{ L, true, 0.1, 4, 2, 1 },
		{ L, true, -1, 4, 2, 4 },	/* not measured: all */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *why = "unset";
		int got = route_plan_probe((enum route_probe_stage)t[i].stage, t[i].ms, t[i].n,
		    t[i].cores, t[i].upload, &why);

		ck_assert_msg(got == t[i].want, "row %zu: %d", i, got);
		/* -v says why whenever fewer start than were planned. */
		ck_assert_msg((why != NULL) == (got > 0 && got < t[i].n), "row %zu", i);
	}
	/* A far-only speculative connection stops at a banner from where
	 * the copy would stay on ssh while measured (a round trip under
	 * ~33 ms). */
	ck_assert(route_plan_spec_stops(0.5));
	ck_assert(route_plan_spec_stops(15));
	ck_assert(route_plan_spec_stops(32));
	ck_assert(!route_plan_spec_stops(34));
	ck_assert(!route_plan_spec_stops(47));	/* 50 ms away through a relay */
	ck_assert(!route_plan_spec_stops(120));
	ck_assert(!route_plan_spec_stops(-1));	/* none came */
	/* ... or at a key exchange from there: through a proxy on the same
	 * host the banner comes after the proxy's and sshd's starts (36 ms
	 * seen), the key exchange within one round trip and its keys'
	 * computation; 10 ms away it still stops, 50 ms away never. */
	ck_assert(route_plan_spec_stops(1.2));
	ck_assert(route_plan_spec_stops(11));
	ck_assert(!route_plan_spec_stops(51));
}
END_TEST

/* The climb: connections are added while each addition raised the
 * goodput by 10% and half a core is idle; never when the user fixed the
 * count.  Each row is one decision after the state before it. */
static const struct climb_row {
	const char *name;
	int connections;		/* FSCP_CONNECTIONS */
	int conns;			/* the climb so far */
	double before_MBps;		/* < 0: no addition yet */
	double goodput_MBps, idle, left_s, join_s;
	int room;
	int add;			/* expected */
	bool done;
	const char *reason_has;
	double window_MBps;	/* on ssh's connection: what its window allows */
	double interval_s;	/* the climb's (0: ROUTE_CLIMB_MIN_S's 0.25 s) */
} climb_rows[] = {
	{ "window-bound far host: first step", 0, 4, -1, 120, 1.2, 2.0, 0.5, 12, 4, NO,
	  "goodput 120.0 MB/s, 1.20 cores idle: 4 connections, 4 more" },
	{ "window-bound far host: goodput rose", 0, 8, 120, 180, 0.9, 1.0, 0.4, 8, 8, NO,
	  "120.0 -> 180.0 MB/s (+50%), 0.90 cores idle: 8 connections, 8 more" },
	{ "window-bound far host: no gain left", 0, 16, 180, 190, 0.8, 1.0, 0.4, 0, 0, YES,
	  "(+6%) with 16 connections, under +10%: it stops there" },
	{ "CPU-bound far host (no idle CPU)", 0, 4, -1, 90, 0.1, 2.0, 0.5, 12, 0, YES,
	  "0.10 cores idle: CPU-bound" },
	{ "CPU-bound far host after a step", 0, 8, 100, 95, 1.0, 2.0, 0.5, 8, 0, YES,
	  "100.0 -> 95.0 MB/s (-5%)" },
	{ "idle CPU not known", 0, 4, -1, 90, -1, 2.0, 0.5, 12, 0, YES, "CPU-bound" },
	{ "near host, CPU busy", 0, 1, -1, 400, 0.2, 0.5, 0.05, 15, 0, YES, "CPU-bound" },
	{ "near host, 8 idle cores", 0, 1, -1, 400, 6, 0.5, 0.05, 15, 1, NO,
	  "1 connections, 1 more" },
	{ "fixed by the user", 8, 8, -1, 100, 1.5, 2.0, 0.5, 8, 0, YES,
	  "FSCP_CONNECTIONS=8 is fixed" },
	{ "the copy ends first", 0, 4, -1, 120, 1.5, 0.6, 0.5, 12, 0, YES,
	  "the copy ends in 0.60 s, new ones take 0.50 s" },
	{ "room for fewer than double", 0, 12, 100, 150, 1.5, 2.0, 0.5, 4, 4, NO, "4 more" },
	{ "no room", 0, 16, 100, 150, 1.5, 2.0, 0.5, 0, 0, YES, "no room for more" },
	{ "all moved, files closing", 0, 4, -1, 0, 1.5, 0, 0.5, 12, 0, YES,
	  "climb: all the data is moved with 4 connections" },
	{ "a stalled interval", 0, 4, -1, 0, 1.5, 2.0, 0.5, 12, 0, YES,
	  "no data moved over the interval" },
	/* On a master alone: fresh ones only when its window holds it back
	 * (at 10 ms scp's window allows 210 MB/s) and the copy lasts. */
	{ "master, bound by CPU", 0, 1, -1, 130, 1.2, 2.0, 0, 15, 0, YES,
	  "goodput 130.0 MB/s on ssh's connection, whose window allows 210.0 MB/s: the "
	  "window does not hold it back", 210 },
	{ "master, bound by its window", 0, 1, -1, 180, 1.2, 2.0, 0, 15, 1, NO,
	  "1 connections, 1 more", 210 },
	{ "master, window-bound, the copy ends first", 0, 1, -1, 180, 1.2, 0.4, 0, 15, 0, YES,
	  "the copy ends in 0.40 s, a new connection takes about 0.25 s to join", 210 },
	{ "master 30 ms, window-bound, the copy ends first", 0, 1, -1, 60, 1.2, 0.5, 0, 15, 0,
	  YES, "a new connection takes about 0.30 s to join", 70, 0.30 },
	{ "master, window-bound, no idle CPU", 0, 1, -1, 180, 0.3, 2.0, 0, 15, 0, YES,
	  "CPU-bound", 210 },
};

START_TEST(plan_climb_table)
{
	const struct climb_row *r = &climb_rows[_i];
	struct route_facts f = { .connections = r->connections, .cores = 2 };
	struct route_climb c = { .conns = r->conns, .before_Bps = r->before_MBps * 1e6,
		.window_Bps = r->window_MBps * 1e6 };
	struct route_climb_measure m = { .goodput_Bps = r->goodput_MBps * 1e6,
		.idle_cores = r->idle, .left_s = r->left_s, .join_s = r->join_s, .room = r->room,
		.interval_s = r->interval_s > 0 ? r->interval_s : 0.25 };
	char why[256];
	int add = route_plan_climb(&f, &c, &m, why, sizeof(why));

	ck_assert_msg(add == r->add && c.done == r->done, "%s: add %d done %d (%s)", r->name,
	    add, c.done, why);
	ck_assert_msg(strstr(why, r->reason_has) != NULL, "%s: reason \"%s\" lacks \"%s\"",
	    r->name, why, r->reason_has);
	ck_assert_int_eq(c.conns, r->conns + add);
	/* The first interval waits for the first answer; on ssh's one
	 * connection, for its ramp. */
	ck_assert_msg(route_plan_climb_settle_bytes(&c) >= 1, "%s", r->name);
	ck_assert_msg((route_plan_climb_settle_bytes(&c) > 1) == (r->window_MBps > 0), "%s",
	    r->name);
	ck_assert_msg((route_plan_climb_settle_s(&c, 0.25) == 0.25) == (r->window_MBps > 0),
	    "%s", r->name);
	/* Over is over. */
	if (c.done)
		ck_assert_int_eq(route_plan_climb(&f, &c, &m, why, sizeof(why)), 0);
}
END_TEST

/* A step that lowered the goodput is taken back: its connections take no
 * more work and the climb is over; one that kept it (+5%) stays. */
START_TEST(plan_climb_takes_back)
{
	struct route_facts f = { .cores = 2 };
	struct route_climb c = { .conns = 4, .before_Bps = -1 };
	struct route_climb_measure m = { .goodput_Bps = 100e6, .idle_cores = 1.2,
		.left_s = 3, .join_s = 0.5, .room = 12 };
	struct route_climb keep;
	char why[256];

	ck_assert_int_eq(route_plan_climb(&f, &c, &m, why, sizeof(why)), 4);
	ck_assert_int_eq(c.conns, 8);
	keep = c;
	m.goodput_Bps = 90e6;
	ck_assert_int_eq(route_plan_climb(&f, &c, &m, why, sizeof(why)), -4);
	ck_assert(c.done);
	ck_assert_int_eq(c.conns, 4);
	ck_assert_msg(strstr(why, "100.0 -> 90.0 MB/s (-10%) with 8 connections: the 4 added "
	    "last take no more work") != NULL, "%s", why);
	ck_assert_int_eq(route_plan_climb(&f, &c, &m, why, sizeof(why)), 0);
	/* A small gain: no more, but nothing taken back. */
	c = keep;
	m.goodput_Bps = 105e6;
	ck_assert_int_eq(route_plan_climb(&f, &c, &m, why, sizeof(why)), 0);
	ck_assert(c.done);
	ck_assert_int_eq(c.conns, 8);
	/* The user's count is never taken back. */
	f.connections = 8;
	c = keep;
	m.goodput_Bps = 50e6;
	ck_assert_int_eq(route_plan_climb(&f, &c, &m, why, sizeof(why)), 0);
}
END_TEST

/* Who may climb: a route fscp sized far away, direct or through a proxy
 * (where a jump host's ssh -W holds each connection to ssh's window), not a
 * near one, not a count the user gave, not SSM sessions (their waves). */
START_TEST(plan_climb_room)
{
	struct sshcfg cfg;
	struct route_input in;
	struct route_facts f;
	struct route_measure m = { .bytes = 256 * MiB, .rtt_ms = 50 };
	struct route_growth g;
	static const struct fact_row plain = { CFG_PLAIN, .cores = 2 };
	static const struct fact_row fixed = { CFG_PLAIN, .connections = 4, .cores = 2 };
	static const struct fact_row nc = { CFG_NC, .cores = 2 };
	static const struct fact_row jump = { CFG_JUMP, .cores = 2 };
	static const struct fact_row jump_fixed = { CFG_JUMP, .connections = 2, .cores = 2 };
	static const struct fact_row ssm = { CFG_SSM_DOC, .cores = 2 };

	plan_facts(&plain, &cfg, m.bytes, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_int_eq(g.pool.n + 1 + g.pool.room, 16);
	m.rtt_ms = 0.1;
	route_plan_grow(&f, &m, &g);
	ck_assert_int_eq(g.pool.room, 0);	/* near: CPU-bound, not staged */
	sshcfg_free(&cfg);
	m.rtt_ms = 50;
	plan_facts(&fixed, &cfg, m.bytes, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_int_eq(g.pool.room, 0);
	sshcfg_free(&cfg);
	/* Through a proxy: the listing ssh, the route's one, and room. */
	plan_facts(&nc, &cfg, m.bytes, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_int_eq(g.kind, ROUTE_PROXIED);
	ck_assert_int_eq(g.pool.n + 1 + g.pool.room, 16);
	sshcfg_free(&cfg);
	plan_facts(&jump, &cfg, m.bytes, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_int_eq(g.kind, ROUTE_PROXIED);
	ck_assert_int_eq(g.pool.n + 1 + g.pool.room, 16);
	/* An upload through it: the one connection, staged, and room. */
	{
		struct route_decision d;
		struct route_plan p;

		route_decide(&in, &d);
		route_plan_open(&f, &d, &m, &p);
		ck_assert_int_eq(p.kind, ROUTE_PROXIED);
		ck_assert_int_eq(p.pool.n, 1);
		ck_assert(p.pool.staged && !p.pool.probe);
		ck_assert_int_eq(p.pool.room, 15);
	}
	sshcfg_free(&cfg);
	plan_facts(&jump_fixed, &cfg, m.bytes, false, &in, &f);
	route_plan_grow(&f, &m, &g);
	ck_assert_int_eq(g.pool.room, 0);
	sshcfg_free(&cfg);
	plan_facts(&ssm, &cfg, m.bytes, false, &in, &f);
	{
		struct route_decision d;
		struct route_plan p;

		route_decide(&in, &d);
		route_plan_open(&f, &d, &m, &p);
		ck_assert_int_eq(p.kind, ROUTE_SSM_PARALLEL);
		ck_assert_int_eq(p.pool.room, 0);
	}
	sshcfg_free(&cfg);
	ck_assert_double_eq_tol(route_plan_climb_interval_s(50), 0.5, 1e-9);
	ck_assert_double_eq_tol(route_plan_climb_interval_s(0.1), 0.25, 1e-9);
	ck_assert_double_eq_tol(route_plan_climb_interval_s(-1), 0.25, 1e-9);
}
END_TEST

/* The standard route's SFTP on the master's socket: only where scp's ssh
 * would be the master's client itself. */
START_TEST(plan_on_master)
{
	static const struct {
		const char *cfg;
		bool live, special, on;
	} t[] = {
		{ CFG_CM_AUTO, YES, NO, YES },
		{ CFG_CM_AUTO, NO, NO, NO },	/* no master answered */
		{ CFG_CM_AUTO, YES, YES, NO },	/* -S, -D: their program runs */
		{ "host db\nhostname db\ncontrolmaster no\ncontrolpath /s\n", YES, NO, YES },
		{ "host db\nhostname db\ncontrolmaster false\ncontrolpath /s\n", YES, NO, YES },
		{ "host db\nhostname db\ncontrolmaster autoask\ncontrolpath /s\n", YES, NO, YES },
		/* yes and ask make ssh a new master of its own */
		{ "host db\nhostname db\ncontrolmaster yes\ncontrolpath /s\n", YES, NO, NO },
		{ "host db\nhostname db\ncontrolmaster true\ncontrolpath /s\n", YES, NO, NO },
		{ "host db\nhostname db\ncontrolmaster ask\ncontrolpath /s\n", YES, NO, NO },
		{ "host db\nhostname db\ncontrolmaster auto\ncontrolpath none\n", YES, NO, NO },
		{ NULL, YES, NO, NO },		/* ssh -G failed */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct fact_row r = { t[i].cfg, t[i].live, .special = t[i].special, .cores = 2 };
		struct route_input in;
		struct route_facts f;
		struct route_decision d;
		struct route_measure m = { .bytes = MiB, .rtt_ms = -1, .idle_cores = -1 };
		struct route_plan p;
		struct sshcfg cfg;

		plan_facts(&r, &cfg, MiB, false, &in, &f);
		ck_assert_msg(route_plan_on_master(&f) == t[i].on, "row %zu", i);
		route_decide(&in, &d);
		route_plan_open(&f, &d, &m, &p);
		ck_assert_msg(p.on_master == t[i].on, "row %zu: the plan", i);
		if (t[i].cfg != NULL)
			sshcfg_free(&cfg);
	}
}
END_TEST

/* The copy's tail (route_plan_pace_take): MB/s and MiB. */
struct pace_row {
	const char *name;
	double my, my_left, others, best, others_left, queued, piece;
	bool take;
};

static const struct pace_row pace_rows[] = {
	{ "a master's window beside three fresh, one piece left", 35, 0, 300, 100, 18, 16, 16,
	  false },
	{ "a master's window beside three fresh, much queued", 35, 0, 300, 100, 18, 192, 16,
	  true },
	{ "equal connections take", 100, 0, 300, 100, 0, 16, 16, true },
	{ "the fastest with nothing in hand takes", 120, 0, 200, 100, 30, 16, 16, true },
	{ "holding much, it leaves the piece to an idle one", 100, 64, 100, 100, 0, 16, 16,
	  false },
	{ "its rate not known yet", 0, 0, 300, 100, 0, 16, 16, true },
	{ "the others' not known yet", 35, 0, 0, 0, 40, 16, 16, true },
	{ "an SSM session's small piece beside equal ones", 0.8, 0, 7.2, 0.8, 2, 0.0625, 0.0625,
	  true },
	{ "a slow SSM session's last small piece", 0.2, 0, 7.2, 0.8, 0.5, 0.0625, 0.0625,
	  false },
};

static struct route_pace
pace_in(double my, double my_left, double others, double best, double others_left,
    double queued, double piece)
{
	return (struct route_pace){ .my_Bps = my * 1e6, .my_left = my_left * 1048576,
		.others_Bps = others * 1e6, .best_Bps = best * 1e6,
		.others_left = others_left * 1048576, .queued = queued * 1048576,
		.piece = piece * 1048576 };
}

START_TEST(plan_pace_table)
{
	const struct pace_row *r = &pace_rows[_i];
	struct route_pace in = pace_in(r->my, r->my_left, r->others, r->best, r->others_left,
	    r->queued, r->piece);

	ck_assert_msg(route_plan_pace_take(&in) == r->take, "%s: %s", r->name,
	    r->take ? "left it" : "took it");
}
END_TEST

/* Whatever the figures, the fastest connection with nothing in hand takes
 * the piece: the tail never waits with every connection declining. */
START_TEST(plan_pace_progress)
{
	unsigned long s = 12345;
	int declined = 0;

	for (int i = 0; i < 20000; i++) {
		double v[6];

		for (int k = 0; k < 6; k++) {
			s = s * 6364136223846793005ul + 1442695040888963407ul;
			v[k] = (double)((s >> 33) % 1000 + 1);
		}
		double my = v[0], best = v[1] < my ? v[1] : my;
		struct route_pace in = pace_in(my, 0, best + v[2], best, v[3], v[4] + v[5], v[5]);

		ck_assert_msg(route_plan_pace_take(&in), "case %d: the fastest idle one declined",
		    i);
		in = pace_in(v[0], v[1], v[2] + v[3], v[3], v[4], v[5] * 2, v[5]);
		declined += !route_plan_pace_take(&in);
	}
	/* ... and the rule does decline somewhere in that space. */
	ck_assert_int_gt(declined, 0);
}
END_TEST

TCase *route_plan_tcase(void);

TCase *
route_plan_tcase(void)
{
	TCase *tc = tcase_create("plan");

	tcase_add_loop_test(tc, plan_open_table, 0,
	    (int)(sizeof(open_rows) / sizeof(open_rows[0])));
	tcase_add_loop_test(tc, plan_grow_table, 0,
	    (int)(sizeof(grow_rows) / sizeof(grow_rows[0])));
	tcase_add_test(tc, plan_ssm_total);
	tcase_add_test(tc, plan_exec);
	tcase_add_test(tc, plan_on_master);
	tcase_add_test(tc, plan_reconnect);
	tcase_add_test(tc, plan_download_one_channel);
	tcase_add_test(tc, plan_probe);
	tcase_add_loop_test(tc, plan_climb_table, 0,
	    (int)(sizeof(climb_rows) / sizeof(climb_rows[0])));
	tcase_add_test(tc, plan_climb_takes_back);
	tcase_add_test(tc, plan_grow_idle);
	tcase_add_test(tc, plan_climb_room);
	tcase_add_loop_test(tc, plan_pace_table, 0, (int)(sizeof(pace_rows) / sizeof(pace_rows[0])));
	tcase_add_test(tc, plan_pace_progress);
	return tc;
}

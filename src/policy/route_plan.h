/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* route_plan: how a session carries a route out, a pure function of the
 * facts and the measurements, as route_decide is of the facts.
 *
 * route_decide says which route; the plan says what the session opens for
 * it (the pool's shape, channels per connection, through the proxy or
 * not), what starts speculatively beside ssh's listing, whether and when
 * the route is decided again, and after the listing how much it grows and
 * where the data starts.  session/ gathers the inputs, opens what the plan
 * says and decides nothing itself.
 *
 * The inputs take measurements (issue 19's adaptive rules: goodput per
 * interval, idle CPU, the CLI's measured start): a field not measured yet
 * says so (< 0), and every rule reads it that way. */
#ifndef FSCP_ROUTE_PLAN_H
#define FSCP_ROUTE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/route.h"

struct sshcfg;

/* What is known about the host before anything opens. */
struct route_facts {
	const struct sshcfg *cfg;	/* ssh -G's answer (NULL: failed) */
	bool master_live;	/* the ControlPath answered */
	bool ssm;		/* reached through AWS SSM */
	bool special;		/* a mode that needs the standard route (-D, -S ...) */
	bool has_proxy;		/* the config sends connections through a
				   ProxyCommand or ProxyJump */
	bool compress;		/* -C or Compression yes */
	bool upload;		/* the data goes to the host (WRITEs) */
	int want;		/* the caller's cap on connections (0: none;
				   1: a copy over one connection) */
	int connections;	/* FSCP_CONNECTIONS (0: fscp chooses) */
	int cores;		/* local CPUs (0: one) */
	double ssm_start_cpu_s;	/* CPU of one SSM CLI start (0: the default) */
	bool jump_batch;	/* a ProxyJump of one hop whose login needs
				   nobody (its config, as ssh -G reads it) */
};

/* What has been measured since, or is known now. */
struct route_measure {
	long long bytes;	/* to move; -1 before a download's listing */
	double rtt_ms;		/* quickest SFTP round trip of the session's
				   connections; < 0: not measured */
	bool listed_bypass;	/* the listing ran on a libssh connection */
	double idle_cores;	/* CPUs idle on average since the session
				   opened (/proc/stat, within a cgroup quota);
				   < 0: not measured */
};

/* One pool of connections to start. */
struct route_pool_plan {
	int n;			/* connections (SSM sessions); 0: none */
	int per;		/* SFTP channels each, at most */
	size_t window;		/* what each connection lets the server send
				   ahead of its reads (0: the transport's
				   default) */
	bool via_proxy;		/* through the host's proxy command */
	bool probe;		/* the first one tells how many more start */
	bool upload;		/* ... for a copy that writes to the host
				   (route_plan_probe) */
	bool staged;		/* the copy starts on the first one up, the
				   others join as they come */
	bool spec;		/* speculative: nobody waits for it yet */
	bool far_only;		/* ... and pays only for a far server: the
				   first stops at a near banner */
	double delay_s;		/* > 0: the first starts this late */
	int wave;		/* > 0: this many start at a time, when
				   route_plan_ssm_wave says */
	int limit;		/* > 0: no more start until the size is known */
	int room;		/* > 0: this many more may start later, as the
				   climb says (route_plan_climb) */
	/* For the waves' measured re-planning (route_plan_ssm_wave): */
	long long bytes;	/* the size (-1: not known yet) */
	bool fixed;		/* the user set the count */
	double start_cpu_s;	/* FSCP_SSM_START_CPU (0: measured) */
};

/* The session's opening. */
struct route_plan {
	enum route_kind kind;		/* the route decided */
	struct route_pool_plan pool;	/* its bypass (n 0: the standard route) */
	bool compress;
	bool compress_sample;		/* zlib on too when a sample of the data
					   compresses (SSM is capped after ssh) */
	int beside;			/* SSM sessions that start while a direct
					   address is looked for */
	bool grow;			/* standard until the size is known: plan
					   the growth after the listing */
	bool grow_at_open;		/* ... at once after opening (an upload
					   through a master, which measures the
					   round trip as it opens) */
	struct route_pool_plan spec;	/* beside ssh's listing (n 0: none) */
	double spec_lists_ms;		/* > 0: the speculative connection lists
					   instead of ssh when its TCP handshake
					   took less than this (near) */
	bool spec_lists_proxy;		/* the speculative connection lists
					   through the host's proxy (not ssh
					   itself) instead of ssh */
	double spec_wait_s;		/* ... waited for this long at most */
	double spec_handshake_s;	/* ... and this long after it began */
	const char *spec_why;		/* -vv's line for the speculative pool */
	bool on_master;			/* ssh's SFTP would be a session on the
					   live master: fscp asks the master for
					   it itself (transport/sshmux) */
};

/* The opening, from the facts, the route decision over them and the size
 * (m->bytes). */
void route_plan_open(const struct route_facts *f, const struct route_decision *d,
    const struct route_measure *m, struct route_plan *p);

/* Would scp's ssh open its session on the live master?  ssh's mux client
 * tries an existing master under ControlMaster auto, autoask and no; yes
 * and ask make it a new master, connecting on its own. */
bool route_plan_on_master(const struct route_facts *f);

/* After the listing, a route that was standard until the size was known. */
struct route_growth {
	bool grow;			/* false: the session stays as it is (a
					   speculative pool is ended) */
	enum route_kind kind;		/* the route from now on, when grow */
	struct route_pool_plan pool;	/* connections to add, a speculative
					   pool's among them */
	bool rest_listing;		/* the listing connection rests: the data
					   starts at the new ones */
	double window_Bps;		/* > 0: the climb starts on ssh's connection
					   alone (route_decision.window_Bps) */
	char reason[512];		/* -v's route line */
};
void route_plan_grow(const struct route_facts *f, const struct route_measure *m,
    struct route_growth *g);

/* SSM sessions a route of kind started before the size was known should
 * come to in all, now that m->bytes is; 0: no change. */
int route_plan_ssm_total(const struct route_facts *f, enum route_kind kind,
    const struct route_measure *m);

/* The legacy protocol's one stream: does a libssh exec channel carry it
 * (a route one fresh connection beats ssh on), and through the proxy? */
bool route_plan_exec(const struct route_facts *f, const struct route_decision *d,
    bool *via_proxy);

/* A probing pool's first connection has told something, ms after its
 * connect: its banner came, its key exchange took ms (about a round
 * trip), or it logged in and measured a round trip of ms (< 0: not
 * measured).  Returns the connections the pool of n should have in all,
 * or 0: wait for the next stage.  A far banner starts all at once; a near
 * server is worth fewer (CPU-bound); an upload is worth those its
 * channels need, from its key exchange (upload: the pool writes).  *why:
 * why fewer than n, for -v (NULL: not fewer). */
enum route_probe_stage { ROUTE_PROBE_BANNER, ROUTE_PROBE_KEX, ROUTE_PROBE_LOGIN };
int route_plan_probe(enum route_probe_stage stage, double ms, int n, int cores, bool upload,
    const char **why);
/* A speculative connection that pays only far away (far_only) measured
 * ms: its server's first bytes after the connect, or its key exchange.
 * True when it stops there, before the rest of its handshake. */
bool route_plan_spec_stops(double ms);

/* The climb: a direct route's connections grow during the copy while
 * each addition raises the measured goodput and the machine has CPU to
 * spare, as TCP grows its window.  session/ keeps the state between
 * intervals, measures and carries the additions out. */
struct route_climb {
	int conns;		/* connections the copy has or is opening */
	double before_Bps;	/* goodput before the last addition; < 0: none */
	int last_add;		/* connections the last addition started */
	bool done;		/* no more additions */
	double window_Bps;	/* > 0: the first connection is ssh's (a master's
				   or the listing one's), whose window allows
				   this rate: more are added only once the
				   goodput comes near it */
};
struct route_climb_measure {
	double goodput_Bps;	/* over the last interval, every connection's */
	double idle_cores;	/* CPU idle over that interval; < 0: not known */
	double left_s;		/* the copy's time left at that goodput; < 0: not known */
	double join_s;		/* how long the last ones took to join; < 0: not known */
	int room;		/* connections that may still be added */
	double interval_s;	/* how long an interval lasts (route_plan_climb_
				   interval_s): about what a handshake takes */
};
/* The next addition: connections to start now (0: none; c->done says
 * whether the climb is over), or, < 0, that many of the last addition
 * take no more work (it lowered the goodput; the climb is over), with
 * -v's line in reason. */
int route_plan_climb(const struct route_facts *f, struct route_climb *c,
    const struct route_climb_measure *m, char *reason, size_t len);
/* Bytes the copy must have moved before the climb's first interval
 * begins (the settling time below applies to the start too): the first
 * answer at least; on ssh's one connection, more, as its window's ramp
 * is no measure of what the window allows. */
uint64_t route_plan_climb_settle_bytes(const struct route_climb *c);
/* Seconds after connections joined before the next interval begins
 * (interval_s: the climb's): on ssh's one connection a new one's ramp
 * (TCP, its channels' windows) would be taken for its worth. */
double route_plan_climb_settle_s(const struct route_climb *c, double interval_s);
/* How long one interval of the climb lasts for a round trip of rtt_ms
 * (< 0: not known): long enough for the windows to settle. */
double route_plan_climb_interval_s(double rtt_ms);
/* What an SSM pool's pacer measured since its last wave (route_wave.c).
 * Each figure < 0: not measured (yet). */
struct route_ssm_wave_in {
	long long bytes;	/* to move; -1 before the listing */
	int cores;		/* local CPUs (0: one) */
	int started;		/* sessions started so far */
	int limit;		/* the most the pool may start now */
	bool fixed;		/* FSCP_CONNECTIONS set the count */
	double override_cpu_s;	/* FSCP_SSM_START_CPU (0: none) */
	int starting;		/* the last wave's sessions not up nor failed */
	double starting_cpu;	/* cores their proxies burnt over the last
				   interval (their CLIs' start-up work) */
	int starting_runnable;	/* their processes running or waiting for a
				   CPU now (a starved CLI burns little) */
	double wave_cpu_s;	/* CPU the last wave's proxies burnt so far */
	double starting_cpu_s;	/* of that, what its sessions not up burnt */
	double cli_cpu_s;	/* mean CPU of an earlier wave's CLI start-up
				   (-1: none measured) */
	double tick_s;		/* how soon the pool measures again (0: never
				   start ahead of the last wave's end) */
	double idle_cores;	/* cores idle over the last interval, within
				   what this process may use */
	double start_cpu_s;	/* mean CPU of a session's proxy until it came up */
	double setup_s;		/* mean wall time from a start until up, past
				   that CPU */
	double goodput_before;	/* B/s the sessions moved before the latest wave
				   that is all up came up (0: none carried data) */
	double goodput_after;	/* B/s after it came up, before the next */
	int measured_wave;	/* that wave (-v) */
	double left_bytes;	/* what the copy has still to move (< 0: not
				   known) */
	double moved_Bps;	/* the copy's goodput over the last measure
				   (0: none yet) */
	double up_s;		/* how long the latest session up took from
				   its start: what one started now would (0:
				   none up yet) */
	int up;			/* sessions up now */
	double up_weight;	/* the sessions that made moved_Bps, each
				   weighed by the part of its measure it was
				   up for (0: as up; under 1: too soon to
				   tell a session's share) */
	int coming;		/* sessions started, neither up nor failed, ... */
	double coming_in_s[ROUTE_MAX_CONNS];	/* ... each up in about this long
				   (its start plus up_s, less now; 0: due) */
};
enum route_wave_act { ROUTE_WAVE_WAIT, ROUTE_WAVE_START, ROUTE_WAVE_STOP };
struct route_ssm_wave {
	enum route_wave_act act;
	int start;		/* START: sessions to start now */
	int total;		/* > 0: the sessions the copy is worth in all,
				   planned again from the measured start cost */
	int why;		/* which rule (the same rule, the same line) */
	char reason[256];	/* -v's line */
};
/* The next step of an SSM pool's waves, from what was measured: start
 * more now, wait, or stop adding. */
void route_plan_ssm_wave(const struct route_ssm_wave_in *in, struct route_ssm_wave *out);

/* The tail of a copy: whether one connection takes the queued piece,
 * or leaves it to the others because they would finish everything
 * queued before it finished that piece (a master's window-bound channel
 * beside fresh connections, a slow SSM session).  A rate not measured
 * yet (<= 0) counts as unknown, and unknown takes, as before. */
struct route_pace {
	double my_Bps;		/* this connection's goodput since it took work */
	double my_left;		/* bytes it holds and has not had answered */
	double others_Bps;	/* the other working connections' goodput, summed */
	double best_Bps;	/* the fastest other's */
	double others_left;	/* bytes they hold, as far as known */
	double queued;		/* bytes queued, the piece included */
	double piece;		/* the piece at the queue's head */
};
/* True: take the piece (it does not make the copy end later). */
bool route_plan_pace_take(const struct route_pace *p);

/* A connection opened again after every one died: one, one channel. */
void route_plan_reconnect(struct route_pool_plan *p);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* route: the route decision, pure.
 *
 * Cost model (the SSM figures are the simulator's and a real CLI's, measured):
 *
 * SSM.  One SSM session moves R ~ 833 KiB/s per direction whatever the link
 * (the plugin/agent sleep 1 ms per 1 KiB message).  Starting one costs an
 * aws CLI process that burns CPU (~0.6 s assumed until a start is measured,
 * route_wave.c), then ~1.4 s of wall time (StartSession, websocket, agent
 * worker, ssh handshake), so sessions start in waves as wide as the cores
 * and route_ssm_sessions counts what each wave costs: a session is opened
 * only when it comes up early enough to shorten the copy.  N = 1 is
 * exactly what scp does, so that is the standard route.  A direct address
 * with the right host key beats every SSM variant even for a tiny copy (no
 * SSM start-up at all), so ssm-direct does not depend on S.
 *
 * ControlMaster.  A fresh connection costs a handshake and authentication:
 * tens of ms on loopback/LAN, 3-4 round trips on a WAN.  It pays when
 *     S / R_master - S / (k * R_master) > T_handshake,
 * i.e. S > T_hs * R_master * k / (k - 1).  With R_master ~ 50 MiB/s (one ssh
 * process, one 2 MiB channel window), T_hs ~ 0.1 s and k = 4 that is ~7 MiB;
 * on a 100 ms WAN R_master ~ 20 MiB/s and T_hs ~ 0.5 s gives ~13 MiB.  8 MiB
 * is the threshold: below it the master's copy finishes about as fast.
 *
 * Plain host (no master, no SSM).  ssh is what scp uses and is fine for a
 * small copy; a large one (>= 64 MiB) gets fresh connections too, since a
 * single ssh connection is held to one 2 MiB window per round trip and one
 * core of crypto.  A download of unknown size starts on ssh and may grow
 * once the listing has told how much there is (grow).
 *
 * Unknown size (a download before its listing): a live master or ssh lists
 * first (no extra handshake) and the route is decided again with the size
 * known (grow), and with the round trip the listing measured: near, new
 * connections pay only for big copies (never beside a near master: the
 * copy is CPU-bound and the master's connection costs no new handshake,
 * sshd or encryption stream); far, they join a copy that already runs on
 * the listing connection and pay from 8 MiB.  For SSM it counts
 * as ROUTE_SSM_UNKNOWN_BYTES, but only ROUTE_SSM_BEFORE_SIZE sessions start
 * (the one that lists and one more) until the listing tells the size; the
 * waves start then, as many as the size pays for.
 *
 * Another proxy or jump host (a bastion): one connection through it, as
 * ssh's (proxied), from 8 MiB. */
#include "config.h"
#include "policy/route.h"
#include "policy/proxyjump.h"
#include "policy/sshcfg.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *
route_name(enum route_kind k)
{
	switch (k) {
	case ROUTE_STANDARD: return "standard";
	case ROUTE_FRESH: return "fresh";
	case ROUTE_SSM_DIRECT: return "ssm-direct";
	case ROUTE_SSM_PARALLEL: return "ssm-parallel";
	case ROUTE_PROXIED: return "proxied";
	}
	return "?";
}

int
route_force_parse(const char *s, enum route_force *out)
{
	static const char *const std[] = { "standard", "never-bypass", "never",
	    "no", "off", "0", NULL };
	static const char *const byp[] = { "bypass", "always", "yes", "on", "1",
	    NULL };

	*out = ROUTE_FORCE_AUTO;
	if (s == NULL || *s == '\0' || strcasecmp(s, "auto") == 0)
		return 0;
	for (int i = 0; std[i] != NULL; i++)
		if (strcasecmp(s, std[i]) == 0) {
			*out = ROUTE_FORCE_STANDARD;
			return 0;
		}
	for (int i = 0; byp[i] != NULL; i++)
		if (strcasecmp(s, byp[i]) == 0) {
			*out = ROUTE_FORCE_BYPASS;
			return 0;
		}
	return -1;
}

void
route_format_bytes(long long b, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int u = -1;

	if (b < 0) {
		snprintf(buf, len, "unknown size");
		return;
	}
	if (b < 1024) {
		snprintf(buf, len, "%lld B", b);
		return;
	}
	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
}

/* SSM sessions start in waves: each aws CLI burns start_cpu_s of CPU
 * before it reaches AWS, so on `cores` CPUs at most `cores` start side by
 * side and wave k (from 0) carries data from
 *     t_k = (k + 1) * start_cpu_s + setup_s.
 * Started all at once, N CLIs share the cores and none is up before
 * N / cores * start_cpu_s (12 at 0.6 s on 2 cores: 3.6 s, where waves have
 * the first two up at 0.6 s).  With sessions i = 0..N-1 up at t_i, each
 * moving R, the copy of S bytes ends at
 *     T(N) = (S / R + sum t_i) / N     (when every t_i < T(N)),
 * and one more session pays only when it comes up before T(N), by
 * ROUTE_SSM_GAIN_S at least; N = 1 is scp's own copy.  A download's size
 * is unknown before its listing: it counts as ROUTE_SSM_UNKNOWN_BYTES, and
 * no wave starts before the listing (route_decision.before_size). */
int
route_ssm_sessions(long long bytes, const struct route_ssm_cost *c, int max,
    double *finish_s)
{
	int wave = c != NULL && c->cores > 0 ? c->cores : 1;
	double cpu = c != NULL && c->start_cpu_s > 0 ? c->start_cpu_s :
	    ROUTE_SSM_START_CPU_MS / 1000.0;
	double setup = c != NULL && c->setup_s > 0 ? c->setup_s : ROUTE_SSM_SETUP_MS / 1000.0;
	double work, sum, t;
	int n;

	if (max < 1)
		max = 1;
	if (bytes < 0)
		bytes = ROUTE_SSM_UNKNOWN_BYTES;
	work = (double)bytes / (double)ROUTE_SSM_RATE;
	sum = cpu + setup;
	t = work + sum;
	for (n = 1; n < max; n++) {
		double next = (double)(n / wave + 1) * cpu + setup;

		if (next + ROUTE_SSM_GAIN_S > t)
			break;
		sum += next;
		t = (work + sum) / (n + 1);
	}
	if (finish_s != NULL)
		*finish_s = t;
	return n;
}

/* In flight per connection: enough to cover the round trip at a rate one
 * connection can reach (the bandwidth-delay product), and no more.  More is
 * not free: it waits in the server's channel buffer, and OpenSSH grows that
 * buffer by copying it whole into new memory (recallocarray) as it fills;
 * a 64 MiB upload to a near sshd measured 1.76 s with 16 MiB in flight and
 * 0.45 s with 256 KiB (2026-11-30, 2 cores, page faults dear in this VM).
 * Far away the server's window (2 MiB for OpenSSH) caps a download anyway.
 * An upload stops at 1 MiB: WRITEs arrive in bursts of what is in flight,
 * and the bigger the burst the more sshd copies; at 50 ms a 64 MiB upload
 * over 4 connections took 2.97 s with the full 2 MiB window and 2.20 s
 * with 1 MiB (512 KiB: 2.80 s).  More connections make up the rate. */
uint64_t
route_inflight_bytes(double rtt_ms, bool upload)
{
	uint64_t max = upload ? ROUTE_UPLOAD_INFLIGHT_MAX : ROUTE_INFLIGHT_MAX;
	double b;

	if (!(rtt_ms >= 0))
		return max;
	b = rtt_ms / 1000.0 * ROUTE_INFLIGHT_RATE;
	if (b <= (double)ROUTE_INFLIGHT_MIN)
		return ROUTE_INFLIGHT_MIN;
	if (b >= (double)max)
		return max;
	return (uint64_t)b;
}

/* A channel keeps ROUTE_UPLOAD_INFLIGHT_MAX of WRITEs in flight (the server
 * gives each channel a 2 MiB window; bigger bursts cost sshd copies, see
 * above), so a far connection's upload rate is channels x 1 MiB per round
 * trip.  One channel per ROUTE_CHANNEL_MS of round trip on each of
 * ROUTE_FRESH_CONNS connections keeps the copy near 320 MB/s; fewer
 * connections (one through a bastion) get more channels each, up to the
 * cap.  Near servers are CPU-bound and get one (a second channel there
 * only adds a server process).  Unknown: one.  A download needs none of
 * this: its window is this end's to grant, so one channel per connection
 * carries what several would, without their threads, buffers and server
 * processes (route_plan).  conns: the connections that run, not all a
 * climb may come to (sized for those, each far connection got one
 * channel). */
int
route_channels(double rtt_ms, int conns, int max)
{
	double n;

	if (max < 1)
		return 1;
	if (conns < 1)
		conns = 1;
	if (!(rtt_ms >= 0) || rtt_ms < ROUTE_CHANNEL_MS)
		return 1;
	n = rtt_ms / ROUTE_CHANNEL_MS * ROUTE_FRESH_CONNS / conns + 0.5;
	return n < 1 ? 1 : n > max ? max : (int)n;
}

/* A download's window is this end's to grant: one channel per
 * connection, with a window that covers what it keeps in flight, carries
 * what several would, without a thread, a read buffer and a server
 * process for each (256 MiB at 50 ms: two fifths less CPU than eight
 * channels of one window each, as fast, a quarter of the memory).
 * Through a plain proxy (nc, a relay) too: its channels share one
 * session, whose threads then wake each other for every few KiB (64 MiB
 * through nc 50 ms away: a third less CPU on one channel, as fast).  Not
 * through ssh itself (a jump host's ssh -W), whose own window holds the
 * connection: one channel there was slower near and far (64 MiB: 1.7x the
 * time near, 1.16x the CPU at 50 ms; an older build took 4.8-7.5 s at
 * 50 ms on one channel, 3.6-3.9 s on eight).  An upload's WRITEs are
 * held to the server's window on each channel: uploads and connections
 * through ssh keep route_channels. */
bool
route_one_channel(bool upload, bool via_ssh)
{
	return !upload && !via_ssh;
}

/* A server this near (the same host or a LAN) is not held back by windows
 * or round trips; the copy is bound by CPU, and more connections than half
 * the local cores only compete for it.  The round trip is one measured end
 * to end, through whatever relays the path has. */
int
route_near_connections(double rtt_ms, int cores)
{
	if (!(rtt_ms >= 0) || rtt_ms >= ROUTE_NEAR_MS)
		return 0;
	return cores >= 2 ? cores / 2 : 1;
}

/* Everything the engine is told about a route, from the round trip
 * (< 0: unknown) and the direction.  The standard route is one ssh, as
 * scp's, and keeps at least what scp keeps in flight, near or far: scp's
 * whole pipeline of READs, more than ssh's window, and a window of WRITEs
 * (below).  Its data waits in ssh's buffers (and a master's), which the
 * idle round trip does not show, so less runs the pipe dry between replies
 * (far, 1 MiB was 0.78x of scp at 50 ms; near a master, one window was
 * slower than scp).  SSM sessions are capped by their data channel
 * (~833 KiB/s): more in flight only queues in the proxy and starves the
 * other sessions, and small pieces keep every session busy to the end.
 * Bypass connections: one_channel (route_one_channel) gives its one channel
 * a share of the connection's read budget (ROUTE_ONE_CHANNEL_SHARE), which
 * its window covers; through a plain proxy the whole budget, as the data
 * waits in the proxy's buffers too (64 MiB through nc 50 ms away: a sixth
 * faster than with half); else route_channels channels share the budget,
 * and each keeps its own writes in flight, held to the server's window on
 * that channel. */
void
route_tuning(enum route_kind kind, double rtt_ms, bool one_channel, bool via_ssh,
    uint32_t read_len, struct route_tuning *t)
{
	/* scp keeps its whole pipeline of READs in flight, whatever the
	 * round trip: ROUTE_SCP_REQUESTS of the server's length. */
	uint64_t scp_read = ROUTE_SCP_REQUESTS * (uint64_t)(read_len > 0 ? read_len : 32768);

	t->channels = 1;
	t->chunk = ROUTE_CHUNK_FAST;
	t->chunk_max = 0;
	t->read_inflight = route_inflight_bytes(rtt_ms, false);
	t->write_inflight = route_inflight_bytes(rtt_ms, true);
	switch (kind) {
	case ROUTE_SSM_PARALLEL:
		t->chunk = t->chunk_max = ROUTE_CHUNK_SSM;
		t->read_inflight = t->write_inflight = ROUTE_SSM_INFLIGHT;
		return;
	case ROUTE_STANDARD:
		/* One ssh as scp's.  READs beyond ssh's window keep the
		 * server's queue full while the window's data comes back (near
		 * a master, one window's worth made a download slower than
		 * scp's).  WRITEs keep one window: scp's pipeline was faster
		 * only by a twentieth near a master, and every WRITE not yet
		 * answered is sent again by --resume after a kill. */
		if (t->read_inflight < scp_read)
			t->read_inflight = scp_read;
		if (t->write_inflight < ROUTE_SSH_WINDOW)
			t->write_inflight = ROUTE_SSH_WINDOW;
		return;
	default:
		if (!one_channel)
			t->channels = route_channels(rtt_ms, ROUTE_FRESH_CONNS, ROUTE_MAX_CHANNELS);
		t->read_inflight /= (uint64_t)(!one_channel ? t->channels :
		    kind == ROUTE_PROXIED ? 1 : ROUTE_ONE_CHANNEL_SHARE);
		if (t->read_inflight < ROUTE_INFLIGHT_MIN)
			t->read_inflight = ROUTE_INFLIGHT_MIN;
		/* Through a proxy the data waits in more buffers than the
		 * keepalive that measured the round trip: a download never
		 * keeps less than ssh's window (64 MiB through a near nc: 6.6x
		 * the time with 256 KiB), and no more through nc: scp's whole
		 * pipeline was slower still, as nc's small writes wait for
		 * acknowledgements (Nagle).  Through ssh (a jump host's ssh -W)
		 * the rate is held to that ssh's window per round trip, so
		 * what covers it does not grow with the round trip: a few
		 * windows (ROUTE_VIA_SSH_WINDOWS) over the channels that
		 * plan_channels opens there.  Uploads through ssh keep ssh's
		 * window too (64 MiB through a near ProxyJump took 3.1 s with
		 * 256 KiB, scp 0.8 s); through a plain proxy an upload keeps
		 * a direct one's round trip's worth: sshd's copying of its
		 * channel buffer costs more than the proxy's buffers save
		 * (64 MiB through a near nc took a third of the time with
		 * 256 KiB as with ssh's 2 MiB window). */
		if (via_ssh)
			t->read_inflight = ROUTE_VIA_SSH_WINDOWS * ROUTE_SSH_WINDOW /
			    ROUTE_MAX_CHANNELS;
		else if (kind == ROUTE_PROXIED && t->read_inflight < ROUTE_SSH_WINDOW)
			t->read_inflight = ROUTE_SSH_WINDOW;
		if (kind == ROUTE_PROXIED && via_ssh) {
			if (t->write_inflight < ROUTE_SSH_WINDOW / (uint64_t)t->channels)
				t->write_inflight = ROUTE_SSH_WINDOW / (uint64_t)t->channels;
		}
		return;
	}
}

size_t
route_proxy_pipe(const char *proxycommand)
{
	return proxyjump_via_ssh(proxycommand) ? ROUTE_VIA_SSH_PIPE : 0;
}

static int
clamp_conns(int n)
{
	return n < 1 ? 1 : n > ROUTE_MAX_CONNS ? ROUTE_MAX_CONNS : n;
}

/* The listing measured a round trip under ROUTE_NEAR_MS. */
static bool
near_rtt(const struct route_input *in)
{
	return in->rtt_ms > 0 && in->rtt_ms < ROUTE_NEAR_MS;
}

/* Beside a master: the round trip its SFTP measured is short enough that
 * the master's one window (scp's, ROUTE_SSH_WINDOW) covers it at the
 * rate one connection may aim at: the window is not what limits the copy,
 * CPU is, and fresh connections would only add CPU.  Not only under
 * ROUTE_NEAR_MS: on a slow or busy machine the measure through the ssh
 * processes comes out longer than the path is. */
static bool
master_not_window_bound(const struct route_input *in)
{
	return in->rtt_ms > 0 &&
	    in->rtt_ms / 1000.0 * ROUTE_INFLIGHT_RATE <= (double)ROUTE_SSH_WINDOW;
}

/* What ssh's one window (scp's, a master's or the listing ssh's) lets a
 * copy move at the round trip its SFTP measured (0: not measured). */
static double
ssh_window_Bps(const struct route_input *in)
{
	return in->rtt_ms > 0 ? (double)ROUTE_SSH_WINDOW / (in->rtt_ms / 1000.0) : 0;
}

/* The copy starts on the master and fresh connections join as the climb
 * finds its window binding: the climb starts from that window.  Without
 * one (the legacy protocol's one stream, a round trip not measured) there
 * is nothing to climb from, and the copy stays standard. */
static void
master_climb(const struct route_input *in, struct route_decision *out)
{
	out->window_Bps = in->one_stream ? 0 : ssh_window_Bps(in);
	out->kind = out->window_Bps > 0 ? ROUTE_FRESH : ROUTE_STANDARD;
	out->connections = 1;
}

/* The size from which new connections pay, given what the listing
 * measured: far away they join a copy already running on the listing
 * connection, so they cost nothing and pay from ROUTE_FRESH_MIN_BYTES;
 * near (or not measured yet) only for copies of at least near_min. */
static long long
far_min(const struct route_input *in, long long near_min)
{
	return in->rtt_ms >= ROUTE_NEAR_MS ? ROUTE_FRESH_MIN_BYTES : near_min;
}

static void
standard(struct route_decision *out, const char *why)
{
	out->kind = ROUTE_STANDARD;
	out->connections = 1;
	snprintf(out->reason, sizeof(out->reason), "%s", why);
}

static void
decide_ssm(const struct route_input *in, struct route_decision *out,
    const char *size, bool forced)
{
	const char *what = in->ssm_via_jump ?
	    "ProxyJump host uses an AWS SSM ProxyCommand" :
	    "AWS SSM ProxyCommand";
	int n;

	if (in->direct_ok) {
		n = in->connections_wanted > 0 ? clamp_conns(in->connections_wanted) :
		    (in->bytes < 0 || in->bytes >= ROUTE_FRESH_MIN_BYTES) ?
		    ROUTE_FRESH_CONNS : 1;
		out->kind = ROUTE_SSM_DIRECT;
		out->connections = n;
		snprintf(out->reason, sizeof(out->reason),
		    "%s, direct address presents the instance's host key; "
		    "%s to move; %d connection%s", what, size, n, n == 1 ? "" : "s");
		return;
	}
	if (in->connections_wanted > 0)
		n = clamp_conns(in->connections_wanted);
	else {
		struct route_ssm_cost c = { .cores = in->cores, .start_cpu_s = in->ssm_start_cpu_s };

		n = route_ssm_sessions(in->bytes, &c, ROUTE_SSM_MAX_SESSIONS, NULL);
		if (forced && n < 2)
			n = 2;
	}
	/* As many CLIs at once as there are cores; the next wave when
	 * their start-up work is done (route_plan_ssm_wave). */
	out->wave = in->cores > 0 ? in->cores : 1;
	/* Each start is a StartSession call, a session on the instance and
	 * a CLI's CPU: before the listing has told the size, the one that
	 * lists and one more, the others only once a size pays for them.
	 * The one more only with a core free for its CLI: on one core it
	 * would slow the start of the one that lists, which scp does not
	 * pay. */
	if (in->bytes < 0 && in->connections_wanted == 0 && n > ROUTE_SSM_BEFORE_SIZE)
		out->before_size = in->cores >= 2 ? ROUTE_SSM_BEFORE_SIZE : 1;
	if (n == 1) {
		out->kind = ROUTE_STANDARD;
		out->connections = 1;
		snprintf(out->reason, sizeof(out->reason),
		    "%s; %s to move fits one SSM session", what, size);
		return;
	}
	out->kind = ROUTE_SSM_PARALLEL;
	out->connections = n;
	snprintf(out->reason, sizeof(out->reason),
	    "%s, no direct route (%s); %s to move; %d SSM sessions", what,
	    in->direct_why != NULL ? in->direct_why : "not probed", size, n);
}

/* Neither SSM nor a live master: ssh itself is fine for small copies, but
 * one ssh connection carries at most one 2 MiB window per round trip and
 * one core of crypto, so a large copy gets fresh connections. */
static void
plain(const struct route_input *in, struct route_decision *out, const char *size,
    bool forced)
{
	const struct sshcfg *cfg = in->cfg;
	const char *what;
	char why[200];
	int n = in->connections_wanted > 0 ? clamp_conns(in->connections_wanted) :
	    ROUTE_FRESH_CONNS;

	/* Through another proxy or jump host, each connection is one more
	 * on a machine that is not the user's: one to start with, as ssh's,
	 * but with several channels and wide windows, once the copy is big
	 * enough to pay for a second proxy and handshake.  More join only as
	 * the climb measures them pay (route_plan_open): a jump host's ssh -W
	 * holds each connection to ssh's window, a plain relay does not. */
	if ((cfg->proxycommand != NULL || cfg->proxyjump != NULL)) {
		what = cfg->proxycommand != NULL ? "ProxyCommand is not AWS SSM" :
		    "ProxyJump host is not reached through AWS SSM";
		if (!forced && in->bytes < 0) {
			snprintf(why, sizeof(why), "%s and no ControlMaster is live; size "
			    "unknown until listed", what);
			standard(out, why);
			out->grow = true;
			return;
		}
		if (!forced && in->bytes < ROUTE_PROXIED_MIN_BYTES) {
			snprintf(why, sizeof(why), "%s and no ControlMaster is live; %s to move",
			    what, size);
			standard(out, why);
			return;
		}
		/* Measured near, the copy is bound by CPU; not far (ssh's
		 * window allows ROUTE_WINDOW_SURE_RATE), it may be.  Through
		 * ssh itself (a jump host), ssh's copy passes one ssh process
		 * more than a connection of fscp's own through the same
		 * proxy (scp, ssh, then ssh -W, whose small pipe to ssh costs
		 * it more CPU than the connection's whole path), and that
		 * connection's ssh -W has the same window: the copy leaves the
		 * listing ssh for the connection started beside it.  Through
		 * any other proxy ssh's copy is as cheap, and a second proxy
		 * and handshake only take CPU from it: near, it goes on over
		 * ssh. */
		bool via_ssh = proxyjump_host_via_ssh(cfg->proxycommand, cfg->proxyjump);
		/* Listed by ssh, whose window does not hold the copy back. */
		bool window_free = !forced && in->connections_wanted == 0 &&
		    !in->listed_bypass && ssh_window_Bps(in) >= ROUTE_WINDOW_SURE_RATE;

		if ((!forced && near_rtt(in)) || (via_ssh && window_free)) {
			/* Listed by a connection of fscp's own (a ProxyJump
			 * whose logins ask nobody), no ssh runs: near, that
			 * one carries the copy, as through any other proxy. */
			if (via_ssh && !in->listed_bypass) {
				out->kind = ROUTE_PROXIED;
				out->connections = in->connections_wanted > 0 ?
				    clamp_conns(in->connections_wanted) : 1;
				out->rest_listing = true;
				snprintf(out->reason, sizeof(out->reason),
				    "%s; the server answers in %.2f ms through ssh: the copy (%s) "
				    "leaves the listing ssh for a connection through the same "
				    "proxy", what, in->rtt_ms, size);
				return;
			}
			snprintf(why, sizeof(why), "%s and no ControlMaster is live; the server "
			    "answers within %.0f ms", what, ROUTE_NEAR_MS);
			standard(out, why);
			return;
		}
		n = in->connections_wanted > 0 ? clamp_conns(in->connections_wanted) : 1;
		out->kind = ROUTE_PROXIED;
		out->connections = n;
		if (window_free) {
			/* Through a proxy that is not ssh, listed by ssh, not
			 * far: whether ssh's window or this machine's CPU holds
			 * the copy back depends on the machine, and a second
			 * proxy and handshake take CPU from ssh's copy: the
			 * copy goes on over ssh, and the proxied connection
			 * joins only if it moves near what the window allows.
			 * (Listed by a connection of fscp's own, no ssh runs:
			 * that one carries the copy, and the climb adds to
			 * it.) */
			out->window_Bps = ssh_window_Bps(in);
			snprintf(out->reason, sizeof(out->reason),
			    "%s; the server answers in %.2f ms, where ssh's window allows %.0f "
			    "MB/s: the copy (%s) goes on over ssh, and a connection through the "
			    "same proxy joins if it moves near that", what, in->rtt_ms,
			    out->window_Bps / 1e6, size);
			return;
		}
		snprintf(out->reason, sizeof(out->reason),
		    "%s; %s to move: %d connection%s through the same proxy%s", what,
		    size, n, n == 1 ? "" : "s",
		    forced ? " (forced)" : "");
		return;
	}
	what = "no ControlMaster or SSM proxy";
	if (!forced && in->bytes < 0) {
		snprintf(why, sizeof(why), "%s; size unknown until listed", what);
		standard(out, why);
		out->grow = true;
		return;
	}
	if (!forced && in->bytes < far_min(in, ROUTE_BIG_BYTES)) {
		/* An upload of known size, before any round trip: decided
		 * again as a download is after its listing.  A connection of
		 * fscp's own starts beside ssh's and, near with a login that
		 * asks nobody, looks at the target and copies instead of ssh
		 * (its key exchange and login cost less than ssh's); far, ssh
		 * does, and the round trip it measures says whether fresh
		 * connections pay (from ROUTE_FRESH_MIN_BYTES). */
		bool again = !(in->rtt_ms > 0) && !in->one_stream && in->connections_wanted == 0 &&
		    in->bytes >= ROUTE_LEAST_BYTES;

		snprintf(why, sizeof(why), "%s; %s to move%s", what, size,
		    again ? ", decided again once the target is looked at" : "");
		standard(out, why);
		out->grow = again;
		return;
	}
	out->kind = ROUTE_FRESH;
	out->connections = n;
	snprintf(out->reason, sizeof(out->reason),
	    "%s; %s to move: %d fresh connection%s with wide windows%s", what, size,
	    n, n == 1 ? "" : "s", forced ? " (forced)" : "");
}

/* A direct address costs a CLI start and a probe (about what SSM takes
 * for 1 MiB) and saves the SSM start (1-3 s) on top of the transfer: a
 * smaller copy of known size does not look.  A download's size is not
 * known yet: the session carries the lookup out beside the first SSM
 * session's start (route_lookup_beside_now says when that session's CLI
 * may start), so that a host without a direct address costs no CLI start
 * more than scp's ssh does; a direct address found ends that session, in
 * its CLI's start-up most of the time.  On one core the two CLIs would
 * share it: the session would be up no sooner than after the lookup, and
 * the lookup (and a direct copy) would take twice as long, so the lookup
 * comes first there, as it does with an address given (no CLI) and for
 * one stream (decided once). */
enum route_lookup
route_ssm_lookup(long long bytes, bool one_stream, bool asks_cli, int cores, const char **why)
{
	if (bytes >= 0 && bytes < ROUTE_SSM_DIRECT_MIN_BYTES) {
		*why = "copy too small to look for a direct route";
		return ROUTE_LOOKUP_NONE;
	}
	if (bytes < 0 && !one_stream && asks_cli && cores >= 2) {
		*why = "size unknown: looked for as the first SSM session starts";
		return ROUTE_LOOKUP_BESIDE;
	}
	*why = NULL;
	return ROUTE_LOOKUP_FIRST;
}

/* The two CLIs side by side cost the lookup nothing only when the second
 * one has a core to itself: on a busy machine it takes CPU from the
 * lookup instead, and a host that has a direct address (found later) then
 * copies later (measured: about a second later with the machine's two
 * cores busy, for any size; still 0.2-0.6 s when the CLI started after a
 * 50 ms glimpse of most of a core idle).  So the session's CLI starts
 * beside the lookup only once a whole core has stayed idle (nearly) since
 * the lookup started, over a tenth of a second at least, and after the
 * lookup otherwise, as before. */
#define ROUTE_LOOKUP_IDLE_CORES	0.9
#define ROUTE_LOOKUP_IDLE_S	0.1

bool
route_lookup_beside_now(double idle_cores, double over_s)
{
	return over_s >= ROUTE_LOOKUP_IDLE_S && idle_cores >= ROUTE_LOOKUP_IDLE_CORES;
}

bool
route_wants_config(long long bytes, enum route_force force, int connections_wanted)
{
	return bytes < 0 || bytes >= ROUTE_LEAST_BYTES || force == ROUTE_FORCE_BYPASS ||
	    connections_wanted > 0;
}

void
route_decide(const struct route_input *in, struct route_decision *out)
{
	const struct sshcfg *cfg = in->cfg;
	bool forced = in->force == ROUTE_FORCE_BYPASS;
	char size[32];

	memset(out, 0, sizeof(*out));
	route_format_bytes(in->bytes, size, sizeof(size));

	if (in->force == ROUTE_FORCE_STANDARD) {
		char why[200];

		snprintf(why, sizeof(why), "route forced to standard by %s",
		    in->force_why != NULL ? in->force_why : "the environment");
		standard(out, why);
		return;
	}
	if (in->legacy_or_special) {
		char why[200];

		snprintf(why, sizeof(why), "%s needs the standard route",
		    in->special_why != NULL ? in->special_why : "this mode");
		standard(out, why);
		return;
	}
	/* No ssh -G was asked for a copy this small (facts_gather). */
	if (cfg == NULL && !route_wants_config(in->bytes, in->force, in->connections_wanted)) {
		char why[200], least[32];

		route_format_bytes(ROUTE_LEAST_BYTES, least, sizeof(least));
		snprintf(why, sizeof(why), "%s to move, under the %s from which any other "
		    "route pays: ssh reads its own configuration", size, least);
		standard(out, why);
		return;
	}
	if (cfg == NULL) {
		standard(out, "no ssh configuration (ssh -G failed)");
		return;
	}
	if (in->ssm) {
		decide_ssm(in, out, size, forced);
		return;
	}
	if (sshcfg_has_controlpath(cfg) && in->master_live) {
		int n = in->connections_wanted > 0 ?
		    clamp_conns(in->connections_wanted) : ROUTE_FRESH_CONNS;

		if (!forced && in->bytes < 0) {
			/* A download: list through the master, which costs no
			 * handshake, then decide with the size known. */
			snprintf(out->reason, sizeof(out->reason),
			    "ControlMaster socket %s is live; size unknown until listed",
			    cfg->controlpath);
			out->kind = ROUTE_STANDARD;
			out->connections = 1;
			out->grow = true;
			return;
		}
		if (!forced && in->bytes >= 0 && in->bytes < ROUTE_FRESH_MIN_BYTES) {
			snprintf(out->reason, sizeof(out->reason),
			    "ControlMaster socket %s is live; small copy (%s) "
			    "stays on the live master", cfg->controlpath, size);
			out->kind = ROUTE_STANDARD;
			out->connections = 1;
			return;
		}
		if (!forced && master_not_window_bound(in) && in->connections_wanted == 0) {
			/* Near, the copy is bound by CPU, and a fresh
			 * connection costs what the master's costs no more: a
			 * new sshd, a key exchange and a second encryption
			 * stream.  On a slower machine that loses to scp; what
			 * it would gain cannot be known before paying for it,
			 * so the copy stays on the master, exactly scp's cost. */
			snprintf(out->reason, sizeof(out->reason),
			    "ControlMaster socket %s is live; the server answers in %.2f ms, "
			    "within what the master's window covers: the copy (%s) stays on the "
			    "live master (a fresh connection costs a new sshd, a key exchange and "
			    "a second encryption stream)", cfg->controlpath, in->rtt_ms, size);
			out->kind = ROUTE_STANDARD;
			out->connections = 1;
			return;
		}
		if (!forced && in->connections_wanted == 0 && !in->one_stream &&
		    ssh_window_Bps(in) >= ROUTE_WINDOW_SURE_RATE) {
			/* Whether the master's window or this machine's CPU
			 * bounds the copy depends on the machine, and a fresh
			 * connection that comes up late costs the master's
			 * copy CPU it needs (a 64 MiB upload 10 ms away took
			 * 1.4 times scp's time): the copy starts on the master,
			 * and fresh connections join once its goodput shows
			 * the window binds, with CPU idle beside it (the
			 * climb measures both on the master's copy alone, not
			 * on the start's handshakes). */
			master_climb(in, out);
			snprintf(out->reason, sizeof(out->reason),
			    "ControlMaster socket %s is live; the server answers in %.2f ms, "
			    "where the master's window allows %.0f MB/s: the copy (%s) starts "
			    "on the master, and fresh connections join if it moves near that",
			    cfg->controlpath, in->rtt_ms, out->window_Bps / 1e6, size);
			return;
		}
		if (!forced && in->idle_known && in->connections_wanted == 0 &&
		    in->idle_cores < ROUTE_FRESH_IDLE_CORES) {
			/* A busy machine: fresh connections started at once
			 * would come up beside the master's copy, on the same
			 * cores, and their handshakes and second encryption
			 * streams take what it needs.  So they join only as
			 * the climb finds the window binding the master's
			 * copy and CPU idle beside it (master_climb). */
			master_climb(in, out);
			snprintf(out->reason, sizeof(out->reason),
			    "ControlMaster socket %s is live; %.2f cores idle since the copy "
			    "began: the copy (%s) %s", cfg->controlpath, in->idle_cores, size,
			    out->window_Bps > 0 ? "starts on the master, and fresh connections "
			    "join if it moves near what the master's window allows" :
			    "stays on the live master");
			return;
		}
		if (!forced && in->rtt_ms == 0 && !in->one_stream && in->connections_wanted == 0) {
			/* The master carries data at once; whether fresh
			 * connections pay depends on the round trip (near,
			 * never: see below), which the master's SFTP measures
			 * as it opens. */
			snprintf(out->reason, sizeof(out->reason),
			    "ControlMaster socket %s is live; %s to move: the copy starts on "
			    "the master until the round trip is known", cfg->controlpath, size);
			out->kind = ROUTE_STANDARD;
			out->connections = 1;
			out->grow = true;
			return;
		}
		out->kind = ROUTE_FRESH;
		out->connections = n;
		snprintf(out->reason, sizeof(out->reason),
		    "ControlMaster socket %s is live; %s to move; %d connection%s%s",
		    cfg->controlpath, size, n, n == 1 ? "" : "s",
		    forced ? " (forced)" : "");
		return;
	}
	if (sshcfg_has_controlpath(cfg)) {
		snprintf(out->reason, sizeof(out->reason),
		    "ControlPath %s has no live master", cfg->controlpath);
		out->kind = ROUTE_STANDARD;
		out->connections = 1;
		return;
	}
	plain(in, out, size, forced);
}

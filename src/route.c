/* route: the route decision, pure.
 *
 * Cost model (numbers in DESIGN.md and ssm-model.md):
 *
 * SSM.  One SSM session moves R ~ 833 KiB/s per direction whatever the link
 * (the plugin/agent sleep 1 ms per 1 KiB message) and costs T_setup ~ 1-3 s
 * (CLI start, StartSession, websocket, agent worker, ssh handshake).  N
 * sessions start in parallel, so the wall time is about
 *     T(N) = T_setup + S / (N * R),
 * which falls with N; but each session also costs an aws CLI process (CPU
 * heavy), an API call and an agent worker.  A session is worth opening only
 * if it then moves at least as long as it took to start, i.e. at least
 * R * T_setup bytes (~1.6 MiB at 2 s): N = S / (R * T_setup), at least 1 and
 * at most 8.  N = 1 is exactly what scp does, so that is the standard route.
 * A direct address with the right host key beats every SSM variant even for
 * a tiny copy (no SSM start-up at all), so ssm-direct does not depend on S.
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
 * known (grow).  For SSM it is treated as large: a second round of SSM
 * start-ups would cost as much as the sessions save on a mid-size copy. */
#include "config.h"
#include "route.h"
#include "sshcfg.h"

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

int
route_ssm_sessions(long long bytes, int max)
{
	long long per = ROUTE_SSM_RATE * ROUTE_SSM_SETUP_MS / 1000;
	long long n;

	if (max < 1)
		max = 1;
	if (bytes < 0)
		return max;
	n = bytes / per;
	return n < 1 ? 1 : n > max ? max : (int)n;
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
 * trip.  One channel per ROUTE_CHANNEL_MS of round trip keeps a connection
 * near 80 MB/s up to the cap; near servers are CPU-bound and get one (a
 * second channel there only adds a server process).  Unknown: one. */
int
route_channels(double rtt_ms, int max)
{
	int n;

	if (max < 1)
		return 1;
	if (!(rtt_ms >= 0) || rtt_ms < ROUTE_CHANNEL_MS)
		return 1;
	n = (int)(rtt_ms / ROUTE_CHANNEL_MS + 0.5);
	return n < 1 ? 1 : n > max ? max : n;
}

static int
clamp_conns(int n)
{
	return n < 1 ? 1 : n > ROUTE_MAX_CONNS ? ROUTE_MAX_CONNS : n;
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
		n = route_ssm_sessions(in->bytes, ROUTE_SSM_MAX_SESSIONS);
		if (forced && n < 2)
			n = 2;
	}
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

	/* Through another proxy or jump host, more connections mean more load
	 * on a machine that is not the user's: stay with ssh. */
	if (cfg->proxycommand != NULL && !forced) {
		standard(out, "ProxyCommand is not AWS SSM and no ControlMaster is live");
		return;
	}
	if (cfg->proxyjump != NULL && !forced) {
		standard(out, "ProxyJump host is not reached through AWS SSM and no "
		    "ControlMaster is live");
		return;
	}
	what = "no ControlMaster or SSM proxy";
	if (!forced && in->bytes < 0) {
		snprintf(why, sizeof(why), "%s; size unknown until listed", what);
		standard(out, why);
		out->grow = true;
		return;
	}
	if (!forced && in->bytes < ROUTE_BIG_BYTES) {
		snprintf(why, sizeof(why), "%s; %s to move", what, size);
		standard(out, why);
		return;
	}
	out->kind = ROUTE_FRESH;
	out->connections = n;
	snprintf(out->reason, sizeof(out->reason),
	    "%s; %s to move: %d fresh connection%s with wide windows%s", what, size,
	    n, n == 1 ? "" : "s", forced ? " (forced)" : "");
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
		standard(out, "route forced to standard by the environment");
		return;
	}
	if (in->legacy_or_special) {
		char why[200];

		snprintf(why, sizeof(why), "%s needs the standard route",
		    in->special_why != NULL ? in->special_why : "this mode");
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

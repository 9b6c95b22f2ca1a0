/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* route: which path a copy takes, a pure function with a reason string.
 *
 *   standard      spawn ssh exactly as scp would (also every fallback)
 *   fresh         a live ControlMaster socket: fresh libssh connections
 *   ssm-direct    SSM ProxyCommand, but a direct address presents the host
 *                 key known for the instance: direct libssh connections
 *   ssm-parallel  SSM ProxyCommand, no direct path: N sessions, each with
 *                 its own proxy
 *   proxied       another ProxyCommand or ProxyJump (a bastion): one libssh
 *                 connection through the same proxy (far away, more as the
 *                 climb measures them pay); a download through a plain
 *                 proxy on one SFTP channel, else several
 *
 * The caller gathers the facts (ssh -G, a connect() on the ControlPath, the
 * direct probe, the size of the sources) and prints the reason under -v:
 * "fscp: route fresh: <reason>". */
#ifndef FSCP_ROUTE_H
#define FSCP_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sshcfg;

enum route_kind { ROUTE_STANDARD, ROUTE_FRESH, ROUTE_SSM_DIRECT, ROUTE_SSM_PARALLEL,
	ROUTE_PROXIED };
enum route_force { ROUTE_FORCE_AUTO, ROUTE_FORCE_STANDARD, ROUTE_FORCE_BYPASS };

/* Tunables, with the reasoning in route.c. */
#define ROUTE_FRESH_MIN_BYTES	(8LL << 20)	/* below: stay on a live master */
#define ROUTE_FRESH_CONNS	4
#define ROUTE_BIG_BYTES		(64LL << 20)	/* plain host: fresh from here on */
#define ROUTE_PROXIED_MIN_BYTES	(8LL << 20)	/* through a bastion: from here on */
#define ROUTE_SSM_RATE		853333LL	/* B/s, one SSM session, one direction */
#define ROUTE_SSM_START_CPU_MS	600		/* CPU one `aws ssm start-session` burns
						   before it reaches AWS (CLI v1: 0.58 s
						   user + 0.10 s sys), assumed until a
						   session's start is measured */
#define ROUTE_SSM_SETUP_MS	1400LL		/* then StartSession, websocket, agent,
						   ssh handshake (wall time) */
#define ROUTE_SSM_MAX_SESSIONS	32
#define ROUTE_SSM_UNKNOWN_BYTES	(64LL << 20)	/* a download before its listing */
#define ROUTE_SSM_BEFORE_SIZE	2	/* sessions started before the listing:
					   the one that lists, one speculative
					   (with a second core) */
#define ROUTE_SSM_GAIN_S	0.2		/* a session must save this much */
/* The least a copy of known size moves for any route but the standard one
 * to act on it: a second SSM session's gain (route_ssm_sessions); every
 * other route starts far above it. */
#define ROUTE_LEAST_BYTES	((long long)(ROUTE_SSM_GAIN_S * ROUTE_SSM_RATE) + 1)
#define ROUTE_MAX_CONNS		64
#define ROUTE_INFLIGHT_RATE	256000000.0	/* B/s one connection may aim at */
#define ROUTE_INFLIGHT_MIN	(256ull << 10)	/* per connection, a near server */
#define ROUTE_INFLIGHT_MAX	(16ull << 20)	/* per connection, far or unknown */
#define ROUTE_UPLOAD_INFLIGHT_MAX (1ull << 20)	/* per connection, writing */
#define ROUTE_NEAR_MS		2.0	/* a round trip under this: same host or LAN */
/* A new connection takes its share of the crypto on both ends: the
 * climb adds one only with this much CPU idle (a cgroup quota's share
 * counted). */
#define ROUTE_CLIMB_IDLE_CORES	0.5
/* Beside a far master, fresh connections start at once only with as much
 * idle since the copy began; else the climb decides.  No more than one
 * addition asks: that span holds fscp's own start and first handshakes,
 * so a machine or quota of one core would never show a whole core. */
#define ROUTE_FRESH_IDLE_CORES	ROUTE_CLIMB_IDLE_CORES
/* B/s that one ssh stream moves on any machine fscp is meant for: an ssh
 * window (a master's, a listing's) that allows less surely binds the copy,
 * and new connections start at once; one that allows more binds it only
 * on a fast machine, so ssh's goodput is measured first. */
#define ROUTE_WINDOW_SURE_RATE	64000000.0
#define ROUTE_MAX_CHANNELS	8	/* SFTP channels on one connection (sshd's
					   MaxSessions is 10 by default) */
#define ROUTE_CHANNEL_MS	12.5	/* a round trip this long is worth a channel */

struct route_input {
	const struct sshcfg *cfg;	/* NULL when ssh -G failed */
	bool master_live;	/* ControlPath socket answered */
	bool ssm;		/* ProxyCommand (or the ProxyJump host's) is AWS SSM */
	bool ssm_via_jump;	/* ... and it is the jump host's, for the reason */
	bool direct_ok;		/* a direct address presented the known host key */
	const char *direct_why;	/* why not, when !direct_ok (may be NULL) */
	long long bytes;	/* bytes to move; -1 when unknown */
	double rtt_ms;		/* round trip measured on the listing connection;
				   < 0 (or 0 in a zeroed input): not known */
	int connections_wanted;	/* from env/option; 0 = choose */
	bool idle_known;	/* idle_cores was measured (a zeroed input: no) */
	double idle_cores;	/* CPUs idle since the session opened, within a
				   cgroup quota */
	int cores;		/* local CPUs (0: one) */
	double ssm_start_cpu_s;	/* CPU time of one SSM CLI start; 0: the default */
	enum route_force force;
	const char *force_why;	/* who set force, e.g. "FSCP_ROUTE=standard"
				   (NULL: "the environment") */
	bool legacy_or_special;	/* -O, -D, -S non-ssh, -3 ... → standard */
	bool one_stream;	/* the legacy protocol on an exec channel: no
				   deciding again later */
	bool listed_bypass;	/* the listing ran on a libssh connection
				   through the proxy, not on ssh */
	const char *special_why;	/* e.g. "-O (legacy scp protocol)" */
};

struct route_decision {
	enum route_kind kind;
	int connections;	/* connections (fresh/direct) or SSM sessions; 1 for standard */
	bool grow;		/* standard for now: decide again once the size is known */
	int wave;		/* ssm-parallel: sessions started together (0: all),
				   each wave when the last one's CLIs are
				   done (route_plan_ssm_wave) */
	int before_size;	/* ssm-parallel of unknown size: only this many
				   start until the listing tells the size (0: no
				   such limit) */
	double window_Bps;	/* > 0 (fresh beside a master, proxied after a
				   listing): the rate ssh's one window allows;
				   the copy goes on over ssh, and new
				   connections join only once its measured
				   goodput shows the window binds
				   (route_plan_climb) */
	bool rest_listing;	/* proxied after a listing that found the
				   server near through ssh itself (a jump
				   host): the copy leaves the listing ssh for
				   the connection through the same proxy */
	char reason[320];
};

void route_decide(const struct route_input *in, struct route_decision *out);
/* Is ssh -G worth asking for a copy of bytes (-1: not known yet)?  Not
 * below ROUTE_LEAST_BYTES, unless the user forces the bypass or sets a
 * count: every route decides standard there, and ssh reads its own
 * configuration, as it does for scp. */
bool route_wants_config(long long bytes, enum route_force force, int connections_wanted);
/* When an SSM host's direct address is looked for (the aws CLI's
 * describe-instances, then a probe), see route.c. */
enum route_lookup {
	ROUTE_LOOKUP_NONE,	/* not at all */
	ROUTE_LOOKUP_FIRST,	/* before the route is decided */
	ROUTE_LOOKUP_BESIDE,	/* while the first SSM session's CLI starts */
};
#define ROUTE_SSM_DIRECT_MIN_BYTES	(1ll << 20)	/* smaller: not looked for */
/* bytes (-1 unknown), one_stream as in route_input; asks_cli: the lookup
 * runs the aws CLI (FSCP_SSM_DIRECT=auto); *why: the reason, for -v. */
enum route_lookup route_ssm_lookup(long long bytes, bool one_stream, bool asks_cli, int cores,
    const char **why);
/* ROUTE_LOOKUP_BESIDE: may the first SSM session's CLI start now, with
 * idle_cores (-1: not known) idle on average over the over_s seconds since
 * the lookup started, see route.c? */
bool route_lookup_beside_now(double idle_cores, double over_s);
const char *route_name(enum route_kind k);
/* Value of the route environment knob: NULL/""/"auto" → AUTO;
 * "standard"/"never-bypass"/"never"/"no"/"off"/"0" → STANDARD;
 * "bypass"/"always"/"yes"/"on"/"1" → BYPASS.  -1 when not understood. */
int route_force_parse(const char *s, enum route_force *out);
/* "512 B", "8.0 MiB", "1.0 GiB", "unknown size" (for -1). */
void route_format_bytes(long long bytes, char *buf, size_t len);
/* What starting SSM sessions costs on this machine. */
struct route_ssm_cost {
	int cores;		/* CLIs that run side by side (a wave) */
	double start_cpu_s;	/* CPU each CLI start burns */
	double setup_s;		/* wall time after that until the session carries data */
};
/* Number of SSM sessions worth opening for bytes (-1: unknown), 1..max:
 * the count that ends the copy soonest when sessions start in waves of
 * cores, see route.c.  *finish_s (may be NULL): the copy's modelled end. */
int route_ssm_sessions(long long bytes, const struct route_ssm_cost *c, int max,
    double *finish_s);
/* READ (or, upload, WRITE) bytes worth keeping in flight on one connection
 * whose SFTP round trip is rtt_ms (< 0: unknown), see route.c. */
uint64_t route_inflight_bytes(double rtt_ms, bool upload);
/* How a route's connections are driven, once the round trip is known. */
struct route_tuning {
	int channels;			/* SFTP channels per connection */
	uint64_t read_inflight;		/* READ bytes in flight per channel */
	uint64_t write_inflight;	/* WRITE bytes in flight per channel */
	uint64_t chunk;			/* smallest piece a file is cut into across channels */
	uint64_t chunk_max;		/* largest piece; 0: pieces grow with the file */
};
/* A download's one channel, connected directly, keeps this share of its
 * connection's read budget in flight: the copy runs on several
 * connections, and the climb adds more while the goodput rises, so the
 * whole budget on each only waits in the server's channel buffer, which
 * sshd grows by copying (at 50 ms, the whole budget was 7% slower than
 * half for 64 MiB, 4% for 256).  Through a plain proxy: the whole. */
#define ROUTE_ONE_CHANNEL_SHARE	2
/* ssh's session channel window (OpenSSH's: 64 packets of 32 KiB): what
 * scp's ssh, a master or a jump host's ssh -W moves per round trip. */
#define ROUTE_SSH_WINDOW	(64ull * 32768)
/* scp's pipeline: this many requests (sftp-client.c), each of the length
 * the server allows (limits@openssh.com; 32 KiB without it).  The standard
 * route keeps as many READs in flight. */
#define ROUTE_SCP_REQUESTS	64
#define ROUTE_CHUNK_FAST	(4ull << 20)
/* SSM: pieces pass their handle on (no OPEN each), so small ones cost
 * nothing and end the copy more evenly: 20 MiB over 12 sessions, 3 runs,
 * 64 KiB / 256 KiB 5.91-5.99 s down and 6.00-6.05 s up, 128 KiB / 512 KiB
 * 5.98-6.08 s and 6.05-6.09 s. */
#define ROUTE_CHUNK_SSM		(64ull << 10)
#define ROUTE_SSM_INFLIGHT	(256ull << 10)
/* A connection through ssh itself (a jump host's ssh -W) moves at most
 * one of that ssh's channel windows per round trip, whatever the round
 * trip.  It keeps this many of them in flight, split over its channels:
 * more only queue in ssh's buffers and the jump host's sshd, which grow
 * them by copying; fewer leave the path idle between replies. */
#define ROUTE_VIA_SSH_WINDOWS	4
/* What the pipe from a proxy that is ssh itself holds: ssh -W writes what
 * fits once per turn of its loop, and a turn costs it more than the bytes
 * it moves, so a deep pipe halves its CPU for a download.  It is Linux's
 * largest that needs no privilege (fs/pipe-max-size). */
#define ROUTE_VIA_SSH_PIPE	(1u << 20)
/* Bytes the pipe from a bypass's proxy (its expanded ProxyCommand, NULL:
 * none) is asked to hold (0: the system's size): ROUTE_VIA_SSH_PIPE when
 * it runs ssh (proxyjump_via_ssh).  Other proxies keep the system's: behind
 * nc a deep pipe made a near download slower. */
size_t route_proxy_pipe(const char *proxycommand);
/* one_channel: the connections have one channel each (route_one_channel);
 * via_ssh: they go through ssh (proxyjump_via_ssh); read_len: the READ
 * length the first connection asks for (sftp_max_read: the server's limit,
 * or -X buffer=; 0: not known, 32 KiB as without the server's limits). */
void route_tuning(enum route_kind kind, double rtt_ms, bool one_channel, bool via_ssh,
    uint32_t read_len, struct route_tuning *t);

/* Connections a server rtt_ms away is worth on a machine with cores
 * cores: 0 when it is not near (or not known to be), else half the cores. */
int route_near_connections(double rtt_ms, int cores);
/* SFTP channels worth opening on each of conns connections whose round
 * trip is rtt_ms (< 0: unknown), at most max; see route.c. */
int route_channels(double rtt_ms, int conns, int max);
/* Whether a bypass connection carries the copy on one channel with a wide
 * window (a download, not through ssh itself) rather than route_channels. */
bool route_one_channel(bool upload, bool via_ssh);

#endif

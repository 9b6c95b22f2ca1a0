/* route: which path a copy takes, a pure function with a reason string.
 *
 *   standard      spawn ssh exactly as scp would (also every fallback)
 *   fresh         a live ControlMaster socket: fresh libssh connections
 *   ssm-direct    SSM ProxyCommand, but a direct address presents the host
 *                 key known for the instance: direct libssh connections
 *   ssm-parallel  SSM ProxyCommand, no direct path: N sessions, each with
 *                 its own proxy
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

enum route_kind { ROUTE_STANDARD, ROUTE_FRESH, ROUTE_SSM_DIRECT, ROUTE_SSM_PARALLEL };
enum route_force { ROUTE_FORCE_AUTO, ROUTE_FORCE_STANDARD, ROUTE_FORCE_BYPASS };

/* Tunables, with the reasoning in route.c. */
#define ROUTE_FRESH_MIN_BYTES	(8LL << 20)	/* below: stay on a live master */
#define ROUTE_FRESH_CONNS	4
#define ROUTE_BIG_BYTES		(64LL << 20)	/* plain host: fresh from here on */
#define ROUTE_SSM_RATE		853333LL	/* B/s, one SSM session, one direction */
#define ROUTE_SSM_SETUP_MS	2000LL		/* start-session + ssh handshake */
#define ROUTE_SSM_MAX_SESSIONS	16
#define ROUTE_MAX_CONNS		64
#define ROUTE_INFLIGHT_RATE	256000000.0	/* B/s one connection may aim at */
#define ROUTE_INFLIGHT_MIN	(256ull << 10)	/* per connection, a near server */
#define ROUTE_INFLIGHT_MAX	(16ull << 20)	/* per connection, far or unknown */
#define ROUTE_UPLOAD_INFLIGHT_MAX (1ull << 20)	/* per connection, writing */
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
	int connections_wanted;	/* from env/option; 0 = choose */
	enum route_force force;
	bool legacy_or_special;	/* -O, -D, -S non-ssh, -3 ... → standard */
	const char *special_why;	/* e.g. "-O (legacy scp protocol)" */
};

struct route_decision {
	enum route_kind kind;
	int connections;	/* connections (fresh/direct) or SSM sessions; 1 for standard */
	bool grow;		/* standard for now: decide again once the size is known */
	char reason[256];
};

void route_decide(const struct route_input *in, struct route_decision *out);
const char *route_name(enum route_kind k);
/* Value of the route environment knob: NULL/""/"auto" → AUTO;
 * "standard"/"never-bypass"/"never"/"no"/"off"/"0" → STANDARD;
 * "bypass"/"always"/"yes"/"on"/"1" → BYPASS.  -1 when not understood. */
int route_force_parse(const char *s, enum route_force *out);
/* "512 B", "8.0 MiB", "1.0 GiB", "unknown size" (for -1). */
void route_format_bytes(long long bytes, char *buf, size_t len);
/* Number of SSM sessions worth opening for bytes (1..max), see route.c. */
int route_ssm_sessions(long long bytes, int max);
/* READ (or, upload, WRITE) bytes worth keeping in flight on one connection
 * whose SFTP round trip is rtt_ms (< 0: unknown), see route.c. */
uint64_t route_inflight_bytes(double rtt_ms, bool upload);
/* SFTP channels worth opening on one connection whose round trip is
 * rtt_ms (< 0: unknown), at most max; see route.c. */
int route_channels(double rtt_ms, int max);

#endif

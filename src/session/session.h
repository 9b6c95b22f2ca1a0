/* session: the connections one host gets, as the route decides.
 *
 * Gathers the facts (ssh -G, a connect() on the ControlPath, AWS SSM in the
 * ProxyCommand, a direct address for an SSM instance), asks route_decide(),
 * then opens either ssh exactly as scp would (standard) or N fresh libssh
 * sessions, each with its SFTP channel.  A bypass that cannot connect or
 * authenticate without prompting falls back to the standard route. */
#ifndef FSCP_SESSION_H
#define FSCP_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/options.h"
#include "policy/route.h"

struct session_pending;
struct sftp_conn;
struct sshconn;

struct session {
	char *host, *user;
	int port;
	enum route_kind route;
	struct sftp_conn **conns;	/* nconns SFTP sessions */
	struct sshconn **ssh;		/* libssh sessions (bypass), else NULL */
	pid_t *proxy_pids;		/* ProxyCommand children we run, 0 if none */
	int nconns;
	int data_from;			/* the copy uses conns[data_from..]; the
					   ones before (a listing) rest */
	uint64_t chunk_size;		/* how the engine splits big files */
	uint64_t inflight_bytes;	/* bytes in flight per connection, 0 = default */
	uint64_t upload_inflight_bytes;	/* ... when writing */
	struct session_pending *pending;	/* connections still coming up */
	struct sshcfg *cfg;		/* ssh -G's answer (NULL: not asked or failed) */
	bool master_live;		/* the ControlPath answered */
	char *bypass_proxy;		/* how the bypass connects, for a reconnect */
	char *bypass_direct;
	bool bypass_compress;
	bool may_grow;			/* standard until the size is known */
};

/* Open sessions to [user@]host[:port] for about bytes (-1 unknown);
 * sample is a local file whose data shows whether compression pays (or
 * NULL).  Exits 255 like scp when even the standard route cannot start. */
void session_open(struct session *s, const struct fscp_opts *o, const char *host,
    const char *user, int port, long long bytes, const char *sample);
/* The legacy protocol's one stream to host, running cmd, over a libssh
 * exec channel when the route for about bytes (-1 unknown) is one a single
 * fresh connection beats ssh on (fresh beside a live master, ssm-direct).
 * 0 and *out set; -1 when ssh should carry it (-v says why). */
struct fscp_stream;
int session_exec_open(const struct fscp_opts *o, const char *host, const char *user,
    int port, long long bytes, const char *cmd, struct fscp_stream *out);
/* The same for a copy that moves its data over one connection (remote to
 * remote): size unknown, one connection (or SSM session) whatever
 * FSCP_CONNECTIONS says; session_grow may still add fresh ones. */
void session_open_one(struct session *s, const struct fscp_opts *o, const char *host,
    const char *user, int port);
/* The listing is done and bytes are queued: when the route said so, add
 * fresh connections now that it is known they pay.  Returns true when it
 * added some.  s->conns may move either way: read it again afterwards. */
bool session_grow(struct session *s, const struct fscp_opts *o, long long bytes);
/* Connections still coming up: how many, the next one that does (blocks;
 * NULL when none is left or after session_stop_pending), and stop handing
 * them out (the copy needs no more; session_close closes them).  The
 * engine calls these from its own threads while the session is otherwise
 * left alone. */
int session_pending_count(const struct session *s);
struct sftp_conn *session_next_conn(struct session *s);
void session_stop_pending(struct session *s);
/* Stop them and wait for their threads (what nobody took is closed): done
 * before anything that may end the process with the session open. */
void session_end_pending(struct session *s);
/* One more connection the way the bypass opened its own (the engine asks
 * when every connection died with work left); NULL on the standard route,
 * whose ssh scp would not start again either. */
struct sftp_conn *session_reconnect(struct session *s, const struct fscp_opts *o);
/* Close everything; returns the number of ssh processes / sessions that
 * ended badly (scp counts a failing ssh as an error). */
int session_close(struct session *s);

#endif

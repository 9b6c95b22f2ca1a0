/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* session: the connections one host gets, as the route decides.
 *
 * Gathers the facts (session/facts: ssh -G, a connect() on the
 * ControlPath, AWS SSM in the ProxyCommand, a direct address for an SSM
 * instance), asks route_decide() and its plan (policy/route_plan), then
 * opens what the plan says: either ssh exactly as scp would (standard) or
 * N fresh libssh sessions (session/pool), each with its SFTP channels.
 * A bypass that cannot connect or authenticate without prompting falls
 * back to the standard route.  struct session is private: its users read
 * it through the calls below. */
#ifndef FSCP_SESSION_H
#define FSCP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/options.h"
#include "policy/route.h"

struct session;
struct sftp_conn;

/* Why a session did not open. */
struct session_err {
	bool fatal;		/* scp's fatal(): even the standard route could not
				   start (or its server closed the connection);
				   the caller says msg and ends with status 255 */
	char msg[256];		/* what to say (said already when !fatal) */
};
/* Open sessions to [user@]host[:port] for about bytes (-1 unknown), to
 * write there (upload) or to read from there; sample is a local file whose
 * data shows whether compression pays (or NULL).  NULL and *err set when no SFTP session could be opened: fatal
 * when even the standard route cannot start, else its server answered
 * SFTP's INIT with another packet (said). */
struct session *session_open(const struct fscp_opts *o, const char *host, const char *user,
    int port, long long bytes, bool upload, const char *sample, struct session_err *err);
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
struct session *session_open_one(const struct fscp_opts *o, const char *host,
    const char *user, int port, bool upload, struct session_err *err);
/* The listing is done and bytes are queued: when the route said so, add
 * fresh connections now that it is known they pay.  Returns true when it
 * added some.  The connection array may move either way: read
 * session_conns again afterwards. */
bool session_grow(struct session *s, const struct fscp_opts *o, long long bytes);
/* Connections still coming up: how many, the next one that does (blocks;
 * NULL when none is left or after session_stop_pending), and stop handing
 * them out (the copy needs no more; session_close closes them).  The
 * engine calls these from its own threads while the session is otherwise
 * left alone. */
int session_pending_count(const struct session *s);
/* Of those, the ones planned (not the climb's room, which may never start,
 * unless the pool is room only). */
int session_planned_count(const struct session *s);
struct sftp_conn *session_next_conn(struct session *s);
/* While the copy runs, now and then (the main thread): moved of total
 * bytes are done.  A route whose plan left room climbs (route_plan_climb):
 * more connections start while each addition raised the goodput.  Back:
 * when the last addition started (clock_now()) if it lowered the goodput,
 * so that the connections that joined since take no more work; else < 0. */
double session_tick(struct session *s, uint64_t moved, uint64_t total);
/* How often session_tick wants to be called; 0: never (no climb). */
double session_tick_s(const struct session *s);
void session_stop_pending(struct session *s);
/* Stop them and wait for their threads (what nobody took is closed): done
 * before anything that may end the process with the session open. */
void session_end_pending(struct session *s);
/* One more connection the way the bypass opened its own (the engine asks
 * when every connection died with work left); NULL on the standard route,
 * whose ssh scp would not start again either. */
struct sftp_conn *session_reconnect(struct session *s, const struct fscp_opts *o);
/* Close everything and free s (NULL: nothing); returns the number of ssh
 * processes / sessions that ended badly (scp counts a failing ssh as an
 * error). */
int session_close(struct session *s);

/* The connections the copy uses (a listing one that rests is left out),
 * *n of them; the one the planning lists on; the one a single stream of
 * data goes over (the newest libssh one, else the first still coming up,
 * else the ssh one); the engine's chunk and bytes in flight. */
struct sftp_conn **session_conns(const struct session *s, int *n);
struct sftp_conn *session_list_conn(const struct session *s);
struct sftp_conn *session_data_conn(struct session *s);
const struct route_tuning *session_tuning(const struct session *s);
/* Is s open to [user@]host:port (NULL: no)? */
bool session_is_for(const struct session *s, const char *host, const char *user, int port);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_legacy: the legacy SCP protocol's entry points, as scp.c main(),
 * toremote() and tolocal() use source() and sink().
 *
 *  - server mode: `fscp -f` (response, then source) and `fscp -t` (sink)
 *    on stdin/stdout, errors only to the peer, exit errs != 0;
 *  - -O client: "scp -t targ" once for all local sources, "scp -f src"
 *    per remote source, spoken over an ssh child run as scp runs it, or
 *    over a libssh exec channel where the route is a bypass that pays;
 *  - -O remote to remote through the local host (-3, the default): ssh to
 *    the source running "scp -f", a second ssh to the target running
 *    "scp -t" on the first one's socket (do_cmd2);
 *  - -R (either protocol): ssh to the source host runs scp there.
 */
#ifndef FSCP_SCP_LEGACY_H
#define FSCP_SCP_LEGACY_H

#include <stdbool.h>

#include "policy/options.h"
#include "transport/stream.h"
#include "scp/scp_wire.h"

struct bwlimit;
struct progress;

/* The client's connections across operands, as scp keeps remin/remout
 * and do_cmd_pid. */
struct scp_legacy {
	const struct fscp_opts *o;
	struct progress *pm;
	struct bwlimit *bw;
	struct fscp_stream st;	/* the latest ssh child, if open */
	struct scp_wire w;	/* the conversation on st */
	bool open;		/* st is open */
	bool upload;		/* st is the "scp -t" connection (reused) */
	bool check;		/* its exit status counts at the end (scp's
				   do_cmd_pid != -1) */
	char fatal[1024];	/* fatal()'s message when a call returned 255 */
};

/* The calls below return 0 to go on, or the status scp would exit with
 * there: main closes what is open, says scp_legacy_fatal()'s message if
 * any, and exits with it.  Nothing more may be asked of l then. */

void scp_legacy_init(struct scp_legacy *l, const struct fscp_opts *o, struct progress *pm,
    struct bwlimit *bw);
/* toremote(), a local source: src_arg sent into [user@]host:targ; bytes:
 * about how much all sources hold (-1 unknown), for the route. */
int scp_legacy_upload(struct scp_legacy *l, const char *host, const char *user, int port,
    const char *targ, const char *src_arg, long long bytes);
/* tolocal(), a remote source: src (the remote path) from host into dst. */
int scp_legacy_download(struct scp_legacy *l, const char *host, const char *user, int port,
    const char *src, const char *dst);
/* One end of a remote-to-remote copy: [user@]host, the port (-1: none),
 * the remote path. */
struct scp_legacy_end {
	const char *host, *user;
	int port;
	const char *path;
};
/* toremote(), a remote source with -O and -3: from src to targ. */
int scp_legacy_through_local(struct scp_legacy *l, const struct scp_legacy_end *src,
    const struct scp_legacy_end *targ);
/* toremote(), a remote source with -R: scp runs on src's host.  targ's
 * port is its URI's (-1 when none); its user is checked first. */
int scp_legacy_remote(struct scp_legacy *l, const struct scp_legacy_end *src,
    const struct scp_legacy_end *targ);
/* A local command ran (cp): scp forgets its ssh child then. */
void scp_legacy_local_cmd(struct scp_legacy *l);
/* What scp's fatal() says after a call returned 255, or NULL. */
const char *scp_legacy_fatal(const struct scp_legacy *l);
/* main()'s end: with no error so far, close the last connection and count
 * a failing ssh as an error; otherwise just drop it. */
void scp_legacy_finish(struct scp_legacy *l);

/* `fscp -t` / `fscp -f`: returns the exit status (errs != 0). */
int scp_legacy_server(const struct fscp_opts *o);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* facts: what the route decision is given about one host, gathered (ssh
 * -G, a live master, SSM, a probed direct address), and route_decide()'s
 * answer. */
#ifndef FSCP_FACTS_H
#define FSCP_FACTS_H

#include <stdbool.h>

#include "policy/options.h"
#include "policy/route.h"
#include "policy/route_plan.h"
#include "policy/sshcfg.h"
#include "policy/ssmcmd.h"

struct facts {
	struct route_input in;
	struct route_decision d;
	struct sshcfg *cfg;	/* ssh -G's answer, NULL when not asked or failed:
				   the caller's to free (sshcfg_free, free) */
	struct ssmcmd ssm;	/* when in.ssm */
	char *direct;		/* the probed ssm-direct address, or NULL */
	char why[512];		/* in.direct_why's text */
	char force_why[384];	/* in.force_why's text */
	bool direct_later;	/* ssm-parallel of unknown size: the direct
				   address is looked for by facts_direct_now,
				   while the first session starts */
	bool jump_batch;	/* one ProxyJump hop, whose login (as ssh -G
				   reads its config) needs nobody to answer */
};

/* Gather for [user@]host:port and about bytes (-1 unknown), decide, and
 * say the route under -v.  want > 0: that many connections at most,
 * whatever FSCP_CONNECTIONS says; one_stream: the copy is one stream (the
 * legacy protocol). */
void facts_gather(struct facts *f, const struct fscp_opts *o, const char *host,
    const char *user, int port, long long bytes, int want, bool one_stream);
/* The direct address of an SSM host, when facts_gather left it for later:
 * true when it presents the instance's known key (the route, decided
 * again and said under -v, is then ssm-direct), false otherwise (once). */
bool facts_direct_now(struct facts *f, const struct fscp_opts *o);
/* facts_direct_now on a thread of its own, so that the caller may start
 * sessions meanwhile; f is the lookup's until facts_lookup_end. */
struct facts_lookup;
struct facts_lookup *facts_lookup_start(struct facts *f, const struct fscp_opts *o);
/* Wait at most s seconds for it: true when it is done. */
bool facts_lookup_wait(struct facts_lookup *l, double s);
/* Wait for it, free l: facts_direct_now's answer. */
bool facts_lookup_end(struct facts_lookup *l);
/* The facts the plan (route_plan) is given, from f and o; want as for
 * facts_gather.  Points to f->cfg. */
void facts_route(const struct facts *f, const struct fscp_opts *o, int want,
    struct route_facts *rf);
/* Free what f holds but its cfg. */
void facts_free(struct facts *f);

/* The proxy command libssh needs for this host, tokens expanded, or NULL
 * for a plain TCP connection.  ProxyJump becomes `ssh -W`, as ssh does. */
char *facts_proxy_command(const struct fscp_opts *o, const struct sshcfg *cfg);
/* Does a sample of this local file compress well (zlib pays on SSM)? */
bool facts_sample_compresses(const char *path);

#endif

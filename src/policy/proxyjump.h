/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proxyjump: a ProxyJump spec read into its hops, and whether a proxy
 * command is ssh itself (as ProxyJump's is). */
#ifndef FSCP_PROXYJUMP_H
#define FSCP_PROXYJUMP_H

#include <stdbool.h>

struct proxyjump_hop {
	char *user;		/* NULL when not given */
	char *host;
	int port;		/* -1 when not given */
};

/* Parse a ProxyJump spec "[user@]host[:port][,...]" (also ssh:// URIs and
 * [v6]:port).  Returns the number of hops (>0) and a malloc'd array, or -1.
 * The first hop is the one fscp's ssh connects to first; to know whether a
 * jump runs over SSM, the caller runs sshcfg_load on hops[0] (its own config
 * decides its ProxyCommand) and asks ssmcmd_match on that. */
int proxyjump_parse(const char *spec, struct proxyjump_hop **hops);
void proxyjump_free(struct proxyjump_hop *hops, int n);

/* True when a proxy command runs ssh itself: ProxyJump's `ssh -W`, or a
 * ProxyCommand such as `ssh -W %h:%p jump` or `exec ssh jump nc %h %p`
 * (after exec, env and VAR=value words).  A connection through it rides
 * one channel of that ssh's connection, held to ssh's channel window.
 * A command wrapped in a shell (sh -c '...') is not looked into. */
bool proxyjump_via_ssh(const char *proxycommand);
/* The same for a host's configuration: its ProxyCommand when it has one
 * (facts_proxy_command takes it first, as ssh does), else whether it has
 * a ProxyJump. */
bool proxyjump_host_via_ssh(const char *proxycommand, const char *proxyjump);

#endif

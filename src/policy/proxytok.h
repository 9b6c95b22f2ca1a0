/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proxytok: ProxyCommand's % tokens, expanded as ssh expands them.
 *
 * What OpenSSH 9.2 does (sshconnect.c, checked against ssh -v on Debian 12):
 * tokens %% %h %k %n %p %r are expanded in a ProxyCommand (no ${ENV}: the
 * shell does that), any other token fails with "vdollar_percent_expand:
 * unknown key %x".  Text only: transport/proxycmd runs the result. */
#ifndef FSCP_PROXYTOK_H
#define FSCP_PROXYTOK_H

#include <stdbool.h>
#include <stddef.h>

struct sshcfg;

/* The values of every % token OpenSSH knows in the client.  All strings
 * may be NULL only if their token is not used. */
struct proxytok {
	const char *host;	/* %h: HostName (ssh -G's hostname, lowercased) */
	const char *host_arg;	/* %n: the host as typed */
	const char *keyalias;	/* %k: HostKeyAlias, else the host as typed */
	const char *remote_user;/* %r */
	int port;		/* %p */
	const char *local_user;	/* %u */
	const char *local_host;	/* %l: gethostname(), with domain if any */
	const char *short_host;	/* %L: %l up to the first dot */
	const char *home;	/* %d */
	const char *uid;	/* %i, decimal */
	const char *jump;	/* %j: ProxyJump, "" when none */
	const char *conn_hash;	/* %C: hex SHA1 of %l%h%p%r (9.2: no %j) */
};

enum proxytok_set {
	PROXYTOK_PROXY,	/* what 9.2 allows in ProxyCommand: %% h k n p r */
	PROXYTOK_ALL,	/* the full client set: also C L l u d i j */
};

/* Expand tmpl.  Returns a malloc'd string, or NULL with err set to ssh's
 * message ("vdollar_percent_expand: unknown key %x" or
 * "vdollar_percent_expand: invalid format").  Pure. */
char *proxytok_expand(const char *tmpl, const struct proxytok *tok,
    enum proxytok_set set, char *err, size_t errlen);

/* Fill tok from cfg and the local system (gethostname, getpwuid).  The
 * strings live in *store, freed by proxytok_free. */
struct proxytok_store {
	char *s[8];
};
void proxytok_from(struct proxytok *tok,
    struct proxytok_store *store, const struct sshcfg *cfg);
void proxytok_free(struct proxytok_store *store);
/* Hex SHA1 of l h p r, like ssh's %C; into out (41 bytes).  False (out
 * empty) when libcrypto cannot be loaded. */
bool proxytok_conn_hash(const char *l, const char *h, int port, const char *r,
    char out[41]);

#endif

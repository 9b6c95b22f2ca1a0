/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* fscpconf: fscp's own configuration files, the per-host route setting.
 *
 * The user's file (~/.config/fscp/config) and the system's
 * (SYSCONFDIR/fscp/config) take ssh_config's syntax with one keyword:
 *
 *   # comment
 *   Host db-* !db-test
 *       Route standard          # auto, standard or bypass
 *
 * Host patterns are ssh's (*, ?, a leading ! negates; several separated by
 * spaces), matched as ssh matches its Host lines: against the host as typed
 * on the command line, before any HostName, case and all.  Lines before
 * the first Host apply to every host.  In each file the first Route that
 * applies to a host wins, as in ssh_config.
 *
 * Which setting wins for a host (fscpconf_route), "the system file" being
 * its first Route for the host in SYSCONFDIR/fscp/config, then in
 * FSCP_SYSTEM_CONFIG's file:
 *   1. Route standard in the system file: binding, nothing overrides it
 *   2. FSCP_ROUTE (when set and not empty)
 *   3. the user's file
 *   4. Route auto or bypass in the system file: a default
 *   5. auto
 */
#ifndef FSCP_FSCPCONF_H
#define FSCP_FSCPCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/route.h"

struct fscpconf_rule {
	char **patterns;	/* the Host line's words, "!" included */
	size_t npatterns;	/* 0: before any Host line, every host */
	int host_line;		/* the Host line's number (0: none) */
	int line;		/* the Route line's number */
	enum route_force route;
};

struct fscpconf_file {
	char *path;		/* NULL: no file */
	struct fscpconf_rule *rules;
	size_t nrules;
};

/* sys: the system's file; sys2: FSCP_SYSTEM_CONFIG's, read after it with
 * the same authority, so that a policy can be tried or tested without
 * ever setting aside the installed one. */
struct fscpconf {
	struct fscpconf_file sys, sys2, user;
};

/* Parse text, the contents of path (for messages).  0, or -1 with err set
 * as ssh words a bad ssh_config line ("PATH line N: ..."). */
int fscpconf_parse(const char *path, const char *text, struct fscpconf_file *out,
    char *err, size_t errlen);
/* Read and parse path.  A missing file is no file (0) unless must_exist;
 * any other failure to read it is -2 ("PATH: strerror" in err), a bad
 * line -1. */
int fscpconf_read(const char *path, bool must_exist, struct fscpconf_file *out,
    char *err, size_t errlen);
void fscpconf_file_free(struct fscpconf_file *f);
void fscpconf_free(struct fscpconf *c);

/* OpenSSH's match_pattern(): '*' any run, '?' any one character, the rest
 * as is (case counts). */
bool fscpconf_glob(const char *s, const char *pat);
/* ssh's Host test: some pattern matches host and no negated one does. */
bool fscpconf_host_match(const char *host, char *const *patterns, size_t n);
/* The first rule of f for host, or NULL. */
const struct fscpconf_rule *fscpconf_lookup(const struct fscpconf_file *f, const char *host);

/* The route setting for host by the precedence above (c may be NULL; env:
 * FSCP_ROUTE when env_set).  why gets where it came from, e.g. "Route
 * standard (Host db-*) in /etc/fscp/config line 3", or "" for auto by
 * default; *from_file says a file set it. */
enum route_force fscpconf_route(const struct fscpconf *c, const char *host, bool env_set,
    enum route_force env, char *why, size_t len, bool *from_file);

#endif

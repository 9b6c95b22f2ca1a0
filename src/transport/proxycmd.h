/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proxycmd: run a ProxyCommand the way ssh does, and recognise AWS SSM ones.
 *
 * libssh expands only a few tokens and throws the proxy's stderr away, so
 * fscp expands the command itself, runs it under the user's shell with its
 * stdin/stdout on one end of a socketpair (stderr left alone, so SSM errors
 * reach the user), and hands the other end to libssh (SSH_OPTIONS_FD).
 *
 * What OpenSSH 9.2 does (sshconnect.c, checked against ssh -v on Debian 12):
 * the command becomes "exec <cmd>", tokens %% %h %k %n %p %r are expanded
 * (no ${ENV}: the shell does that), any other token fails with
 * "vdollar_percent_expand: unknown key %x"; it runs as $SHELL -c (or
 * /bin/sh when SHELL is unset or empty). */
#ifndef FSCP_PROXYCMD_H
#define FSCP_PROXYCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sshcfg;

/* The values of every % token OpenSSH knows in the client.  All strings
 * may be NULL only if their token is not used. */
struct proxycmd_tokens {
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

enum proxycmd_tokset {
	PROXYCMD_TOK_PROXY,	/* what 9.2 allows in ProxyCommand: %% h k n p r */
	PROXYCMD_TOK_ALL,	/* the full client set: also C L l u d i j */
};

/* Expand tmpl.  Returns a malloc'd string, or NULL with err set to ssh's
 * message ("vdollar_percent_expand: unknown key %x" or
 * "vdollar_percent_expand: invalid format").  Pure. */
char *proxycmd_expand(const char *tmpl, const struct proxycmd_tokens *tok,
    enum proxycmd_tokset set, char *err, size_t errlen);

/* Fill tok from cfg and the local system (gethostname, getpwuid).  The
 * strings live in *store, freed by proxycmd_tokens_free. */
struct proxycmd_tokstore {
	char *s[8];
};
void proxycmd_tokens_from(struct proxycmd_tokens *tok,
    struct proxycmd_tokstore *store, const struct sshcfg *cfg);
void proxycmd_tokens_free(struct proxycmd_tokstore *store);
/* Hex SHA1 of l h p r, like ssh's %C; into out (41 bytes). */
void proxycmd_conn_hash(const char *l, const char *h, int port, const char *r,
    char out[41]);

/* The shell ssh would use: $SHELL if set and non-empty, else /bin/sh. */
const char *proxycmd_shell(const char *shell_env);

/* Run "<shell> -c 'exec <expanded>'" on a socketpair.  Returns the parent's
 * end (close-on-exec) and sets *pid, or -1 with err set.  The child's
 * stderr is fscp's stderr.  The caller reaps *pid (and may SIGHUP it at the
 * end, as ssh does). */
int proxycmd_spawn(const char *expanded, pid_t *pid, char *err, size_t errlen);
/* The same with the child's stderr held (*hold set) until the caller says
 * whether the connection came up: proxycmd_hold_end(hold, true) shows what
 * was held and lets the rest through; false drops it all (ssh's own try,
 * which follows a failed one, prints its proxy's words again). */
struct proxycmd_hold;
int proxycmd_spawn_held(const char *expanded, pid_t *pid, struct proxycmd_hold **hold,
    char *err, size_t errlen);
void proxycmd_hold_end(struct proxycmd_hold *h, bool show);
/* Whether what the child wrote so far (and is still held) contains needle,
 * waiting up to wait_ms for more to come (its last words may trail its
 * exit).  NULL-safe (false). */
bool proxycmd_hold_has(struct proxycmd_hold *h, const char *needle, int wait_ms);

/* ---- the relay's pace (pure) --------------------------------------------
 *
 * An SSM channel hands its data over in 1 KiB messages about 1.2 ms apart.
 * Passed on one by one, each costs two thread wake-ups (the relay's and
 * libssh's), 20,000 for 20 MiB: CPU that the next sessions' aws CLIs are
 * waiting for.  So once the child's output comes as a steady trickle
 * (PROXYCMD_STREAK small reads in a row, each within PROXYCMD_WAIT_S of
 * the last: a handshake's replies come a round trip apart and never are),
 * the relay lets it gather for a moment before the next read.  The wait
 * is what PROXYCMD_BATCH bytes take at the rate just seen, at most
 * PROXYCMD_WAIT_S, so far less than the pipe holds gathers and a fast
 * proxy is not held back.  Only the child's output waits: what libssh
 * sends meanwhile goes on at once.  And none waits while libssh sends more
 * than PROXYCMD_UP_QUIET between two reads (an upload: the trickle is its
 * replies, which the window waits for). */
#define PROXYCMD_BATCH		(32 * 1024)
#define PROXYCMD_WAIT_S		0.008
#define PROXYCMD_STREAK		4
#define PROXYCMD_UP_QUIET	4096

struct proxycmd_trickle {
	double last;	/* when the child's output was last read */
	double waited;	/* the wait that followed that read */
	int streak;	/* small reads in a row, each soon after the last */
};

/* After a read of n bytes (0: none) from the child at now (seconds), with
 * up bytes sent to it since the read before: how long the child's output
 * is left to gather before the relay reads it again. */
double proxycmd_trickle_wait(struct proxycmd_trickle *t, size_t n, size_t up, double now);

/* ---- AWS SSM detection (pure) ------------------------------------------ */

struct proxycmd_ssm {
	char *target;		/* --target value, tokens unexpanded (often "%h") */
	char *document;		/* --document-name */
	char *profile;		/* --profile, or AWS_PROFILE=..., or NULL */
	char *region;		/* --region, or AWS_REGION/AWS_DEFAULT_REGION=... */
	char *port_param;	/* portNumber value from --parameters, or NULL */
	bool plugin;		/* session-manager-plugin run directly */
};

/* True when proxycommand starts an AWS SSM SSH session (aws ssm
 * start-session --document-name AWS-StartSSHSession, or
 * session-manager-plugin), also wrapped in sh/bash -c, env, exec, VAR=val
 * assignments or aws-vault exec.  info may be NULL; when given it is filled
 * (free with proxycmd_ssm_free) only on true. */
bool proxycmd_is_ssm(const char *proxycommand, struct proxycmd_ssm *info);
void proxycmd_ssm_free(struct proxycmd_ssm *info);

/* Split a shell-like command line into words (quotes and backslashes
 * removed, no expansion).  Shell operators ; & | && || ( ) become words of
 * their own.  Returns a NULL-terminated malloc'd vector or NULL on
 * unbalanced quotes.  Exposed for tests. */
char **proxycmd_words(const char *s);
void proxycmd_words_free(char **w);

/* ---- ProxyJump ---------------------------------------------------------- */

struct proxycmd_hop {
	char *user;		/* NULL when not given */
	char *host;
	int port;		/* -1 when not given */
};

/* Parse a ProxyJump spec "[user@]host[:port][,...]" (also ssh:// URIs and
 * [v6]:port).  Returns the number of hops (>0) and a malloc'd array, or -1.
 * The first hop is the one fscp's ssh connects to first; to know whether a
 * jump runs over SSM, the caller runs sshcfg_load on hops[0] (its own config
 * decides its ProxyCommand) and asks proxycmd_is_ssm on that. */
int proxycmd_jump_parse(const char *spec, struct proxycmd_hop **hops);
void proxycmd_hops_free(struct proxycmd_hop *hops, int n);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshcfg: the effective ssh configuration of one host, as OpenSSH sees it.
 *
 * sshcfg_load() runs `ssh -G` with the user's -F/-o/-i/-J/-4/-6/-c/-P mapped
 * exactly as scp hands them to ssh, so Include, Match, Host patterns and
 * ControlPath expansion are OpenSSH's own.  sshcfg_parse() reads that output
 * and is pure.  Lists keep ssh -G's order.
 *
 * What OpenSSH 9.2's -G prints (checked on Debian 12): yes/no options as
 * "yes"/"no" or "true"/"false" depending on the option; StrictHostKeyChecking
 * as true/false/ask/accept-new; ControlMaster as true/false/auto/ask/autoask;
 * "none" for an unset ProxyCommand/ControlPath/HostKeyAlias; nothing at all
 * for an unset ProxyJump/IdentityAgent; UserKnownHostsFile and
 * GlobalKnownHostsFile as one space-separated line; IdentityFile as one line
 * per file, defaults still spelled "~/.ssh/id_rsa"; -i files that do not
 * exist are dropped by ssh (with a warning on stderr). */
#ifndef FSCP_SSHCFG_H
#define FSCP_SSHCFG_H

#include <stdbool.h>
#include <stddef.h>
#include "util/strv.h"

struct fscp_opts;

enum sshcfg_strict {
	SHK_YES,		/* "yes" / "true" */
	SHK_ASK,		/* "ask" (ssh's default) */
	SHK_ACCEPT_NEW,		/* "accept-new" */
	SHK_NO,			/* "no" / "off" / "false" */
};

struct sshcfg {
	char *host_arg;		/* the host as given on the command line (%n) */
	char *hostname;		/* HostName, %h (ssh -G prints it lowercased) */
	char *user;		/* User, %r */
	int port;		/* Port, %p */
	char *proxycommand;	/* unexpanded, NULL when none */
	char *proxyjump;	/* NULL when none */
	char *controlmaster;	/* "no", "yes", "auto", "ask", "autoask" (true/false normalised) */
	char *controlpath;	/* expanded by ssh -G; NULL when none */
	char *hostkeyalias;	/* NULL when none */
	struct strv identityfiles;	/* as printed; sshcfg_load expands "~/" */
	bool identitiesonly;
	char *identityagent;	/* NULL when not set (use $SSH_AUTH_SOCK);
				 * "none" disables the agent, kept verbatim */
	struct strv userknownhostsfiles;
	struct strv globalknownhostsfiles;
	enum sshcfg_strict stricthostkeychecking;
	bool batchmode;
	bool compression;
	bool loginfo;		/* LogLevel INFO or more: ssh shows the server's banner */
	int connecttimeout;	/* seconds; -1 when none */
	int addressfamily;	/* 0 any, 4 inet, 6 inet6 */
	char *ciphers;		/* comma list as ssh -G prints it (always the full list) */
	char *hostkeyalgorithms;	/* idem */
	char *kexalgorithms;	/* idem */
	char *pubkeyacceptedalgorithms; /* idem */
	bool passwordauthentication;
	bool kbdinteractiveauthentication;
	bool pubkeyauthentication;
	char *localcommand;	/* unused by fscp, kept for completeness */
	/* Added fields. */
	char *controlpersist;	/* as printed ("no", "yes", seconds); NULL if absent */
	bool proxyusefdpass;
	int connectionattempts;	/* 1 by default */
	/* Host key checking beyond the files (see hostkey.h). */
	bool checkhostip;
	bool hashknownhosts;
	bool nohostauthenticationforlocalhost;
	bool verifyhostkeydns;	/* yes or ask */
	char *knownhostscommand;	/* NULL when none */
	char *revokedhostkeys;	/* NULL when none */
	/* What a session request carries (transport/sshmux). */
	struct strv sendenv;	/* SendEnv patterns, a line each */
	struct strv setenv;	/* SetEnv NAME=VALUE entries, a line each */
	char *warnings;		/* what ssh -G said on stderr (e.g. a missing -i
				   file): a route with no ssh says it for ssh */
};

/* Parse the text ssh -G printed into cfg (zeroed first, then ssh's
 * defaults).  0 on success; -1 (cfg still valid, to be freed) when the text
 * has no "hostname" line, i.e. is not ssh -G output. */
int sshcfg_parse(const char *text, struct sshcfg *cfg);
/* The options scp puts before the user's on every ssh it runs (scp.c's
 * main), NULL-ended; scp appends -oForwardAgent=no after the user's.
 * ssh -G is asked with both too: it answers for the ssh scp would run, and
 * does not take itself for an interactive login (without RequestTTY=no
 * and stdin no terminal it says "Pseudo-terminal will not be allocated"). */
extern const char *const sshcfg_scp_fixed[];
#define SSHCFG_SCP_LAST "-oForwardAgent=no"

/* Run `<ssh_program> -G <sshcfg_scp_fixed> <opts->ssh_args>
 * SSHCFG_SCP_LAST [-p port] [-l user] -- host`
 * (fork/execvp, no shell, stdin /dev/null, 15 s limit);
 * port < 0 / user NULL when not given.  0 on success; on failure -1 and err
 * has ssh's message (its stderr) or why the output was not usable, e.g. when
 * -S names a program that is not an ssh: the caller then takes the standard
 * route. */
int sshcfg_load(const struct fscp_opts *opts, const char *user, const char *host,
    int port, struct sshcfg *cfg, char *err, size_t errlen);
/* Lower level: run argv (argv[0] searched in PATH), collect stdout into a
 * NUL-terminated malloc'd *out; stderr goes to err (ssh's message on
 * failure, its warnings on success). */
int sshcfg_run_capture(char *const argv[], char **out, char *err, size_t errlen);
/* Replace a leading "~/" (or a lone "~") in identity and known-hosts files
 * with home. */
void sshcfg_expand_tilde(struct sshcfg *cfg, const char *home);
/* True when ssh would try a ControlMaster socket: ControlPath set (a client
 * with ControlMaster no still uses a live master). */
bool sshcfg_has_controlpath(const struct sshcfg *cfg);
/* HostKeyAlias, or NULL when none is set. */
const char *sshcfg_hostkeyalias(const struct sshcfg *cfg);
void sshcfg_free(struct sshcfg *cfg);

#endif

/* sshcfg: the effective ssh configuration of one host, as OpenSSH sees it.
 *
 * sshcfg_load() runs `ssh -G` with the user's -F/-o/-i/-J/-4/-6/-c/-P mapped
 * exactly as scp hands them to ssh, so Include, Match, Host patterns and
 * ControlPath expansion are OpenSSH's own.  sshcfg_parse() reads that output
 * and is pure.  Lists keep ssh -G's order. */
#ifndef FSCP_SSHCFG_H
#define FSCP_SSHCFG_H

#include <stdbool.h>
#include "strv.h"

struct fscp_opts;

enum sshcfg_strict {
	SHK_YES,		/* "yes" / "true" */
	SHK_ASK,		/* "ask" (ssh's default) */
	SHK_ACCEPT_NEW,		/* "accept-new" */
	SHK_NO,			/* "no" / "off" / "false" */
};

struct sshcfg {
	char *host_arg;		/* the host as given on the command line (%n) */
	char *hostname;		/* HostName, %h */
	char *user;		/* User, %r */
	int port;		/* Port, %p */
	char *proxycommand;	/* unexpanded, NULL when none */
	char *proxyjump;	/* NULL when none */
	char *controlmaster;	/* "no", "yes", "auto", "ask", "autoask" */
	char *controlpath;	/* expanded by ssh -G; NULL when none */
	char *hostkeyalias;	/* NULL when none */
	struct strv identityfiles;	/* "~" already expanded by ssh -G */
	bool identitiesonly;
	char *identityagent;	/* NULL when none; "none" disables the agent */
	struct strv userknownhostsfiles;
	struct strv globalknownhostsfiles;
	enum sshcfg_strict stricthostkeychecking;
	bool batchmode;
	bool compression;
	int connecttimeout;	/* seconds; -1 when none */
	int addressfamily;	/* 0 any, 4 inet, 6 inet6 */
	char *ciphers;		/* comma list, NULL when ssh's default */
	char *hostkeyalgorithms;	/* NULL when default */
	char *kexalgorithms;	/* NULL when default */
	char *pubkeyacceptedalgorithms; /* NULL when default */
	bool passwordauthentication;
	bool kbdinteractiveauthentication;
	bool pubkeyauthentication;
	char *localcommand;	/* unused by fscp, kept for completeness */
};

/* Parse the text ssh -G printed into cfg (zeroed first).  0 on success. */
int sshcfg_parse(const char *text, struct sshcfg *cfg);
/* Run `<ssh_program> -G <opts->ssh_args> [-p port] [-l user] -- host`;
 * port < 0 / user NULL when not given.  0 on success; on failure err has
 * ssh's message. */
int sshcfg_load(const struct fscp_opts *opts, const char *user, const char *host,
    int port, struct sshcfg *cfg, char *err, size_t errlen);
void sshcfg_free(struct sshcfg *cfg);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshcfg: read `ssh -G` output; run `ssh -G` without a shell. */
#include "config.h"
#include "policy/sshcfg.h"
#include "util/proc.h"
#include "util/xmalloc.h"
#include "policy/options.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* ssh -G spells booleans yes/no or true/false depending on the option. */
static bool
parse_bool(const char *v)
{
	return strcmp(v, "yes") == 0 || strcmp(v, "true") == 0;
}

/* "none" is how -G prints an unset string option. */
static char *
dup_or_none(const char *v)
{
	return strcmp(v, "none") == 0 ? NULL : xstrdup(v);
}

static void
set_str(char **dst, char *v)
{
	free(*dst);
	*dst = v;
}

/* UserKnownHostsFile / GlobalKnownHostsFile: a space-separated list. */
static void
push_words(struct strv *sv, const char *v)
{
	const char *p = v;

	while (*p != '\0') {
		size_t n;
		char *w;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (n == 0)
			break;
		w = xmalloc(n + 1);
		memcpy(w, p, n);
		w[n] = '\0';
		if (strcmp(w, "none") != 0)
			strv_push(sv, w);
		free(w);
		p += n;
	}
}

static enum sshcfg_strict
parse_strict(const char *v)
{
	if (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0)
		return SHK_YES;
	if (strcmp(v, "accept-new") == 0)
		return SHK_ACCEPT_NEW;
	if (strcmp(v, "ask") == 0)
		return SHK_ASK;
	return SHK_NO;		/* false, no, off */
}

static void
parse_line(struct sshcfg *c, const char *key, const char *v, bool *have_hostname)
{
	if (strcmp(key, "host") == 0)
		set_str(&c->host_arg, xstrdup(v));
	else if (strcmp(key, "hostname") == 0) {
		set_str(&c->hostname, xstrdup(v));
		*have_hostname = true;
	} else if (strcmp(key, "user") == 0)
		set_str(&c->user, xstrdup(v));
	else if (strcmp(key, "port") == 0)
		c->port = atoi(v);
	else if (strcmp(key, "proxycommand") == 0)
		set_str(&c->proxycommand, dup_or_none(v));
	else if (strcmp(key, "proxyjump") == 0)
		set_str(&c->proxyjump, dup_or_none(v));
	else if (strcmp(key, "controlmaster") == 0) {
		/* Normalise to the ssh_config spelling. */
		if (strcmp(v, "true") == 0)
			v = "yes";
		else if (strcmp(v, "false") == 0)
			v = "no";
		set_str(&c->controlmaster, xstrdup(v));
	} else if (strcmp(key, "controlpath") == 0)
		set_str(&c->controlpath, dup_or_none(v));
	else if (strcmp(key, "controlpersist") == 0)
		set_str(&c->controlpersist, xstrdup(v));
	else if (strcmp(key, "hostkeyalias") == 0)
		set_str(&c->hostkeyalias, dup_or_none(v));
	else if (strcmp(key, "identityfile") == 0)
		strv_push(&c->identityfiles, v);
	else if (strcmp(key, "identitiesonly") == 0)
		c->identitiesonly = parse_bool(v);
	else if (strcmp(key, "identityagent") == 0)
		set_str(&c->identityagent, xstrdup(v));	/* "none" is meaningful */
	else if (strcmp(key, "userknownhostsfile") == 0)
		push_words(&c->userknownhostsfiles, v);
	else if (strcmp(key, "globalknownhostsfile") == 0)
		push_words(&c->globalknownhostsfiles, v);
	else if (strcmp(key, "stricthostkeychecking") == 0)
		c->stricthostkeychecking = parse_strict(v);
	else if (strcmp(key, "batchmode") == 0)
		c->batchmode = parse_bool(v);
	else if (strcmp(key, "compression") == 0)
		c->compression = parse_bool(v);
	else if (strcmp(key, "loglevel") == 0)	/* -q prints as SILENT */
		c->loginfo = strcasecmp(v, "INFO") == 0 || strcasecmp(v, "VERBOSE") == 0 ||
		    strncasecmp(v, "DEBUG", 5) == 0;
	else if (strcmp(key, "connecttimeout") == 0)
		c->connecttimeout = strcmp(v, "none") == 0 ? -1 : atoi(v);
	else if (strcmp(key, "connectionattempts") == 0)
		c->connectionattempts = atoi(v);
	else if (strcmp(key, "addressfamily") == 0)
		c->addressfamily = strcmp(v, "inet") == 0 ? 4 :
		    strcmp(v, "inet6") == 0 ? 6 : 0;
	else if (strcmp(key, "ciphers") == 0)
		set_str(&c->ciphers, xstrdup(v));
	else if (strcmp(key, "hostkeyalgorithms") == 0)
		set_str(&c->hostkeyalgorithms, xstrdup(v));
	else if (strcmp(key, "kexalgorithms") == 0)
		set_str(&c->kexalgorithms, xstrdup(v));
	else if (strcmp(key, "pubkeyacceptedalgorithms") == 0)
		set_str(&c->pubkeyacceptedalgorithms, xstrdup(v));
	else if (strcmp(key, "passwordauthentication") == 0)
		c->passwordauthentication = parse_bool(v);
	else if (strcmp(key, "kbdinteractiveauthentication") == 0)
		c->kbdinteractiveauthentication = parse_bool(v);
	else if (strcmp(key, "pubkeyauthentication") == 0)
		/* yes/true, unbound, host-bound all enable it. */
		c->pubkeyauthentication = strcmp(v, "no") != 0 && strcmp(v, "false") != 0;
	else if (strcmp(key, "localcommand") == 0)
		set_str(&c->localcommand, dup_or_none(v));
	else if (strcmp(key, "proxyusefdpass") == 0)
		c->proxyusefdpass = parse_bool(v);
	else if (strcmp(key, "checkhostip") == 0)
		c->checkhostip = parse_bool(v);
	else if (strcmp(key, "hashknownhosts") == 0)
		c->hashknownhosts = parse_bool(v);
	else if (strcmp(key, "nohostauthenticationforlocalhost") == 0)
		c->nohostauthenticationforlocalhost = parse_bool(v);
	else if (strcmp(key, "verifyhostkeydns") == 0)
		c->verifyhostkeydns = parse_bool(v) || strcmp(v, "ask") == 0;
	else if (strcmp(key, "knownhostscommand") == 0)
		set_str(&c->knownhostscommand, dup_or_none(v));
	else if (strcmp(key, "revokedhostkeys") == 0)
		set_str(&c->revokedhostkeys, dup_or_none(v));
	else if (strcmp(key, "sendenv") == 0)
		strv_push(&c->sendenv, v);
	else if (strcmp(key, "setenv") == 0)
		strv_push(&c->setenv, v);
}

int
sshcfg_parse(const char *text, struct sshcfg *cfg)
{
	const char *p = text;
	bool have_hostname = false;

	memset(cfg, 0, sizeof(*cfg));
	/* ssh's own defaults, for keys the text may lack. */
	cfg->port = 22;
	cfg->connecttimeout = -1;
	cfg->connectionattempts = 1;
	cfg->loginfo = true;
	cfg->stricthostkeychecking = SHK_ASK;
	cfg->passwordauthentication = true;
	cfg->kbdinteractiveauthentication = true;
	cfg->pubkeyauthentication = true;

	while (p != NULL && *p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xmalloc(len + 1), *sp, *val;

		memcpy(line, p, len);
		line[len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[len - 1] = '\0';
		sp = strchr(line, ' ');
		if (sp != NULL && sp != line) {
			*sp = '\0';
			val = sp + 1;
			for (char *k = line; *k; k++)	/* -G prints lowercase; be lenient */
				if (*k >= 'A' && *k <= 'Z')
					*k = (char)(*k - 'A' + 'a');
			parse_line(cfg, line, val, &have_hostname);
		}
		free(line);
		p = eol ? eol + 1 : NULL;
	}
	return have_hostname ? 0 : -1;
}

bool
sshcfg_has_controlpath(const struct sshcfg *cfg)
{
	return cfg != NULL && cfg->controlpath != NULL && cfg->controlpath[0] != '\0';
}

/* ssh -G prints "none" for an unset HostKeyAlias (kept as NULL); a
 * hand-built cfg may carry either. */
const char *
sshcfg_hostkeyalias(const struct sshcfg *cfg)
{
	const char *a = cfg->hostkeyalias;

	return a != NULL && *a != '\0' && strcmp(a, "none") != 0 ? a : NULL;
}

static void
expand_tilde_list(struct strv *sv, const char *home)
{
	for (size_t i = 0; i < sv->n; i++) {
		char *s = sv->v[i];

		if (s[0] == '~' && (s[1] == '/' || s[1] == '\0')) {
			sv->v[i] = xasprintf("%s%s", home, s + 1);
			free(s);
		}
	}
}

void
sshcfg_expand_tilde(struct sshcfg *cfg, const char *home)
{
	if (home == NULL)
		return;
	expand_tilde_list(&cfg->identityfiles, home);
	expand_tilde_list(&cfg->userknownhostsfiles, home);
	expand_tilde_list(&cfg->globalknownhostsfiles, home);
}

void
sshcfg_free(struct sshcfg *c)
{
	if (c == NULL)
		return;
	free(c->host_arg);
	free(c->hostname);
	free(c->user);
	free(c->proxycommand);
	free(c->proxyjump);
	free(c->controlmaster);
	free(c->controlpath);
	free(c->hostkeyalias);
	strv_free(&c->identityfiles);
	free(c->identityagent);
	strv_free(&c->userknownhostsfiles);
	strv_free(&c->globalknownhostsfiles);
	free(c->ciphers);
	free(c->hostkeyalgorithms);
	free(c->kexalgorithms);
	free(c->pubkeyacceptedalgorithms);
	free(c->localcommand);
	free(c->controlpersist);
	free(c->knownhostscommand);
	free(c->revokedhostkeys);
	strv_free(&c->sendenv);
	strv_free(&c->setenv);
	free(c->warnings);
	memset(c, 0, sizeof(*c));
}

/* ---- running ssh -G ---------------------------------------------------- */

/* A -S program that is not an ssh may never answer -G: do not wait forever. */
#define SSHCFG_TIMEOUT_MS 15000

/* Copy stderr text into err: first non-empty lines, CR/LF trimmed. */
static void
set_err_from(char *err, size_t errlen, const char *e, const char *fallback)
{
	size_t n;

	if (err == NULL || errlen == 0)
		return;
	if (e == NULL || *e == '\0') {
		snprintf(err, errlen, "%s", fallback);
		return;
	}
	snprintf(err, errlen, "%s", e);
	n = strlen(err);
	while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == '\r'))
		err[--n] = '\0';
}

int
sshcfg_run_capture(char *const argv[], char **out, char *err, size_t errlen)
{
	struct proc_spec ps = {
		.argv = argv, .search_path = true, .in = PROC_NULL,
		.msg = PROC_MSG_PERROR, .exec_status = 127, .group = true,
	};
	struct proc_output po;

	*out = NULL;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (proc_capture(&ps, true, SSHCFG_TIMEOUT_MS, &po, err, errlen) != 0)
		return -1;
	if (po.timed_out) {
		snprintf(err, errlen, "%s -G did not finish within %d s",
		    argv[0], SSHCFG_TIMEOUT_MS / 1000);
		proc_output_free(&po);
		return -1;
	}
	if (po.status != 0) {
		set_err_from(err, errlen, po.err, "ssh -G failed");
		proc_output_free(&po);
		return -1;
	}
	*out = po.out;
	po.out = NULL;
	/* What ssh said on the way (warnings such as a missing -i file). */
	if (err != NULL && errlen > 0 && po.err != NULL)
		snprintf(err, errlen, "%s", po.err);
	proc_output_free(&po);
	return 0;
}

const char *const sshcfg_scp_fixed[] = {
	"-x", "-oPermitLocalCommand=no", "-oClearAllForwardings=yes",
	"-oRemoteCommand=none", "-oRequestTTY=no", NULL,
};

int
sshcfg_load(const struct fscp_opts *opts, const char *user, const char *host,
    int port, struct sshcfg *cfg, char *err, size_t errlen)
{
	struct strv av = { 0 };
	const char *prog = opts != NULL && opts->ssh_program != NULL ?
	    opts->ssh_program : FSCP_SSH_PROGRAM;
	struct passwd *pw;
	char *text = NULL;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	strv_push(&av, prog);
	strv_push(&av, "-G");
	for (size_t i = 0; sshcfg_scp_fixed[i] != NULL; i++)
		strv_push(&av, sshcfg_scp_fixed[i]);
	if (opts != NULL)
		for (size_t i = 0; i < opts->ssh_args.n; i++)
			strv_push(&av, opts->ssh_args.v[i]);
	strv_push(&av, SSHCFG_SCP_LAST);
	if (port >= 0)
		strv_pushf(&av, "-p%d", port);
	if (user != NULL) {
		strv_push(&av, "-l");
		strv_push(&av, user);
	}
	strv_push(&av, "--");
	strv_push(&av, host);

	rc = sshcfg_run_capture(av.v, &text, err, errlen);
	strv_free(&av);
	if (rc != 0)
		return -1;
	if (sshcfg_parse(text, cfg) != 0) {
		snprintf(err, errlen, "%s -G printed no configuration "
		    "(not an OpenSSH ssh?)", prog);
		sshcfg_free(cfg);
		free(text);
		return -1;
	}
	free(text);
	if (err != NULL && err[0] != '\0')
		cfg->warnings = xstrdup(err);
	/* ssh expands "~" with the passwd home, not $HOME. */
	pw = getpwuid(getuid());
	sshcfg_expand_tilde(cfg, pw != NULL ? pw->pw_dir : getenv("HOME"));
	return 0;
}

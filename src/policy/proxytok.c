/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "policy/proxytok.h"
#include "policy/sshcfg.h"
#include "util/cryptolib.h"
#include "util/xmalloc.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *
tok_value(const struct proxytok *t, char c, enum proxytok_set set,
    char portbuf[16])
{
	switch (c) {
	case 'h': return t->host;
	case 'n': return t->host_arg;
	case 'k': return t->keyalias != NULL ? t->keyalias : t->host_arg;
	case 'r': return t->remote_user;
	case 'p':
		snprintf(portbuf, 16, "%d", t->port);
		return portbuf;
	default:
		break;
	}
	if (set != PROXYTOK_ALL)
		return NULL;
	switch (c) {
	case 'u': return t->local_user;
	case 'l': return t->local_host;
	case 'L': return t->short_host;
	case 'd': return t->home;
	case 'i': return t->uid;
	case 'j': return t->jump != NULL ? t->jump : "";
	case 'C': return t->conn_hash;
	default: return NULL;
	}
}

char *
proxytok_expand(const char *tmpl, const struct proxytok *tok,
    enum proxytok_set set, char *err, size_t errlen)
{
	size_t cap = strlen(tmpl) + 64, n = 0;
	char *out = xmalloc(cap);

	for (const char *p = tmpl; *p != '\0'; p++) {
		const char *v;
		char one[2] = { 0, 0 }, portbuf[16];
		size_t vl;

		if (*p != '%') {
			one[0] = *p;
			v = one;
		} else if (p[1] == '\0') {
			snprintf(err, errlen, "vdollar_percent_expand: invalid format");
			free(out);
			return NULL;
		} else if (*++p == '%') {
			v = "%";
		} else if ((v = tok_value(tok, *p, set, portbuf)) == NULL) {
			snprintf(err, errlen,
			    "vdollar_percent_expand: unknown key %%%c", *p);
			free(out);
			return NULL;
		}
		vl = strlen(v);
		if (n + vl + 1 > cap) {
			cap = (n + vl + 1) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + n, v, vl);
		n += vl;
	}
	out[n] = '\0';
	return out;
}

bool
proxytok_conn_hash(const char *l, const char *h, int port, const char *r,
    char out[41])
{
	unsigned char md[20];
	char *s = xasprintf("%s%s%d%s", l ? l : "", h ? h : "", port, r ? r : "");
	bool ok = cryptolib_sha1(s, strlen(s), md);

	out[0] = '\0';
	for (int i = 0; ok && i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	free(s);
	return ok;
}

void
proxytok_from(struct proxytok *tok, struct proxytok_store *st,
    const struct sshcfg *cfg)
{
	char hn[256] = "";
	struct passwd *pw = getpwuid(getuid());
	char hash[41];

	memset(tok, 0, sizeof(*tok));
	memset(st, 0, sizeof(*st));
	if (gethostname(hn, sizeof(hn) - 1) != 0)
		hn[0] = '\0';
	st->s[0] = xstrdup(hn);
	st->s[1] = xstrdup(hn);
	st->s[1][strcspn(st->s[1], ".")] = '\0';
	st->s[2] = xstrdup(pw != NULL ? pw->pw_name : "");
	st->s[3] = xstrdup(pw != NULL ? pw->pw_dir : "");
	st->s[4] = xasprintf("%lu", (unsigned long)getuid());
	/* Without libcrypto %C stays empty: 9.2 allows it in no command
	 * fscp runs (PROXYTOK_PROXY). */
	(void)proxytok_conn_hash(hn, cfg->hostname, cfg->port, cfg->user, hash);
	st->s[5] = xstrdup(hash);

	tok->host = cfg->hostname;
	tok->host_arg = cfg->host_arg != NULL ? cfg->host_arg : cfg->hostname;
	tok->keyalias = cfg->hostkeyalias;	/* NULL → %n, as ssh */
	tok->remote_user = cfg->user;
	tok->port = cfg->port;
	tok->local_host = st->s[0];
	tok->short_host = st->s[1];
	tok->local_user = st->s[2];
	tok->home = st->s[3];
	tok->uid = st->s[4];
	tok->conn_hash = st->s[5];
	tok->jump = cfg->proxyjump != NULL ? cfg->proxyjump : "";
}

void
proxytok_free(struct proxytok_store *st)
{
	for (size_t i = 0; i < sizeof(st->s) / sizeof(st->s[0]); i++) {
		free(st->s[i]);
		st->s[i] = NULL;
	}
}

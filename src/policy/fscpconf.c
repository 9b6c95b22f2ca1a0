/* SPDX-License-Identifier: ISC AND SSH-short AND BSD-2-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* fscpconf: the per-host route setting files, parsed as ssh parses
 * ssh_config (readconf.c): a keyword, an optional "=", words split on
 * spaces and tabs; the same messages for a bad line.
 *
 * fscpconf_glob() is derived from match_pattern() in OpenSSH's match.c
 * (the same loop, without its look-ahead shortcut), and
 * fscpconf_host_match() keeps the negation rule of its
 * match_pattern_list().  Its notice, as its licence requires:
 *
 * Author: Tatu Ylonen <ylo@cs.hut.fi>
 * Copyright (c) 1995 Tatu Ylonen <ylo@cs.hut.fi>, Espoo, Finland
 *                    All rights reserved
 * Simple pattern matching, with '*' and '?' as wildcards.
 *
 * As far as I am concerned, the code I have written for this software
 * can be used freely for any purpose.  Any derived versions of this
 * software must be clearly marked as such, and if the derived work is
 * incompatible with the protocol description in the RFC file, it must be
 * called by a name other than "ssh" or "Secure Shell".
 *
 * Copyright (c) 2000 Markus Friedl.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 *
 * THIS SOFTWARE IS PROVIDED BY THE AUTHOR ``AS IS'' AND ANY EXPRESS OR
 * IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES
 * OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED.
 * IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY DIRECT, INDIRECT,
 * INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT
 * NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
 * DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
 * THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF
 * THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 */
#include "config.h"
#include "policy/fscpconf.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FSCPCONF_MAX_WORDS	256
#define FSCPCONF_MAX_BYTES	(1 << 20)

static const char fscpconf_space[] = " \t\r\n";

/* The next word of *s, NUL-ended in place; NULL at the end of the line. */
static char *
fscpconf_word(char **s)
{
	char *w;

	*s += strspn(*s, fscpconf_space);
	if (**s == '\0')
		return NULL;
	w = *s;
	*s += strcspn(*s, fscpconf_space);
	if (**s != '\0')
		*(*s)++ = '\0';
	return w;
}

static void
fscpconf_words_free(char **w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

void
fscpconf_file_free(struct fscpconf_file *f)
{
	if (f == NULL)
		return;
	for (size_t i = 0; i < f->nrules; i++)
		fscpconf_words_free(f->rules[i].patterns, f->rules[i].npatterns);
	free(f->rules);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

void
fscpconf_free(struct fscpconf *c)
{
	if (c == NULL)
		return;
	fscpconf_file_free(&c->sys);
	fscpconf_file_free(&c->sys2);
	fscpconf_file_free(&c->user);
}

/* The current Host line, copied into each rule it governs. */
struct fscpconf_host {
	char *words[FSCPCONF_MAX_WORDS];
	size_t n;
	int line;
};

/* One line; 0, or -1 with err.  line is changed in place. */
static int
fscpconf_line(const char *path, int num, char *line, struct fscpconf_host *host,
    struct fscpconf_file *out, char *err, size_t errlen)
{
	char *s = line, *kw, *arg, *extra;
	size_t klen;

	s += strspn(s, fscpconf_space);
	if (*s == '\0' || *s == '#')
		return 0;
	if (strchr(s, '"') != NULL) {
		snprintf(err, errlen, "%s line %d: quoted arguments are not supported", path, num);
		return -1;
	}
	/* "Keyword value", "Keyword=value" or "Keyword = value", as ssh's
	 * strdelim() reads the first word. */
	kw = s;
	klen = strcspn(s, " \t\r\n=");
	s += klen;
	s += strspn(s, fscpconf_space);
	if (*s == '=')
		s++;
	kw[klen] = '\0';
	for (char *p = kw; *p != '\0'; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	if (strcmp(kw, "host") == 0) {
		host->n = 0;
		host->line = num;
		while ((arg = fscpconf_word(&s)) != NULL) {
			if (host->n == FSCPCONF_MAX_WORDS) {
				snprintf(err, errlen, "%s line %d: too many Host patterns", path, num);
				return -1;
			}
			host->words[host->n++] = arg;
		}
		if (host->n == 0) {
			snprintf(err, errlen, "%s line %d: no argument after keyword \"%s\"", path,
			    num, kw);
			return -1;
		}
		return 1;	/* the words point into line: the caller keeps it */
	}
	if (strcmp(kw, "route") != 0) {
		snprintf(err, errlen, "%s: line %d: Bad configuration option: %s", path, num, kw);
		return -1;
	}
	if ((arg = fscpconf_word(&s)) == NULL) {
		snprintf(err, errlen, "%s line %d: no argument after keyword \"%s\"", path, num, kw);
		return -1;
	}
	enum route_force f;

	if (strcasecmp(arg, "auto") == 0)
		f = ROUTE_FORCE_AUTO;
	else if (strcasecmp(arg, "standard") == 0)
		f = ROUTE_FORCE_STANDARD;
	else if (strcasecmp(arg, "bypass") == 0)
		f = ROUTE_FORCE_BYPASS;
	else {
		snprintf(err, errlen, "%s line %d: Route \"%s\" is not one of auto, standard, bypass",
		    path, num, arg);
		return -1;
	}
	if ((extra = fscpconf_word(&s)) != NULL && *extra != '#') {
		snprintf(err, errlen, "%s line %d: garbage at end of line; \"%s\".", path, num, extra);
		return -1;
	}
	out->rules = xrealloc(out->rules, (out->nrules + 1) * sizeof(*out->rules));
	struct fscpconf_rule *r = &out->rules[out->nrules++];

	memset(r, 0, sizeof(*r));
	r->route = f;
	r->line = num;
	r->host_line = host->line;
	r->npatterns = host->n;
	if (host->n > 0) {
		r->patterns = xcalloc(host->n, sizeof(*r->patterns));
		for (size_t i = 0; i < host->n; i++)
			r->patterns[i] = xstrdup(host->words[i]);
	}
	return 0;
}

int
fscpconf_parse(const char *path, const char *text, struct fscpconf_file *out, char *err,
    size_t errlen)
{
	struct fscpconf_host host = { .n = 0 };
	char *held = NULL;	/* the line the Host words point into */
	const char *p = text;
	int num = 0, rc = 0;

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	while (*p != '\0' && rc >= 0) {
		size_t len = strcspn(p, "\n");
		char *line = xmalloc(len + 1);

		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (p[len] == '\n');
		num++;
		rc = fscpconf_line(path, num, line, &host, out, err, errlen);
		if (rc == 1) {
			free(held);
			held = line;
		} else {
			free(line);
		}
	}
	free(held);
	if (rc < 0) {
		fscpconf_file_free(out);
		return -1;
	}
	return 0;
}

int
fscpconf_read(const char *path, bool must_exist, struct fscpconf_file *out, char *err,
    size_t errlen)
{
	FILE *fp;
	char *text;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((fp = fopen(path, "r")) == NULL) {
		if (errno == ENOENT && !must_exist)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -2;
	}
	text = xmalloc(FSCPCONF_MAX_BYTES + 1);
	n = fread(text, 1, FSCPCONF_MAX_BYTES + 1, fp);
	if (ferror(fp) || n > FSCPCONF_MAX_BYTES) {
		snprintf(err, errlen, "%s: %s", path, ferror(fp) ? strerror(errno) : "too large");
		fclose(fp);
		free(text);
		return -2;
	}
	fclose(fp);
	text[n] = '\0';
	if (memchr(text, '\0', n) != NULL) {
		snprintf(err, errlen, "%s: a NUL byte", path);
		free(text);
		return -1;
	}
	rc = fscpconf_parse(path, text, out, err, errlen);
	free(text);
	return rc;
}

bool
fscpconf_glob(const char *s, const char *pat)
{
	for (;;) {
		if (*pat == '\0')
			return *s == '\0';
		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			if (*pat == '\0')
				return true;
			for (; *s != '\0'; s++)
				if (fscpconf_glob(s, pat))
					return true;
			return false;
		}
		if (*s == '\0' || (*pat != '?' && *pat != *s))
			return false;
		s++;
		pat++;
	}
}

bool
fscpconf_host_match(const char *host, char *const *patterns, size_t n)
{
	bool positive = false;

	if (n == 0)
		return true;
	for (size_t i = 0; i < n; i++) {
		bool neg = patterns[i][0] == '!';

		if (fscpconf_glob(host, patterns[i] + neg)) {
			if (neg)
				return false;
			positive = true;
		}
	}
	return positive;
}

const struct fscpconf_rule *
fscpconf_lookup(const struct fscpconf_file *f, const char *host)
{
	if (f == NULL)
		return NULL;
	for (size_t i = 0; i < f->nrules; i++)
		if (fscpconf_host_match(host, f->rules[i].patterns, f->rules[i].npatterns))
			return &f->rules[i];
	return NULL;
}

static const char *
fscpconf_route_word(enum route_force f)
{
	return f == ROUTE_FORCE_STANDARD ? "standard" : f == ROUTE_FORCE_BYPASS ? "bypass" :
	    "auto";
}

/* "Route standard (Host db-* !x) in PATH line N" */
static void
fscpconf_say(const struct fscpconf_file *f, const struct fscpconf_rule *r, char *why,
    size_t len)
{
	size_t off;

	off = (size_t)snprintf(why, len, "Route %s", fscpconf_route_word(r->route));
	if (r->npatterns > 0 && off < len) {
		off += (size_t)snprintf(why + off, len - off, " (Host");
		for (size_t i = 0; i < r->npatterns && off < len; i++)
			off += (size_t)snprintf(why + off, len - off, " %s", r->patterns[i]);
		if (off < len)
			off += (size_t)snprintf(why + off, len - off, ")");
	}
	if (off < len)
		snprintf(why + off, len - off, " in %s line %d", f->path, r->line);
}

enum route_force
fscpconf_route(const struct fscpconf *c, const char *host, bool env_set, enum route_force env,
    char *why, size_t len, bool *from_file)
{
	const struct fscpconf_file *sysf = c != NULL ? &c->sys : NULL;
	const struct fscpconf_rule *sys = c != NULL ? fscpconf_lookup(&c->sys, host) : NULL;
	const struct fscpconf_rule *user = c != NULL ? fscpconf_lookup(&c->user, host) : NULL;

	if (c != NULL && sys == NULL) {
		sysf = &c->sys2;
		sys = fscpconf_lookup(sysf, host);
	}

	*from_file = false;
	why[0] = '\0';
	if (sys != NULL && sys->route == ROUTE_FORCE_STANDARD) {
		fscpconf_say(sysf, sys, why, len);
		*from_file = true;
		return sys->route;
	}
	if (env_set) {
		snprintf(why, len, "FSCP_ROUTE=%s", fscpconf_route_word(env));
		return env;
	}
	if (user != NULL || sys != NULL) {
		const struct fscpconf_file *f = user != NULL ? &c->user : sysf;
		const struct fscpconf_rule *r = user != NULL ? user : sys;

		fscpconf_say(f, r, why, len);
		*from_file = true;
		return r->route;
	}
	return ROUTE_FORCE_AUTO;
}

/* SPDX-License-Identifier: ISC AND SSH-short AND BSD-2-Clause AND BSD-3-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* operand: what one scp operand names, following OpenSSH 9.2 misc.c
 * (colon, parse_user_host_path, parse_uri, cleanhostname, valid_domain,
 * urldecode) and scp.c okname(); pure.
 *
 * operand_colon(), operand_cleanhost(), operand_valid_domain(),
 * operand_urldecode(), operand_parse_uri() and operand_parse_uhp() are
 * derived from colon(), cleanhostname(), valid_domain(), urldecode(),
 * parse_uri() and parse_user_host_path() in OpenSSH's misc.c (the same
 * scans and checks in the same order), and operand_okname() from okname()
 * in OpenSSH's scp.c.  Their notices, as their licences require:
 *
 * misc.c:
 * Copyright (c) 2000 Markus Friedl.  All rights reserved.
 * Copyright (c) 2005-2020 Damien Miller.  All rights reserved.
 * Copyright (c) 2004 Henning Brauer <henning@openbsd.org>
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
 * WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
 * MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
 * ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
 * WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
 * ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
 * OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
 *
 * scp.c:
 * 1995 Timo Rinne <tri@iki.fi>, Tatu Ylonen <ylo@cs.hut.fi>
 *
 * As far as I am concerned, the code I have written for this software
 * can be used freely for any purpose.  Any derived versions of this
 * software must be clearly marked as such, and if the derived work is
 * incompatible with the protocol description in the RFC file, it must be
 * called by a name other than "ssh" or "Secure Shell".
 *
 * Copyright (c) 1999 Theo de Raadt.  All rights reserved.
 * Copyright (c) 1999 Aaron Campbell.  All rights reserved.
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
 *
 * Parts from:
 *
 * Copyright (c) 1983, 1990, 1992, 1993, 1995
 *	The Regents of the University of California.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 * 3. Neither the name of the University nor the names of its contributors
 *    may be used to endorse or promote products derived from this software
 *    without specific prior written permission.
 *
 * THIS SOFTWARE IS PROVIDED BY THE REGENTS AND CONTRIBUTORS ``AS IS'' AND
 * ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 * IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
 * ARE DISCLAIMED.  IN NO EVENT SHALL THE REGENTS OR CONTRIBUTORS BE LIABLE
 * FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
 * DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS
 * OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
 * HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT
 * LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY
 * OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF
 * SUCH DAMAGE.
 */
#include "config.h"
#include "policy/operand.h"
#include "util/number.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

static bool
operand_isalnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z');
}

const char *
operand_colon(const char *s)
{
	bool bracket;

	if (*s == ':')		/* ":x" is a local file name */
		return NULL;
	bracket = *s == '[';
	for (; *s != '\0'; s++) {
		/* "[v6]:p" and "user@[v6]:p": only "]:" ends the host */
		if (s[0] == '@' && s[1] == '[')
			bracket = true;
		if (bracket && s[0] == ']' && s[1] == ':')
			return s + 1;
		if (!bracket && *s == ':')
			return s;
		if (*s == '/')
			return NULL;
	}
	return NULL;
}

/* cleanhostname(): "[h]" -> "h", in place. */
static char *
operand_cleanhost(char *h)
{
	size_t n = strlen(h);

	if (n > 0 && h[0] == '[' && h[n - 1] == ']') {
		h[n - 1] = '\0';
		return h + 1;
	}
	return h;
}

/* valid_domain(name, makelower=0): alnum first, then [A-Za-z0-9._-] with
 * no "..".  A single trailing dot is dropped, as OpenSSH does in place. */
static bool
operand_valid_domain(char *name)
{
	size_t n = strlen(name);
	char last = '\0';

	if (n == 0 || !operand_isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (last == '.' && c == '.')
			return false;
		if (c != '.' && c != '-' && c != '_' &&
		    !operand_isalnum((unsigned char)c))
			return false;
		last = c;
	}
	if (name[n - 1] == '.')
		name[n - 1] = '\0';
	return true;
}

static int
operand_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* urldecode(): %XX and '+' -> ' '.  NULL on a malformed escape, and on
 * %00, which Debian's 9.2 scp rejects as an invalid uri (checked). */
static char *
operand_urldecode(const char *s)
{
	char *ret = xmalloc(strlen(s) + 1), *d = ret;

	for (; *s != '\0'; s++) {
		if (*s == '+') {
			*d++ = ' ';
		} else if (*s == '%') {
			int hi = operand_hexval(s[1]);
			int lo = hi < 0 ? -1 : operand_hexval(s[2]);

			if (lo < 0 || (hi == 0 && lo == 0)) {
				free(ret);
				return NULL;
			}
			*d++ = (char)(hi << 4 | lo);
			s += 2;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
	return ret;
}

/* parse_uri("scp", ...): 1 when not a URI, -1 when invalid, 0 when op is
 * filled in. */
static int
operand_parse_uri(const char *arg, struct fscp_operand *op)
{
	static const char prefix[] = "scp://";
	char *dup, *rest, *at, *semi, *hoststart, *sep, *slash;
	char *user = NULL, *host = NULL, *path = NULL;
	char delim = '\0';
	int port = -1;

	if (strncmp(arg, prefix, sizeof(prefix) - 1) != 0)
		return 1;
	dup = rest = xstrdup(arg + sizeof(prefix) - 1);

	/* The user ends at the first '@' anywhere, even inside the path:
	 * "scp://h/p@q/r" is user "h/p" on host "q", as in scp. */
	if ((at = strchr(rest, '@')) != NULL) {
		*at = '\0';
		if ((semi = strchr(rest, ';')) != NULL)
			*semi = '\0';	/* connection parameters are ignored */
		if (*rest == '\0' || (user = operand_urldecode(rest)) == NULL)
			goto bad;
		rest = at + 1;
	}

	/* hpdelim2(): host is "[...]" or runs to the first ':' or '/' */
	hoststart = rest;
	if (*rest == '[') {
		if ((sep = strchr(rest, ']')) == NULL)
			goto bad;
		sep++;
	} else {
		sep = rest + strcspn(rest, ":/");
	}
	if (*sep == '\0') {
		rest = NULL;
	} else if (*sep == ':' || *sep == '/') {
		delim = *sep;
		*sep = '\0';
		rest = sep + 1;
	} else {
		goto bad;
	}
	if (*hoststart == '\0')
		goto bad;
	host = xstrdup(operand_cleanhost(hoststart));
	if (!operand_valid_domain(host))
		goto bad;

	if (rest != NULL && *rest != '\0') {
		if (delim == ':') {
			if ((slash = strchr(rest, '/')) != NULL)
				*slash = '\0';
			if ((port = number_a2port(rest)) <= 0)
				goto bad;
			rest = slash != NULL ? slash + 1 : NULL;
		}
		if (rest != NULL && *rest != '\0' &&
		    (path = operand_urldecode(rest)) == NULL)
			goto bad;
	}
	free(dup);
	op->remote = true;
	op->is_uri = true;
	op->user = user;
	op->host = host;
	op->port = port;
	op->path = path != NULL ? path : xstrdup(".");
	return 0;
bad:
	free(dup);
	free(user);
	free(host);
	free(path);
	return -1;
}

/* parse_user_host_path(): [user@]host:[path], colon already known. */
static void
operand_parse_uhp(const char *arg, struct fscp_operand *op)
{
	char *dup = xstrdup(arg), *colon, *at;

	colon = dup + (operand_colon(dup) - dup);
	*colon = '\0';
	op->path = xstrdup(colon[1] != '\0' ? colon + 1 : ".");
	/* the LAST '@' before the colon splits user from host */
	if ((at = strrchr(dup, '@')) != NULL) {
		*at = '\0';
		op->host = xstrdup(operand_cleanhost(at + 1));
		if (*dup != '\0')
			op->user = xstrdup(dup);
	} else {
		op->host = xstrdup(operand_cleanhost(dup));
	}
	op->remote = true;
	op->port = -1;
	free(dup);
}

enum operand_status
operand_parse(const char *arg, struct fscp_operand *op)
{
	memset(op, 0, sizeof(*op));
	if (operand_colon(arg) == NULL) {
		op->path = xstrdup(arg);
		op->port = -1;
		return OPERAND_OK;
	}
	switch (operand_parse_uri(arg, op)) {
	case 0:
		return OPERAND_OK;
	case -1:
		memset(op, 0, sizeof(*op));
		return OPERAND_INVALID_URI;
	default:
		operand_parse_uhp(arg, op);
		return OPERAND_OK;
	}
}

void
operand_free(struct fscp_operand *op)
{
	free(op->user);
	free(op->host);
	free(op->path);
	memset(op, 0, sizeof(*op));
	op->port = -1;
}

bool
operand_okname(const char *user)
{
	for (const unsigned char *p = (const unsigned char *)user; *p; p++) {
		if (*p & 0x80)
			return false;
		switch (*p) {
		case '\'':
		case '"':
		case '`':
		case ' ':
		case '#':
			return false;
		default:
			break;
		}
	}
	return true;
}

char *
operand_basename(const char *path)
{
	size_t end = strlen(path), start;

	while (end > 1 && path[end - 1] == '/')
		end--;
	if (end == 1 && path[0] == '/')
		return xstrdup("/");
	start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	char *ret = xmalloc(end - start + 1);
	memcpy(ret, path + start, end - start);
	ret[end - start] = '\0';
	return ret;
}

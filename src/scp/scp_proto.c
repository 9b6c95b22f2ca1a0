/* SPDX-License-Identifier: ISC AND SSH-short AND BSD-2-Clause AND BSD-3-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_proto: legacy SCP records and name checks (see scp_proto.h).
 *
 * Derived from OpenSSH's scp.c: scpp_parse() is the record parsing of its
 * sink(), the scpp_patterns functions its find_brace(), brace_expand_one()
 * and brace_expand(), and the scpp_format and scpp_command functions write
 * the lines its source(), rsource(), do_times() and main() write.
 * scpp_vis_nl() is derived from vis() in OpenBSD's vis.c (strnvis() with
 * VIS_NL, as OpenSSH carries it in openbsd-compat).  Their notices, as
 * their licences require:
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
 *
 * vis.c:
 * Copyright (c) 1989, 1993
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
#include "scp/scp_proto.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strv.h"
#include "util/xmalloc.h"

/* off_t and time_t are 64-bit here (configure asks for large files);
 * scp's TYPE_OVERFLOW checks become "fits a signed 64-bit value". */
#define SCPP_S64_MAX ((unsigned long long)INT64_MAX)

/* One "<sec> <usec>" pair of a T record, ending in term; the reasons
 * are scp's for that field ("mtime.sec not present", ...). */
struct time_field {
	const char *no_sec, *sec_delim, *usec_delim;
	char term;
};

static const char *
parse_time_field(const char **pp, const struct time_field *f, long long *sec,
    long *usec, bool *fit)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)**pp))
		return f->no_sec;
	v = strtoull(*pp, &end, 10);
	if (*end++ != ' ')
		return f->sec_delim;
	if (v > SCPP_S64_MAX)
		*fit = false;
	*sec = (long long)v;
	*usec = strtol(end, &end, 10);
	if (*end != f->term || *usec < 0 || *usec > 999999)
		return f->usec_delim;
	*pp = end + 1;
	return NULL;
}

/* "T<mtime> <usec> <atime> <usec>", checked field by field in scp's order
 * so the reason matches the one scp gives. */
static enum scpp_kind
parse_time(const char *p, struct scpp_record *r, const char **why)
{
	static const struct time_field m = { "mtime.sec not present",
		"mtime.sec not delimited", "mtime.usec not delimited", ' ' };
	static const struct time_field a = { "atime.sec not present",
		"atime.sec not delimited", "atime.usec not delimited", '\0' };
	const char *bad;

	r->times_fit = true;
	if ((bad = parse_time_field(&p, &m, &r->mtime, &r->mtime_usec, &r->times_fit)) != NULL ||
	    (bad = parse_time_field(&p, &a, &r->atime, &r->atime_usec, &r->times_fit)) != NULL) {
		*why = bad;
		return SCPP_BAD;
	}
	return SCPP_TIME;
}

/* "C0644 123 name" / "D0755 0 name": exactly four octal digits, a space,
 * a decimal size that fits off_t, a space, then the name (unchecked). */
static enum scpp_kind
parse_entry(const char *line, struct scpp_record *r, const char **why)
{
	const char *p = line + 1;
	char *end;
	unsigned long long v;

	r->mode = 0;
	for (int i = 0; i < 4; i++, p++) {
		if (*p < '0' || *p > '7')
			return *why = "bad mode", SCPP_BAD;
		r->mode = (r->mode << 3) | (unsigned)(*p - '0');
	}
	if (*p++ != ' ')
		return *why = "mode not delimited", SCPP_BAD;
	if (!isdigit((unsigned char)*p))
		return *why = "size not present", SCPP_BAD;
	v = strtoull(p, &end, 10);
	if (*end++ != ' ')
		return *why = "size not delimited", SCPP_BAD;
	/* strtoull saturates at ULLONG_MAX on overflow: caught here too. */
	if (v > SCPP_S64_MAX)
		return *why = "size out of range", SCPP_BAD;
	r->size = (long long)v;
	r->name = end;
	return line[0] == 'C' ? SCPP_FILE : SCPP_DIR;
}

enum scpp_kind
scpp_parse(const char *line, struct scpp_record *r, const char **why)
{
	static const char *none = "";

	memset(r, 0, sizeof(*r));
	*why = none;
	switch (line[0]) {
	case '\1':
		r->text = line + 1;
		return r->kind = SCPP_WARN;
	case '\2':
		r->text = line + 1;
		return r->kind = SCPP_FATAL;
	case 'E':
		return r->kind = SCPP_END;
	case 'T':
		return r->kind = parse_time(line + 1, r, why);
	case 'C':
	case 'D':
		return r->kind = parse_entry(line, r, why);
	default:
		return r->kind = SCPP_OTHER;
	}
}

bool
scpp_name_ok(const char *name)
{
	return *name != '\0' && strchr(name, '/') == NULL &&
	    strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* '[' and ']' open and close a character class, where braces and commas
 * are plain bytes.  True when c was one of them. */
static bool
class_edge(char c, bool *in_class)
{
	if (c != '[' && c != ']')
		return false;
	*in_class = c == '[';
	return true;
}

/* The first top-level {...} of pat: *open and *close its offsets, both -1
 * when there is none.  -1 for a pattern scp calls invalid: a '}' before any
 * '{', or an unclosed '{' or '['.  A backslash protects the next byte and
 * "{}" is literal (find(1)'s placeholder), as in csh and scp. */
static int
brace_find(const char *pat, int *open, int *close)
{
	bool in_class = false;
	int depth = 0;

	*open = *close = -1;
	for (int i = 0; pat[i] != '\0' && *close < 0; i++) {
		if (class_edge(pat[i], &in_class))
			continue;
		switch (pat[i]) {
		case '\\':
			if (pat[i + 1] != '\0')
				i++;
			break;
		case '{':
			if (in_class)
				break;
			if (pat[i + 1] == '}') {
				i++;
				break;
			}
			if (*open < 0)
				*open = i;
			depth++;
			break;
		case '}':
			if (in_class)
				break;
			if (*open < 0)
				return -1;
			if (--depth <= 0)
				*close = i;
			break;
		}
	}
	if (*close < 0 && (*open >= 0 || in_class))
		return -1;
	return 0;
}

/* pat with its brace [open, close] replaced by pat[from, to). */
static char *
brace_splice(const char *pat, int open, int close, int from, int to)
{
	const char *tail = pat + close + 1;

	return xasprintf("%.*s%.*s%s", open, pat, to - from, pat + from, tail);
}

/* Push the alternatives of pat's first brace onto work.  Returns 1 when
 * it expanded, 0 when pat has no brace, -1 when pat is invalid.  The
 * alternatives split at top-level commas; the last one runs to the closing
 * brace.  As in scp, the byte after a backslash is still looked at for
 * the comma test, and a comma that is the last byte joins the last
 * alternative. */
static int
brace_expand_one(const char *pat, struct strv *work)
{
	int open, close, depth = 0, from;
	bool in_class = false;

	if (brace_find(pat, &open, &close) != 0)
		return -1;
	if (open < 0)
		return 0;
	from = open + 1;
	for (int i = open + 1; i < close; i++) {
		switch (class_edge(pat[i], &in_class) ? '\0' : pat[i]) {
		case '{':
			depth += !in_class;
			break;
		case '}':
			depth -= !in_class;
			break;
		case '\\':
			if (i < close - 1)
				i++;
			break;
		}
		bool last = i == close - 1;

		if ((pat[i] != ',' && !last) || in_class || depth > 0)
			continue;
		char *alt = brace_splice(pat, open, close, from, last ? close : i);

		strv_push(work, alt);
		free(alt);
		from = i + 1;
	}
	return in_class || depth > 0 ? -1 : 1;
}

static char *
strv_pop(struct strv *sv)
{
	char *s = sv->v[--sv->n];

	sv->v[sv->n] = NULL;
	return s;
}

int
scpp_patterns_new(const char *src, struct scpp_patterns *p, char **bad)
{
	struct strv work = { 0 }, done = { 0 };

	p->v = NULL;
	p->n = 0;
	*bad = NULL;
	strv_push(&work, src);
	while (work.n > 0) {
		char *pat = strv_pop(&work);
		int r = brace_expand_one(pat, &work);

		if (r < 0) {
			*bad = pat;
			strv_free(&work);
			strv_free(&done);
			return -1;
		}
		if (r == 0) {
			const char *slash = strrchr(pat, '/');

			strv_push(&done, slash != NULL ? slash + 1 : pat);
		}
		free(pat);
	}
	strv_free(&work);
	p->v = done.v;
	p->n = done.n;
	return 0;
}

void
scpp_patterns_free(struct scpp_patterns *p)
{
	struct strv sv = { .v = p->v, .n = p->n, .cap = p->n };

	strv_free(&sv);
	p->v = NULL;
	p->n = 0;
}

bool
scpp_match(const struct scpp_patterns *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++) {
		if (strcmp(p->v[i], name) == 0 || fnmatch(p->v[i], name, 0) == 0)
			return true;
	}
	return false;
}

static size_t
clamp_len(int n, size_t len)
{
	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len - 1;
}

size_t
scpp_format_file(char *buf, size_t len, unsigned mode, long long size, const char *name)
{
	return clamp_len(snprintf(buf, len, "C%04o %lld %s\n", mode & 07777u, size, name), len);
}

size_t
scpp_format_dir(char *buf, size_t len, unsigned mode, const char *name)
{
	/* scp cuts a directory's name at 1024 bytes. */
	return clamp_len(snprintf(buf, len, "D%04o %d %.1024s\n", mode & 07777u, 0, name), len);
}

size_t
scpp_format_time(char *buf, size_t len, long long mtime, long long atime)
{
	/* Times before 1970 go out as 0, as scp's do_times() sends them. */
	return clamp_len(snprintf(buf, len, "T%llu 0 %llu 0\n",
	    (unsigned long long)(mtime < 0 ? 0 : mtime),
	    (unsigned long long)(atime < 0 ? 0 : atime)), len);
}

char *
scpp_command_prefix(const struct scpp_cmd *c)
{
	return xasprintf("scp%s%s%s%s", c->verbose ? " -v" : "",
	    c->recursive ? " -r" : "", c->preserve ? " -p" : "",
	    c->target_dir ? " -d" : "");
}

char *
scpp_command(const struct scpp_cmd *c, char dir, const char *path)
{
	char *pre = scpp_command_prefix(c);
	char *cmd = xasprintf("%s -%c %s%s", pre, dir, *path == '-' ? "-- " : "", path);

	free(pre);
	return cmd;
}

char *
scpp_vis_nl(const char *name)
{
	char *out = xmalloc(strlen(name) * 4 + 1), *d = out;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		unsigned c = *p;

		if (c == '\\') {
			*d++ = '\\';
			*d++ = '\\';
		} else if (c == ' ' || c == '\t' || (c < 0x80 && isgraph((int)c))) {
			*d++ = (char)c;
		} else if (c == 0xa0) {
			d += sprintf(d, "\\%03o", c);
		} else {
			*d++ = '\\';
			if (c & 0x80) {
				c &= 0x7f;
				*d++ = 'M';
			}
			if (c < 0x20 || c == 0x7f) {
				*d++ = '^';
				*d++ = c == 0x7f ? '?' : (char)(c + '@');
			} else {
				*d++ = '-';
				*d++ = (char)c;
			}
		}
	}
	*d = '\0';
	return out;
}

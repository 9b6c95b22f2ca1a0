/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "policy/shwords.h"
#include "util/strv.h"
#include "util/xmalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void
shwords_free(char **w)
{
	if (w == NULL)
		return;
	for (char **p = w; *p != NULL; p++)
		free(*p);
	free(w);
}

static bool
is_op_char(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')';
}

char **
shwords_split(const char *s)
{
	struct strv out = { 0 };
	size_t cap = strlen(s) + 1, n;
	char *cur = xmalloc(cap);
	const char *p = s;

	for (;;) {
		bool have = false;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		if (is_op_char(*p)) {
			char op[3] = { *p, 0, 0 };

			if ((p[0] == '&' || p[0] == '|') && p[1] == p[0])
				op[1] = *++p;
			p++;
			strv_push(&out, op);
			continue;
		}
		n = 0;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' &&
		    !is_op_char(*p)) {
			have = true;
			if (*p == '\'') {
				const char *e = strchr(p + 1, '\'');

				if (e == NULL)
					goto bad;
				memcpy(cur + n, p + 1, (size_t)(e - p - 1));
				n += (size_t)(e - p - 1);
				p = e + 1;
			} else if (*p == '"') {
				p++;
				while (*p != '"') {
					if (*p == '\0')
						goto bad;
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\' ||
					    p[1] == '$' || p[1] == '`'))
						p++;
					cur[n++] = *p++;
				}
				p++;
			} else if (*p == '\\' && p[1] != '\0') {
				cur[n++] = p[1];
				p += 2;
			} else
				cur[n++] = *p++;
		}
		if (have) {
			cur[n] = '\0';
			strv_push(&out, cur);
		}
	}
	free(cur);
	if (out.v == NULL)
		out.v = xcalloc(1, sizeof(char *));
	return out.v;
bad:
	free(cur);
	strv_free(&out);
	return NULL;
}

bool
shwords_is_op(const char *w)
{
	return is_op_char(w[0]) && (w[1] == '\0' || (w[1] == w[0] && w[2] == '\0'));
}

bool
shwords_is_assignment(const char *w)
{
	if (!(isalpha((unsigned char)*w) || *w == '_'))
		return false;
	for (const char *p = w; *p != '\0'; p++) {
		if (*p == '=')
			return true;
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	}
	return false;
}

const char *
shwords_base_name(const char *w)
{
	const char *s = strrchr(w, '/');

	return s != NULL ? s + 1 : w;
}

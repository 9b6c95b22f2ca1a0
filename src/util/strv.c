/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "util/strv.h"
#include "util/xmalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
strv_push_owned(struct strv *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strv_push(struct strv *sv, const char *s)
{
	strv_push_owned(sv, xstrdup(s));
}

void
strv_pushf(struct strv *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strv_push_owned(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void
strv_append(struct strv *dst, const struct strv *src)
{
	for (size_t i = 0; i < src->n; i++)
		strv_push(dst, src->v[i]);
}

void
strv_free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

char *
strv_join_quoted(const struct strv *sv)
{
	size_t len = 1;
	char *out, *p;

	for (size_t i = 0; i < sv->n; i++)
		len += 4 * strlen(sv->v[i]) + 3;
	out = p = xmalloc(len);
	for (size_t i = 0; i < sv->n; i++) {
		if (i > 0)
			*p++ = ' ';
		*p++ = '\'';
		for (const char *s = sv->v[i]; *s; s++) {
			if (*s == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else
				*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}

char *
strv_join(const struct strv *sv, const char *sep)
{
	size_t len = 1, sl = strlen(sep);
	char *out, *p;

	for (size_t i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + sl;
	out = p = xmalloc(len);
	for (size_t i = 0; i < sv->n; i++) {
		size_t n = strlen(sv->v[i]);

		if (i > 0) {
			memcpy(p, sep, sl);
			p += sl;
		}
		memcpy(p, sv->v[i], n);
		p += n;
	}
	*p = '\0';
	return out;
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xmalloc: allocation that never returns NULL: out of memory is fatal, in
 * scp's words, so no caller carries a failure path it cannot test. */
#include "config.h"
#include "util/xmalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

/* The one death below cli/: with no memory left there is no message to
 * carry back up, so scp's fatal() ends the process here (255). */
static void FSCP_NORETURN
xmalloc_oom(void)
{
	log_fatal("out of memory");
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		xmalloc_oom();
	return q;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		xmalloc_oom();
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

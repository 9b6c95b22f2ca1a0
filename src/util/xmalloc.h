/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xmalloc: allocation helpers that never return NULL.  Out of memory is
 * fatal (log_fatal, 255): the only place below cli/ where fscp dies. */
#ifndef FSCP_XMALLOC_H
#define FSCP_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

#include "util/log.h"	/* FSCP_PRINTF */

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) FSCP_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap) FSCP_PRINTF(1, 0);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* strv: a growable NULL-terminated vector of owned strings (argv building). */
#ifndef FSCP_STRV_H
#define FSCP_STRV_H

#include <stddef.h>
#include "util/log.h"	/* FSCP_PRINTF */

struct strv {
	char **v;	/* always NULL-terminated once anything was pushed */
	size_t n;
	size_t cap;
};

void strv_push(struct strv *sv, const char *s);
void strv_pushf(struct strv *sv, const char *fmt, ...) FSCP_PRINTF(2, 3);
void strv_append(struct strv *dst, const struct strv *src);
void strv_free(struct strv *sv);
/* Shell-quote every element into one string ('a' 'b c'), for -v output. */
char *strv_join_quoted(const struct strv *sv);
/* The elements with sep between them ("a,b,c"). */
char *strv_join(const struct strv *sv, const char *sep);

#endif

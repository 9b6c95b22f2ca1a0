/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "util/rangeset.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

void
rangeset_free(struct rangeset *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

void
rangeset_clear(struct rangeset *s)
{
	s->n = 0;
}

void
rangeset_add(struct rangeset *s, uint64_t off, uint64_t end)
{
	size_t i, j;

	if (off >= end)
		return;
	/* The first range that ends at or after off: it may touch the new one. */
	for (i = 0; i < s->n && s->r[i].end < off; i++)
		;
	/* The ranges from i that start at or before end are swallowed. */
	for (j = i; j < s->n && s->r[j].off <= end; j++) {
		if (s->r[j].off < off)
			off = s->r[j].off;
		if (s->r[j].end > end)
			end = s->r[j].end;
	}
	if (j == i) {
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 8;
			s->r = xrealloc(s->r, s->cap * sizeof(*s->r));
		}
		memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(*s->r));
		s->n++;
	} else if (j > i + 1) {
		memmove(&s->r[i + 1], &s->r[j], (s->n - j) * sizeof(*s->r));
		s->n -= j - i - 1;
	}
	s->r[i].off = off;
	s->r[i].end = end;
}

void
rangeset_merge(struct rangeset *dst, const struct rangeset *src)
{
	for (size_t i = 0; i < src->n; i++)
		rangeset_add(dst, src->r[i].off, src->r[i].end);
}

void
rangeset_clip(struct rangeset *s, uint64_t end)
{
	while (s->n > 0 && s->r[s->n - 1].off >= end)
		s->n--;
	if (s->n > 0 && s->r[s->n - 1].end > end)
		s->r[s->n - 1].end = end;
}

void
rangeset_gaps(const struct rangeset *s, uint64_t size, struct rangeset *gaps)
{
	uint64_t at = 0;

	rangeset_clear(gaps);
	for (size_t i = 0; i < s->n && at < size; i++) {
		uint64_t e = s->r[i].off < size ? s->r[i].off : size;

		rangeset_add(gaps, at, e);
		if (s->r[i].end > at)
			at = s->r[i].end;
	}
	rangeset_add(gaps, at, size);
}

uint64_t
rangeset_bytes(const struct rangeset *s)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < s->n; i++)
		sum += s->r[i].end - s->r[i].off;
	return sum;
}

uint64_t
rangeset_end(const struct rangeset *s)
{
	return s->n > 0 ? s->r[s->n - 1].end : 0;
}

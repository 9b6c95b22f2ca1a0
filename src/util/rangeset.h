/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* rangeset: a set of byte ranges [off, end), kept sorted and merged, so a
 * file copied in many pieces is a handful of ranges, not one per piece. */
#ifndef FSCP_RANGESET_H
#define FSCP_RANGESET_H

#include <stddef.h>
#include <stdint.h>

struct range {
	uint64_t off, end;
};

struct rangeset {
	struct range *r;	/* sorted, disjoint, none empty, none touching */
	size_t n, cap;
};

void rangeset_free(struct rangeset *s);
void rangeset_clear(struct rangeset *s);
/* Add [off, end) (nothing when empty), merging with what it meets. */
void rangeset_add(struct rangeset *s, uint64_t off, uint64_t end);
/* Every range of src added to dst. */
void rangeset_merge(struct rangeset *dst, const struct rangeset *src);
/* Keep only what lies below end. */
void rangeset_clip(struct rangeset *s, uint64_t end);
/* The ranges of [0, size) that s does not hold, into gaps (cleared first). */
void rangeset_gaps(const struct rangeset *s, uint64_t size, struct rangeset *gaps);
/* Bytes held. */
uint64_t rangeset_bytes(const struct rangeset *s);
/* The end of the last range; 0 when empty. */
uint64_t rangeset_end(const struct rangeset *s);

#endif

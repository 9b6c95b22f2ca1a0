/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Fuzz the resume journal's parser: any bytes as a journal file, and the
 * same bytes signed with their right checksum (so the grammar behind the
 * checksum is reached too).  What it takes must hold only sorted, apart
 * ranges inside each source, and must come out of the writer as the same
 * text. */
#include "config.h"
#include "fuzz.h"
#include "engine/journal_text.h"

#include <stdio.h>

static void fuzz_one(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = 14695981039346656037ULL;
	char *signed_text = malloc(size + 32);

	fuzz_one(data, size);
	for (size_t i = 0; i < size; i++) {
		h ^= data[i];
		h *= 1099511628211ULL;
	}
	memcpy(signed_text, data, size);
	int n = snprintf(signed_text + size, 32, "sum %016llx\n", (unsigned long long)h);

	fuzz_one((const uint8_t *)signed_text, size + (size_t)n);
	free(signed_text);
	return 0;
}

static void
fuzz_one(const uint8_t *data, size_t size)
{
	struct journal_doc d;
	struct journal_buf b = { 0 };
	char err[128];

	if (journal_parse((const char *)data, size, &d, err, sizeof(err)) != 0)
		return;
	journal_format_begin(&b);
	for (size_t i = 0; i < d.n; i++) {
		const struct rangeset *s = &d.recs[i].done;

		for (size_t k = 0; k < s->n; k++)
			if (s->r[k].off >= s->r[k].end || s->r[k].end > d.recs[i].src_size ||
			    (k > 0 && s->r[k].off <= s->r[k - 1].end))
				abort();
		journal_format_rec(&b, &d.recs[i]);
	}
	journal_format_end(&b);
	if (b.len != size || memcmp(b.p, data, size) != 0)
		abort();
	journal_buf_free(&b);
	journal_doc_free(&d);
}

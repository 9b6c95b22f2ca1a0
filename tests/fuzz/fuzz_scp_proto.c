/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* libFuzzer harness for scp_proto: what a hostile legacy server can send.
 *
 * Built and run by make fuzz (tests/fuzz/run.sh); make check replays its
 * corpus (tests/fuzz/corpus/scp_proto) through tests/fuzz/replay.c.
 * The input's first line is a record as the sink reads it (cut at
 * SCPP_LINE_MAX, NUL-terminated); the rest, up to a second newline, is used
 * as the requested source, whose brace patterns the record's name is
 * matched against, as sink() does. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scp/scp_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[SCPP_LINE_MAX + 1], src[256];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t n = nl ? (size_t)(nl - data) : size;
	struct scpp_record r;
	struct scpp_patterns p;
	const char *why;
	char *bad = NULL, *vis;

	if (n > SCPP_LINE_MAX)
		n = SCPP_LINE_MAX;
	memcpy(line, data, n);
	line[n] = '\0';
	size_t rest = nl ? size - n - 1 : 0;

	if (rest >= sizeof(src))
		rest = sizeof(src) - 1;
	memcpy(src, nl ? nl + 1 : data, rest);
	src[rest] = '\0';

	if ((scpp_parse(line, &r, &why) == SCPP_FILE || r.kind == SCPP_DIR) &&
	    scpp_name_ok(r.name)) {
		if (scpp_patterns_new(src, &p, &bad) == 0) {
			(void)scpp_match(&p, r.name);
			scpp_patterns_free(&p);
		} else {
			free(bad);
		}
	}
	vis = scpp_vis_nl(line);
	free(vis);
	return 0;
}

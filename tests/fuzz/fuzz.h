/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* fuzz: what every harness in tests/fuzz shares.
 *
 * Each fuzz_NAME.c defines LLVMFuzzerTestOneInput() and nothing else.  Built
 * with clang -fsanitize=fuzzer it is a libFuzzer target (make fuzz); linked
 * with replay.c under the normal compiler it replays the seed corpus and
 * every saved crash once (make check), so a fixed crash stays fixed. */
#ifndef FSCP_FUZZ_H
#define FSCP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string: a malloc'd copy with a NUL appended (bytes after
 * an embedded NUL are simply not seen by string parsers). */
static inline char *
fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif

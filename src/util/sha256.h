/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sha256: SHA-256 (FIPS 180-4) of a buffer in memory.  It names a copy's
 * resume journal, which every copy that finds a journal in its directory
 * works out: opening libcrypto for it cost such a copy more than the rest
 * of its start.  Not for anything secret: it runs in no constant time. */
#ifndef FSCP_SHA256_H
#define FSCP_SHA256_H

#include <stddef.h>

void sha256(const void *p, size_t n, unsigned char md[32]);

#endif

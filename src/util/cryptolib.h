/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* cryptolib: the few OpenSSL functions fscp calls itself (SHA-1 for ssh's
 * %C, HMAC-SHA1 and base64 for hashed known_hosts names, random salt),
 * from libcrypto opened when first needed (dynlib).
 * Each returns false (or -1) when libcrypto cannot be loaded; the caller
 * goes on without what it wanted, as ssh's standard route needs none. */
#ifndef FSCP_CRYPTOLIB_H
#define FSCP_CRYPTOLIB_H

#include <stdbool.h>
#include <stddef.h>

bool cryptolib_sha1(const void *p, size_t n, unsigned char md[20]);
bool cryptolib_hmac_sha1(const void *key, size_t keylen, const void *p, size_t n,
    unsigned char md[20]);
bool cryptolib_random(void *p, size_t n);
/* Base64 as OpenSSL's EVP_EncodeBlock / EVP_DecodeBlock: the length
 * written (out NUL-terminated when encoding), -1 on failure. */
int cryptolib_b64_encode(char *out, const unsigned char *in, int n);
int cryptolib_b64_decode(unsigned char *out, const char *in, int n);
/* OpenSSL's version text, NULL (with why) when it cannot be loaded. */
const char *cryptolib_version(const char **why);

#endif

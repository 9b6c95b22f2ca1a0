/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "util/cryptolib.h"
#include "util/dynlib.h"

#include <limits.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

/* The declarations are the headers' own: a prototype that changed would
 * not build. */
static struct {
	__typeof__(SHA1) *sha1;
	__typeof__(HMAC) *hmac;
	__typeof__(EVP_sha1) *evp_sha1;
	__typeof__(RAND_bytes) *rand_bytes;
	__typeof__(EVP_EncodeBlock) *b64_encode;
	__typeof__(EVP_DecodeBlock) *b64_decode;
	__typeof__(OpenSSL_version) *version;
} cl;

static const struct dynlib_sym cl_syms[] = {
	{ "SHA1", &cl.sha1 },
	{ "HMAC", &cl.hmac },
	{ "EVP_sha1", &cl.evp_sha1 },
	{ "RAND_bytes", &cl.rand_bytes },
	{ "EVP_EncodeBlock", &cl.b64_encode },
	{ "EVP_DecodeBlock", &cl.b64_decode },
	{ "OpenSSL_version", &cl.version },
};

static struct dynlib cl_lib = {
	.soname = FSCP_LIBCRYPTO_SONAME,
	.syms = cl_syms,
	.nsyms = sizeof(cl_syms) / sizeof(cl_syms[0]),
};

bool
cryptolib_sha1(const void *p, size_t n, unsigned char md[20])
{
	return dynlib_load(&cl_lib) && cl.sha1(p, n, md) != NULL;
}

bool
cryptolib_hmac_sha1(const void *key, size_t keylen, const void *p, size_t n,
    unsigned char md[20])
{
	unsigned int len = 0;

	if (!dynlib_load(&cl_lib) || keylen > (size_t)INT_MAX)
		return false;
	return cl.hmac(cl.evp_sha1(), key, (int)keylen, p, n, md, &len) != NULL && len == 20;
}

bool
cryptolib_random(void *p, size_t n)
{
	return dynlib_load(&cl_lib) && n <= (size_t)INT_MAX && cl.rand_bytes(p, (int)n) == 1;
}

int
cryptolib_b64_encode(char *out, const unsigned char *in, int n)
{
	return dynlib_load(&cl_lib) ? cl.b64_encode((unsigned char *)out, in, n) : -1;
}

int
cryptolib_b64_decode(unsigned char *out, const char *in, int n)
{
	return dynlib_load(&cl_lib) ? cl.b64_decode(out, (const unsigned char *)in, n) : -1;
}

const char *
cryptolib_version(const char **why)
{
	if (!dynlib_load(&cl_lib)) {
		*why = cl_lib.err;
		return NULL;
	}
	return cl.version(OPENSSL_VERSION);
}

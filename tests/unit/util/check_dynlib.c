/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests of util/dynlib (a library opened when first needed) and
 * util/cryptolib (the OpenSSL functions fscp calls through it). */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../check_main.h"
#include "util/cryptolib.h"
#include "util/dynlib.h"

static void (*fn_a)(void), (*fn_b)(void);

/* A library that is not there: false, the loader's reason, and the same
 * answer again without trying twice. */
START_TEST(missing_library)
{
	const struct dynlib_sym syms[] = { { "f", &fn_a } };
	struct dynlib l = { .soname = "libfscp-no-such-library.so.0", .syms = syms, .nsyms = 1 };

	ck_assert(!dynlib_load(&l));
	ck_assert_ptr_nonnull(strstr(l.err, "libfscp-no-such-library.so.0"));
	l.err[0] = 'X';
	ck_assert(!dynlib_load(&l));
	ck_assert_int_eq(l.err[0], 'X');
}
END_TEST

/* A symbol the library lacks: false, and the symbol named. */
START_TEST(missing_symbol)
{
	const struct dynlib_sym syms[] = { { "SHA256", &fn_a }, { "fscp_no_such_symbol", &fn_b } };
	struct dynlib l = { .soname = FSCP_LIBCRYPTO_SONAME, .syms = syms, .nsyms = 2 };

	ck_assert(!dynlib_load(&l));
	ck_assert_ptr_nonnull(strstr(l.err, "no fscp_no_such_symbol"));
}
END_TEST

/* Loaded: every pointer is the library's own function (whether fscp's
 * process loads it only when asked, route-fallback.sh shows). */
START_TEST(loads_when_asked)
{
	const struct dynlib_sym syms[] = { { "SHA256", &fn_a }, { "SHA1", &fn_b } };
	struct dynlib l = { .soname = FSCP_LIBCRYPTO_SONAME, .syms = syms, .nsyms = 2 };
	void *h;

	ck_assert(dynlib_load(&l));
	ck_assert(dynlib_load(&l));
	h = dlopen(FSCP_LIBCRYPTO_SONAME, RTLD_NOW | RTLD_NOLOAD);
	ck_assert_ptr_nonnull(h);
	ck_assert(memcmp(&fn_a, &(void *){ dlsym(h, "SHA256") }, sizeof(void *)) == 0);
	ck_assert(memcmp(&fn_b, &(void *){ dlsym(h, "SHA1") }, sizeof(void *)) == 0);
}
END_TEST

static void
hex(const unsigned char *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

/* FIPS 180's "abc" (SHA-1), RFC 2202's first HMAC-SHA1 case, RFC 4648's
 * base64. */
START_TEST(cryptolib_vectors)
{
	unsigned char md[32], key[20], back[16];
	char h[65], b64[16];

	ck_assert(cryptolib_sha1("abc", 3, md));
	hex(md, 20, h);
	ck_assert_str_eq(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
	memset(key, 0x0b, sizeof(key));
	ck_assert(cryptolib_hmac_sha1(key, sizeof(key), "Hi There", 8, md));
	hex(md, 20, h);
	ck_assert_str_eq(h, "b617318655057264e28bc0b6fb378c8ef146be00");
	ck_assert_int_eq(cryptolib_b64_encode(b64, (const unsigned char *)"foobar", 6), 8);
	ck_assert_str_eq(b64, "Zm9vYmFy");
	ck_assert_int_eq(cryptolib_b64_decode(back, "Zm9vYmFy", 8), 6);
	ck_assert(memcmp(back, "foobar", 6) == 0);
	ck_assert(cryptolib_random(key, sizeof(key)));
	ck_assert_ptr_nonnull(cryptolib_version(&(const char *){ NULL }));
}
END_TEST

static Suite *
dynlib_suite(void)
{
	Suite *s = suite_create("dynlib");
	TCase *tc = tcase_create("dynlib");

	tcase_add_test(tc, missing_library);
	tcase_add_test(tc, missing_symbol);
	tcase_add_test(tc, loads_when_asked);
	tcase_add_test(tc, cryptolib_vectors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(dynlib_suite());
}

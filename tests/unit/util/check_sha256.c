/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for sha256: FIPS 180's examples, and OpenSSL's answer for
 * every length around the block and padding boundaries. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "../check_main.h"
#include "util/sha256.h"

static void
hex(const unsigned char *p, char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

START_TEST(known_answers)
{
	static const struct {
		const char *in, *md;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	unsigned char md[32];
	char h[65];
	char *million = malloc(1000000);

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sha256(v[i].in, strlen(v[i].in), md);
		hex(md, h);
		ck_assert_str_eq(h, v[i].md);
	}
	ck_assert_ptr_nonnull(million);
	memset(million, 'a', 1000000);
	sha256(million, 1000000, md);
	hex(md, h);
	ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
}
END_TEST

/* Every length from 0 to 300 bytes: one block, two, the padding that
 * spills into a block of its own (56-63 bytes past a block). */
START_TEST(as_openssl)
{
	unsigned char data[300], a[32], b[32];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 131 + 7);
	for (size_t n = 0; n <= sizeof(data); n++) {
		sha256(data, n, a);
		SHA256(data, n, b);
		ck_assert_msg(memcmp(a, b, 32) == 0, "length %zu", n);
	}
}
END_TEST

static Suite *
sha256_suite(void)
{
	Suite *s = suite_create("sha256");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, known_answers);
	tcase_add_test(tc, as_openssl);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(sha256_suite());
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests of util/number: OpenSSH's number and port readers. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>

#include "../check_main.h"
#include "util/number.h"

START_TEST(test_strtonum)
{
	const char *err;

	ck_assert(number_strtonum("5", 1, 10, &err) == 5 && err == NULL);
	ck_assert(number_strtonum("0", 1, 10, &err) == 0);
	ck_assert_str_eq(err, "too small");
	ck_assert(number_strtonum("11", 1, 10, &err) == 0);
	ck_assert_str_eq(err, "too large");
	number_strtonum("", 1, 10, &err);
	ck_assert_str_eq(err, "invalid");
	number_strtonum("1e3", 1, 10000, &err);
	ck_assert_str_eq(err, "invalid");
	number_strtonum("5", 10, 1, &err);
	ck_assert_str_eq(err, "invalid");
	number_strtonum("99999999999999999999", 0, 10, &err);
	ck_assert_str_eq(err, "too large");
	number_strtonum("-99999999999999999999", 0, 10, &err);
	ck_assert_str_eq(err, "too small");
}
END_TEST

START_TEST(test_a2port)
{
	ck_assert_int_eq(number_a2port("0"), 0);
	ck_assert_int_eq(number_a2port("22"), 22);
	ck_assert_int_eq(number_a2port("65535"), 65535);
	ck_assert_int_eq(number_a2port("65536"), -1);
	ck_assert_int_eq(number_a2port("ssh"), 22);
	ck_assert_int_eq(number_a2port("no-such-service-xyz"), -1);
	ck_assert_int_eq(number_a2port(""), -1);
}
END_TEST

START_TEST(test_scan_scaled)
{
	long long v;
	int e;

	ck_assert(number_scan_scaled("1G", &v, &e) == 0 && v == 1LL << 30);
	ck_assert(number_scan_scaled("2E", &v, &e) == 0 && v == 2LL << 60);
	ck_assert(number_scan_scaled("8E", &v, &e) == -1 && e == ERANGE);
	/* Found by tests/fuzz/fuzz_operand (crashes/operand/minus-8.5E): the
	 * fraction took LLONG_MIN past its end (signed overflow). */
	ck_assert(number_scan_scaled("-8.5151E", &v, &e) == -1 && e == ERANGE);
	ck_assert(number_scan_scaled("-8E", &v, &e) == 0 && v == LLONG_MIN);
	ck_assert(number_scan_scaled("7.99E", &v, &e) == 0 && v >= 7LL << 60);
	ck_assert(number_scan_scaled("-1.5K", &v, &e) == 0 && v == -1536);
	ck_assert(number_scan_scaled("1.25", &v, &e) == 0 && v == 1);
	ck_assert(number_scan_scaled("", &v, &e) == 0 && v == 0);
	ck_assert(number_scan_scaled("1X", &v, &e) == -1 && e == EINVAL);
	ck_assert(number_scan_scaled("1K1", &v, &e) == -1 && e == EINVAL);
	ck_assert(number_scan_scaled("1..2", &v, &e) == -1 && e == EINVAL);
	ck_assert(number_scan_scaled("+-1", &v, &e) == -1 && e == EINVAL);
	ck_assert(number_scan_scaled("123456789012345678901", &v, &e) == -1 && e == ERANGE);
}
END_TEST

static Suite *
number_suite(void)
{
	Suite *s = suite_create("number");
	TCase *tc = tcase_create("number");

	tcase_add_test(tc, test_strtonum);
	tcase_add_test(tc, test_a2port);
	tcase_add_test(tc, test_scan_scaled);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(number_suite());
}

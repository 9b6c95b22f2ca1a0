/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for sshmux's request: the environment and TERM it carries, as
 * OpenSSH 9.2's mux client (mux_client_request_session) sends them.  The
 * session itself is opened on a real master in tests/integration/mux.sh. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "../check_main.h"
#include "transport/sshmux.h"

static void
push_all(struct strv *sv, const char *const *s)
{
	for (; *s != NULL; s++)
		strv_push(sv, *s);
}

START_TEST(env_sendenv_then_setenv)
{
	char *env[] = { "LANG=C.UTF-8", "LC_ALL=C", "HOME=/root", "LC_=x", "FSCP_TA=1",
		"FSCP_TAB=2", "=odd", "NOEQUALS", "lc_all=lower", NULL };
	static const char *const send[] = { "LANG", "LC_*", "FSCP_T?", NULL };
	static const char *const set[] = { "A=1", "B=2 3", NULL };
	struct strv sendenv = { 0 }, setenv = { 0 }, out = { 0 };

	push_all(&sendenv, send);
	push_all(&setenv, set);
	sshmux_env(env, &sendenv, &setenv, &out);
	/* env's order, matched by name (case counts, '?' one character),
	 * then SetEnv's entries as they are. */
	ck_assert_int_eq((int)out.n, 6);
	ck_assert_str_eq(out.v[0], "LANG=C.UTF-8");
	ck_assert_str_eq(out.v[1], "LC_ALL=C");
	ck_assert_str_eq(out.v[2], "LC_=x");
	ck_assert_str_eq(out.v[3], "FSCP_TA=1");
	ck_assert_str_eq(out.v[4], "A=1");
	ck_assert_str_eq(out.v[5], "B=2 3");
	strv_free(&out);
	/* No SendEnv: the environment stays home; SetEnv still goes. */
	strv_free(&sendenv);
	sshmux_env(env, &sendenv, &setenv, &out);
	ck_assert_int_eq((int)out.n, 2);
	ck_assert_str_eq(out.v[0], "A=1");
	strv_free(&out);
	strv_free(&setenv);
}
END_TEST

START_TEST(env_long_name)
{
	char name[1100 + 3], *env[] = { name, NULL };
	struct strv sendenv = { 0 }, setenv = { 0 }, out = { 0 };

	/* ssh's env_permitted() refuses a name of 1024 characters or more. */
	memset(name, 'A', 1100);
	memcpy(name + 1100, "=1", 3);
	strv_push(&sendenv, "*");
	sshmux_env(env, &sendenv, &setenv, &out);
	ck_assert_int_eq((int)out.n, 0);
	strv_free(&sendenv);
}
END_TEST

START_TEST(term_choice)
{
	char *env[] = { "HOME=/", "TERM=xterm", NULL }, *none[] = { "HOME=/", NULL };
	struct strv setenv = { 0 };

	ck_assert_str_eq(sshmux_term(env, &setenv), "xterm");
	ck_assert_str_eq(sshmux_term(none, &setenv), "");
	ck_assert_str_eq(sshmux_term(NULL, &setenv), "");
	strv_push(&setenv, "TERM=vt100");
	ck_assert_str_eq(sshmux_term(env, &setenv), "vt100");
	strv_free(&setenv);
	/* An empty SetEnv TERM counts as none. */
	strv_push(&setenv, "TERM=");
	ck_assert_str_eq(sshmux_term(env, &setenv), "xterm");
	strv_free(&setenv);
}
END_TEST

static Suite *
sshmux_suite(void)
{
	Suite *s = suite_create("sshmux");
	TCase *tc = tcase_create("request");

	tcase_add_test(tc, env_sendenv_then_setenv);
	tcase_add_test(tc, env_long_name);
	tcase_add_test(tc, term_choice);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(sshmux_suite());
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for hostkey: OpenSSH's pattern lists, hashed names, the lookup
 * name, known_hosts line splitting and the verdict table.  The whole check
 * against real ssh is tests/integration/hostkey-diff.sh. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../check_main.h"
#include "transport/hostkey.h"

START_TEST(match_lists)
{
	ck_assert_int_eq(hostkey_match_list("web1", "web1"), 1);
	ck_assert_int_eq(hostkey_match_list("web1", "web2"), 0);
	ck_assert_int_eq(hostkey_match_list("web1", "a,web1,b"), 1);
	ck_assert_int_eq(hostkey_match_list("web1", "web*"), 1);
	ck_assert_int_eq(hostkey_match_list("web1", "we?1"), 1);
	ck_assert_int_eq(hostkey_match_list("web1", "we?"), 0);
	ck_assert_int_eq(hostkey_match_list("web1", "*,!web1"), -1);
	ck_assert_int_eq(hostkey_match_list("web1", "!web1,*"), -1);
	ck_assert_int_eq(hostkey_match_list("web2", "*,!web1"), 1);
	ck_assert_int_eq(hostkey_match_list("WEB1", "web1"), 1);
	ck_assert_int_eq(hostkey_match_list("web1", "WEB*"), 1);
	ck_assert_int_eq(hostkey_match_list("[h]:2222", "[h]:2222"), 1);
	ck_assert_int_eq(hostkey_match_list("[h]:2222", "h"), 0);
	ck_assert_int_eq(hostkey_match_list("[h]:2222", "[h]:*"), 1);
	ck_assert_int_eq(hostkey_match_list("a", ""), 0);
	ck_assert_int_eq(hostkey_match_list("a", ",,a,"), 1);
}
END_TEST

START_TEST(hashed_names)
{
	/* From `ssh-keygen -H` of "localhost" (salt and HMAC-SHA1, base64). */
	const char *field = "|1|BDyJqGlk84sf1PQCsqqIUsKr5eo=|Ot56VIJtWfiN4hnbXV8MXvFvn7Y=";

	ck_assert(hostkey_match_hashed("localhost", field));
	ck_assert(!hostkey_match_hashed("web1", field));
	ck_assert(!hostkey_match_hashed("localhost", "|1|short|Ot56VIJtWfiN4hnbXV8MXvFvn7Y="));
	ck_assert(!hostkey_match_hashed("localhost", "|2|BDyJqGlk84sf1PQCsqqIUsKr5eo=|x"));
	ck_assert(!hostkey_match_hashed("localhost", "localhost"));
}
END_TEST

START_TEST(lookup_names)
{
	char *n;

	n = hostkey_lookup_name("h", 22, NULL);
	ck_assert_str_eq(n, "h");
	free(n);
	n = hostkey_lookup_name("h", 2222, NULL);
	ck_assert_str_eq(n, "[h]:2222");
	free(n);
	n = hostkey_lookup_name("h", 2222, "alias");
	ck_assert_str_eq(n, "alias");
	free(n);
}
END_TEST

START_TEST(lines)
{
	struct hostkey_line l;
	char a[] = "  h1,h2 ssh-ed25519 AAAA comment here\n";
	char b[] = "@revoked * ssh-rsa BBBB";
	char c[] = "@cert-authority\t*.example.org ssh-ed25519 CCCC";
	char d[] = "# comment";
	char e[] = "@bogus h ssh-ed25519 AAAA";
	char f[] = "h ssh-ed25519";
	char g[] = "@revoked @revoked h ssh-ed25519 AAAA";
	char h[] = "";

	ck_assert(hostkey_line_split(a, &l));
	ck_assert_int_eq(l.marker, HOSTKEY_MARK_NONE);
	ck_assert_str_eq(l.hosts, "h1,h2");
	ck_assert_str_eq(l.keytype, "ssh-ed25519");
	ck_assert_str_eq(l.base64, "AAAA");
	ck_assert(hostkey_line_split(b, &l));
	ck_assert_int_eq(l.marker, HOSTKEY_MARK_REVOKED);
	ck_assert_str_eq(l.hosts, "*");
	ck_assert(hostkey_line_split(c, &l));
	ck_assert_int_eq(l.marker, HOSTKEY_MARK_CA);
	ck_assert_str_eq(l.hosts, "*.example.org");
	ck_assert(!hostkey_line_split(d, &l));
	ck_assert(!hostkey_line_split(e, &l));
	ck_assert(!hostkey_line_split(f, &l));
	ck_assert(!hostkey_line_split(g, &l));
	ck_assert(!hostkey_line_split(h, &l));
}
END_TEST

/* ssh's check_host_key() outcomes, row by row. */
START_TEST(decisions)
{
	static const struct {
		enum hostkey_status st;
		bool retry;
		enum hostkey_status bare;
		bool ro;
		enum sshcfg_strict strict;
		bool batch;
		enum hostkey_verdict want;
	} t[] = {
		{ HOSTKEY_OK, false, HOSTKEY_NEW, false, SHK_YES, false, HOSTKEY_ACCEPT },
		{ HOSTKEY_OK, false, HOSTKEY_NEW, true, SHK_NO, false, HOSTKEY_ACCEPT },
		{ HOSTKEY_CHANGED, false, HOSTKEY_NEW, false, SHK_YES, false, HOSTKEY_REFUSE },
		{ HOSTKEY_CHANGED, false, HOSTKEY_NEW, false, SHK_ACCEPT_NEW, false, HOSTKEY_REFUSE },
		{ HOSTKEY_CHANGED, false, HOSTKEY_NEW, false, SHK_ASK, false, HOSTKEY_REFUSE },
		{ HOSTKEY_CHANGED, false, HOSTKEY_NEW, false, SHK_NO, false, HOSTKEY_DEFER },
		{ HOSTKEY_REVOKED, false, HOSTKEY_NEW, false, SHK_ACCEPT_NEW, false, HOSTKEY_REFUSE },
		{ HOSTKEY_REVOKED, false, HOSTKEY_NEW, false, SHK_NO, false, HOSTKEY_DEFER },
		{ HOSTKEY_NEW, false, HOSTKEY_NEW, false, SHK_YES, false, HOSTKEY_REFUSE },
		{ HOSTKEY_NEW, false, HOSTKEY_NEW, false, SHK_ASK, true, HOSTKEY_REFUSE },
		{ HOSTKEY_NEW, false, HOSTKEY_NEW, false, SHK_ASK, false, HOSTKEY_DEFER },
		{ HOSTKEY_NEW, false, HOSTKEY_NEW, false, SHK_ACCEPT_NEW, false, HOSTKEY_ADD },
		{ HOSTKEY_NEW, false, HOSTKEY_NEW, false, SHK_NO, true, HOSTKEY_ADD },
		{ HOSTKEY_NEW, false, HOSTKEY_NEW, true, SHK_NO, false, HOSTKEY_REFUSE },
		{ HOSTKEY_NEW, true, HOSTKEY_OK, false, SHK_YES, false, HOSTKEY_ACCEPT },
		{ HOSTKEY_NEW, true, HOSTKEY_OK, true, SHK_YES, false, HOSTKEY_ACCEPT },
		{ HOSTKEY_NEW, true, HOSTKEY_CHANGED, false, SHK_YES, false, HOSTKEY_REFUSE },
		{ HOSTKEY_NEW, true, HOSTKEY_CHANGED, false, SHK_ACCEPT_NEW, false, HOSTKEY_ADD },
		{ HOSTKEY_NEW, true, HOSTKEY_REVOKED, false, SHK_ACCEPT_NEW, false, HOSTKEY_ADD },
		{ HOSTKEY_NEW, true, HOSTKEY_REVOKED, false, SHK_NO, false, HOSTKEY_DEFER },
		{ HOSTKEY_NEW, false, HOSTKEY_OK, false, SHK_YES, false, HOSTKEY_REFUSE },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct hostkey_facts f = {
			.status = t[i].st, .retry_bare = t[i].retry, .bare_status = t[i].bare,
			.readonly = t[i].ro, .strict = t[i].strict, .batchmode = t[i].batch,
		};

		ck_assert_msg(hostkey_decide(&f) == t[i].want, "row %zu", i);
	}
}
END_TEST

static Suite *
hostkey_suite(void)
{
	Suite *s = suite_create("hostkey");
	TCase *tc = tcase_create("pure");

	tcase_add_test(tc, match_lists);
	tcase_add_test(tc, hashed_names);
	tcase_add_test(tc, lookup_names);
	tcase_add_test(tc, lines);
	tcase_add_test(tc, decisions);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(hostkey_suite());
}

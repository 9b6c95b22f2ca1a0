/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for scp_proto.c: legacy SCP records, names, brace patterns.
 *
 * The expected values are scp 9.2's (scp.c sink(), brace_expand(),
 * source()); the brace cases were checked against scp.c's own
 * brace_expand() compiled on its own. */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check_main.h"
#include "scp/scp_proto.h"

/* ---- scpp_parse() ---- */

struct parse_case {
	const char *line;
	enum scpp_kind kind;
	const char *why;	/* for SCPP_BAD */
	unsigned mode;
	long long size;
	const char *name;
};

static const struct parse_case parses[] = {
	{ "C0644 123 file", SCPP_FILE, "", 0644, 123, "file" },
	{ "C7777 0 x y", SCPP_FILE, "", 07777, 0, "x y" },
	{ "D0755 0 dir", SCPP_DIR, "", 0755, 0, "dir" },
	{ "C0644 9223372036854775807 big", SCPP_FILE, "", 0644, INT64_MAX, "big" },
	/* names are not checked by the parser */
	{ "C0644 1 ", SCPP_FILE, "", 0644, 1, "" },
	{ "C0644 1 ../x", SCPP_FILE, "", 0644, 1, "../x" },
	{ "E", SCPP_END, "", 0, 0, NULL },
	{ "Ejunk", SCPP_END, "", 0, 0, NULL },
	{ "C755 2 rootpathfile", SCPP_BAD, "bad mode", 0, 0, NULL },
	{ "C0844 1 x", SCPP_BAD, "bad mode", 0, 0, NULL },
	{ "C07", SCPP_BAD, "bad mode", 0, 0, NULL },
	{ "C", SCPP_BAD, "bad mode", 0, 0, NULL },
	{ "C-644 1 x", SCPP_BAD, "bad mode", 0, 0, NULL },
	{ "C06440 1 x", SCPP_BAD, "mode not delimited", 0, 0, NULL },
	{ "C0644  1 x", SCPP_BAD, "size not present", 0, 0, NULL },
	{ "C0644 -1 x", SCPP_BAD, "size not present", 0, 0, NULL },
	{ "C0644 1x x", SCPP_BAD, "size not delimited", 0, 0, NULL },
	{ "C0644 12", SCPP_BAD, "size not delimited", 0, 0, NULL },
	{ "C0644 9223372036854775808 x", SCPP_BAD, "size out of range", 0, 0, NULL },
	{ "C0644 99999999999999999999999 x", SCPP_BAD, "size out of range", 0, 0, NULL },
	{ "T", SCPP_BAD, "mtime.sec not present", 0, 0, NULL },
	{ "T1", SCPP_BAD, "mtime.sec not delimited", 0, 0, NULL },
	{ "T1 0", SCPP_BAD, "mtime.usec not delimited", 0, 0, NULL },
	{ "T1 1000000 2 0", SCPP_BAD, "mtime.usec not delimited", 0, 0, NULL },
	{ "T1 -1 2 0", SCPP_BAD, "mtime.usec not delimited", 0, 0, NULL },
	{ "T1 0 x 0", SCPP_BAD, "atime.sec not present", 0, 0, NULL },
	{ "T1 0 2", SCPP_BAD, "atime.sec not delimited", 0, 0, NULL },
	{ "T1 0 2 0 ", SCPP_BAD, "atime.usec not delimited", 0, 0, NULL },
	{ "T1 0 2 1000000", SCPP_BAD, "atime.usec not delimited", 0, 0, NULL },
	{ "No match.", SCPP_OTHER, "", 0, 0, NULL },
	{ "", SCPP_OTHER, "", 0, 0, NULL },
};

START_TEST(test_parse)
{
	const struct parse_case *c = &parses[_i];
	struct scpp_record r;
	const char *why;
	enum scpp_kind k = scpp_parse(c->line, &r, &why);

	ck_assert_msg(k == c->kind, "\"%s\": kind %d, want %d", c->line, k, c->kind);
	ck_assert_int_eq(r.kind, k);
	if (k == SCPP_BAD)
		ck_assert_str_eq(why, c->why);
	if (k == SCPP_FILE || k == SCPP_DIR) {
		ck_assert_uint_eq(r.mode, c->mode);
		ck_assert_int_eq(r.size, c->size);
		ck_assert_str_eq(r.name, c->name);
	}
}
END_TEST

START_TEST(test_parse_time)
{
	struct scpp_record r;
	const char *why;

	ck_assert_int_eq(scpp_parse("T1500000000 0 1500086400 999999", &r, &why), SCPP_TIME);
	ck_assert_int_eq(r.mtime, 1500000000LL);
	ck_assert_int_eq(r.atime, 1500086400LL);
	ck_assert_int_eq(r.mtime_usec, 0);
	ck_assert_int_eq(r.atime_usec, 999999);
	ck_assert(r.times_fit);
	/* out of time_t's range: parsed, but scp then skips utimes() */
	ck_assert_int_eq(scpp_parse("T18446744073709551615 0 1 0", &r, &why), SCPP_TIME);
	ck_assert(!r.times_fit);
}
END_TEST

START_TEST(test_parse_replies)
{
	struct scpp_record r;
	const char *why;

	ck_assert_int_eq(scpp_parse("\1scp: x: No such file or directory", &r, &why), SCPP_WARN);
	ck_assert_str_eq(r.text, "scp: x: No such file or directory");
	ck_assert_int_eq(scpp_parse("\2fatal", &r, &why), SCPP_FATAL);
	ck_assert_str_eq(r.text, "fatal");
}
END_TEST

/* Arbitrary bytes must never crash the parser (what a fuzzer does). */
START_TEST(test_parse_noise)
{
	char line[64];
	struct scpp_record r;
	const char *why;
	unsigned seed = 12345;

	for (int n = 0; n < 20000; n++) {
		size_t len = (size_t)(n % 63);
		static const char alpha[] = "CDTE\1\2 0123456789-/.x";

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			line[i] = alpha[(seed >> 16) % (sizeof(alpha) - 1)];
		}
		line[len] = '\0';
		enum scpp_kind k = scpp_parse(line, &r, &why);

		ck_assert(why != NULL);
		if (k == SCPP_FILE || k == SCPP_DIR) {
			ck_assert(r.name >= line && r.name <= line + len);
			ck_assert(r.mode <= 07777 && r.size >= 0);
		}
	}
}
END_TEST

/* ---- scpp_name_ok() ---- */

START_TEST(test_names)
{
	ck_assert(scpp_name_ok("file"));
	ck_assert(scpp_name_ok("..."));
	ck_assert(scpp_name_ok(".hidden"));
	ck_assert(scpp_name_ok("a b"));
	ck_assert(!scpp_name_ok(""));
	ck_assert(!scpp_name_ok("."));
	ck_assert(!scpp_name_ok(".."));
	ck_assert(!scpp_name_ok("/"));
	ck_assert(!scpp_name_ok("a/b"));
	ck_assert(!scpp_name_ok("../../etc/passwd"));
	ck_assert(!scpp_name_ok("/etc/passwd"));
}
END_TEST

/* ---- scpp_patterns_new() ---- */

struct brace_case {
	const char *src;
	const char *want;	/* patterns, '|'-separated, sorted; NULL: invalid */
};

static const struct brace_case braces[] = {
	{ "a{b,c}d", "abd|acd" },
	{ "{a,}", "a," },
	{ "{,}", "," },
	{ "x/{a,b/c}", "a|c" },
	{ "a[b", NULL },
	{ "}", NULL },
	{ "{a", NULL },
	{ "a\\,b", "a\\,b" },
	{ "{a\\,b}", "a\\|b" },
	{ "{a{b,c},d}", "ab|ac|d" },
	{ "{}x", "{}x" },
	{ "dir/", "" },
	{ "{[a,b],c}", "[a,b]|c" },
	{ "p/q{1,2}{x,y}", "q1x|q1y|q2x|q2y" },
	{ "/abs/path/*.txt", "*.txt" },
	{ "plain", "plain" },
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_braces)
{
	const struct brace_case *c = &braces[_i];
	struct scpp_patterns p;
	char *bad;
	int r = scpp_patterns_new(c->src, &p, &bad);

	if (c->want == NULL) {
		ck_assert_msg(r == -1, "\"%s\" should be invalid", c->src);
		ck_assert(bad != NULL);
		free(bad);
		return;
	}
	ck_assert_int_eq(r, 0);
	qsort(p.v, p.n, sizeof(*p.v), cmp_str);
	char got[256] = "";

	for (size_t i = 0; i < p.n; i++) {
		if (i > 0)
			strcat(got, "|");
		strcat(got, p.v[i]);
	}
	ck_assert_str_eq(got, c->want);
	scpp_patterns_free(&p);
}
END_TEST

START_TEST(test_match)
{
	struct scpp_patterns p;
	char *bad;

	ck_assert_int_eq(scpp_patterns_new("/h/src/{a,b*}.txt", &p, &bad), 0);
	ck_assert(scpp_match(&p, "a.txt"));
	ck_assert(scpp_match(&p, "bee.txt"));
	ck_assert(!scpp_match(&p, "c.txt"));
	ck_assert(!scpp_match(&p, "extrafile"));
	scpp_patterns_free(&p);
	/* literal equality counts even where fnmatch would not match */
	ck_assert_int_eq(scpp_patterns_new("x[", &p, &bad), -1);
	free(bad);
	ck_assert_int_eq(scpp_patterns_new("we\\ird", &p, &bad), 0);
	ck_assert(scpp_match(&p, "we\\ird"));
	ck_assert(scpp_match(&p, "weird"));
	scpp_patterns_free(&p);
}
END_TEST

/* ---- writers ---- */

START_TEST(test_format)
{
	char buf[64];

	ck_assert_uint_eq(scpp_format_file(buf, sizeof(buf), 0100644, 5, "f"), 10);
	ck_assert_str_eq(buf, "C0644 5 f\n");
	scpp_format_file(buf, sizeof(buf), 04755, 0, "with space");
	ck_assert_str_eq(buf, "C4755 0 with space\n");
	scpp_format_dir(buf, sizeof(buf), 040700, "d");
	ck_assert_str_eq(buf, "D0700 0 d\n");
	scpp_format_time(buf, sizeof(buf), 1500000000, -5);
	ck_assert_str_eq(buf, "T1500000000 0 0 0\n");
	ck_assert_uint_eq(scpp_format_file(buf, 8, 0644, 5, "long-name"), 7);
	ck_assert_str_eq(buf, "C0644 5");
}
END_TEST

START_TEST(test_command)
{
	struct scpp_cmd c = { 0 };
	char *s;

	s = scpp_command(&c, 't', "dst/");
	ck_assert_str_eq(s, "scp -t dst/");
	free(s);
	c.verbose = c.recursive = c.preserve = c.target_dir = true;
	s = scpp_command(&c, 'f', "-x");
	ck_assert_str_eq(s, "scp -v -r -p -d -f -- -x");
	free(s);
	c.verbose = c.target_dir = false;
	s = scpp_command(&c, 'f', "p q");
	ck_assert_str_eq(s, "scp -r -p -f p q");
	free(s);
	s = scpp_command_prefix(&c);
	ck_assert_str_eq(s, "scp -r -p");
	free(s);
}
END_TEST

START_TEST(test_vis)
{
	static const struct { const char *in, *out; } v[] = {
		{ "a\nb", "a\\^Jb" },
		{ "x y\tz", "x y\tz" },
		{ "back\\slash\n", "back\\\\slash\\^J" },
		{ "\xe9\n", "\\M-i\\^J" },
		{ "\x80\x7f\xa0\n", "\\M^@\\^?\\240\\^J" },
		{ "*?[#\n", "*?[#\\^J" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *s = scpp_vis_nl(v[i].in);

		ck_assert_str_eq(s, v[i].out);
		free(s);
	}
}
END_TEST

static Suite *
scp_proto_suite(void)
{
	Suite *s = suite_create("scp_proto");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_parse, 0, (int)(sizeof(parses) / sizeof(parses[0])));
	tcase_add_test(tc, test_parse_time);
	tcase_add_test(tc, test_parse_replies);
	tcase_add_test(tc, test_parse_noise);
	tcase_add_test(tc, test_names);
	tcase_add_loop_test(tc, test_braces, 0, (int)(sizeof(braces) / sizeof(braces[0])));
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_vis);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(scp_proto_suite());
}

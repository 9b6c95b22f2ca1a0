/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for operand.c: which operands are remote and what they name.
 *
 * The expected values were checked against /usr/bin/scp (OpenSSH 9.2p1) by
 * running it with -O -S <script printing its argv>, which shows the host,
 * -l user, -p port and the remote path scp derives from each operand. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../check_main.h"
#include "policy/operand.h"

/* ---- colon() ---- */

struct colon_case {
	const char *s;
	int at;		/* offset of the colon returned, -1 for NULL */
};

static const struct colon_case colons[] = {
	{ "a:b", 1 }, { "host:", 4 }, { "u@h:p", 3 }, { "a:b:c", 1 },
	{ "a", -1 }, { "", -1 }, { ":x", -1 }, { "::", -1 },
	{ "./a:b", -1 }, { "/x/p:q", -1 }, { "a/b:c", -1 },
	{ "[::1]", -1 }, { "[::1]:p", 5 }, { "u@[::1]:p", 7 },
	{ "[a/b]:c", -1 }, { "x@[a:b", -1 }, { "a:b@[c]:d", 1 },
	{ "scp://h/p", 3 }, { "SCP://h/p", 3 },
};

START_TEST(test_colon)
{
	const struct colon_case *c = &colons[_i];
	const char *p = operand_colon(c->s);

	if (c->at < 0)
		ck_assert_msg(p == NULL, "\"%s\": want NULL", c->s);
	else
		ck_assert_msg(p == c->s + c->at, "\"%s\": want offset %d, got %ld",
		    c->s, c->at, p ? (long)(p - c->s) : -1L);
}
END_TEST

/* ---- operand_parse() ---- */

struct parse_case {
	const char *arg;
	enum operand_status st;
	bool remote, is_uri;
	const char *user, *host;
	int port;
	const char *path;
};

#define LOCAL(a) { a, OPERAND_OK, false, false, NULL, NULL, -1, a }
#define REMOTE(a, u, h, p) { a, OPERAND_OK, true, false, u, h, -1, p }
#define URI(a, u, h, port, p) { a, OPERAND_OK, true, true, u, h, port, p }
#define BADURI(a) { a, OPERAND_INVALID_URI, false, false, NULL, NULL, 0, NULL }

static const struct parse_case parses[] = {
	/* local */
	LOCAL("a"), LOCAL(""), LOCAL("./a:b"), LOCAL("/x/p:q"), LOCAL(":x"),
	LOCAL("[::1]"), LOCAL("user@host"), LOCAL("[a/b]:c"), LOCAL("-r"),
	LOCAL("dir/"),
	/* [user@]host:[path] */
	REMOTE("a:b", NULL, "a", "b"),
	REMOTE("h:", NULL, "h", "."),
	REMOTE("h:/abs", NULL, "h", "/abs"),
	REMOTE("h:a:b", NULL, "h", "a:b"),
	REMOTE("h:~/x", NULL, "h", "~/x"),
	REMOTE("u@h:p", "u", "h", "p"),
	REMOTE("a@b@h:p", "a@b", "h", "p"),	/* the last '@' splits */
	REMOTE("@h:p", NULL, "h", "p"),		/* empty user: none */
	REMOTE("u@h:p@q", "u", "h", "p@q"),
	REMOTE("[::1]:p", NULL, "::1", "p"),
	REMOTE("u@[::1]:p", "u", "::1", "p"),
	REMOTE("u@[::1]:", "u", "::1", "."),
	REMOTE("[fe80::1%eth0]:p", NULL, "fe80::1%eth0", "p"),
	REMOTE("[h]:p", NULL, "h", "p"),
	REMOTE("[]:p", NULL, "", "p"),
	REMOTE("SCP://h/p", NULL, "SCP", "//h/p"),	/* scheme is case-sensitive */
	REMOTE("scp:/h/p", NULL, "scp", "/h/p"),
	REMOTE("u%41@h:p+q", "u%41", "h", "p+q"),	/* no decoding outside URIs */
	/* scp:// URIs */
	URI("scp://h/p", NULL, "h", -1, "p"),
	URI("scp://h//abs", NULL, "h", -1, "/abs"),
	URI("scp://h", NULL, "h", -1, "."),
	URI("scp://h/", NULL, "h", -1, "."),
	URI("scp://h:", NULL, "h", -1, "."),
	URI("scp://h:22/", NULL, "h", 22, "."),
	URI("scp://h:2200", NULL, "h", 2200, "."),
	URI("scp://u@h:2200/p%20q+r", "u", "h", 2200, "p q r"),
	URI("scp://u;x=y@h/p", "u", "h", -1, "p"),
	URI("scp://u%40v@h/p", "u@v", "h", -1, "p"),
	URI("scp://u+v@h/p", "u v", "h", -1, "p"),
	URI("scp://[hh]/p", NULL, "hh", -1, "p"),
	URI("scp://h./p", NULL, "h", -1, "p"),
	URI("scp://h.-x/p", NULL, "h.-x", -1, "p"),
	URI("scp://h_x/p", NULL, "h_x", -1, "p"),
	URI("scp://9h/p", NULL, "9h", -1, "p"),
	URI("scp://H.Example.COM/p", NULL, "H.Example.COM", -1, "p"),
	URI("scp://h/p@q/r", "h/p", "q", -1, "r"),	/* first '@' anywhere */
	URI("scp://h:ssh/p", NULL, "h", 22, "p"),
	URI("scp://h:+22/p", NULL, "h", 22, "p"),
	URI("scp://h:65535/p", NULL, "h", 65535, "p"),
	URI("scp://h/%41", NULL, "h", -1, "A"),
	URI("scp://h/%2F", NULL, "h", -1, "/"),
	URI("scp://h/a%2fb", NULL, "h", -1, "a/b"),
	URI("scp://h/a%01b", NULL, "h", -1, "a\001b"),
	URI("scp://h/a:b", NULL, "h", -1, "a:b"),
	URI("scp://h/~/x", NULL, "h", -1, "~/x"),
	/* invalid URIs */
	BADURI("scp://"), BADURI("scp://@h/p"), BADURI("scp://;x@h/p"),
	BADURI("scp://u@/p"), BADURI("scp:///p"), BADURI("scp://:22/p"),
	BADURI("scp://[::1]/p"), BADURI("scp://u@[::1]:22/p"),
	BADURI("scp://[h]x/p"), BADURI("scp://[h/p"), BADURI("scp://[]/p"),
	BADURI("scp://h../p"), BADURI("scp://.h/p"), BADURI("scp://_h/p"),
	BADURI("scp://-h/p"), BADURI("scp://h%41/p"), BADURI("scp://h!/p"),
	BADURI("scp://h:/p"), BADURI("scp://h:0/p"), BADURI("scp://h:65536/p"),
	BADURI("scp://h:22x/p"), BADURI("scp://h:22:33/p"),
	BADURI("scp://h:-1/p"), BADURI("scp://h:nosuchservice/p"),
	BADURI("scp://h/%zz"), BADURI("scp://h/a%4"), BADURI("scp://h/a%"),
	BADURI("scp://h/a%00"), BADURI("scp://u%00@h/p"), BADURI("scp://u%g1@h/p"),
	BADURI("scp://u@h@g/p"),
};
#define NPARSES ((int)(sizeof(parses) / sizeof(parses[0])))

#define ck_assert_opt_str_eq(got, want) do { \
	if ((want) == NULL) \
		ck_assert_msg((got) == NULL, "%s: %s = \"%s\", want NULL", \
		    c->arg, #got, (got)); \
	else { \
		ck_assert_msg((got) != NULL, "%s: %s = NULL, want \"%s\"", \
		    c->arg, #got, (want)); \
		ck_assert_msg(strcmp((got), (want)) == 0, "%s: %s = \"%s\", want \"%s\"", \
		    c->arg, #got, (got), (want)); \
	} \
} while (0)

START_TEST(test_parse)
{
	const struct parse_case *c = &parses[_i];
	struct fscp_operand op;
	enum operand_status st = operand_parse(c->arg, &op);

	ck_assert_msg(st == c->st, "%s: status %d, want %d", c->arg, st, c->st);
	ck_assert_msg(op.remote == c->remote, "%s: remote", c->arg);
	ck_assert_msg(op.is_uri == c->is_uri, "%s: is_uri", c->arg);
	ck_assert_opt_str_eq(op.user, c->user);
	ck_assert_opt_str_eq(op.host, c->host);
	ck_assert_opt_str_eq(op.path, c->path);
	ck_assert_msg(op.port == c->port, "%s: port %d, want %d", c->arg,
	    op.port, c->port);
	/* remote by colon() exactly when not a local operand */
	if (c->st == OPERAND_OK)
		ck_assert_int_eq(operand_colon(c->arg) != NULL, c->remote);
	operand_free(&op);
	ck_assert_ptr_null(op.user);
	ck_assert_ptr_null(op.host);
	ck_assert_ptr_null(op.path);
}
END_TEST

/* ---- okname() ---- */

struct okname_case {
	const char *user;
	bool ok;
};

static const struct okname_case oknames[] = {
	{ "root", true }, { "a.b-c_d", true }, { "ec2-user", true },
	{ "u@v", true }, { "a;b", true }, { "a$b", true }, { "a\\b", true },
	{ "a/b", true }, { "DOMAIN+u", true }, { "", true },
	{ "a b", false }, { "a'b", false }, { "a\"b", false }, { "a`b", false },
	{ "a#b", false }, { "#", false }, { "\xc3\xa9t\xc3\xa9", false },
	{ "u\x80", false }, { "u\xff", false },
};

START_TEST(test_okname)
{
	const struct okname_case *c = &oknames[_i];

	ck_assert_msg(operand_okname(c->user) == c->ok, "\"%s\": want %d",
	    c->user, c->ok);
}
END_TEST

/* ---- basename ---- */

struct base_case {
	const char *path, *base;
};

static const struct base_case bases[] = {
	{ "a", "a" }, { "a/b", "b" }, { "a/b/", "b" }, { "a//", "a" },
	{ "/a", "a" }, { "/", "/" }, { "///", "/" }, { "", "" },
	{ "./", "." }, { "a/b/c.txt", "c.txt" }, { "/x/..", ".." },
};

START_TEST(test_basename)
{
	const struct base_case *c = &bases[_i];
	char *b = operand_basename(c->path);

	ck_assert_str_eq(b, c->base);
	free(b);
}
END_TEST

static Suite *
operand_suite(void)
{
	Suite *s = suite_create("operand");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_colon, 0,
	    (int)(sizeof(colons) / sizeof(colons[0])));
	tcase_add_loop_test(tc, test_parse, 0, NPARSES);
	tcase_add_loop_test(tc, test_okname, 0,
	    (int)(sizeof(oknames) / sizeof(oknames[0])));
	tcase_add_loop_test(tc, test_basename, 0,
	    (int)(sizeof(bases) / sizeof(bases[0])));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(operand_suite());
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for policy/fscpconf: the per-host route setting files. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/fscpconf.h"
#include "../check_main.h"

/* ---- ssh's Host patterns ---- */

struct match_case {
	const char *host;
	const char *pats;	/* space-separated */
	bool want;
};

static const struct match_case matches[] = {
	{ "db1", "db1", true },
	{ "db1", "db2", false },
	{ "db1", "db*", true },
	{ "db", "db*", true },
	{ "db12", "db?", false },
	{ "db1", "db?", true },
	{ "db1", "*", true },
	{ "", "*", true },
	{ "db1.example.com", "*.example.com", true },
	{ "example.com", "*.example.com", false },
	{ "a.b.c", "*.*", true },
	{ "abc", "a*b*c", true },
	{ "abxc", "a*b*c", true },
	{ "acb", "a*b*c", false },
	{ "db1", "*1*", true },
	/* case counts: ssh matches the host as typed */
	{ "DB1", "db1", false },
	{ "db1", "DB1", false },
	/* negation: any negated match rules the block out, even listed first */
	{ "db1", "db* !db1", false },
	{ "db1", "!db1 db*", false },
	{ "db2", "db* !db1", true },
	{ "db2", "!db1", false },	/* no positive match */
	{ "db1", "web db1", true },
	{ "10.0.0.1", "10.0.0.*", true },
	{ "::1", "::1", true },
};

START_TEST(test_match)
{
	const struct match_case *c = &matches[_i];
	char *buf = strdup(c->pats), *words[16], *save = NULL;
	size_t n = 0;

	for (char *w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	ck_assert_msg(fscpconf_host_match(c->host, words, n) == c->want, "%s against '%s'",
	    c->host, c->pats);
	free(buf);
}
END_TEST

/* ---- parsing ---- */

static void
parse_ok(const char *text, struct fscpconf_file *f)
{
	char err[512] = "";

	ck_assert_msg(fscpconf_parse("cfg", text, f, err, sizeof(err)) == 0, "%s", err);
}

START_TEST(test_parse)
{
	struct fscpconf_file f;

	parse_ok("# fscp\n"
	    "\n"
	    "Route auto\n"
	    "Host db-* !db-test\n"
	    "\tRoute standard\n"
	    "  route BYPASS   # again: the first wins\n"
	    "Host=web\n"
	    "Route = bypass\n"
	    "HOST web2 web3\n"
	    "Route\t=\tAuto\n", &f);
	ck_assert_str_eq(f.path, "cfg");
	ck_assert_uint_eq(f.nrules, 5);
	ck_assert_int_eq(f.rules[0].route, ROUTE_FORCE_AUTO);
	ck_assert_uint_eq(f.rules[0].npatterns, 0);
	ck_assert_int_eq(f.rules[0].line, 3);
	ck_assert_int_eq(f.rules[1].route, ROUTE_FORCE_STANDARD);
	ck_assert_uint_eq(f.rules[1].npatterns, 2);
	ck_assert_str_eq(f.rules[1].patterns[0], "db-*");
	ck_assert_str_eq(f.rules[1].patterns[1], "!db-test");
	ck_assert_int_eq(f.rules[1].host_line, 4);
	ck_assert_int_eq(f.rules[1].line, 5);
	ck_assert_int_eq(f.rules[2].route, ROUTE_FORCE_BYPASS);
	ck_assert_int_eq(f.rules[2].line, 6);
	ck_assert_int_eq(f.rules[3].route, ROUTE_FORCE_BYPASS);
	ck_assert_str_eq(f.rules[3].patterns[0], "web");
	ck_assert_int_eq(f.rules[4].route, ROUTE_FORCE_AUTO);
	ck_assert_uint_eq(f.rules[4].npatterns, 2);
	fscpconf_file_free(&f);

	parse_ok("", &f);
	ck_assert_uint_eq(f.nrules, 0);
	fscpconf_file_free(&f);
	/* a Host block with no Route sets nothing; no newline at the end */
	parse_ok("Host a\nHost b\n Route standard", &f);
	ck_assert_uint_eq(f.nrules, 1);
	ck_assert_str_eq(f.rules[0].patterns[0], "b");
	fscpconf_file_free(&f);
	/* CR LF line ends */
	parse_ok("Host a\r\nRoute bypass\r\n", &f);
	ck_assert_int_eq(f.rules[0].route, ROUTE_FORCE_BYPASS);
	fscpconf_file_free(&f);
}
END_TEST

struct bad_case {
	const char *text;
	const char *err;
};

/* ssh's own words for a bad ssh_config line, where it has them. */
static const struct bad_case bads[] = {
	{ "Rout standard\n", "cfg: line 1: Bad configuration option: rout" },
	{ "Host a\n  HostName b\n", "cfg: line 2: Bad configuration option: hostname" },
	{ "Match all\n", "cfg: line 1: Bad configuration option: match" },
	{ "Host\n", "cfg line 1: no argument after keyword \"host\"" },
	{ "Host a\nRoute\n", "cfg line 2: no argument after keyword \"route\"" },
	{ "Route =\n", "cfg line 1: no argument after keyword \"route\"" },
	{ "\n\nRoute standrad\n", "cfg line 3: Route \"standrad\" is not one of auto, standard, bypass" },
	{ "Route never\n", "cfg line 1: Route \"never\" is not one of auto, standard, bypass" },
	{ "Route standard bypass\n", "cfg line 1: garbage at end of line; \"bypass\"." },
	{ "Host \"a b\"\n", "cfg line 1: quoted arguments are not supported" },
	{ "=x\n", "cfg: line 1: Bad configuration option: " },
};

START_TEST(test_bad)
{
	struct fscpconf_file f;
	char err[512] = "";

	ck_assert_int_eq(fscpconf_parse("cfg", bads[_i].text, &f, err, sizeof(err)), -1);
	ck_assert_str_eq(err, bads[_i].err);
	ck_assert_uint_eq(f.nrules, 0);
	ck_assert_ptr_null(f.path);
}
END_TEST

/* ---- which setting wins ---- */

struct prec_case {
	const char *sys, *user;	/* file texts, NULL: no file */
	bool env_set;
	enum route_force env;
	const char *host;
	enum route_force want;
	const char *why;
	bool from_file;
	const char *sys2;	/* FSCP_SYSTEM_CONFIG's file, NULL: none */
};

static const struct prec_case precs[] = {
	/* nothing set: auto */
	{ NULL, NULL, false, 0, "h", ROUTE_FORCE_AUTO, "", false },
	{ "Host other\nRoute standard\n", "Host other\nRoute bypass\n", false, 0, "h",
	    ROUTE_FORCE_AUTO, "", false },
	/* the environment alone */
	{ NULL, NULL, true, ROUTE_FORCE_BYPASS, "h", ROUTE_FORCE_BYPASS, "FSCP_ROUTE=bypass", false },
	/* the system's standard is binding: over the environment and the user */
	{ "Host db-*\nRoute standard\n", "Host *\nRoute bypass\n", true, ROUTE_FORCE_BYPASS,
	    "db-1", ROUTE_FORCE_STANDARD, "Route standard (Host db-*) in sys line 2", true },
	{ "Host db-*\nRoute standard\n", NULL, true, ROUTE_FORCE_AUTO, "db-1",
	    ROUTE_FORCE_STANDARD, "Route standard (Host db-*) in sys line 2", true },
	/* ... for its hosts only */
	{ "Host db-*\nRoute standard\n", "Host *\nRoute bypass\n", false, 0, "web",
	    ROUTE_FORCE_BYPASS, "Route bypass (Host *) in user line 2", true },
	/* the environment over the user's file, even when it says auto */
	{ NULL, "Host *\nRoute standard\n", true, ROUTE_FORCE_AUTO, "h", ROUTE_FORCE_AUTO,
	    "FSCP_ROUTE=auto", false },
	/* the user's file over the system's default */
	{ "Route bypass\n", "Host h\nRoute auto\n", false, 0, "h", ROUTE_FORCE_AUTO,
	    "Route auto (Host h) in user line 2", true },
	{ "Route bypass\n", "Host h\nRoute auto\n", false, 0, "g", ROUTE_FORCE_BYPASS,
	    "Route bypass in sys line 1", true },
	/* the environment over the system's default */
	{ "Route bypass\n", NULL, true, ROUTE_FORCE_STANDARD, "g", ROUTE_FORCE_STANDARD,
	    "FSCP_ROUTE=standard", false },
	/* first match in a file wins: a later standard does not bind */
	{ "Host db-1\nRoute auto\nHost db-*\nRoute standard\n", NULL, true, ROUTE_FORCE_BYPASS,
	    "db-1", ROUTE_FORCE_BYPASS, "FSCP_ROUTE=bypass", false },
	{ "Host db-1\nRoute auto\nHost db-*\nRoute standard\n", NULL, true, ROUTE_FORCE_BYPASS,
	    "db-2", ROUTE_FORCE_STANDARD, "Route standard (Host db-*) in sys line 4", true },
	/* negation */
	{ "Host db-* !db-test\nRoute standard\n", NULL, true, ROUTE_FORCE_BYPASS, "db-test",
	    ROUTE_FORCE_BYPASS, "FSCP_ROUTE=bypass", false },
	/* FSCP_SYSTEM_CONFIG's file binds as the installed one does ... */
	{ NULL, "Host *\nRoute bypass\n", true, ROUTE_FORCE_BYPASS, "db-1", ROUTE_FORCE_STANDARD,
	    "Route standard (Host db-*) in sys2 line 2", true, "Host db-*\nRoute standard\n" },
	/* ... but never sets the installed one aside: its first Route comes first */
	{ "Host db-*\nRoute standard\n", NULL, true, ROUTE_FORCE_BYPASS, "db-1",
	    ROUTE_FORCE_STANDARD, "Route standard (Host db-*) in sys line 2", true,
	    "Host *\nRoute bypass\n" },
	{ "Host db-*\nRoute bypass\n", NULL, false, 0, "db-1", ROUTE_FORCE_BYPASS,
	    "Route bypass (Host db-*) in sys line 2", true, "Host *\nRoute standard\n" },
	{ "Host db-*\nRoute standard\n", NULL, false, 0, "web", ROUTE_FORCE_AUTO,
	    "Route auto in sys2 line 1", true, "Route auto\n" },
};

START_TEST(test_precedence)
{
	const struct prec_case *c = &precs[_i];
	struct fscpconf conf;
	char err[256] = "", why[256];
	bool from_file = !c->from_file;

	memset(&conf, 0, sizeof(conf));
	if (c->sys != NULL)
		ck_assert_int_eq(fscpconf_parse("sys", c->sys, &conf.sys, err, sizeof(err)), 0);
	if (c->user != NULL)
		ck_assert_int_eq(fscpconf_parse("user", c->user, &conf.user, err, sizeof(err)), 0);
	if (c->sys2 != NULL)
		ck_assert_int_eq(fscpconf_parse("sys2", c->sys2, &conf.sys2, err, sizeof(err)), 0);
	ck_assert_int_eq(fscpconf_route(&conf, c->host, c->env_set, c->env, why, sizeof(why),
	    &from_file), c->want);
	ck_assert_str_eq(why, c->why);
	ck_assert(from_file == c->from_file);
	fscpconf_free(&conf);
}
END_TEST

START_TEST(test_no_conf)
{
	char why[64];
	bool from_file;

	ck_assert_int_eq(fscpconf_route(NULL, "h", false, ROUTE_FORCE_BYPASS, why, sizeof(why),
	    &from_file), ROUTE_FORCE_AUTO);
	ck_assert_int_eq(fscpconf_route(NULL, "h", true, ROUTE_FORCE_STANDARD, why, sizeof(why),
	    &from_file), ROUTE_FORCE_STANDARD);
	ck_assert_str_eq(why, "FSCP_ROUTE=standard");
	/* a long reason is cut, still a string */
	struct fscpconf conf;
	char err[64], small[12];

	memset(&conf, 0, sizeof(conf));
	ck_assert_int_eq(fscpconf_parse("a-long-path", "Host x y z\nRoute standard\n", &conf.sys,
	    err, sizeof(err)), 0);
	fscpconf_route(&conf, "x", false, ROUTE_FORCE_AUTO, small, sizeof(small), &from_file);
	ck_assert_str_eq(small, "Route stand");
	fscpconf_free(&conf);
}
END_TEST

/* ---- reading files ---- */

START_TEST(test_read)
{
	char dir[] = "/tmp/check_fscpconf.XXXXXX", path[128], err[256] = "";
	struct fscpconf_file f;
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/config", dir);
	/* missing: nothing, unless it must exist */
	ck_assert_int_eq(fscpconf_read(path, false, &f, err, sizeof(err)), 0);
	ck_assert_uint_eq(f.nrules, 0);
	ck_assert_int_eq(fscpconf_read(path, true, &f, err, sizeof(err)), -2);
	ck_assert_ptr_nonnull(strstr(err, ": No such file or directory"));
	/* a directory cannot be read */
	ck_assert_int_eq(fscpconf_read(dir, false, &f, err, sizeof(err)), -2);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("Host h\nRoute standard\n", fp);
	fclose(fp);
	ck_assert_int_eq(fscpconf_read(path, false, &f, err, sizeof(err)), 0);
	ck_assert_uint_eq(f.nrules, 1);
	ck_assert_str_eq(f.path, path);
	fscpconf_file_free(&f);
	/* a NUL byte is no text */
	fp = fopen(path, "w");
	fwrite("Route standard\n\0x\n", 1, 18, fp);
	fclose(fp);
	ck_assert_int_eq(fscpconf_read(path, false, &f, err, sizeof(err)), -1);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *
fscpconf_suite(void)
{
	Suite *s = suite_create("fscpconf");
	TCase *tc = tcase_create("fscpconf");

	tcase_add_loop_test(tc, test_match, 0, (int)(sizeof(matches) / sizeof(matches[0])));
	tcase_add_test(tc, test_parse);
	tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof(bads) / sizeof(bads[0])));
	tcase_add_loop_test(tc, test_precedence, 0, (int)(sizeof(precs) / sizeof(precs[0])));
	tcase_add_test(tc, test_no_conf);
	tcase_add_test(tc, test_read);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(fscpconf_suite());
}

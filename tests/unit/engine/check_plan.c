/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for plan.c's pure helpers: scp's prepare_remote_path() (9.2,
 * on a server without the expand-path extension: ~user paths fail) and the wildcard test that decides
 * whether a remote source is globbed.  The walks and the glob expansion
 * talk to a server and are covered by tests/integration. */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../check_main.h"
#include "engine/plan.h"
#include "sftp/sftp.h"
#include "sftp/sftp_conn.h"	/* a connection made up in place */

struct path_case {
	const char *in, *out;
};

static const struct path_case paths[] = {
	{ "", "." }, { "~", "." }, { "~/", "." }, { "~//", "." },
	{ "~/a", "a" }, { "~//a/b", "a/b" }, { "~/a/", "a/" },
	{ "~user/x", NULL }, { "~x", NULL }, { "/abs", "/abs" },
	{ "a", "a" }, { ".", "." }, { "a/~/b", "a/~/b" },
};

START_TEST(test_remote_path)
{
	struct sftp_conn c = { .has_expand_path = false };
	char *got = plan_remote_path(&c, paths[_i].in);

	if (paths[_i].out == NULL)
		ck_assert_msg(got == NULL, "\"%s\" -> \"%s\", want NULL", paths[_i].in, got);
	else
		ck_assert_msg(got != NULL && strcmp(got, paths[_i].out) == 0,
		    "\"%s\" -> \"%s\", want \"%s\"", paths[_i].in, got ? got : "NULL",
		    paths[_i].out);
	free(got);
}
END_TEST

struct glob_case {
	const char *s;
	bool glob;
};

static const struct glob_case globs[] = {
	{ "a*", true }, { "a?b", true }, { "[ab]", true }, { "dir/*.c", true },
	{ "abc", false }, { "a]b", false }, { "", false }, { "a{b,c}", false },
};

START_TEST(test_has_glob)
{
	ck_assert_msg(plan_has_glob(globs[_i].s) == globs[_i].glob, "\"%s\"", globs[_i].s);
}
END_TEST

static Suite *
plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_remote_path, 0, (int)(sizeof(paths) / sizeof(paths[0])));
	tcase_add_loop_test(tc, test_has_glob, 0, (int)(sizeof(globs) / sizeof(globs[0])));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(plan_suite());
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for the messages of aws (awsmsg) and ssh (sshmsg) that fscp
 * acts on: each recognised in the words the tools really print, and not
 * in their neighbours. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "../check_main.h"
#include "policy/awsmsg.h"
#include "policy/sshmsg.h"

static bool
throttled(const char *s)
{
	return awsmsg_is_throttled(s, strlen(s));
}

START_TEST(aws_throttled)
{
	/* aws-cli 2's words when StartSession calls come too fast. */
	ck_assert(throttled("\nAn error occurred (ThrottlingException) when calling the "
	    "StartSession operation (reached max retries: 2): Rate exceeded\n"));
	ck_assert(!throttled("\nAn error occurred (TargetNotConnected) when calling the "
	    "StartSession operation: i-0123 is not connected.\n"));
	ck_assert(!throttled("An error occurred (AccessDeniedException) when calling the "
	    "StartSession operation: User is not authorized\n"));
	ck_assert(!throttled(""));
	ck_assert(!awsmsg_is_throttled(NULL, 0));
}
END_TEST

START_TEST(aws_throttled_not_terminated)
{
	/* A held stream: only len bytes count, with no NUL after them. */
	const char held[] = "xx(ThrottlingException)yy";

	ck_assert(awsmsg_is_throttled(held, sizeof(held) - 1));
	ck_assert(!awsmsg_is_throttled(held, 12));	/* cut inside the name */
}
END_TEST

START_TEST(ssh_host_key_changed)
{
	ck_assert(sshmsg_is_host_key_changed(
	    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
	    "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
	    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
	    "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\n"));
	ck_assert(!sshmsg_is_host_key_changed(
	    "@       WARNING: REVOKED HOST KEY DETECTED!               @\n"));
	ck_assert(!sshmsg_is_host_key_changed("Host key verification failed."));
	ck_assert(!sshmsg_is_host_key_changed(NULL));
}
END_TEST

static Suite *
peermsg_suite(void)
{
	Suite *s = suite_create("peermsg");
	TCase *tc = tcase_create("recognise");

	tcase_add_test(tc, aws_throttled);
	tcase_add_test(tc, aws_throttled_not_terminated);
	tcase_add_test(tc, ssh_host_key_changed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(peermsg_suite());
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for fdio: whole reads and writes on a pipe, EOF told apart
 * from an error. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../check_main.h"
#include "util/fdio.h"

START_TEST(write_then_read)
{
	int p[2];
	char buf[8] = "";

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fdio_write_all(p[1], "abcdef", 6), 0);
	ck_assert_int_eq(fdio_read_all(p[0], buf, 4), 0);
	ck_assert(memcmp(buf, "abcd", 4) == 0);
	ck_assert_int_eq((int)fdio_read(p[0], buf, sizeof(buf)), 2);
	ck_assert(memcmp(buf, "ef", 2) == 0);
	/* Short at EOF: -1 with errno 0; a plain read says 0. */
	ck_assert_int_eq(fdio_write_all(p[1], "x", 1), 0);
	close(p[1]);
	errno = EIO;
	ck_assert_int_eq(fdio_read_all(p[0], buf, 2), -1);
	ck_assert_int_eq(errno, 0);
	ck_assert_int_eq((int)fdio_read(p[0], buf, sizeof(buf)), 0);
	close(p[0]);
}
END_TEST

START_TEST(errors)
{
	int p[2];
	char c;

	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	/* No reader: EPIPE (SIGPIPE is ignored in fscp, and here). */
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(fdio_write_all(p[1], "x", 1), -1);
	ck_assert_int_eq(errno, EPIPE);
	close(p[1]);
	ck_assert_int_eq((int)fdio_read(p[1], &c, 1), -1);
	ck_assert_int_eq(fdio_read_all(p[1], &c, 1), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

static Suite *
fdio_suite(void)
{
	Suite *s = suite_create("fdio");
	TCase *tc = tcase_create("pipe");

	tcase_add_test(tc, write_then_read);
	tcase_add_test(tc, errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(fdio_suite());
}

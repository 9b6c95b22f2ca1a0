/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* The one main() every Check suite here needs: run the suite, exit as
 * the test harness reads it (0 when every test passed, 1 otherwise). */
#ifndef FSCP_CHECK_MAIN_H
#define FSCP_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Runs s (and frees it with its runner); a suite's main() returns this. */
static inline int
check_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif

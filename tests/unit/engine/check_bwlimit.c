/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for bwlimit: one -l limit shared by several threads. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "../check_main.h"
#include "engine/bwlimit.h"

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct worker {
	struct bwlimit *b;
	size_t total;
	size_t chunk;
};

static void *
worker_run(void *arg)
{
	struct worker *w = arg;

	for (size_t done = 0; done < w->total; done += w->chunk)
		bwlimit_account(w->b, w->chunk);
	return NULL;
}

START_TEST(unlimited_is_null)
{
	ck_assert_ptr_null(bwlimit_new(0));
	ck_assert_ptr_null(bwlimit_new(-5));
	bwlimit_account(NULL, 1 << 30);		/* no-op, returns at once */
	bwlimit_free(NULL);
}
END_TEST

START_TEST(two_threads_share_limit)
{
	/* 8 Mbit/s = 1 MB/s: 2 MB from two threads need >= 2 s in all; the
	 * first chunk is free (nothing to pace against yet), so allow 1.9 s. */
	struct bwlimit *b = bwlimit_new(8000000);
	struct worker w = { b, 1000000, 32768 };
	pthread_t t1, t2;
	double t0, dt;

	ck_assert_ptr_nonnull(b);
	t0 = now_sec();
	pthread_create(&t1, NULL, worker_run, &w);
	pthread_create(&t2, NULL, worker_run, &w);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	dt = now_sec() - t0;
	bwlimit_free(b);
	ck_assert_msg(dt >= 1.9, "2 MB at 1 MB/s took only %.3f s", dt);
	ck_assert_msg(dt < 10.0, "2 MB at 1 MB/s took %.3f s", dt);
}
END_TEST

START_TEST(small_writes_high_limit)
{
	/* Many tiny writes: debts below the sleep threshold carry over, the
	 * average still holds (4 Mbit/s, 500 KB in 1 KB pieces: >= 1 s). */
	struct bwlimit *b = bwlimit_new(4000000);
	double t0 = now_sec(), dt;

	for (int i = 0; i < 500; i++)
		bwlimit_account(b, 1000);
	dt = now_sec() - t0;
	bwlimit_free(b);
	ck_assert_msg(dt >= 0.95, "took only %.3f s", dt);
	ck_assert_msg(dt < 6.0, "took %.3f s", dt);
}
END_TEST

START_TEST(idle_earns_no_credit)
{
	/* After a pause the limit applies again at once. */
	struct bwlimit *b = bwlimit_new(8000000);
	double t0, dt;

	bwlimit_account(b, 100000);
	struct timespec pause = { 0, 300000000 };
	nanosleep(&pause, NULL);
	t0 = now_sec();
	bwlimit_account(b, 500000);	/* 0.5 s worth */
	dt = now_sec() - t0;
	bwlimit_free(b);
	ck_assert_msg(dt >= 0.45, "took only %.3f s", dt);
}
END_TEST

static Suite *
bwlimit_suite(void)
{
	Suite *s = suite_create("bwlimit");
	TCase *tc = tcase_create("pace");

	tcase_add_test(tc, unlimited_is_null);
	tcase_add_test(tc, two_threads_share_limit);
	tcase_add_test(tc, small_writes_high_limit);
	tcase_add_test(tc, idle_earns_no_credit);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(bwlimit_suite());
}

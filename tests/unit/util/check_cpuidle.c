/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for cpuidle: /proc/stat's idle CPU, and a quota's cap. */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "../check_main.h"
#include "util/cpuidle.h"

/* Two CPUs; between the samples cpu0 was idle 50 of 100 jiffies, cpu1 90
 * of 100 (iowait counts as idle). */
static const char stat_a[] =
    "cpu  100 0 100 1000 0 0 0 0 0 0\n"
    "cpu0 50 0 50 500 0 0 0 0 0 0\n"
    "cpu1 50 0 50 500 0 0 0 0 0 0\n"
    "intr 12345\nctxt 6789\n";
static const char stat_b[] =
    "cpu  160 0 100 1140 0 0 0 0 0 0\n"
    "cpu0 75 0 75 540 10 0 0 0 0 0\n"
    "cpu1 55 0 55 590 0 0 0 0 0 0\n"
    "intr 12399\nctxt 6800\n";

static bool
only_cpu1(int cpu, void *arg)
{
	(void)arg;
	return cpu == 1;
}

START_TEST(idle_of_all_cpus)
{
	struct cpuidle_sample a = { 0 }, b = { 0 };

	cpuidle_parse_stat(stat_a, NULL, NULL, &a);
	cpuidle_parse_stat(stat_b, NULL, NULL, &b);
	ck_assert(a.ok && b.ok);
	ck_assert_int_eq(a.cpus, 2);
	/* (50 + 90) / 200 of 2 CPUs */
	ck_assert_double_eq_tol(cpuidle_cores(&a, &b), 1.4, 1e-9);
}
END_TEST

START_TEST(idle_of_allowed_cpus)
{
	struct cpuidle_sample a = { 0 }, b = { 0 };

	cpuidle_parse_stat(stat_a, only_cpu1, NULL, &a);
	cpuidle_parse_stat(stat_b, only_cpu1, NULL, &b);
	ck_assert_int_eq(b.cpus, 1);
	ck_assert_double_eq_tol(cpuidle_cores(&a, &b), 0.9, 1e-9);
}
END_TEST

/* Under a quota of one core that ran out in 3 periods of 4, a quarter of
 * it was free, whatever the machine's CPUs had idle. */
START_TEST(quota_caps_idle)
{
	struct cpuidle_sample a = { 0 }, b = { 0 };

	cpuidle_parse_stat(stat_a, NULL, NULL, &a);
	cpuidle_parse_stat(stat_b, NULL, NULL, &b);
	cpuidle_parse_cgstat("nr_periods 100\nnr_throttled 10\nthrottled_time 5\n", &a);
	cpuidle_parse_cgstat("nr_periods 200\nnr_throttled 85\nthrottled_time 9\n", &b);
	a.quota_cores = b.quota_cores = 1.0;
	ck_assert_double_eq_tol(cpuidle_cores(&a, &b), 0.25, 1e-9);
	/* Never throttled: the CPUs' idle, under the quota's whole core. */
	b.throttled = a.throttled;
	ck_assert_double_eq_tol(cpuidle_cores(&a, &b), 1.0, 1e-9);
	b.quota_cores = a.quota_cores = 4.0;
	ck_assert_double_eq_tol(cpuidle_cores(&a, &b), 1.4, 1e-9);
}
END_TEST

START_TEST(unknown_when_unreadable)
{
	struct cpuidle_sample a = { 0 }, b = { 0 };

	cpuidle_parse_stat("", NULL, NULL, &a);
	cpuidle_parse_stat(stat_b, NULL, NULL, &b);
	ck_assert(!a.ok);
	ck_assert(cpuidle_cores(&a, &b) < 0);
	/* The same sample twice: no time passed. */
	ck_assert(cpuidle_cores(&b, &b) < 0);
}
END_TEST

/* This machine's own: a busy-waiting interval is never more idle than
 * its CPUs. */
START_TEST(live_sample)
{
	struct cpuidle_sample a, b;
	double idle;

	cpuidle_sample(&a);
	if (!a.ok)
		return;	/* no /proc/stat: nothing to read */
	usleep(50 * 1000);
	cpuidle_sample(&b);
	idle = cpuidle_cores(&a, &b);
	ck_assert(idle <= b.cpus + 1e-9);
}
END_TEST

static Suite *
cpuidle_suite(void)
{
	Suite *s = suite_create("cpuidle");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, idle_of_all_cpus);
	tcase_add_test(tc, idle_of_allowed_cpus);
	tcase_add_test(tc, quota_caps_idle);
	tcase_add_test(tc, unknown_when_unreadable);
	tcase_add_test(tc, live_sample);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(cpuidle_suite());
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for route_plan_ssm_wave: when an SSM pool starts its next
 * wave, and how many sessions it starts in all, from what was measured
 * (issue 19's cases: a slow CLI, a slow machine, costly sessions). */
#include "config.h"

#include <check.h>
#include <string.h>

#include "policy/route_plan.h"

#define MiB (1024LL * 1024)
#define KiBs 1024.0

enum { WAIT = ROUTE_WAVE_WAIT, START = ROUTE_WAVE_START, STOP = ROUTE_WAVE_STOP };
#define ANY (-1)

static const struct wave_row {
	const char *name;
	struct route_ssm_wave_in in;
	int act, start;
	int total;		/* ANY, 0 (no re-plan), or what route_ssm_sessions
				   gives for the row's measured cost (-2) */
	const char *why;	/* in the reason */
} rows[] = {
	/* Starting waves: the CLIs' CPU, not a timer. */
	{ "first wave's CLIs at work", { .bytes = 20 * MiB, .cores = 2, .started = 2,
	    .limit = 12, .starting = 2, .starting_cpu = 1.8, .wave_cpu_s = 0.4,
	    .idle_cores = 0.1, .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1,
	    .goodput_after = -1 }, WAIT, 0, 0, "still starting" },
	{ "first tick: the CLIs' CPU not measured yet", { .bytes = 20 * MiB, .cores = 2,
	    .started = 2, .limit = 12, .starting = 2, .starting_cpu = -1, .idle_cores = -1,
	    .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1, .goodput_after = -1 },
	    WAIT, 0, 0, "measuring" },
	{ "CLIs done, cores idle: the next wave", { .bytes = 20 * MiB, .cores = 2,
	    .started = 2, .limit = 12, .starting = 2, .starting_cpu = 0.02, .wave_cpu_s = 1.2,
	    .idle_cores = 1.6, .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1,
	    .goodput_after = -1 }, START, 2, 0, "CLIs are done" },
	{ "slow CLI (1.5 s): still at work after a second", { .bytes = 20 * MiB, .cores = 2,
	    .started = 2, .limit = 12, .starting = 2, .starting_cpu = 1.9, .wave_cpu_s = 2.0,
	    .idle_cores = 0, .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1,
	    .goodput_after = -1 }, WAIT, 0, 0, "still starting" },
	{ "busy machine: CLIs starved (little CPU), yet runnable", { .bytes = 20 * MiB,
	    .cores = 2, .started = 2, .limit = 12, .starting = 2, .starting_cpu = 0.1,
	    .starting_runnable = 2, .wave_cpu_s = 0.08, .idle_cores = 0, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1 }, WAIT, 0, 0,
	    "still starting" },
	{ "slow machine: CLIs get a quarter core each, still at work", { .bytes = 20 * MiB,
	    .cores = 2, .started = 2, .limit = 12, .starting = 2, .starting_cpu = 0.5,
	    .wave_cpu_s = 0.3, .idle_cores = 0, .start_cpu_s = -1, .setup_s = -1,
	    .goodput_before = -1, .goodput_after = -1 }, WAIT, 0, 0, "still starting" },
	{ "big machine: a whole core idle beside busy CLIs", { .bytes = 20 * MiB, .cores = 4,
	    .started = 4, .limit = 20, .starting = 4, .starting_cpu = 2.5, .idle_cores = 1.5,
	    .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1, .goodput_after = -1 },
	    START, 1, 0, "cores idle beside" },
	/* Ahead of the measurement that would see the CLIs done. */
	{ "CLIs done within the next tick: the next wave now", { .bytes = 20 * MiB,
	    .cores = 2, .started = 4, .limit = 12, .starting = 2, .starting_cpu = 1.8,
	    .starting_runnable = 2, .wave_cpu_s = 1.0, .starting_cpu_s = 1.0,
	    .cli_cpu_s = 0.62, .tick_s = 0.2, .idle_cores = 0, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1 }, START, 2, 0,
	    "done within 0.20 s" },
	{ "CLIs past what a start took: the next wave now", { .bytes = 20 * MiB,
	    .cores = 2, .started = 4, .limit = 12, .starting = 2, .starting_cpu = 0.6,
	    .starting_runnable = 1, .wave_cpu_s = 1.5, .starting_cpu_s = 1.5,
	    .cli_cpu_s = 0.62, .tick_s = 0.2, .idle_cores = 0, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1 }, START, 2, 0,
	    "0.00 s of CPU left" },
	{ "CLIs a tick and more from done: wait", { .bytes = 20 * MiB, .cores = 2,
	    .started = 4, .limit = 12, .starting = 2, .starting_cpu = 1.8,
	    .starting_runnable = 2, .wave_cpu_s = 0.6, .starting_cpu_s = 0.6,
	    .cli_cpu_s = 0.62, .tick_s = 0.2, .idle_cores = 0, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1 }, WAIT, 0, 0,
	    "still starting" },
	{ "slow CLI (1.5 s): no wave ahead of it before a start is measured", {
	    .bytes = 20 * MiB, .cores = 2, .started = 2, .limit = 12, .starting = 2,
	    .starting_cpu = 1.9, .wave_cpu_s = 2.9, .starting_cpu_s = 2.9, .cli_cpu_s = -1,
	    .tick_s = 0.2, .idle_cores = 0, .start_cpu_s = -1, .setup_s = -1,
	    .goodput_before = -1, .goodput_after = -1 }, WAIT, 0, 0, "still starting" },
	{ "done soon, but the sessions up keep the cores: the climb decides", {
	    .bytes = 20 * MiB, .cores = 2, .started = 6, .limit = 12, .starting = 2,
	    .starting_cpu = 0.3, .starting_runnable = 2, .wave_cpu_s = 1.2,
	    .starting_cpu_s = 1.2, .cli_cpu_s = 0.62, .tick_s = 0.2, .idle_cores = 0,
	    .start_cpu_s = 0.62, .setup_s = 1.4, .goodput_before = 3000 * KiBs,
	    .goodput_after = 3050 * KiBs, .measured_wave = 2 }, STOP, 0, -2, "only" },
	{ "a session up: its start's cost plans the total", { .bytes = 20 * MiB, .cores = 2,
	    .started = 4, .limit = 12, .starting = 2, .starting_cpu = 1.5, .idle_cores = 0,
	    .start_cpu_s = 0.6, .setup_s = 1.4, .goodput_before = -1, .goodput_after = -1 },
	    WAIT, 0, -2, "still starting" },
	{ "slow CLI measured (1.5 s): fewer sessions in all", { .bytes = 20 * MiB,
	    .cores = 2, .started = 4, .limit = 12, .starting = 2, .starting_cpu = 1.5,
	    .idle_cores = 0, .start_cpu_s = 1.5, .setup_s = 1.4, .goodput_before = -1,
	    .goodput_after = -1 }, WAIT, 0, -2, "still starting" },
	{ "FSCP_SSM_START_CPU wins over the measured cost", { .bytes = 20 * MiB, .cores = 2,
	    .started = 2, .limit = 12, .starting = 2, .starting_cpu = 1.5, .idle_cores = 0,
	    .start_cpu_s = 0.05, .setup_s = 1.4, .override_cpu_s = 1.5, .goodput_before = -1,
	    .goodput_after = -1 }, WAIT, 0, -2, "still starting" },
	{ "the measured total is reached: no more", { .bytes = 3 * MiB, .cores = 2,
	    .started = 4, .limit = 12, .starting = 0, .idle_cores = 1.8, .start_cpu_s = 1.5,
	    .setup_s = 1.4, .goodput_before = -1, .goodput_after = -1 }, STOP, 0, -2,
	    "worth have started" },
	{ "the pool's limit is reached", { .bytes = 20 * MiB, .cores = 2, .started = 12,
	    .limit = 12, .idle_cores = 1.8, .start_cpu_s = -1, .setup_s = -1,
	    .goodput_before = -1, .goodput_after = -1 }, STOP, 0, 0, "worth have started" },
	{ "before the size: no re-plan", { .bytes = -1, .cores = 2, .started = 2,
	    .limit = 12, .starting = 0, .idle_cores = 1.0, .start_cpu_s = 0.6, .setup_s = 1.4,
	    .goodput_before = -1, .goodput_after = -1 }, START, 2, 0, "CLIs are done" },
	/* Hill-climbing once no CPU is idle. */
	{ "no idle CPU, no gain measured yet: the waves go on", { .bytes = 20 * MiB,
	    .cores = 2, .started = 4, .limit = 12, .starting = 2, .starting_cpu = 0.05,
	    .idle_cores = 0.2, .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1,
	    .goodput_after = -1 }, START, 2, 0, "no gain measured" },
	{ "costly sessions: the last wave raised the goodput 30%", { .bytes = 20 * MiB,
	    .cores = 2, .started = 6, .limit = 12, .idle_cores = 0.1, .start_cpu_s = 0.6,
	    .setup_s = 1.4, .goodput_before = 3000 * KiBs, .goodput_after = 3900 * KiBs,
	    .measured_wave = 2 }, START, 2, -2, "raised the goodput by 30%" },
	{ "costly sessions: the last wave raised it 4%: no more", { .bytes = 20 * MiB,
	    .cores = 2, .started = 8, .limit = 12, .idle_cores = 0.1, .start_cpu_s = 0.6,
	    .setup_s = 1.4, .goodput_before = 3000 * KiBs, .goodput_after = 3120 * KiBs,
	    .measured_wave = 3 }, STOP, 0, -2, "by 4% only" },
	{ "costly sessions: the last wave slowed the others: no more", { .bytes = 20 * MiB,
	    .cores = 2, .started = 8, .limit = 12, .idle_cores = 0, .start_cpu_s = 0.6,
	    .setup_s = 1.4, .goodput_before = 3000 * KiBs, .goodput_after = 2700 * KiBs,
	    .measured_wave = 3 }, STOP, 0, -2, "only" },
	{ "no gain, but a core idle: the sessions are not short of CPU", { .bytes = 20 * MiB,
	    .cores = 2, .started = 8, .limit = 12, .idle_cores = 0.7, .start_cpu_s = 0.6,
	    .setup_s = 1.4, .goodput_before = 3000 * KiBs, .goodput_after = 3000 * KiBs,
	    .measured_wave = 3 }, START, 2, -2, "CLIs are done" },
	{ "FSCP_CONNECTIONS: the user's count, no stop, no re-plan", { .bytes = 20 * MiB,
	    .cores = 2, .started = 8, .limit = 16, .fixed = true, .idle_cores = 0,
	    .start_cpu_s = 1.5, .setup_s = 1.4, .goodput_before = 3000 * KiBs,
	    .goodput_after = 3000 * KiBs, .measured_wave = 3 }, START, 2, 0, "raised" },
	{ "the last wave smaller than the cores", { .bytes = 20 * MiB, .cores = 2,
	    .started = 11, .limit = 12, .idle_cores = 1.5, .start_cpu_s = -1, .setup_s = -1,
	    .goodput_before = -1, .goodput_after = -1 }, START, 1, 0, "CLIs are done" },
	/* Near the end: a session that could not be up before it is not
	 * started (the copy's progress, the latest start's time to come up). */
	{ "the copy ends before a session started now could be up", { .bytes = 20 * MiB,
	    .cores = 2, .started = 6, .limit = 12, .idle_cores = 1.5, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1, .left_bytes = 4 * MiB,
	    .moved_Bps = 4 * MiB, .up = 6, .up_s = 2.3 }, WAIT, 0, 0,
	    "0.00 s sooner" },
	/* Up before the end, but its share of what is left then is small:
	 * 8 up end in 1.88 s; 2 more up in 1.5 s would end it 0.07 s sooner. */
	{ "a wave that would end the copy only a little sooner", { .bytes = 20 * MiB,
	    .cores = 2, .started = 8, .limit = 12, .idle_cores = 1.5, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1,
	    .left_bytes = 12 * MiB, .moved_Bps = 6.4 * MiB, .up = 8, .up_s = 1.5 }, WAIT, 0,
	    0, "s sooner, under 5%" },
	/* Two of the four up came up just now: the goodput measured is the
	 * other two's, and all four make it from now on (1.88 s to the end,
	 * not 3.75 s). */
	{ "sessions just up: the goodput is the others', and theirs from now", {
	    .bytes = 20 * MiB, .cores = 2, .started = 4, .limit = 12, .idle_cores = 1.5,
	    .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1, .goodput_after = -1,
	    .left_bytes = 6 * MiB, .moved_Bps = 1.6 * MiB, .up = 4, .up_weight = 2,
	    .up_s = 2.0 }, WAIT, 0, 0, "ends in about 1.88 s" },
	{ "the same, all four up the whole measure", { .bytes = 20 * MiB, .cores = 2,
	    .started = 4, .limit = 12, .idle_cores = 1.5, .start_cpu_s = -1, .setup_s = -1,
	    .goodput_before = -1, .goodput_after = -1, .left_bytes = 6 * MiB,
	    .moved_Bps = 1.6 * MiB, .up = 4, .up_weight = 4, .up_s = 2.0 }, START, 2, 0,
	    "CLIs are done" },
	{ "less than one session's measure: no end foreseen", { .bytes = 20 * MiB,
	    .cores = 2, .started = 4, .limit = 12, .idle_cores = 1.5, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1, .left_bytes = 1 * MiB,
	    .moved_Bps = 1.6 * MiB, .up = 2, .up_weight = 0.5, .up_s = 2.0 }, START, 2, 0,
	    "CLIs are done" },
	{ "alone the sessions up would end later; with those coming, before", {
	    .bytes = 20 * MiB, .cores = 2, .started = 10, .limit = 12, .idle_cores = 1.5,
	    .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1, .goodput_after = -1,
	    .left_bytes = 12 * MiB, .moved_Bps = 4 * MiB, .up = 6, .up_s = 2.35,
	    .coming = 4, .coming_in_s = { 1.0, 0.3, 1.0, 0.3 } }, WAIT, 0, 0,
	    "4 more coming" },
	{ "the same without those coming: the wave starts", { .bytes = 20 * MiB,
	    .cores = 2, .started = 10, .limit = 12, .idle_cores = 1.5, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1,
	    .left_bytes = 12 * MiB, .moved_Bps = 4 * MiB, .up = 6, .up_s = 2.35 }, START, 2,
	    0, "CLIs are done" },
	{ "the copy ends well after a session started now is up", { .bytes = 100 * MiB,
	    .cores = 2, .started = 6, .limit = 21, .idle_cores = 1.5, .start_cpu_s = -1,
	    .setup_s = -1, .goodput_before = -1, .goodput_after = -1,
	    .left_bytes = 80 * MiB, .moved_Bps = 4 * MiB, .up = 6, .up_s = 2.3, .coming = 2,
	    .coming_in_s = { 0.5, 0.5 } }, START, 2, 0, "CLIs are done" },
	{ "FSCP_CONNECTIONS: the user's count starts even at the end", { .bytes = 20 * MiB,
	    .cores = 2, .started = 6, .limit = 16, .fixed = true, .idle_cores = 1.5,
	    .start_cpu_s = -1, .setup_s = -1, .goodput_before = -1, .goodput_after = -1,
	    .left_bytes = 1 * MiB, .moved_Bps = 4 * MiB, .up = 6, .up_s = 2.3 }, START, 2, 0,
	    "CLIs are done" },
	{ "no goodput measured yet: no end foreseen", { .bytes = 20 * MiB, .cores = 2,
	    .started = 2, .limit = 12, .idle_cores = 1.5, .start_cpu_s = -1, .setup_s = -1,
	    .goodput_before = -1, .goodput_after = -1, .left_bytes = 20 * MiB, .up = 2,
	    .up_s = 2.0 }, START, 2, 0, "CLIs are done" },
	{ "the copy's progress not told: no end foreseen", { .bytes = 20 * MiB, .cores = 2,
	    .started = 6, .limit = 12, .idle_cores = 1.5, .start_cpu_s = -1, .setup_s = -1,
	    .goodput_before = -1, .goodput_after = -1, .left_bytes = -1,
	    .moved_Bps = 4 * MiB, .up = 6, .up_s = 2.3 }, START, 2, 0, "CLIs are done" },
};

START_TEST(wave_table)
{
	const struct wave_row *r = &rows[_i];
	struct route_ssm_wave w;
	int total = r->total;

	route_plan_ssm_wave(&r->in, &w);
	if (total == -2) {
		struct route_ssm_cost c = { .cores = r->in.cores, .setup_s = r->in.setup_s,
			.start_cpu_s = r->in.override_cpu_s > 0 ? r->in.override_cpu_s :
			    r->in.start_cpu_s };

		total = route_ssm_sessions(r->in.bytes, &c, ROUTE_SSM_MAX_SESSIONS, NULL);
	}
	ck_assert_msg(w.act == r->act, "%s: act %d, want %d (%s)", r->name, w.act, r->act,
	    w.reason);
	ck_assert_msg(w.start == r->start, "%s: start %d, want %d", r->name, w.start, r->start);
	if (total != ANY)
		ck_assert_msg(w.total == total, "%s: total %d, want %d", r->name, w.total, total);
	ck_assert_msg(strstr(w.reason, r->why) != NULL, "%s: reason \"%s\" lacks \"%s\"",
	    r->name, w.reason, r->why);
}
END_TEST

/* The measured cost moves the total as the model says: a 1.5 s CLI gets
 * fewer sessions than a 0.6 s one, a 0.3 s one more. */
START_TEST(wave_total_follows_cost)
{
	struct route_ssm_wave_in in = { .bytes = 20 * MiB, .cores = 2, .started = 2,
		.limit = ROUTE_SSM_MAX_SESSIONS, .idle_cores = 0, .setup_s = 1.4,
		.goodput_before = -1, .goodput_after = -1 };
	struct route_ssm_wave w;
	int slow, usual, quick;

	in.start_cpu_s = 1.5;
	route_plan_ssm_wave(&in, &w);
	slow = w.total;
	in.start_cpu_s = 0.6;
	route_plan_ssm_wave(&in, &w);
	usual = w.total;
	in.start_cpu_s = 0.3;
	route_plan_ssm_wave(&in, &w);
	quick = w.total;
	ck_assert_int_lt(slow, usual);
	ck_assert_int_lt(usual, quick);
	ck_assert_int_eq(usual, 12);
}
END_TEST

TCase *route_wave_tcase(void);

TCase *
route_wave_tcase(void)
{
	TCase *tc = tcase_create("wave");

	tcase_add_loop_test(tc, wave_table, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(tc, wave_total_follows_cost);
	return tc;
}

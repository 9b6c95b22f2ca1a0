/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* route_wave: when an SSM pool starts its next sessions, and how many it
 * starts in all, from what the copy measured (route_plan.h).
 *
 * A session's start is an aws CLI that burns CPU before it reaches AWS,
 * more or less of it with the CLI's version and the machine.  Started on
 * a timer, CLIs that take longer than the timer assumed overlap and share
 * the cores, and the first session comes up late.  So the next wave
 * starts when the last one's CLIs are done with their start-up work
 * (their CPU stopped growing and none of their processes is running or
 * waiting for a CPU: on a busy machine a CLI at work may burn little), or
 * when at the rate they burn they will be done before the next
 * measurement (an earlier wave told what a start costs), or at once when
 * whole cores are idle.
 *
 * How many sessions a copy is worth is route_ssm_sessions' count, at
 * first from the assumed start cost; once a session is up, from what its
 * start measured (CPU and wall time).  And a session that is up costs CPU
 * too (its plugin works on every message): with no CPU idle, one more
 * wave is started only while the latest wave measured raised the goodput
 * across all sessions by ROUTE_WAVE_GAIN at least (hill-climbing, as TCP
 * grows its window); when it did not, no more start (unless the user set
 * the count).  Nor does one start when, at the goodput measured, it
 * would end the copy only a little sooner, or not at all (the copy ends
 * before it is up).  The sessions up stay: closing one would only hand
 * its work to the others. */
#include "config.h"
#include "policy/route_plan.h"

#include <stdio.h>
#include <string.h>

/* A CLI still burning this much of a core is doing its start-up work (a
 * finished one waits on the network and burns next to nothing). */
#define ROUTE_WAVE_BUSY		0.1
/* Idle CPU worth a session's start: half a core ... */
#define ROUTE_WAVE_IDLE		0.5
/* ... and a whole one starts a session even beside busy CLIs. */
#define ROUTE_WAVE_IDLE_CORE	1.0
/* With no CPU idle, a wave has to raise the goodput by this much. */
#define ROUTE_WAVE_GAIN		0.10
/* A wave has to end the copy sooner by this much of what is left, as
 * projected: less is within what the projection misses by (sessions come
 * up later beside the new CLIs than the latest took), and its CLIs would
 * cost CPU for no time. */
#define ROUTE_WAVE_CUT		0.05

enum { WHY_ALL, WHY_IDLE_CORE, WHY_BUSY, WHY_MEASURING, WHY_DONE, WHY_SOON, WHY_CLIMB,
	WHY_NO_GAIN, WHY_ENDS };

/* The sessions the copy is worth in all from the measured start, 0 when
 * nothing is measured yet (or the count is the user's). */
static int
wave_total(const struct route_ssm_wave_in *in)
{
	struct route_ssm_cost c = { .cores = in->cores };

	if (in->fixed || in->bytes < 0 || (in->start_cpu_s < 0 && in->override_cpu_s <= 0))
		return 0;
	c.start_cpu_s = in->override_cpu_s > 0 ? in->override_cpu_s : in->start_cpu_s;
	/* Measured as zero (a CLI quicker than the clock's tick): the
	 * smallest the model takes. */
	if (c.start_cpu_s <= 0)
		c.start_cpu_s = 0.01;
	c.setup_s = in->setup_s > 0 ? in->setup_s : 0;
	return route_ssm_sessions(in->bytes, &c, ROUTE_SSM_MAX_SESSIONS, NULL);
}

/* When the copy ends, in seconds from now (-1: not known): the sessions
 * up move what is left at the goodput they make now, and each one coming
 * adds their mean share once it is up. */
static double
wave_ends_in(const struct route_ssm_wave_in *in)
{
	double at[ROUTE_MAX_CONNS], rate = in->moved_Bps, left = in->left_bytes, t = 0, share;
	int n = in->coming < ROUTE_MAX_CONNS ? in->coming : ROUTE_MAX_CONNS;

	if (!(left >= 0) || !(rate > 0) || in->up < 1 ||
	    (in->up_weight > 0 && in->up_weight < 1))
		return -1;
	/* A session just up made little of the goodput measured, and makes
	 * its whole share from now on. */
	share = rate / (in->up_weight > 0 ? in->up_weight : in->up);
	rate = share * in->up;
	memcpy(at, in->coming_in_s, sizeof(at[0]) * (size_t)(n > 0 ? n : 0));
	/* In the order they come up (a handful: insertion sort). */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && at[k] < at[k - 1]; k--) {
			double x = at[k];

			at[k] = at[k - 1];
			at[k - 1] = x;
		}
	for (int i = 0; i < n; i++) {
		double c = at[i] > t ? at[i] : t;

		if (left <= rate * (c - t))
			break;
		left -= rate * (c - t);
		t = c;
		rate += share;
	}
	return t + left / rate;
}

/* The step; the caller writes its reason. */
static char *
wave_act(struct route_ssm_wave *out, enum route_wave_act act, int why, int n)
{
	out->act = act;
	out->why = why;
	out->start = act == ROUTE_WAVE_START ? n : 0;
	return out->reason;
}

#define R sizeof(out->reason)

void
route_plan_ssm_wave(const struct route_ssm_wave_in *in, struct route_ssm_wave *out)
{
	int wave = in->cores > 0 ? in->cores : 1, cap = in->limit, left;
	double idle = in->idle_cores, gain, cpu_left = -1, ends;
	bool busy;

	memset(out, 0, sizeof(*out));
	out->total = wave_total(in);
	if (out->total > 0 && out->total < cap)
		cap = out->total;
	left = cap - in->started;
	if (left <= 0) {
		snprintf(wave_act(out, ROUTE_WAVE_STOP, WHY_ALL, 0), R,
		    "the sessions the copy is worth "
		    "have started");
		return;
	}
	if (left < wave)
		wave = left;
	/* A wave pays only once it is up (as long from now as the latest
	 * session took), and then shares what is left with the sessions up
	 * and coming: it ends the copy sooner by its share of what is left
	 * after it is up.  Under ROUTE_WAVE_CUT of what is left (nothing, if
	 * the copy ends first), its CLIs would take CPU from the sessions
	 * carrying the end for no time.  The user's count starts regardless. */
	if (!in->fixed && (ends = wave_ends_in(in)) >= 0) {
		int after = in->up + in->coming;
		double cut = ends > in->up_s ? (ends - in->up_s) * wave / (after + wave) : 0;

		if (cut < ROUTE_WAVE_CUT * ends) {
			snprintf(wave_act(out, ROUTE_WAVE_WAIT, WHY_ENDS, 0), R,
			    "the copy ends in about %.2f s (%.0f KiB/s now, %d more coming); "
			    "%d more, up in %.2f s as the latest, would end it %.2f s sooner, "
			    "under %.0f%%", ends, in->moved_Bps / 1024, in->coming, wave,
			    in->up_s, cut, ROUTE_WAVE_CUT * 100);
			return;
		}
	}
	busy = in->starting > 0 && (in->starting_cpu < 0 || in->starting_runnable > 0 ||
	    in->starting_cpu >= ROUTE_WAVE_BUSY * in->starting);
	/* Whole cores idle beside CLIs still at work: the sessions are not
	 * short of CPU, and a CLI started now slows nobody. */
	if (busy && idle >= ROUTE_WAVE_IDLE_CORE) {
		int n = (int)idle < wave ? (int)idle : wave;

		snprintf(wave_act(out, ROUTE_WAVE_START, WHY_IDLE_CORE, n), R,
		    "%.1f cores idle "
		    "beside the last wave's CLIs", idle);
		return;
	}
	if (in->starting > 0 && in->starting_cpu < 0) {
		snprintf(wave_act(out, ROUTE_WAVE_WAIT, WHY_MEASURING, 0), R,
		    "measuring the last wave's "
		    "CLIs");
		return;
	}
	/* The CLIs will be done before the next measurement, at the rate they
	 * burn now and the CPU an earlier wave's start took: the next wave
	 * starts now, with the cores they are about to free, so that no core
	 * waits a tick for the measurement that would see them done. */
	if (busy && in->tick_s > 0 && in->cli_cpu_s > 0 && in->starting_cpu > 0) {
		cpu_left = in->starting * in->cli_cpu_s - in->starting_cpu_s;
		if (cpu_left < 0)
			cpu_left = 0;
		if (cpu_left <= in->starting_cpu * in->tick_s) {
			busy = false;
			if (idle >= 0)
				idle += in->starting_cpu;
		} else
			cpu_left = -1;
	}
	if (busy) {
		snprintf(wave_act(out, ROUTE_WAVE_WAIT, WHY_BUSY, 0), R,
		    "the last wave's CLIs are still "
		    "starting (%.2f s of CPU so far, %.2f cores now, %d processes runnable)",
		    in->wave_cpu_s, in->starting_cpu, in->starting_runnable);
		return;
	}
	/* Done within a tick, with what they free a core for the next ones. */
	if (cpu_left >= 0 && (!(idle >= 0) || idle >= ROUTE_WAVE_IDLE)) {
		snprintf(wave_act(out, ROUTE_WAVE_START, WHY_SOON, wave), R,
		    "the last wave's CLIs "
		    "are done within %.2f s (%.2f s of CPU left at %.2f cores), %.1f cores "
		    "idle then", in->tick_s, cpu_left, in->starting_cpu, idle);
		return;
	}
	/* The CLIs are done: a core free enough for the next ones. */
	if (!(idle >= 0) || idle >= ROUTE_WAVE_IDLE) {
		snprintf(wave_act(out, ROUTE_WAVE_START, WHY_DONE, wave), R,
		    "the last wave's CLIs are done "
		    "(%.2f s of CPU), %.1f cores idle", in->wave_cpu_s, idle);
		return;
	}
	/* No CPU idle: the sessions up share it with the next ones' CLIs
	 * and relays.  Waves follow each other while the latest one measured
	 * paid; waiting for each to come up before the next would put a
	 * session's whole set-up time between two waves. */
	if (in->goodput_after < 0 || in->goodput_before <= 0) {
		snprintf(wave_act(out, ROUTE_WAVE_START, WHY_CLIMB, wave), R,
		    "the last wave's CLIs "
		    "are done (%.2f s of CPU), no idle CPU (%.1f cores), no gain measured yet",
		    in->wave_cpu_s, idle);
		return;
	}
	gain = in->goodput_after / in->goodput_before - 1;
	if (in->fixed || gain >= ROUTE_WAVE_GAIN) {
		snprintf(wave_act(out, ROUTE_WAVE_START, WHY_CLIMB, wave), R,
		    "no idle CPU (%.1f "
		    "cores), wave %d raised the goodput by %.0f%% (%.0f to %.0f KiB/s)", idle,
		    in->measured_wave, gain * 100, in->goodput_before / 1024,
		    in->goodput_after / 1024);
		return;
	}
	snprintf(wave_act(out, ROUTE_WAVE_STOP, WHY_NO_GAIN, 0), R, "no idle CPU (%.1f cores), "
	    "and wave %d raised the goodput by %.0f%% only (%.0f to %.0f KiB/s)", idle,
	    in->measured_wave, gain * 100, in->goodput_before / 1024, in->goodput_after / 1024);
}

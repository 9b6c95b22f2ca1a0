/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* session_climb: a direct route's climb during the copy (session_climb.c),
 * for session.c. */
#ifndef FSCP_SESSION_CLIMB_H
#define FSCP_SESSION_CLIMB_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/route_plan.h"
#include "util/cpuidle.h"

struct pool;

/* The climb of a direct route's connections during the copy: what
 * session_tick measured so far (the decisions are route_plan_climb's). */
struct session_climb {
	bool on;
	struct route_climb st;
	int room;			/* held connections left */
	double interval_s;
	double t0;			/* the interval's start; 0: none yet */
	uint64_t b0;			/* bytes moved at t0 */
	struct cpuidle_sample cpu0;	/* CPU at t0 */
	double add_t;			/* when the last ones started */
	double join_s;			/* how long they took to join; < 0: not known */
	double join_floor_s;		/* the first join takes at least this */
	bool joining;			/* some started since the last interval */
	bool counted;			/* conns less those a probe gave up */
	double settle_until;		/* no interval starts before (their ramp) */
};

/* The pool just opened (pending) may climb from conns connections, with
 * room more: the interval from the round trip measured so far (rtt_ms,
 * < 0: none).  A pool opened with nothing to start (room only) says
 * nothing of how long a connection takes to join: join_floor_s (< 0:
 * none) is what one took. */
void session_climb_begin(struct session_climb *c, struct pool *pending, int conns, int room,
    double window_Bps, double join_floor_s, double rtt_ms);
/* How often session_climb_tick wants to be called; 0: never (no climb). */
double session_climb_tick_s(const struct session_climb *c);
/* One tick of the climb with moved of total bytes moved: -1, or, when its
 * last step lowered the goodput, the time it started (the connections
 * that joined since take no more work). */
double session_climb_tick(struct session_climb *c, struct pool *pending, const struct route_facts *f,
    uint64_t moved, uint64_t total);

#endif

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* session_climb: the climb of a direct route's connections during the
 * copy, as TCP grows its window.  It measures each interval (goodput, idle
 * CPU, how long the last additions took to join) and carries out what
 * route_plan_climb decides from them: more connections from the pool's
 * room, or an end.  The main thread's, through session_tick. */
#include "config.h"
#include "session/session_climb.h"

#include <string.h>

#include "util/clock.h"
#include "util/log.h"
#include "policy/route_plan.h"
#include "session/pool.h"

void
session_climb_begin(struct session_climb *c, struct pool *pending, int conns, int room,
    double window_Bps, double join_floor_s, double rtt_ms)
{
	memset(c, 0, sizeof(*c));
	if (pending == NULL || room <= 0)
		return;
	c->on = true;
	c->st.conns = conns;
	c->st.before_Bps = -1;
	c->st.window_Bps = window_Bps;
	c->room = room;
	c->interval_s = route_plan_climb_interval_s(rtt_ms);
	c->add_t = clock_now() - pool_age(pending);
	c->join_s = -1;
	c->join_floor_s = join_floor_s;
	c->joining = true;
}

/* A fifth of an interval: its start and end are missed by that at most. */
double
session_climb_tick_s(const struct session_climb *c)
{
	return c->on ? c->interval_s / 5 : 0;
}

double
session_climb_tick(struct session_climb *c, struct pool *pending, const struct route_facts *f,
    uint64_t moved, uint64_t total)
{
	struct route_climb_measure m;
	struct cpuidle_sample now_cpu;
	double now = clock_now(), dt;
	char why[300];
	int add;

	if (!c->on)
		return -1;
	/* An interval counts only once every connection started is in. */
	if (pool_coming(pending) > 0) {
		c->t0 = 0;
		return -1;
	}
	if (!c->counted) {
		/* Every connection is in, so a probing pool has decided how
		 * many of its planned ones run. */
		c->st.conns -= pool_dropped(pending);
		c->counted = true;
	}
	if (c->joining) {
		c->join_s = now - c->add_t;
		if (c->join_s < c->join_floor_s)
			c->join_s = c->join_floor_s;
		c->join_floor_s = -1;
		c->joining = false;
		c->settle_until = now + route_plan_climb_settle_s(&c->st, c->interval_s);
	}
	if (c->t0 == 0) {
		if (moved < route_plan_climb_settle_bytes(&c->st) || now < c->settle_until)
			return -1;
		c->t0 = now;
		c->b0 = moved;
		cpuidle_sample(&c->cpu0);
		return -1;
	}
	if ((dt = now - c->t0) < c->interval_s)
		return -1;
	cpuidle_sample(&now_cpu);
	m.goodput_Bps = (double)(moved - c->b0) / dt;
	m.idle_cores = cpuidle_cores(&c->cpu0, &now_cpu);
	m.left_s = m.goodput_Bps > 0 && total > moved ? (double)(total - moved) / m.goodput_Bps :
	    total > moved ? -1 : 0;
	m.join_s = c->join_s;
	m.room = c->room;
	m.interval_s = c->interval_s;
	add = route_plan_climb(f, &c->st, &m, why, sizeof(why));
	log_route("%s", why);
	if (c->st.done) {
		pool_climb_end(pending);
		c->on = false;
		/* The last step's connections joined after it started. */
		return add < 0 ? c->add_t : -1;
	}
	add = pool_climb(pending, add);
	c->room -= add;
	c->add_t = now;
	c->joining = add > 0;
	c->t0 = 0;
	return -1;
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* clock: seconds on the monotonic clock, for rates, deadlines and -v timings. */
#ifndef FSCP_CLOCK_H
#define FSCP_CLOCK_H

#include <time.h>

static inline double
clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The same in whole milliseconds, for poll() deadlines. */
static inline long long
clock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The CLOCK_REALTIME instant s seconds from now, as pthread_cond_timedwait
 * takes it. */
static inline struct timespec
clock_deadline(double s)
{
	struct timespec ts;
	long long ns = s > 0 ? (long long)(s * 1e9) : 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ns / 1000000000LL);
	ts.tv_nsec += (long)(ns % 1000000000LL);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

#endif

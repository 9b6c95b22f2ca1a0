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

#endif

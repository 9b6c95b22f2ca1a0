/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* bwlimit: one shared pacing clock for all threads (see bwlimit.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "engine/bwlimit.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* Debts shorter than this are carried over instead of slept off, so that
 * small writes at high limits do not cost a syscall each; the average is
 * unchanged because the next sleep pays them. */
#define BWLIMIT_MIN_SLEEP 0.002

struct bwlimit {
	pthread_mutex_t lock;
	double sec_per_byte;
	double booked;		/* monotonic time the booked bytes end at */
	bool started;
};

static void
bw_sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR)
		;
}

struct bwlimit *
bwlimit_new(long long bits_per_sec)
{
	struct bwlimit *b;

	if (bits_per_sec <= 0)
		return NULL;
	b = xcalloc(1, sizeof(*b));
	pthread_mutex_init(&b->lock, NULL);
	b->sec_per_byte = 8.0 / (double)bits_per_sec;
	return b;
}

void
bwlimit_account(struct bwlimit *b, size_t bytes)
{
	double now, wake;

	if (b == NULL || bytes == 0)
		return;
	now = clock_now();
	pthread_mutex_lock(&b->lock);
	/* Idle time earns no credit (scp restarts its window after each
	 * check too): bookings start no earlier than now. */
	if (!b->started || b->booked < now) {
		b->booked = now;
		b->started = true;
	}
	b->booked += (double)bytes * b->sec_per_byte;
	wake = b->booked;
	pthread_mutex_unlock(&b->lock);
	if (wake - now >= BWLIMIT_MIN_SLEEP)
		bw_sleep_until(wake);
}

void
bwlimit_free(struct bwlimit *b)
{
	if (b == NULL)
		return;
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* The pool over a fake dialer: connections that come up at once, late,
 * fail or die after login; what the pool delivers, that it joins every
 * thread, and that no job gets two threads (the first connection's late
 * banner starting the others while pool_start still starts the first). */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check_main.h"
#include "policy/route.h"
#include "session/pool.h"
#include "sftp/sftp.h"

/* How the fake behaves: set by each test before pool_start. */
struct fake_how {
	int fail_nth;		/* this open call (1..) fails; 0: none */
	int die_nth;		/* this connection's streams fail after login */
	bool late;		/* every open but the first's takes a while */
	double banner_ms;	/* > 0: the lead's banner "came" this late */
	double rtt_ms;		/* what measure_rtt says */
};

static struct fake_how fake;
static atomic_int opens;	/* open calls */
static atomic_int live_ssh;	/* fake connections not closed (refs > 0) */
static atomic_int live_sftp;	/* fake SFTP sessions not closed */
static atomic_int granted;	/* channels the fake streams gave */
static atomic_int measured;	/* measure_rtt calls */
static atomic_int limits_asked;	/* streams told the limits may go with the hello */

/* The jobs open was called for (its cb_arg), and how often each. */
#define FAKE_MAX_JOBS 64
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static const void *seen[FAKE_MAX_JOBS];
static int seen_n[FAKE_MAX_JOBS];
static int nseen;

struct fake_ssh {
	atomic_int refs;
	int nth;
};

static void
fake_reset(struct fake_how h)
{
	fake = h;
	atomic_store(&opens, 0);
	atomic_store(&granted, 0);
	atomic_store(&measured, 0);
	atomic_store(&limits_asked, 0);
	pthread_mutex_lock(&seen_lock);
	nseen = 0;
	pthread_mutex_unlock(&seen_lock);
}

static void
fake_saw(const void *job)
{
	pthread_mutex_lock(&seen_lock);
	int i = 0;

	while (i < nseen && seen[i] != job)
		i++;
	if (i == nseen && nseen < FAKE_MAX_JOBS) {
		seen[nseen] = job;
		seen_n[nseen++] = 0;
	}
	if (i < FAKE_MAX_JOBS)
		seen_n[i]++;
	pthread_mutex_unlock(&seen_lock);
}

static enum sshconn_err
fake_open(const struct sshconn_params *p, struct sshconn **out, char *err, size_t errlen)
{
	int nth = atomic_fetch_add(&opens, 1) + 1;
	struct fake_ssh *c;

	fake_saw(p->cb_arg);
	/* Only the lead is told of its banner: a late one starts the others
	 * from here, while pool_start may still be starting the first. */
	if (p->on_first_byte != NULL && fake.banner_ms > 0)
		p->on_first_byte(p->cb_arg, fake.banner_ms);
	if (fake.late && p->on_first_byte == NULL)
		usleep(20000);
	if (nth == fake.fail_nth) {
		snprintf(err, errlen, "fake: connection %d refused", nth);
		return SSHCONN_ERR_CONNECT;
	}
	c = calloc(1, sizeof(*c));
	ck_assert_ptr_nonnull(c);
	atomic_init(&c->refs, 1);
	c->nth = nth;
	atomic_fetch_add(&live_ssh, 1);
	*out = (struct sshconn *)c;
	return SSHCONN_OK;
}

static double
fake_measure(struct sshconn *c, bool free_only)
{
	(void)c;
	/* A fake login measures nothing on its way. */
	if (free_only)
		return -1;
	atomic_fetch_add(&measured, 1);
	return fake.rtt_ms;
}

static int
fake_stream_close(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct fscp_stream_ops fake_stream_ops = { .close = fake_stream_close };

static int
fake_streams(struct sshconn *c, int n, bool ask_limits, struct fscp_stream *out,
    struct sftp_hello *sent, char *err, size_t errlen)
{
	struct fake_ssh *f = (struct fake_ssh *)c;

	if (ask_limits)
		atomic_fetch_add(&limits_asked, 1);
	sent->len = 0;
	sent->limits = false;

	if (f->nth == fake.die_nth) {
		snprintf(err, errlen, "fake: connection %d died", f->nth);
		return -1;
	}
	for (int i = 0; i < n; i++)
		out[i] = (struct fscp_stream){ .ops = &fake_stream_ops, .desc = "fake" };
	atomic_fetch_add(&granted, n);
	return n;
}

static struct sshconn *
fake_ref(struct sshconn *c)
{
	atomic_fetch_add(&((struct fake_ssh *)c)->refs, 1);
	return c;
}

static struct sftp_conn *
fake_sftp(struct fscp_stream st, size_t buflen, const struct sftp_hello *sent,
    struct sftp_limits *known, double rtt_ms, char *err, size_t errlen)
{
	(void)st, (void)buflen, (void)sent, (void)rtt_ms, (void)err, (void)errlen;
	known->known = true;
	atomic_fetch_add(&live_sftp, 1);
	return malloc(1);
}

static void
fake_undo(struct sftp_conn *sftp, struct sshconn *ssh, pid_t pid)
{
	struct fake_ssh *f = (struct fake_ssh *)ssh;

	(void)pid;
	if (sftp != NULL) {
		free(sftp);
		atomic_fetch_sub(&live_sftp, 1);
	}
	if (f != NULL && atomic_fetch_sub(&f->refs, 1) == 1) {
		free(f);
		atomic_fetch_sub(&live_ssh, 1);
	}
}

static const struct pool_dialer fake_dial = {
	.open = fake_open, .measure_rtt = fake_measure, .streams = fake_streams,
	.ref = fake_ref, .sftp = fake_sftp, .undo = fake_undo,
};

static struct fscp_opts opts;
static struct sshcfg cfg;

/* Every job's thread ran open once at most; returns how many did. */
static int
fake_jobs_once(void)
{
	int n;

	pthread_mutex_lock(&seen_lock);
	n = nseen;
	for (int i = 0; i < nseen; i++)
		ck_assert_msg(seen_n[i] == 1, "job %d was started %d times", i, seen_n[i]);
	pthread_mutex_unlock(&seen_lock);
	return n;
}

/* After pool_end: nothing open (a thread nobody joined leaves its
 * connection behind). */
static void
fake_none_open(void)
{
	int ssh = atomic_load(&live_ssh), sftp = atomic_load(&live_sftp);

	ck_assert_msg(ssh == 0, "%d connections left open", ssh);
	ck_assert_msg(sftp == 0, "%d SFTP sessions left open", sftp);
}

/* Take every channel the pool delivers (pool_next), close it, end the
 * pool; returns how many came.  Nothing may be left open after. */
static int
drain_and_end(struct pool *b)
{
	struct pool_conn c;
	int got = 0;

	while (pool_next(b, &c)) {
		ck_assert_ptr_nonnull(c.sftp);
		ck_assert_ptr_nonnull(c.ssh);
		fake_undo(c.sftp, c.ssh, c.pid);
		got++;
	}
	pool_end(b, false);
	fake_none_open();
	return got;
}

START_TEST(all_at_once)
{
	struct pool_how h = { .n = 4, .per = 1, .dial = &fake_dial };
	struct pool_conn out[4];
	struct pool *b;

	fake_reset((struct fake_how){ .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	ck_assert(!pool_wait(b, false));
	ck_assert_int_eq(pool_size(b), 4);
	ck_assert_int_eq(pool_up(b), 4);
	ck_assert_int_eq(pool_take_done(b, out), 4);
	for (int i = 0; i < 4; i++)
		fake_undo(out[i].sftp, out[i].ssh, out[i].pid);
	ck_assert_int_eq(drain_and_end(b), 0);
	ck_assert_int_eq(fake_jobs_once(), 4);
}
END_TEST

START_TEST(channels_each)
{
	struct pool_how h = { .n = 3, .per = 4, .dial = &fake_dial };
	struct pool *b;

	fake_reset((struct fake_how){ .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	pool_wait_all(b);
	ck_assert_int_eq(pool_up(b), 3);
	/* As many channels as the connections opened (route_channels says
	 * how many of per), each delivered once. */
	int asked = atomic_load(&granted);

	ck_assert_int_ge(asked, 3);
	ck_assert_int_le(asked, 12);
	ck_assert_int_eq(drain_and_end(b), asked);
	ck_assert_int_eq(fake_jobs_once(), 3);
}
END_TEST

START_TEST(late_ones)
{
	struct pool_how h = { .n = 5, .per = 1, .dial = &fake_dial };

	fake_reset((struct fake_how){ .late = true, .rtt_ms = 50 });
	ck_assert_int_eq(drain_and_end(pool_start(&opts, &cfg, &h)), 5);
	ck_assert_int_eq(fake_jobs_once(), 5);
}
END_TEST

START_TEST(one_fails)
{
	struct pool_how h = { .n = 4, .per = 1, .dial = &fake_dial };
	struct pool *b;

	fake_reset((struct fake_how){ .fail_nth = 3, .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	pool_wait_all(b);
	ck_assert_int_eq(pool_up(b), 3);
	ck_assert_int_eq(drain_and_end(b), 3);
	ck_assert_int_eq(fake_jobs_once(), 4);
}
END_TEST

START_TEST(first_fails)
{
	struct pool_how h = { .n = 4, .per = 1, .probe = true, .dial = &fake_dial };
	struct pool *b;

	/* A probing pool's first connection fails: the caller is told (and
	 * why), and the others never start. */
	fake_reset((struct fake_how){ .fail_nth = 1, .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	ck_assert(pool_wait(b, false));
	ck_assert_str_eq(pool_first_error(b), "fake: connection 1 refused");
	ck_assert_int_eq(drain_and_end(b), 0);
	ck_assert_int_eq(fake_jobs_once(), 1);
}
END_TEST

START_TEST(one_dies)
{
	struct pool_how h = { .n = 4, .per = 2, .dial = &fake_dial };

	/* Logged in, then no channel: not delivered, its session closed. */
	fake_reset((struct fake_how){ .die_nth = 2, .rtt_ms = 50 });
	int got = drain_and_end(pool_start(&opts, &cfg, &h));

	ck_assert_int_eq(got, atomic_load(&granted));
	ck_assert_int_ge(got, 3);
	ck_assert_int_eq(fake_jobs_once(), 4);
}
END_TEST

START_TEST(end_while_connecting)
{
	struct pool_how h = { .n = 6, .per = 2, .dial = &fake_dial };

	/* Ended at once: every thread is joined, nothing stays open. */
	fake_reset((struct fake_how){ .late = true, .rtt_ms = 50 });
	pool_end(pool_start(&opts, &cfg, &h), false);
	fake_none_open();
	ck_assert_int_le(fake_jobs_once(), 6);
}
END_TEST

START_TEST(late_banner_starts_once)
{
	/* The lead's banner is late (a far server): it starts the others
	 * from its own thread, maybe while pool_start is still in its loop;
	 * each job must still get one thread (commit 60f6568). */
	for (int round = 0; round < 200; round++) {
		struct pool_how h = { .n = 4, .per = 1, .probe = true, .dial = &fake_dial };

		fake_reset((struct fake_how){ .banner_ms = 50, .rtt_ms = 50 });
		ck_assert_int_eq(drain_and_end(pool_start(&opts, &cfg, &h)), 4);
		ck_assert_int_eq(atomic_load(&opens), 4);
		ck_assert_int_eq(fake_jobs_once(), 4);
	}
}
END_TEST

/* The climb: held connections wait, neither started nor given up, while
 * the copy may still climb; pool_climb starts them, pool_climb_end lets
 * pool_next say there are no more. */
START_TEST(climb_room)
{
	struct pool_how h = { .n = 2, .per = 1, .room = 3, .dial = &fake_dial };
	struct pool_conn out[5];
	struct pool *b;

	fake_reset((struct fake_how){ .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	ck_assert_int_eq(pool_size(b), 5);
	/* Files are cut for the planned ones, not the room. */
	ck_assert_int_eq(pool_count_planned(b), 2);
	ck_assert(!pool_wait(b, false));	/* the held ones are not waited for */
	ck_assert_int_eq(pool_up(b), 2);
	ck_assert_int_eq(pool_take_done(b, out), 2);
	ck_assert_int_eq(pool_coming(b), 0);
	ck_assert_int_eq(pool_count(b), 3);	/* the copy may still get them */
	ck_assert_int_eq(pool_count_planned(b), 0);
	ck_assert_int_eq(pool_climb(b, 2), 2);
	ck_assert_int_eq(pool_count_planned(b), 2);
	pool_wait_all(b);
	ck_assert_int_eq(pool_up(b), 4);
	ck_assert_int_eq(pool_climb(b, 5), 1);	/* only what is held */
	pool_climb_end(b);
	ck_assert_int_eq(pool_climb(b, 1), 0);
	for (int i = 0; i < 2; i++)
		fake_undo(out[i].sftp, out[i].ssh, out[i].pid);
	/* The two (or three) started by the climb, then no more. */
	ck_assert_int_ge(drain_and_end(b), 2);
	ck_assert_int_le(fake_jobs_once(), 5);
}
END_TEST

/* Channels are sized for the connections that run, not for the room the
 * climb may still take: 4 far connections with room for 12 more each ask
 * what 4 need (with the room counted they asked for one each, and a far
 * copy ran at a quarter of its windows). */
START_TEST(climb_room_channels)
{
	struct pool_how h = { .n = 4, .per = ROUTE_MAX_CHANNELS, .room = 12, .dial = &fake_dial };
	int each = route_channels(50, 4, ROUTE_MAX_CHANNELS);
	struct pool *b;

	ck_assert_int_gt(each, route_channels(50, 16, ROUTE_MAX_CHANNELS));
	fake_reset((struct fake_how){ .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	ck_assert(!pool_wait(b, false));
	ck_assert_int_eq(pool_up(b), 4);
	ck_assert_int_eq(atomic_load(&granted), 4 * each);
	pool_climb_end(b);
	ck_assert_int_eq(drain_and_end(b), 4 * each);
}
END_TEST

/* One keepalive per pool: a connection that comes up after the first
 * measured takes its round trip (the same way to the same server), and a
 * probing pool's lead with one channel needs none once its far banner
 * has started the others.  A near lead measures: its count depends on it. */
START_TEST(rtt_once)
{
	struct pool_how h = { .n = 1, .per = ROUTE_MAX_CHANNELS, .room = 3, .dial = &fake_dial };
	int each = route_channels(50, 3, ROUTE_MAX_CHANNELS);
	struct pool *b;

	fake_reset((struct fake_how){ .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	ck_assert(!pool_wait(b, false));
	ck_assert_int_eq(atomic_load(&measured), 1);
	ck_assert_int_eq(pool_climb(b, 2), 2);
	pool_wait_all(b);
	pool_climb_end(b);
	ck_assert_int_eq(pool_up(b), 3);
	ck_assert_int_eq(atomic_load(&measured), 1);
	/* Each knew the round trip before its channels: the limits request
	 * may go with their hello. */
	ck_assert_int_eq(atomic_load(&limits_asked), 3);
	/* The climbed ones sized their channels from the first's round trip. */
	ck_assert_int_eq(atomic_load(&granted),
	    route_channels(50, 1, ROUTE_MAX_CHANNELS) + 2 * each);
	ck_assert_int_eq(drain_and_end(b), atomic_load(&granted));

	struct pool_how far = { .n = 4, .per = 1, .probe = true, .dial = &fake_dial };

	fake_reset((struct fake_how){ .banner_ms = 50, .rtt_ms = 50 });
	ck_assert_int_eq(drain_and_end(pool_start(&opts, &cfg, &far)), 4);
	ck_assert_int_eq(atomic_load(&measured), 0);
	/* No round trip known: the limits request measures one. */
	ck_assert_int_eq(atomic_load(&limits_asked), 0);

	fake_reset((struct fake_how){ .rtt_ms = 0.2 });
	b = pool_start(&opts, &cfg, &far);
	pool_wait_all(b);
	ck_assert_int_eq(atomic_load(&measured), 1);
	ck_assert_int_eq(drain_and_end(b) > 0, 1);
}
END_TEST

/* A climb that ends before it started anything: the copy's pool_next
 * returns once the planned ones are taken. */
START_TEST(climb_ends_unused)
{
	struct pool_how h = { .n = 1, .per = 1, .room = 4, .dial = &fake_dial };
	struct pool *b;

	fake_reset((struct fake_how){ .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	ck_assert(!pool_wait(b, false));
	pool_climb_end(b);
	ck_assert_int_eq(drain_and_end(b), 1);
	ck_assert_int_eq(fake_jobs_once(), 1);
}
END_TEST

/* A pool of room only (the copy is measured on ssh's connection first):
 * it grows by the climb alone, so its room is what files are cut for. */
START_TEST(climb_room_only)
{
	struct pool_how h = { .n = 0, .per = 2, .room = 3, .dial = &fake_dial };
	struct pool *b;

	fake_reset((struct fake_how){ .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	ck_assert_int_eq(pool_count(b), 6);
	ck_assert_int_eq(pool_count_planned(b), 6);
	pool_climb_end(b);
	ck_assert_int_eq(drain_and_end(b), 0);
	ck_assert_int_eq(fake_jobs_once(), 0);
}
END_TEST

/* A speculative pool with room, adopted while its one connection is still
 * coming (the listing was quicker): it stands for its planned connection,
 * not its room; the climb goes on in it, and its room then counts for the
 * pieces as a pool of room only does.  A speculative one not adopted
 * counts its planned one alone. */
START_TEST(spec_adopted_room)
{
	struct pool_how h = { .n = 1, .per = 2, .room = 3, .spec = true, .dial = &fake_dial };
	struct pool *b;

	fake_reset((struct fake_how){ .rtt_ms = 50 });
	b = pool_start(&opts, &cfg, &h);
	ck_assert(pool_speculative(b));
	ck_assert_int_eq(pool_room(b), 3);
	ck_assert_int_eq(pool_count_planned(b), 2);
	ck_assert_int_eq(pool_adopt(b, 1), 1);
	ck_assert(!pool_speculative(b));
	ck_assert_int_eq(pool_count_planned(b), 8);
	ck_assert_int_eq(pool_climb(b, 2), 2);
	ck_assert_int_eq(pool_room(b), 1);
	pool_wait_all(b);
	ck_assert_int_eq(pool_up(b), 3);
	pool_climb_end(b);
	ck_assert_int_eq(pool_room(b), 0);
	ck_assert_int_eq(drain_and_end(b), 6);
	ck_assert_int_le(fake_jobs_once(), 3);
}
END_TEST

static Suite *
pool_suite(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("fake dialer");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, all_at_once);
	tcase_add_test(tc, climb_room);
	tcase_add_test(tc, climb_room_channels);
	tcase_add_test(tc, rtt_once);
	tcase_add_test(tc, climb_ends_unused);
	tcase_add_test(tc, climb_room_only);
	tcase_add_test(tc, spec_adopted_room);
	tcase_add_test(tc, channels_each);
	tcase_add_test(tc, late_ones);
	tcase_add_test(tc, one_fails);
	tcase_add_test(tc, first_fails);
	tcase_add_test(tc, one_dies);
	tcase_add_test(tc, end_while_connecting);
	tcase_add_test(tc, late_banner_starts_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(pool_suite());
}

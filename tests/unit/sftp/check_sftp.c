/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for sftp's reading of replies: a scripted stream hands out
 * VERSION and then DATA replies of every size up to the largest message,
 * in reads of random lengths (as a channel does: whatever has come, at
 * most what was asked).  Every reply must come out whole and in order,
 * and the input buffer must stay near twice the largest message however
 * the reads fall (one buffer per SFTP channel, up to 24 channels in a far
 * download). */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check_main.h"
#include "sftp/sftp.h"
#include "sftp/sftp_conn.h"

struct script {
	uint8_t *d;
	size_t len, off;
	unsigned seed;
	bool full;	/* every read as long as asked */
	uint8_t wrote[256];	/* what the client sent (the first bytes) */
	size_t nwrote;
};

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static ssize_t
script_read(void *ctx, void *buf, size_t n)
{
	struct script *s = ctx;
	size_t m = s->len - s->off;

	if (m == 0)
		return 0;
	if (m > n)
		m = n;
	if (!s->full)
		m = 1 + (size_t)rand_r(&s->seed) % m;
	memcpy(buf, s->d + s->off, m);
	s->off += m;
	return (ssize_t)m;
}

static ssize_t
script_write(void *ctx, const void *buf, size_t n)
{
	struct script *s = ctx;
	size_t room = sizeof(s->wrote) - s->nwrote;

	memcpy(s->wrote + s->nwrote, buf, n < room ? n : room);
	s->nwrote += n < room ? n : room;
	return (ssize_t)n;
}

static int
script_close(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct fscp_stream_ops script_ops = {
	.read = script_read,
	.write = script_write,
	.close = script_close,
};

#define NREPLIES 200

/* VERSION 3 without extensions, then NREPLIES DATA replies whose payload
 * byte k of reply i is (i + k) & 0xff. */
static void
script_build(struct script *s, unsigned seed)
{
	size_t cap = 9 + (size_t)NREPLIES * SFTP_MAX_MSG_LENGTH;

	s->d = malloc(cap);
	ck_assert_ptr_nonnull(s->d);
	put32(s->d, 5);
	s->d[4] = 2;	/* SSH_FXP_VERSION */
	put32(s->d + 5, 3);
	s->len = 9;
	for (uint32_t i = 0; i < NREPLIES; i++) {
		/* Sizes from 0 to the largest DATA a message holds. */
		uint32_t dlen = i == 0 ? SFTP_MAX_MSG_LENGTH - 13 :
		    (uint32_t)rand_r(&seed) % (SFTP_MAX_MSG_LENGTH - 12);
		uint8_t *p = s->d + s->len;

		put32(p, 9 + dlen);
		p[4] = 103;	/* SSH_FXP_DATA */
		put32(p + 5, i + 1);
		put32(p + 9, dlen);
		for (uint32_t k = 0; k < dlen; k++)
			p[13 + k] = (uint8_t)(i + k);
		s->len += 13 + (size_t)dlen;
	}
	s->off = 0;
	s->seed = seed;
}

static void
replies_whole(bool full, unsigned seed)
{
	struct script s;
	struct fscp_stream st = { &script_ops, &s, "script" };
	struct sftp_conn *c;
	char err[128];
	size_t most = 0;

	memset(&s, 0, sizeof(s));
	script_build(&s, seed);
	s.full = full;
	c = sftp_open(st, 0, NULL, err, sizeof(err));
	ck_assert_msg(c != NULL, "%s", err);
	for (uint32_t i = 0; i < NREPLIES; i++) {
		struct sftp_reply r;

		ck_assert_int_eq(sftp_recv(c, &r), 0);
		ck_assert_uint_eq(r.type, 103);
		ck_assert_uint_eq(r.id, i + 1);
		for (uint32_t k = 0; k < r.data_len; k++)
			if (r.data[k] != (uint8_t)(i + k))
				ck_abort_msg("reply %u byte %u is %u", i, k, r.data[k]);
		if (c->in.cap > most)
			most = c->in.cap;
	}
	ck_assert_uint_eq(s.off, s.len);
	ck_assert_uint_le(most, 2 * SFTP_MAX_MSG_LENGTH);
	sftp_close(c);
	free(s.d);
}

START_TEST(test_short_reads)
{
	replies_whole(false, 1000u + (unsigned)_i);
}
END_TEST

START_TEST(test_full_reads)
{
	replies_whole(true, 2000u + (unsigned)_i);
}
END_TEST

/* VERSION 3 with limits@openssh.com, then (when asked) its reply:
 * packets of 256 KiB, reads of 200000, writes of 100000, 64 handles. */
static void
script_limits(struct script *s, bool reply)
{
	static const char ext[] = "limits@openssh.com";
	uint8_t *p;

	memset(s, 0, sizeof(*s));
	s->d = calloc(1, 256);
	ck_assert_ptr_nonnull(s->d);
	p = s->d;
	put32(p, 5 + 4 + 18 + 4 + 1);
	p[4] = 2;	/* SSH_FXP_VERSION */
	put32(p + 5, 3);
	put32(p + 9, 18);
	memcpy(p + 13, ext, 18);
	put32(p + 31, 1);
	p[35] = '1';
	s->len = 36;
	if (reply) {
		p = s->d + s->len;
		put32(p, 1 + 4 + 32);
		p[4] = 201;	/* SSH_FXP_EXTENDED_REPLY */
		put32(p + 5, 1);
		memset(p + 9, 0, 32);
		put32(p + 9 + 4, 262144);
		put32(p + 17 + 4, 200000);
		put32(p + 25 + 4, 100000);
		put32(p + 33 + 4, 64);
		s->len += 41;
	}
	s->full = true;
}

/* script_limits' sizes, taken. */
static void
limits_taken(const struct sftp_conn *c)
{
	ck_assert(c->has_limits);
	ck_assert_uint_eq(c->max_read, 200000);
	ck_assert_uint_eq(c->max_write, 100000);
	ck_assert_uint_eq(c->max_handles, 64);
}

/* What a sibling connection found. */
static const struct sftp_limits sibling = { .known = true, .has_limits = true,
	.max_read = 1234, .max_write = 4321, .max_handles = 7, .rtt_ms = 12.5 };

/* No sibling: INIT, then the limits asked and used; the same after a
 * hello that sent nothing. */
START_TEST(test_open_asks)
{
	struct script s;
	struct fscp_stream st = { &script_ops, &s, "script" };
	static const uint8_t init[9] = { 0, 0, 0, 5, 1, 0, 0, 0, 3 };
	const struct sftp_hello none = { .len = 0 };
	char err[128];
	struct sftp_conn *c;

	for (int k = 0; k < 2; k++) {
		script_limits(&s, true);
		c = k == 0 ? sftp_open(st, 0, NULL, err, sizeof(err)) :
		    sftp_open_sent(st, 0, NULL, &none, err, sizeof(err));
		ck_assert_msg(c != NULL, "%s", err);
		ck_assert_uint_gt(s.nwrote, sizeof(init));
		ck_assert_mem_eq(s.wrote, init, sizeof(init));
		ck_assert_uint_eq(s.wrote[sizeof(init) + 4], 200);	/* SSH_FXP_EXTENDED */
		limits_taken(c);
		ck_assert(c->rtt_ms >= 0);
		sftp_close(c);
		free(s.d);
	}
}
END_TEST

/* A sibling's limits: only INIT goes out, and the sibling's sizes (and
 * round trip) are taken. */
START_TEST(test_open_sibling)
{
	struct script s;
	struct fscp_stream st = { &script_ops, &s, "script" };
	char err[128];
	struct sftp_conn *c;

	script_limits(&s, false);
	c = sftp_open(st, 0, &sibling, err, sizeof(err));
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(s.nwrote, 9);
	ck_assert_uint_eq(c->max_read, 1234);
	ck_assert_uint_eq(c->max_write, 4321);
	ck_assert_uint_eq(c->max_handles, 7);
	ck_assert(c->rtt_ms == 12.5);
	sftp_close(c);
	free(s.d);
}
END_TEST

/* A sibling's limits count only where the server offers the extension. */
START_TEST(test_open_sibling_needs_extension)
{
	struct script s;
	struct fscp_stream st = { &script_ops, &s, "script" };
	struct sftp_limits sib = { .known = true, .has_limits = true, .max_read = 1234,
	    .max_write = 4321, .rtt_ms = 1 };
	char err[128];
	struct sftp_conn *c;

	memset(&s, 0, sizeof(s));
	script_build(&s, 7);	/* VERSION without extensions */
	c = sftp_open(st, 0, &sib, err, sizeof(err));
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(s.nwrote, 9);
	ck_assert(!c->has_limits);
	ck_assert_uint_eq(c->max_read, 32768);
	ck_assert_uint_eq(c->max_write, 32768);
	sftp_close(c);
	free(s.d);
}
END_TEST

/* The hello: INIT, then the limits request with the session's first id. */
START_TEST(test_hello_bytes)
{
	static const uint8_t init[9] = { 0, 0, 0, 5, 1, 0, 0, 0, 3 };
	struct sftp_hello h;

	sftp_hello_make(&h, false);
	ck_assert_uint_eq(h.len, sizeof(init));
	ck_assert(!h.limits);
	ck_assert_mem_eq(h.bytes, init, sizeof(init));
	sftp_hello_make(&h, true);
	ck_assert(h.limits);
	ck_assert_uint_eq(h.len, sizeof(init) + 4 + 1 + 4 + 4 + 18);
	ck_assert_mem_eq(h.bytes, init, sizeof(init));
	ck_assert_uint_eq(h.bytes[9 + 3], 1 + 4 + 4 + 18);
	ck_assert_uint_eq(h.bytes[9 + 4], 200);	/* SSH_FXP_EXTENDED */
	ck_assert_uint_eq(h.bytes[9 + 8], 1);	/* id */
	ck_assert_mem_eq(h.bytes + 9 + 13, "limits@openssh.com", 18);
}
END_TEST

/* The hello went out with the subsystem request: nothing is written
 * again, the limits' answer that follows VERSION is read and used (a
 * sibling's notwithstanding: the answer must be read anyway), it measures
 * no round trip, and the next request takes the next id. */
START_TEST(test_open_sent)
{
	struct script s;
	struct fscp_stream st = { &script_ops, &s, "script" };
	struct sftp_hello h;
	char err[128];
	struct sftp_conn *c;

	sftp_hello_make(&h, true);
	for (int with_sib = 0; with_sib < 2; with_sib++) {
		script_limits(&s, true);
		c = sftp_open_sent(st, 0, with_sib ? &sibling : NULL, &h, err, sizeof(err));
		ck_assert_msg(c != NULL, "%s", err);
		ck_assert_uint_eq(s.nwrote, 0);
		ck_assert_uint_eq(s.off, s.len);
		limits_taken(c);
		ck_assert(c->rtt_ms < 0);
		ck_assert_uint_eq(sftp_new_id(c), 2);
		sftp_close(c);
		free(s.d);
	}
}
END_TEST

/* Asked with the hello of a server that does not know the extension: its
 * status is read, and the sizes are the defaults; a stream that ends
 * after VERSION is closed. */
START_TEST(test_open_sent_unknown)
{
	/* VERSION 3 without extensions, then STATUS 8 (unsupported) for id 1. */
	static const uint8_t answers[9 + 21] = { 0, 0, 0, 5, 2, 0, 0, 0, 3,
	    0, 0, 0, 17, 101, 0, 0, 0, 1, 0, 0, 0, 8 };
	struct script s = { .d = (uint8_t *)answers, .len = sizeof(answers), .full = true };
	struct sftp_hello h;
	char err[128];
	struct sftp_conn *c;

	sftp_hello_make(&h, true);
	c = sftp_open_sent((struct fscp_stream){ &script_ops, &s, "script" }, 0, NULL, &h, err,
	    sizeof(err));
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(s.off, s.len);
	ck_assert(!c->has_limits);
	ck_assert_uint_eq(c->max_read, 32768);
	ck_assert_uint_eq(c->max_write, 32768);
	sftp_close(c);
	s.off = 0;
	s.len = 9;
	ck_assert_ptr_null(sftp_open_sent((struct fscp_stream){ &script_ops, &s, "script" }, 0,
	    NULL, &h, err, sizeof(err)));
	ck_assert_str_eq(err, SFTP_CLOSED);
}
END_TEST

/* INIT answered by a STATUS: scp's error() line, with the type; a stream
 * that ends before any answer: SFTP_CLOSED (scp's fatal()). */
START_TEST(test_open_refused)
{
	static const uint8_t status[9 + 12] = { 0, 0, 0, 17, 101, 0, 0, 0, 0, 0, 0, 0, 4 };
	struct script s;
	struct fscp_stream st = { &script_ops, &s, "script" };
	char err[128];

	memset(&s, 0, sizeof(s));
	s.d = (uint8_t *)status;
	s.len = sizeof(status);
	ck_assert_ptr_null(sftp_open(st, 0, NULL, err, sizeof(err)));
	ck_assert_str_eq(err, "Invalid packet back from SSH2_FXP_INIT (type 101)");
	memset(&s, 0, sizeof(s));
	s.d = (uint8_t *)status;
	ck_assert_ptr_null(sftp_open(st, 0, NULL, err, sizeof(err)));
	ck_assert_str_eq(err, SFTP_CLOSED);
}
END_TEST

static Suite *
sftp_suite(void)
{
	Suite *s = suite_create("sftp");
	TCase *tc = tcase_create("recv");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_short_reads, 0, 4);
	tcase_add_loop_test(tc, test_full_reads, 0, 4);
	suite_add_tcase(s, tc);
	tc = tcase_create("open");
	tcase_add_test(tc, test_open_asks);
	tcase_add_test(tc, test_open_sibling);
	tcase_add_test(tc, test_open_sibling_needs_extension);
	tcase_add_test(tc, test_open_refused);
	tcase_add_test(tc, test_hello_bytes);
	tcase_add_test(tc, test_open_sent);
	tcase_add_test(tc, test_open_sent_unknown);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(sftp_suite());
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for how a legacy conversation ends where scp exits: the wire
 * keeps scp's status (and fatal()'s message) for main, and says and sends
 * nothing more. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check_main.h"
#include "scp/scp_sink.h"
#include "scp/scp_wire.h"

/* A peer in memory: what it says is in, what we send is out. */
struct mem_peer {
	const char *in;
	size_t len, pos;
	char out[4096];
	size_t outlen;
	int writes;
	bool fail_writes;
};

static ssize_t
mem_read(void *ctx, void *buf, size_t n)
{
	struct mem_peer *p = ctx;
	size_t k = p->len - p->pos < n ? p->len - p->pos : n;

	memcpy(buf, p->in + p->pos, k);
	p->pos += k;
	return (ssize_t)k;
}

static ssize_t
mem_write(void *ctx, const void *buf, size_t n)
{
	struct mem_peer *p = ctx;

	p->writes++;
	if (p->fail_writes || p->outlen + n > sizeof(p->out))
		return -1;
	memcpy(p->out + p->outlen, buf, n);
	p->outlen += n;
	return (ssize_t)n;
}

static int
mem_close(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct fscp_stream_ops mem_ops = {
	.read = mem_read, .write = mem_write, .close = mem_close,
};

/* The server side (remote): messages go only to the peer, so the test's
 * stderr stays clean. */
static void
wire_on(struct scp_wire *w, struct fscp_stream *st, struct mem_peer *p, const char *in,
    size_t len)
{
	struct scp_wire_opts o = { .remote = true };

	p->in = in;
	p->len = len;
	st->ops = &mem_ops;
	st->ctx = p;
	st->desc = "memory";
	scp_wire_init(w, st, &o);
}

START_TEST(response_ok_and_warning)
{
	struct mem_peer p = { 0 };
	struct fscp_stream st;
	struct scp_wire w;
	static const char in[] = "\0\1scp: a warning\n";

	wire_on(&w, &st, &p, in, sizeof(in) - 1);
	ck_assert_int_eq(scp_wire_response(&w), 0);
	ck_assert_int_eq(scp_wire_response(&w), -1);	/* \1: scp goes on */
	ck_assert_int_eq(scp_wire_ended(&w), 0);
	scp_wire_free(&w);
}
END_TEST

START_TEST(response_fatal_ends)
{
	struct mem_peer p = { 0 };
	struct fscp_stream st;
	struct scp_wire w;
	static const char in[] = "\2scp: gone\n\0";

	wire_on(&w, &st, &p, in, sizeof(in) - 1);
	ck_assert_int_eq(scp_wire_response(&w), -1);
	ck_assert_int_eq(scp_wire_ended(&w), 1);	/* scp's exit(1) */
	ck_assert_ptr_null(w.fatal);
	/* Nothing more is read once it ended, not even the \0 read ahead. */
	ck_assert_int_eq(scp_wire_response(&w), -1);
	ck_assert_int_eq(scp_wire_getc(&w), -1);
	scp_wire_free(&w);
}
END_TEST

START_TEST(eof_is_lost_connection)
{
	struct mem_peer p = { 0 };
	struct fscp_stream st;
	struct scp_wire w;

	wire_on(&w, &st, &p, "", 0);
	ck_assert_int_eq(scp_wire_response(&w), -1);
	ck_assert_int_eq(scp_wire_ended(&w), 1);
	scp_wire_free(&w);
}
END_TEST

START_TEST(failed_write_ends_and_silences)
{
	struct mem_peer p = { .fail_writes = true };
	struct fscp_stream st;
	struct scp_wire w;

	wire_on(&w, &st, &p, "", 0);
	scp_wire_write(&w, "C0644 1 f\n", 10);
	ck_assert_int_eq(scp_wire_ended(&w), 1);
	ck_assert_int_eq(p.writes, 1);
	/* Neither data nor an error message goes out after the end. */
	scp_wire_write(&w, "x", 1);
	scp_wire_ack(&w);
	scp_wire_run_err(&w, "%s", "not said");
	ck_assert_int_eq(p.writes, 1);
	scp_wire_free(&w);
}
END_TEST

START_TEST(first_end_counts)
{
	struct mem_peer p = { 0 };
	struct fscp_stream st;
	struct scp_wire w;

	wire_on(&w, &st, &p, "", 0);
	scp_wire_end(&w, 255, "the first");
	scp_wire_end(&w, 1, "the second");
	ck_assert_int_eq(scp_wire_ended(&w), 255);
	ck_assert_str_eq(w.fatal, "the first");
	scp_wire_free(&w);
}
END_TEST

START_TEST(sink_protocol_error_ends_1)
{
	struct mem_peer p = { 0 };
	struct fscp_stream st;
	struct scp_wire w;
	static const char in[] = "X what is this\n";
	char dir[] = "/tmp/check_scp_wire.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	wire_on(&w, &st, &p, in, sizeof(in) - 1);
	scp_sink_run(&w, dir, NULL);
	ck_assert_int_eq(scp_wire_ended(&w), 1);
	/* The ready \0, then scp's run_err() to the peer. */
	ck_assert_uint_gt(p.outlen, 1);
	ck_assert_int_eq(p.out[0], '\0');
	ck_assert_int_eq(p.out[1], '\1');
	ck_assert_ptr_nonnull(memmem(p.out, p.outlen, "X what is this", 14));
	scp_wire_free(&w);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(sink_bad_brace_is_fatal)
{
	struct mem_peer p = { 0 };
	struct fscp_stream st;
	struct scp_wire w;
	char dir[] = "/tmp/check_scp_wire.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	wire_on(&w, &st, &p, "", 0);
	scp_sink_run(&w, dir, "src/{a");
	ck_assert_int_eq(scp_wire_ended(&w), 255);	/* scp's fatal() */
	ck_assert_ptr_nonnull(w.fatal);
	ck_assert_str_eq(w.fatal, "brace_expand: invalid brace pattern \"src/{a\"");
	/* scp acks first, then finds the pattern invalid. */
	ck_assert_uint_eq(p.outlen, 1);
	scp_wire_free(&w);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *
scp_wire_suite(void)
{
	Suite *s = suite_create("scp_wire");
	TCase *tc = tcase_create("end");

	tcase_add_test(tc, response_ok_and_warning);
	tcase_add_test(tc, response_fatal_ends);
	tcase_add_test(tc, eof_is_lost_connection);
	tcase_add_test(tc, failed_write_ends_and_silences);
	tcase_add_test(tc, first_end_counts);
	tcase_add_test(tc, sink_protocol_error_ends_1);
	tcase_add_test(tc, sink_bad_brace_is_fatal);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(scp_wire_suite());
}

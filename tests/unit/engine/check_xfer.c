/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for xfer's queue (xfer_queue.c): tasks come out in the order
 * files were planned, a big file is cut into the pieces the connections
 * share (later ones held until the first has opened the file), a task
 * given back goes first, the queue counts the bytes it holds, a slow
 * connection leaves the tail to a faster one, and a task's state moves
 * only as the table says.
 * No connection is needed: nothing here sends a request. */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "../check_main.h"
#include "engine/xfer_impl.h"
#include "util/clock.h"

static struct xfer *
queue_new(int nplanned, uint64_t chunk, uint64_t chunk_max)
{
	struct xfer_params p = { .chunk_size = chunk, .chunk_max = chunk_max };
	struct xfer *x = xfer_new(&p, NULL, 0);

	x->nplanned = nplanned;
	return x;
}

static struct xfer_file *
queue_add(struct xfer *x, const char *name, uint64_t size)
{
	struct xfer_item it = { .dir = XFER_DOWN, .local = name, .remote = name, .size = size };

	xfer_add(x, &it, NULL);
	xfer_queue_file(x, x->files[x->nfiles - 1]);
	return x->files[x->nfiles - 1];
}

/* Take a task as a worker would, and finish it at once. */
static struct xfer_task *
queue_take(struct xfer *x)
{
	return xfer_pop(x, NULL, false);
}

static void
task_drop(struct xfer *x, struct xfer_task *t)
{
	xfer_untake(x, NULL);
	free(t);
}

START_TEST(order_of_planning)
{
	struct xfer *x = queue_new(1, 0, 0);
	const char *names[] = { "a", "b", "c", "d" };
	uint64_t sizes[] = { 10, 0, 5, 1 << 20 };

	for (int i = 0; i < 4; i++)
		queue_add(x, names[i], sizes[i]);
	for (int i = 0; i < 4; i++) {
		struct xfer_task *t = queue_take(x);

		ck_assert_ptr_nonnull(t);
		ck_assert_str_eq(t->f->remote, names[i]);
		ck_assert_int_eq(t->role, TR_ONLY);
		ck_assert_int_eq(t->state, T_NEW);
		ck_assert_int_eq(t->known_end, TE_PLANNED);
		ck_assert_uint_eq(t->off, 0);
		ck_assert_uint_eq(t->end, sizes[i]);
		ck_assert(t->short_at == TASK_NO_SHORT);
		task_drop(x, t);
	}
	ck_assert_ptr_null(queue_take(x));
	ck_assert(!xfer_work_left(x));
	xfer_free(x);
}
END_TEST

/* Pieces cover the file end to end, in order, the first one first. */
static void
check_pieces(struct xfer *x, struct xfer_file *f, size_t want, uint64_t chunk)
{
	struct xfer_task *t = queue_take(x);
	uint64_t at;

	ck_assert_uint_eq(f->npieces, want);
	ck_assert_int_eq(atomic_load(&f->chunks_left), (int)want);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->role, TR_FIRST);
	ck_assert_uint_eq(t->off, 0);
	ck_assert_uint_eq(t->end, chunk);
	/* The others wait for the first piece's OPEN. */
	ck_assert_ptr_null(queue_take(x));
	ck_assert(xfer_work_left(x));
	ck_assert(!xfer_drained(x));
	xfer_release_rest(x, f, true);
	at = t->end;
	task_drop(x, t);
	for (size_t i = 1; i < want; i++) {
		t = queue_take(x);
		ck_assert_ptr_nonnull(t);
		ck_assert_int_eq(t->role, TR_PIECE);
		ck_assert_uint_eq(t->idx, i);
		ck_assert_uint_eq(t->off, at);
		ck_assert_uint_eq(t->end, i + 1 == want ? xfer_file_size(f) : at + chunk);
		ck_assert(piece_is_last(t) == (i + 1 == want));
		at = t->end;
		task_drop(x, t);
	}
	ck_assert_uint_eq(at, xfer_file_size(f));
	ck_assert_ptr_null(queue_take(x));
}

START_TEST(pieces_even)
{
	/* 1000 bytes, 2 connections, 4 pieces each: 125 beats chunk_size 100. */
	struct xfer *x = queue_new(2, 100, 0);

	check_pieces(x, queue_add(x, "big", 1000), 8, 125);
	xfer_free(x);
}
END_TEST

START_TEST(pieces_chunk_size_and_max)
{
	struct xfer *x = queue_new(2, 300, 0);

	/* chunk_size over the even share: 1000 / 300, the last one short. */
	check_pieces(x, queue_add(x, "a", 1000), 4, 300);
	xfer_free(x);
	/* ... and chunk_max under both. */
	x = queue_new(2, 300, 200);
	check_pieces(x, queue_add(x, "b", 1000), 5, 200);
	xfer_free(x);
}
END_TEST

START_TEST(no_split)
{
	/* One connection, no chunk size, or a file no bigger than a chunk:
	 * one task. */
	struct xfer *x = queue_new(1, 100, 0);
	struct xfer_task *t;

	queue_add(x, "one-conn", 1000);
	x->nplanned = 4;
	queue_add(x, "small", 100);
	for (int i = 0; i < 2; i++) {
		t = queue_take(x);
		ck_assert_int_eq(t->role, TR_ONLY);
		ck_assert_uint_eq(t->f->npieces, 1);
		task_drop(x, t);
	}
	xfer_free(x);
}
END_TEST

START_TEST(first_piece_failed)
{
	/* The first piece's OPEN failed: the rest are dropped, and counted
	 * off the file. */
	struct xfer *x = queue_new(2, 100, 0);
	struct xfer_file *f = queue_add(x, "big", 1000);
	struct xfer_task *t = queue_take(x);

	xfer_release_rest(x, f, false);
	ck_assert_ptr_null(f->rest);
	ck_assert_int_eq(atomic_load(&f->chunks_left), 1);
	ck_assert_ptr_null(queue_take(x));
	ck_assert(xfer_drained(x));
	task_drop(x, t);
	ck_assert(!xfer_work_left(x));
	xfer_free(x);
}
END_TEST

START_TEST(given_back_goes_first)
{
	struct xfer *x = queue_new(1, 0, 0);
	struct xfer_task *a, *b;

	queue_add(x, "a", 1);
	queue_add(x, "b", 1);
	a = queue_take(x);
	ck_assert_str_eq(a->f->remote, "a");
	/* Its connection died: it goes back in front of b. */
	xfer_untake(x, a);
	b = queue_take(x);
	ck_assert_ptr_eq(b, a);
	task_drop(x, b);
	b = queue_take(x);
	ck_assert_str_eq(b->f->remote, "b");
	task_drop(x, b);
	xfer_free(x);
}
END_TEST

START_TEST(next_piece_of_the_same_file)
{
	struct xfer *x = queue_new(2, 100, 0);
	struct xfer_file *f = queue_add(x, "big", 1000), *g = queue_add(x, "other", 10);
	struct xfer_task *t = queue_take(x), *n;

	/* other is next until big's pieces are released behind it... */
	ck_assert_ptr_null(xfer_next_piece(x, NULL, f, false));
	ck_assert_ptr_nonnull(xfer_next_piece(x, NULL, g, false));
	n = queue_take(x);
	task_drop(x, n);
	xfer_release_rest(x, f, true);
	/* ... then a piece of big is, and is handed the open handle. */
	n = xfer_next_piece(x, NULL, f, true);
	ck_assert_ptr_nonnull(n);
	ck_assert_uint_eq(n->idx, 1);
	task_opened(n);
	ck_assert_int_eq(n->state, T_DATA);
	task_drop(x, n);
	task_drop(x, t);
	while ((t = queue_take(x)) != NULL)
		task_drop(x, t);
	xfer_free(x);
}
END_TEST

START_TEST(transitions)
{
	static const enum task_state all[] = { T_NEW, T_OPENING, T_DATA, T_CLOSING, T_DONE };
	/* allowed[from][to] */
	static const bool allowed[5][5] = {
		[T_NEW] = { [T_NEW] = 1, [T_OPENING] = 1, [T_DATA] = 1, [T_DONE] = 1 },
		[T_OPENING] = { [T_NEW] = 1, [T_DATA] = 1, [T_CLOSING] = 1, [T_DONE] = 1 },
		[T_DATA] = { [T_NEW] = 1, [T_CLOSING] = 1, [T_DONE] = 1 },
		[T_CLOSING] = { [T_NEW] = 1, [T_CLOSING] = 1, [T_DONE] = 1 },
		[T_DONE] = { [T_DONE] = 1 },
	};

	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			ck_assert_msg(xfer_task_may(all[i], all[j]) == allowed[i][j],
			    "%d -> %d", i, j);
}
END_TEST

START_TEST(a_task_s_life)
{
	struct xfer_task t = { .state = T_NEW };

	task_opening(&t);
	ck_assert_int_eq(t.state, T_OPENING);
	task_opened(&t);
	ck_assert_int_eq(t.state, T_DATA);
	task_closing(&t);
	ck_assert_int_eq(t.state, T_CLOSING);
	task_renew(&t);		/* its connection died */
	ck_assert_int_eq(t.state, T_NEW);
	task_finished(&t);
	ck_assert_int_eq(t.state, T_DONE);
}
END_TEST

START_TEST(roles)
{
	struct xfer_task t = { .role = TR_ONLY };

	ck_assert(task_first(&t) && task_only(&t) && !task_grows(&t));
	t.role = TR_FIRST;
	ck_assert(task_first(&t) && !task_only(&t));
	t.role = TR_PIECE;
	ck_assert(!task_first(&t) && !task_only(&t));
	t.role = TR_GROW;
	ck_assert(!task_first(&t) && task_grows(&t));
	t.known_end = TE_SHORT;
	ck_assert(task_short(&t));
}
END_TEST

START_TEST(queued_bytes_follow_the_queue)
{
	/* 1000 bytes, 2 connections: 8 pieces of 125, the 7 after the first
	 * held until it opens. */
	struct xfer *x = queue_new(2, 100, 0);
	struct xfer_file *f = queue_add(x, "big", 1000);
	struct xfer_task *t, *u;

	ck_assert_uint_eq(x->queued_bytes, 125);
	t = queue_take(x);
	ck_assert_uint_eq(x->queued_bytes, 0);
	xfer_release_rest(x, f, true);
	ck_assert_uint_eq(x->queued_bytes, 875);
	u = queue_take(x);
	ck_assert_uint_eq(x->queued_bytes, 750);
	/* Given back a quarter done: what is left of it counts. */
	u->next_off = u->off + 25;
	xfer_untake(x, u);
	ck_assert_uint_eq(x->queued_bytes, 850);
	task_drop(x, t);
	while ((t = queue_take(x)) != NULL)
		task_drop(x, t);
	ck_assert_uint_eq(x->queued_bytes, 0);
	xfer_free(x);
}
END_TEST

/* Two workers' slots in the pace board: worker 1 (the caller) moved
 * mine_B in the second since it took work, worker 2 theirs_B. */
static struct worker *
pace_setup(struct xfer *x, uint64_t mine_B, uint64_t theirs_B)
{
	struct worker *w = calloc(1, sizeof(*w));
	double now = clock_now();

	x->npace = 2;
	x->pace = calloc(2, sizeof(*x->pace));
	x->pace[0] = (struct xfer_pace){ .working = true, .t0 = now - 1 };
	x->pace[1] = (struct xfer_pace){ .working = true, .known = true, .t0 = now - 1,
		.at = now, .moved = theirs_B };
	w->x = x;
	w->id = 1;
	w->tr = sftp_tracker_new(NULL);
	w->moved = mine_B;
	w->finished = 1;
	return w;
}

static void
pace_end(struct xfer *x, struct worker *w)
{
	sftp_tracker_free(w->tr);
	free(w);
	free(x->pace);
	x->pace = NULL;
	x->npace = 0;
}

START_TEST(slow_one_leaves_the_tail)
{
	/* One 125-byte piece left: at 1 MB/s against the other's 100 MB/s,
	 * worker 1 leaves it; the fast one would take it. */
	struct xfer *x = queue_new(1, 0, 0);
	struct worker *w;
	struct xfer_task *t;

	queue_add(x, "last", 125);
	w = pace_setup(x, 1000000, 100000000);
	ck_assert_ptr_null(xfer_pop(x, w, false));
	ck_assert(x->pace[0].left_tail);
	ck_assert_uint_eq(x->queued_bytes, 125);
	pace_end(x, w);
	w = pace_setup(x, 100000000, 1000000);
	t = xfer_pop(x, w, false);
	ck_assert_ptr_nonnull(t);
	task_drop(x, t);
	pace_end(x, w);
	xfer_free(x);
}
END_TEST

START_TEST(slow_one_takes_while_much_is_queued)
{
	/* 1000 pieces queued: the slow one's piece (125 us at its rate)
	 * ends long before the fast one could have moved them all (1.25 ms),
	 * so it takes; so does one whose rate is not known yet.  (With 100
	 * the two endings tied, and the time the test itself took tipped a
	 * loaded machine's run to leaving.) */
	struct xfer *x = queue_new(1, 0, 0);
	struct worker *w;
	struct xfer_task *t;

	for (int i = 0; i < 1000; i++)
		queue_add(x, "small", 125);
	w = pace_setup(x, 1000000, 100000000);
	t = xfer_pop(x, w, false);
	ck_assert_ptr_nonnull(t);
	task_drop(x, t);
	w->finished = 0;
	x->pace[0].known = false;
	t = xfer_pop(x, w, false);
	ck_assert_ptr_nonnull(t);
	task_drop(x, t);
	pace_end(x, w);
	while ((t = queue_take(x)) != NULL)
		task_drop(x, t);
	xfer_free(x);
}
END_TEST

static Suite *
xfer_suite(void)
{
	Suite *s = suite_create("xfer queue");
	TCase *tc = tcase_create("queue");
	TCase *ts = tcase_create("states");

	tcase_add_test(tc, order_of_planning);
	tcase_add_test(tc, pieces_even);
	tcase_add_test(tc, pieces_chunk_size_and_max);
	tcase_add_test(tc, no_split);
	tcase_add_test(tc, first_piece_failed);
	tcase_add_test(tc, given_back_goes_first);
	tcase_add_test(tc, next_piece_of_the_same_file);
	tcase_add_test(tc, queued_bytes_follow_the_queue);
	tcase_add_test(tc, slow_one_leaves_the_tail);
	tcase_add_test(tc, slow_one_takes_while_much_is_queued);
	suite_add_tcase(s, tc);
	tcase_add_test(ts, transitions);
	tcase_add_test(ts, a_task_s_life);
	tcase_add_test(ts, roles);
	suite_add_tcase(s, ts);
	return s;
}

int
main(void)
{
	return check_main(xfer_suite());
}

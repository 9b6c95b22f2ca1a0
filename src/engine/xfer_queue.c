/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xfer's queue: the files planning adds, and the tasks (files, or pieces of
 * big ones) that workers take from one shared queue under x->lock. */
#include "config.h"
#include "engine/xfer_impl.h"
#include "engine/journal.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "policy/operand.h"
#include "policy/route_plan.h"

#include <stdlib.h>

/* A worker that left the tail to the others looks again this often:
 * rates change, and a connection that dies gives its pieces back. */
#define XFER_PACE_RECHECK_S 0.05

/* Under x->lock: t joins (or leaves) the queue's count of bytes. */
static void
queue_count(struct xfer *x, struct xfer_task *t)
{
	t->qbytes = t->end > t->next_off ? t->end - t->next_off : 0;
	x->queued_bytes += t->qbytes;
}

static void
queue_uncount(struct xfer *x, struct xfer_task *t)
{
	x->queued_bytes -= t->qbytes;
	t->qbytes = 0;
}

/* ---- planned files ------------------------------------------------------ */

static void
xfer_keep_file(struct xfer *x, struct xfer_file *f)
{
	if (x->nfiles == x->capfiles) {
		x->capfiles = x->capfiles ? x->capfiles * 2 : 64;
		x->files = xrealloc(x->files, x->capfiles * sizeof(*x->files));
	}
	x->files[x->nfiles++] = f;
}

void
xfer_add_dirfix(struct xfer *x, bool remote, const char *path, const struct sftp_attrs *a)
{
	if (x->ndirs == x->capdirs) {
		x->capdirs = x->capdirs ? x->capdirs * 2 : 16;
		x->dirs = xrealloc(x->dirs, x->capdirs * sizeof(*x->dirs));
	}
	x->dirs[x->ndirs].remote = remote;
	x->dirs[x->ndirs].path = xstrdup(path);
	x->dirs[x->ndirs].a = *a;
	x->ndirs++;
}

/* A planned file; its tasks are made when the run starts, once it is known
 * how many connections will share it. */
void
xfer_add(struct xfer *x, const struct xfer_item *it, const struct xfer_origin *o)
{
	struct xfer_file *f = xcalloc(1, sizeof(*f));

	f->dir = it->dir;
	f->local = xstrdup(it->local);
	f->remote = xstrdup(it->remote);
	f->name = operand_basename(it->dir == XFER_UP ? it->local : it->remote);
	xfer_file_set_size(f, it->size);
	f->perm = it->perm;
	f->atime = it->atime;
	f->mtime = it->mtime;
	f->no_meter = it->no_meter;
	f->fd = -1;
	if (o != NULL) {
		f->grp = o->group;
		if (o->fail_msg != NULL)
			f->fail_msg = xstrdup(o->fail_msg);
	}
	xfer_keep_file(x, f);
}

struct xfer_group *
xfer_group_new(struct xfer *x, const char *msg)
{
	struct xfer_group *g = xcalloc(1, sizeof(*g));

	g->msg = xstrdup(msg);
	*x->groups_tail = g;
	x->groups_tail = &g->next;
	return g;
}

void
xfer_group_said(struct xfer_group *g)
{
	g->said = true;
}

/* A task moves forward (NEW, OPENING, DATA, CLOSING, DONE) and may skip
 * ahead: a piece handed an open handle goes from NEW to DATA, a failed
 * OPEN to DONE (or to CLOSING, for the SETSTAT that cuts an upload by
 * name), and anything unfinished may end at once or go back to NEW when
 * its connection dies.  Nothing leaves DONE. */
bool
xfer_task_may(enum task_state from, enum task_state to)
{
	if (to == T_DONE)
		return true;
	if (from == T_DONE)
		return false;
	if (to == T_NEW)
		return true;
	switch (from) {
	case T_NEW:
		return to == T_OPENING || to == T_DATA;
	case T_OPENING:
		return to == T_DATA || to == T_CLOSING;
	case T_DATA:
		return to == T_CLOSING;
	case T_CLOSING:
		/* A lone upload whose WRITE failed cuts the file by name
		 * once its CLOSE is answered: one more request, same state. */
		return to == T_CLOSING;
	default:
		return false;
	}
}

/* Queue a file as one task, or as pieces when several connections can
 * share it; pieces after the first wait until the first has opened it.
 * A resumed file is cut the same way over the ranges still missing. */
void
xfer_queue_file(struct xfer *x, struct xfer_file *f)
{
	uint64_t chunk = x->p.chunk_size, size = xfer_file_size(f);
	struct rangeset todo = { 0 };
	size_t n = 0;

	/* resume hook: ranges to skip (journal.h) */
	if (journal_file_plan(x->p.journal, &(struct journal_item){ .up = f->dir == XFER_UP,
	    .local = f->local, .remote = f->remote, .size = size, .mtime = f->mtime },
	    x->nconns > 0 ? x->conns[0] : NULL, &f->jf, &todo) == JOURNAL_SKIP) {
		atomic_store(&f->done, size);
		atomic_store(&f->complete, true);
		rangeset_free(&todo);
		return;
	}
	/* An empty file still has its one (empty) piece. */
	struct range none = { 0, 0 };
	const struct range *rs = todo.n > 0 ? todo.r : &none;
	size_t nr = todo.n > 0 ? todo.n : 1;
	uint64_t left = rangeset_bytes(&todo);

	atomic_store(&f->done, size - left);
	if (x->nplanned > 1 && chunk > 0 && left > chunk) {
		uint64_t even = (left + (uint64_t)x->nplanned * XFER_PIECES_PER_CONN - 1) /
		    ((uint64_t)x->nplanned * XFER_PIECES_PER_CONN);

		if (chunk < even)
			chunk = even;
		if (x->p.chunk_max > 0 && chunk > x->p.chunk_max)
			chunk = x->p.chunk_max;
	} else {
		chunk = 0;	/* one piece per range */
	}
	for (size_t g = 0; g < nr; g++) {
		uint64_t len = rs[g].end - rs[g].off;

		n += chunk == 0 || len <= chunk ? 1 : (size_t)((len + chunk - 1) / chunk);
	}
	atomic_init(&f->chunks_left, (int)n);
	atomic_init(&f->data_left, (int)n);
	f->pieces = xcalloc(n, sizeof(*f->pieces));
	f->npieces = n;

	struct xfer_task *first = NULL, **link = &f->rest;
	size_t i = 0;

	for (size_t g = 0; g < nr; g++) {
		uint64_t off = rs[g].off;

		do {
			struct xfer_task *t = xcalloc(1, sizeof(*t));

			t->f = f;
			t->off = off;
			t->end = chunk == 0 || rs[g].end - off <= chunk ? rs[g].end : off + chunk;
			t->idx = i;
			f->pieces[i] = (struct xfer_piece){ .off = t->off, .end = t->end, .high = t->off };
			t->role = n == 1 ? TR_ONLY : i == 0 ? TR_FIRST : TR_PIECE;
			t->short_at = TASK_NO_SHORT;
			t->next_off = t->off;
			if (i == 0) {
				first = t;
			} else {
				*link = t;
				link = &t->next;
			}
			i++;
			off = t->end;
		} while (off < rs[g].end);
	}
	rangeset_free(&todo);
	if (n > 1)
		x->unreleased++;
	first->next = NULL;
	queue_count(x, first);
	if (x->tail)
		x->tail->next = first;
	else
		x->head = first;
	x->tail = first;
}

/* Chunk 0 is open (or failed): let the other chunks go, or drop them. */
void
xfer_release_rest(struct xfer *x, struct xfer_file *f, bool ok)
{
	struct xfer_task *rest = f->rest, *t;

	if (rest == NULL)
		return;
	f->rest = NULL;
	pthread_mutex_lock(&x->lock);
	x->unreleased--;
	if (ok) {
		for (t = rest;; t = t->next) {
			queue_count(x, t);
			if (t->next == NULL)
				break;
		}
		if (x->tail)
			x->tail->next = rest;
		else
			x->head = rest;
		x->tail = t;
	}
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	if (!ok) {
		while (rest) {
			t = rest->next;
			atomic_fetch_sub(&f->chunks_left, 1);
			free(rest);
			rest = t;
		}
	}
}

/* Work is left while tasks wait, first pieces may release more, or a
 * worker holds tasks it could give back if its connection dies. */
bool
xfer_work_left(const struct xfer *x)
{
	return x->head != NULL || x->unreleased > 0 || x->taken > 0;
}

/* Under x->lock: take the queue's head (there is one). */
static struct xfer_task *
xfer_shift(struct xfer *x)
{
	struct xfer_task *t = x->head;

	x->head = t->next;
	if (x->head == NULL)
		x->tail = NULL;
	t->next = NULL;
	queue_uncount(x, t);
	x->taken++;
	return t;
}

/* Under x->lock: w says how it is doing (its slot in x->pace), and may
 * take t, the queue's head, unless the other working connections would
 * finish all that is queued before w finished t.  NULL w: no pace. */
static bool
pace_take(struct xfer *x, struct worker *w, const struct xfer_task *t)
{
	if (w == NULL || x->pace == NULL || w->id < 1 || w->id > x->npace || x->dead)
		return true;
	struct xfer_pace *me = &x->pace[w->id - 1];
	double now = clock_now();

	me->at = now;
	me->moved = w->moved;
	me->left = worker_left(w);
	me->known = w->finished > 0;
	if (me->t0 == 0)
		me->t0 = now;

	struct route_pace in = { .queued = (double)x->queued_bytes, .piece = (double)t->qbytes };

	if (me->known && now > me->t0) {
		in.my_Bps = (double)me->moved / (now - me->t0);
		in.my_left = (double)me->left;
	}
	for (int i = 0; i < x->npace; i++) {
		const struct xfer_pace *o = &x->pace[i];

		if (o == me || !o->working)
			continue;
		if (!o->known || o->at <= o->t0 || now <= o->t0) {
			in.others_left += (double)o->left;	/* held, at a rate not known */
			continue;
		}
		/* As of now, as this one's own: what it said then, and what it
		 * has moved since at that rate of what it held. */
		double rate = (double)o->moved / (o->at - o->t0);
		double since = rate * (now - o->at);

		if (since > (double)o->left)
			since = (double)o->left;
		rate = ((double)o->moved + since) / (now - o->t0);
		in.others_Bps += rate;
		if (rate > in.best_Bps)
			in.best_Bps = rate;
		in.others_left += (double)o->left - since;
	}
	if (route_plan_pace_take(&in))
		return true;
	/* Said once, at the first piece left: the queue may be empty by the
	 * time this one has nothing in hand. */
	if (!me->left_tail) {
		me->left_tail = true;
		log_verbose("connection %d leaves the tail to the others: at %.1f MB/s, holding "
		    "%.1f MiB, a %.1f MiB piece would end after their %.1f MB/s had moved the "
		    "%.1f MiB queued", w->id, in.my_Bps / 1e6, in.my_left / 1048576.0,
		    in.piece / 1048576.0, in.others_Bps / 1e6, in.queued / 1048576.0);
	}
	return false;
}

/* The next task; with wait, block while others may still produce one. */
struct xfer_task *
xfer_pop(struct xfer *x, struct worker *w, bool wait)
{
	struct xfer_task *t = NULL;

	pthread_mutex_lock(&x->lock);
	for (;;) {
		if (x->head != NULL && pace_take(x, w, x->head)) {
			t = xfer_shift(x);
			break;
		}
		if (!wait || !xfer_work_left(x) || x->dead)
			break;
		if (x->head == NULL) {
			pthread_cond_wait(&x->cond, &x->lock);
		} else {
			struct timespec ts = clock_deadline(XFER_PACE_RECHECK_S);

			(void)pthread_cond_timedwait(&x->cond, &x->lock, &ts);
		}
	}
	pthread_mutex_unlock(&x->lock);
	return t;
}

/* A new task at the end of the queue (a file that grew). */
void
xfer_push(struct xfer *x, struct xfer_task *t)
{
	pthread_mutex_lock(&x->lock);
	t->next = NULL;
	queue_count(x, t);
	if (x->tail)
		x->tail->next = t;
	else
		x->head = t;
	x->tail = t;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
}

/* The next queued task when it is a piece of f (popped with take); NULL
 * when the queue's head is anything else. */
struct xfer_task *
xfer_next_piece(struct xfer *x, struct worker *w, const struct xfer_file *f, bool take)
{
	struct xfer_task *t;

	pthread_mutex_lock(&x->lock);
	t = x->head;
	if (t != NULL && (t->f != f || task_grows(t) || t->state != T_NEW || !pace_take(x, w, t)))
		t = NULL;
	if (t != NULL && take)
		t = xfer_shift(x);
	pthread_mutex_unlock(&x->lock);
	return t;
}

/* A task taken from the queue is finished (or given back). */
void
xfer_untake(struct xfer *x, struct xfer_task *back)
{
	pthread_mutex_lock(&x->lock);
	x->taken--;
	if (back != NULL) {
		queue_count(x, back);
		back->next = x->head;
		x->head = back;
		if (x->tail == NULL)
			x->tail = back;
	}
	/* Waiters wait for a task or for the end of the work: a piece done
	 * while others are queued wakes no one (the copy's thread would wake
	 * once a piece, taking a core's turn from the copy). */
	if (back != NULL || !xfer_work_left(x))
		pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
}

bool
xfer_drained(struct xfer *x)
{
	bool drained;

	pthread_mutex_lock(&x->lock);
	drained = x->dead || (x->head == NULL && x->unreleased == 0);
	pthread_mutex_unlock(&x->lock);
	return drained;
}

void
xfer_forget_files(struct xfer *x)
{
	for (size_t i = 0; i < x->nfiles; i++) {
		struct xfer_file *f = x->files[i];

		free(f->local);
		free(f->remote);
		free(f->name);
		free(f->fail_msg);
		free(f->pieces);
		free(f);
	}
	x->nfiles = 0;
	x->progress_idx = 0;
	for (size_t i = 0; i < x->ndirs; i++)
		free(x->dirs[i].path);
	x->ndirs = 0;
	while (x->groups != NULL) {
		struct xfer_group *g = x->groups;

		x->groups = g->next;
		free(g->msg);
		free(g);
	}
	x->groups_tail = &x->groups;
}

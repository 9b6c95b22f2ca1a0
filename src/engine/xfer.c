/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xfer's run: the connections' workers, the joiner that gives late
 * connections one, the reconnect when all died, and the public setters.
 * The queue, pipeline, worker loop and file finishing live in
 * xfer_queue.c, xfer_pipe.c, xfer_worker.c and xfer_finish.c. */
#include "config.h"
#include "engine/xfer_impl.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- public: setup ------------------------------------------------------------ */

struct xfer *
xfer_new(const struct xfer_params *p, struct sftp_conn **conns, int nconns)
{
	struct xfer *x = xcalloc(1, sizeof(*x));

	x->p = *p;
	if (x->p.nrequests == 0)
		x->p.nrequests = XFER_DEFAULT_NREQUESTS;
	x->conns = conns;
	x->nconns = nconns;
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->cond, NULL);
	pthread_mutex_init(&x->progress_lock, NULL);
	x->groups_tail = &x->groups;
	return x;
}


void
xfer_free(struct xfer *x)
{
	struct xfer_task *t;

	if (x == NULL)
		return;
	while ((t = xfer_pop(x, NULL, false)) != NULL)
		free(t);
	xfer_forget_files(x);
	free(x->files);
	free(x->dirs);
	pthread_mutex_destroy(&x->lock);
	pthread_cond_destroy(&x->cond);
	pthread_mutex_destroy(&x->progress_lock);
	free(x);
}


const char *
xfer_fatal(const struct xfer *x)
{
	return x->fatal[0] != '\0' ? x->fatal : NULL;
}

uint64_t
xfer_planned_bytes(const struct xfer *x)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < x->nfiles; i++)
		sum += xfer_file_size(x->files[i]);
	return sum;
}

/* Bytes moved so far, every file's (their counters are atomic). */
static uint64_t
xfer_moved_bytes(const struct xfer *x)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < x->nfiles; i++)
		sum += atomic_load_explicit(&x->files[i]->done, memory_order_relaxed);
	return sum;
}

void
xfer_set_conns(struct xfer *x, struct sftp_conn **conns, int nconns,
    const struct xfer_params *p)
{
	x->conns = conns;
	x->nconns = nconns;
	x->p.chunk_size = p->chunk_size;
	x->p.chunk_max = p->chunk_max;
	x->p.inflight_bytes = p->inflight_bytes;
	x->p.upload_inflight_bytes = p->upload_inflight_bytes;
}

void
xfer_set_joiner(struct xfer *x, const struct xfer_joiner *j)
{
	if (j != NULL)
		x->joiner = *j;
	else
		memset(&x->joiner, 0, sizeof(x->joiner));
}

struct xfer_joining {
	struct xfer *x;
	struct worker *ws;	/* room for max workers */
	pthread_t *tids;
	int started;
	bool up;
};

/* Give each connection that comes up while work is left a worker. */
static void *
xfer_join_thread(void *arg)
{
	struct xfer_joining *joining = arg;
	struct xfer *x = joining->x;

	while (joining->started < x->joiner.max) {
		struct sftp_conn *c = x->joiner.next(x->joiner.ctx);
		struct worker *w = &joining->ws[joining->started];

		if (c == NULL)
			break;
		if (xfer_drained(x))
			continue;	/* the session closes it */
		worker_init(w, x, c, joining->up, x->nconns + joining->started + 1);
		if (!worker_start(w, &joining->tids[joining->started])) {
			worker_free(w);
			continue;
		}
		joining->started++;
		pthread_mutex_lock(&x->lock);
		x->njoined = joining->started;
		pthread_mutex_unlock(&x->lock);
	}
	pthread_mutex_lock(&x->lock);
	x->joiner_done = true;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	for (int i = 0; i < joining->started; i++)
		pthread_join(joining->tids[i], NULL);
	return NULL;
}

/* Under x->lock: the workers that joined at or after since take no more
 * work (the climb found that their step lowered the goodput). */
static void
xfer_retire_since(struct xfer *x, double since)
{
	for (int i = 0; i < x->njoined; i++) {
		struct worker *w = &x->joined[i];

		if (w->joined_t >= since && !atomic_load(&w->retire)) {
			atomic_store(&w->retire, true);
			x->pace[w->id - 1].working = false;
			log_verbose("connection %d takes no more work", w->id);
		}
	}
}

int
xfer_run(struct xfer *x)
{
	int extra = x->joiner.max, started = 0;
	/* The initial workers, the joiner's, and one for a reconnect. */
	struct worker *ws = xcalloc((size_t)(x->nconns + extra + 1), sizeof(*ws));
	pthread_t *tids = xcalloc((size_t)(x->nconns + extra + 1), sizeof(*tids));
	struct xfer_joining joining = { .x = x, .ws = ws + x->nconns, .tids = tids + x->nconns };
	int ri = x->nconns + extra;	/* the reconnect's slot */
	struct worker *rw = &ws[ri];
	struct xfer_joiner jr = x->joiner;
	bool rw_started = false;
	pthread_t joiner;
	int rc = 0;

	/* One run moves one way (scp's last operand is the target). */
	bool up = false;

	x->nplanned = x->nconns + (x->joiner.planned < extra ? x->joiner.planned : extra);
	/* Each worker's pace, by id - 1 (the reconnect's is the last). */
	x->npace = x->nconns + extra + 1;
	x->pace = xcalloc((size_t)x->npace, sizeof(*x->pace));
	for (size_t i = 0; i < x->nfiles; i++) {
		up = up || x->files[i]->dir == XFER_UP;
		xfer_queue_file(x, x->files[i]);
	}
	joining.up = up;
	x->dead = false;
	x->fatal[0] = '\0';
	x->joiner_done = extra == 0;
	x->joined = joining.ws;
	x->njoined = 0;
	/* Every connection gets a thread; this one waits for the outcome. */
	for (int i = 0; i < x->nconns; i++) {
		worker_init(&ws[started], x, x->conns[i], up, i + 1);
		if (worker_start(&ws[started], &tids[started]))
			started++;
		else
			worker_free(&ws[started]);
	}
	if (extra > 0 && pthread_create(&joiner, NULL, xfer_join_thread, &joining) != 0) {
		extra = 0;
		x->joiner_done = true;
	}
	/* Wait for the work to be done.  When no worker is left and none can
	 * join, one fresh connection gets a try; after that the copy is lost. */
	double tick_due = clock_now() + jr.tick_s;

	pthread_mutex_lock(&x->lock);
	while (xfer_work_left(x)) {
		if ((x->alive > 0 || !x->joiner_done) && jr.tick != NULL && jr.tick_s > 0) {
			struct timespec ts = clock_deadline(tick_due - clock_now());

			if (clock_now() < tick_due) {
				(void)pthread_cond_timedwait(&x->cond, &x->lock, &ts);
				continue;
			}
			pthread_mutex_unlock(&x->lock);
			double since = jr.tick(jr.ctx, xfer_moved_bytes(x), xfer_planned_bytes(x));

			tick_due = clock_now() + jr.tick_s;
			pthread_mutex_lock(&x->lock);
			if (since >= 0)
				xfer_retire_since(x, since);
			continue;
		}
		if (x->alive > 0 || !x->joiner_done) {
			pthread_cond_wait(&x->cond, &x->lock);
			continue;
		}
		if (rw_started || jr.reconnect == NULL) {
			x->dead = true;
			pthread_cond_broadcast(&x->cond);
			break;
		}
		pthread_mutex_unlock(&x->lock);
		log_verbose("every connection failed with work left: one fresh connection");
		struct sftp_conn *c = jr.reconnect(jr.ctx);

		if (c != NULL) {
			worker_init(rw, x, c, up, ri + 1);
			if (!worker_start(rw, &tids[ri]))
				worker_free(rw);
		}
		rw_started = true;
		pthread_mutex_lock(&x->lock);
	}
	pthread_mutex_unlock(&x->lock);
	/* Done or lost: stop waiting for connections; workers end by
	 * themselves once nothing is left. */
	if (extra > 0) {
		x->joiner.stop(x->joiner.ctx);
		pthread_join(joiner, NULL);
	}
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (rw->x != NULL)
		pthread_join(tids[ri], NULL);
	memset(&x->joiner, 0, sizeof(x->joiner));
	/* Directory attributes go over a connection that is still alive. */
	x->fix_conn = NULL;
	for (int i = 0; i <= ri && x->fix_conn == NULL; i++)
		if (ws[i].x != NULL && !ws[i].failed)
			x->fix_conn = ws[i].c;
	for (int i = 0; i <= ri; i++) {
		struct worker *w = &ws[i];

		if (w->x == NULL)
			continue;	/* never started */
		log_debug(2, "connection %d: %u tasks, %u opens, %llu bytes", w->id, w->tasks,
		    w->opens, (unsigned long long)w->moved);
		worker_free(w);
	}
	free(ws);
	free(tids);
	free(x->pace);
	x->pace = NULL;
	x->npace = 0;
	if (x->dead) {
		xfer_abandon(x);
		xfer_forget_files(x);
		return -1;
	}
	xfer_progress(x);
	if (xfer_fix_dirs(x) != 0)
		rc = -1;
	for (struct xfer_group *g = x->groups; g != NULL; g = g->next)
		if (atomic_load(&g->failed) && !g->said)
			log_error("%s", g->msg);
	xfer_forget_files(x);
	return rc;
}

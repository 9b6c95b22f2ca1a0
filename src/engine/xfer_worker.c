/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xfer's worker: one thread per connection keeps its pipe full from the
 * queue, reads the replies, and gives its unfinished pieces back when its
 * connection dies. */
#include "config.h"
#include "engine/xfer_impl.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the worker loop ------------------------------------------------------- */

static void
worker_reap(struct worker *w)
{
	size_t j = 0;

	for (size_t i = 0; i < w->nactive; i++) {
		if (w->active[i]->state == T_DONE)
			free(w->active[i]);
		else
			w->active[j++] = w->active[i];
	}
	w->nactive = j;
}

/* Bytes the active tasks still have to ask for: a worker takes no more
 * work than it can keep in flight, so the other connections get their
 * share of a big file. */
static uint64_t
worker_pending(const struct worker *w)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < w->nactive; i++) {
		const struct xfer_task *t = w->active[i];

		if (t->state != T_DONE && t->state != T_CLOSING)
			sum += t->end - t->next_off;
	}
	return sum;
}

uint64_t
worker_left(const struct worker *w)
{
	return sftp_tracked_bytes(w->tr) + worker_pending(w);
}

static void
worker_take(struct worker *w, struct xfer_task *t)
{
	task_claim(w, t);
	w->active[w->nactive++] = t;
}

static int
worker_run(struct worker *w)
{
	struct xfer *x = w->x;

	for (;;) {
		bool sent = true;

		/* Fill the pipe: oldest files first, then new files. */
		while (sftp_tracked(w->tr) < w->max_inflight && sent) {
			sent = false;
			for (size_t i = 0; i < w->nactive && sftp_tracked(w->tr) < w->max_inflight; i++) {
				if (w->active[i]->state == T_DATA &&
				    task_hand_over(w, w->active[i], i) != NULL)
					sent = true;
				while (sftp_tracked(w->tr) < w->max_inflight && task_step(w, w->active[i])) {
					sent = true;
					/* Write as we go: queued WRITE data is memory. */
					if (sftp_queued(w->c) >= XFER_FLUSH_BYTES && sftp_flush(w->c) != 0)
						return -1;
				}
			}
			if (!sent && w->nactive < w->max_active && !atomic_load(&w->retire) &&
			    sftp_tracked_bytes(w->tr) + worker_pending(w) < w->max_inflight_bytes) {
				struct xfer_task *t = xfer_pop(x, w, sftp_tracked(w->tr) == 0 && w->nactive == 0);

				if (t != NULL) {
					worker_take(w, t);
					sent = true;
				}
			}
		}
		if (sftp_tracked(w->tr) == 0) {
			worker_reap(w);
			if (w->nactive == 0) {
				struct xfer_task *t;

				/* Retired: its pieces are done, the others take
				 * the rest; its connection idles until the end. */
				if (atomic_load(&w->retire))
					return 0;
				if ((t = xfer_pop(x, w, true)) == NULL)
					return 0;
				worker_take(w, t);
			}
			continue;
		}
		struct sftp_reply rep;

		if (sftp_recv(w->c, &rep) != 0 || worker_dispatch(w, &rep) != 0)
			return -1;
		xfer_progress(x);
		if (w->nactive >= w->max_active)
			worker_reap(w);
	}
}

/* A task of a dead connection, made new for another: it starts again
 * where its data stops being known to be written (in place, so what is
 * written twice is the same bytes).  False when nothing is left to do. */
static bool
task_restart(struct xfer_task *t)
{
	struct xfer_file *f = t->f;
	struct xfer_piece *p = &f->pieces[t->idx];
	bool all = p->written >= p->end - p->off;

	if (f->dir == XFER_DOWN && (task_short(t) ||
	    (all && (!piece_is_last(t) || t->known_end == TE_PROBED))))
		return false;	/* every byte is here (or EOF came); only the CLOSE was lost */
	if (all && f->dir == XFER_UP && !t->took_last && !task_only(t))
		return false;	/* acknowledged; the attributes are another's */
	if (t->took_last) {
		/* It was to set size, mode and times: it still is. */
		atomic_fetch_add(&f->data_left, 1);
		t->took_last = false;
	}
	atomic_fetch_sub(&f->done, p->written - (p->high - p->off));
	p->written = p->high - p->off;
	t->next_off = p->high;
	task_renew(t);
	t->outstanding = 0;
	t->hlen = 0;
	t->known_end = TE_PLANNED;
	t->short_at = TASK_NO_SHORT;
	t->sized_at = 0;
	return true;
}

/* The connection died: its unfinished tasks go back to the queue, to
 * the front, for the connections left. */
static void
worker_salvage(struct worker *w)
{
	unsigned n = 0;
	uint64_t bytes = 0;

	for (size_t i = 0; i < w->nactive; i++) {
		struct xfer_task *t = w->active[i];

		if (t->state == T_DONE) {
			free(t);
			continue;
		}
		if (!task_restart(t)) {
			xfer_task_done(w, t);
			free(t);
			continue;
		}
		t->from = w->id;
		n++;
		bytes += t->end - t->next_off;
		xfer_untake(w->x, t);
	}
	w->nactive = 0;
	log_verbose("connection %d failed: %s; %u unfinished piece%s (%llu bytes) go%s back "
	    "to the queue", w->id, w->why[0] ? w->why : "connection lost", n, n == 1 ? "" : "s",
	    (unsigned long long)bytes, n == 1 ? "es" : "");
}

static void *
worker_thread(void *arg)
{
	struct worker *w = arg;
	struct xfer *x = w->x;
	int rc = worker_run(w);

	if (rc != 0) {
		/* Given up, whatever broke: closing it must not wait for it. */
		sftp_give_up(w->c);
		w->failed = true;
		worker_salvage(w);
	}
	pthread_mutex_lock(&x->lock);
	if (rc != 0)
		snprintf(x->fatal, sizeof(x->fatal), "%s", w->broken ? w->why : "");
	x->alive--;
	if (x->pace != NULL)
		x->pace[w->id - 1].working = false;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	return NULL;
}

void
worker_init(struct worker *w, struct xfer *x, struct sftp_conn *c, bool up, int id)
{
	w->x = x;
	w->c = c;
	w->id = id;
	w->joined_t = clock_now();
	atomic_init(&w->retire, false);
	w->tr = sftp_tracker_new(c);
	w->max_inflight = x->p.nrequests;
	if (w->max_inflight > XFER_MAX_REQUESTS)
		w->max_inflight = XFER_MAX_REQUESTS;
	w->max_inflight_bytes = up ? x->p.upload_inflight_bytes : x->p.inflight_bytes;
	if (w->max_inflight_bytes == 0)
		w->max_inflight_bytes = XFER_DEFAULT_INFLIGHT_BYTES;
	w->max_active = XFER_MAX_ACTIVE;
	if (sftp_max_handles(c) > 8 && w->max_active > sftp_max_handles(c) / 2)
		w->max_active = (size_t)(sftp_max_handles(c) / 2);
	w->active = xcalloc(w->max_active, sizeof(*w->active));
}

void
worker_free(struct worker *w)
{
	for (size_t j = 0; j < w->nactive; j++)
		free(w->active[j]);
	free(w->active);
	sftp_tracker_free(w->tr);
	memset(w, 0, sizeof(*w));
}

/* Count the worker alive first: the copy is lost only when none is. */
bool
worker_start(struct worker *w, pthread_t *tid)
{
	struct xfer *x = w->x;

	pthread_mutex_lock(&x->lock);
	x->alive++;
	if (x->pace != NULL)
		x->pace[w->id - 1] = (struct xfer_pace){ .working = true };
	pthread_mutex_unlock(&x->lock);
	if (pthread_create(tid, NULL, worker_thread, w) == 0)
		return true;
	pthread_mutex_lock(&x->lock);
	x->alive--;
	if (x->pace != NULL)
		x->pace[w->id - 1].working = false;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	return false;
}


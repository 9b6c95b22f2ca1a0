/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "engine/xfer.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "policy/operand.h"
#include "sftp/sftp.h"
#include "engine/bwlimit.h"
#include "engine/progress.h"
#include "engine/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* Requests in flight per connection.  Data requests are held to
 * max_inflight_bytes; the count matters for the small OPEN/WRITE/CLOSE
 * trains of many small files.  -X nrequests= sets it as in scp. */
#define XFER_DEFAULT_NREQUESTS 1024
/* Payload in flight per connection: a 50 ms round trip at ~300 MB/s. */
#define XFER_DEFAULT_INFLIGHT_BYTES (16u << 20)
/* Each connection gets several pieces of a big file, so all finish together. */
#define XFER_PIECES_PER_CONN 4
/* Files open at once per connection: enough to hide the round trips of
 * OPEN and CLOSE behind each other when copying many small files. */
#define XFER_MAX_ACTIVE 256
/* Slots for matching reply ids to requests (a power of two). */
#define XFER_REQ_SLOTS 4096
/* Flush queued WRITE data at this size so memory stays small. */
#define XFER_FLUSH_BYTES (1024 * 1024)

/* What one piece of a file has written, for the truncation at the end:
 * each byte of a piece is asked for once, so written == end - off means it
 * is all there; high is the end of the run written in order from off. */
struct xfer_piece {
	uint64_t off, end;
	uint64_t written, high;
};

struct xfer_file {
	enum xfer_dir dir;
	char *local;
	char *remote;
	char *name;		/* base name, for the progress meter */
	/* Written by the worker whose piece finds the file grown or cut
	 * (upload_grew, piece_grew, send_write) while the meter reads it on
	 * another thread; other state orders the workers' own reads, so
	 * relaxed access is enough. */
	atomic_uint_fast64_t size;
	uint32_t perm;		/* source mode bits */
	uint32_t atime, mtime;
	int fd;			/* local file, shared by its chunks */
	atomic_int chunks_left;		/* pieces not yet finished */
	atomic_int data_left;		/* upload pieces whose data is not all acknowledged */
	atomic_bool failed;
	atomic_uint_fast64_t done;	/* bytes moved */
	atomic_bool complete;
	bool progress_started;
	bool no_meter;		/* scp shows no meter for an empty download */
	char *fail_msg;		/* scp's line after a failed file, or NULL */
	struct xfer_group *grp;	/* the source operand it belongs to, or NULL */
	struct xfer_task *rest;	/* chunks 1..n-1, queued once chunk 0 opened */
	struct xfer_piece *pieces;	/* one per chunk; each written by its owner */
	size_t npieces;
	uint64_t size_sent;	/* a lone upload's size FSETSTAT, sent before its replies */
	struct journal_file *jf;	/* its resume journal record, or NULL */
};

/* One uploaded source directory: scp says "failed to upload directory"
 * once when anything in it failed. */
struct xfer_group {
	char *msg;
	atomic_bool failed;	/* set by workers */
	bool said;
	struct xfer_group *next;
};

enum task_state { T_NEW, T_OPENING, T_DATA, T_CLOSING, T_DONE };

struct xfer_task {
	struct xfer_file *f;
	uint64_t off, end;	/* this chunk */
	size_t idx;		/* its entry in f->pieces */
	bool first;		/* chunk 0: opens the local file, releases the rest */
	bool only;		/* the file's single chunk */
	struct xfer_task *next;	/* queue link */
	/* worker-owned from here */
	enum task_state state;
	uint8_t handle[256];
	uint32_t hlen;
	uint64_t next_off;
	int outstanding;
	bool eof;
	bool took_last;		/* counted itself off data_left: sets the attributes */
	bool probe_sent;	/* the last piece of a download asked past its end */
	bool probed;		/* ... and has the answer */
	bool grow;		/* reads on past the end until EOF before closing */
	uint64_t short_at;	/* a short READ behind a CLOSE ended here */
	bool short_seen;	/* short_at is set (it can be 0: an empty first READ) */
	int from;		/* connection that gave it back (0: none), for -v */
	uint64_t sized_at;	/* an upload's end + 1 when its local size was last read */
};

static uint64_t
xfer_file_size(const struct xfer_file *f)
{
	return atomic_load_explicit(&f->size, memory_order_relaxed);
}

/* The owner of t's piece found the file's end moved: the piece and the
 * file end there. */
static void
xfer_file_resize(struct xfer_file *f, struct xfer_task *t, uint64_t end)
{
	t->end = f->pieces[t->idx].end = end;
	atomic_store_explicit(&f->size, end, memory_order_relaxed);
}

struct xfer_dirfix {
	bool remote;
	char *path;
	struct sftp_attrs a;	/* remote: SETSTAT attrs; local: times */
};

struct xfer {
	struct xfer_params p;
	struct sftp_conn **conns;
	int nconns;
	int nplanned;		/* nconns and the joiner's: how files are split */
	struct xfer_joiner joiner;	/* max 0: none */
	/* shared queue */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct xfer_task *head, *tail;
	int unreleased;		/* multi-chunk files whose chunk 0 is not open yet */
	int taken;		/* tasks that workers hold and have not finished */
	int alive;		/* workers running */
	bool joiner_done;	/* no more connections will join */
	bool dead;		/* every connection died with work left */
	struct sftp_conn *fix_conn;	/* a live one after the run, for directories */
	char fatal[256];		/* a lost run's last broken reply, in scp's words */
	/* everything planned, for progress order and cleanup */
	struct xfer_file **files;
	size_t nfiles, capfiles;
	size_t progress_idx;
	pthread_mutex_t progress_lock;
	struct xfer_dirfix *dirs;
	size_t ndirs, capdirs;
	struct xfer_group *groups, **groups_tail;
};

struct xfer_req {
	struct xfer_task *t;
	uint64_t off;
	uint32_t len;
	uint8_t type;
	bool cut;		/* the FSETSTAT that sets an upload's size */
	bool used;
};

struct worker {
	struct xfer *x;
	struct sftp_conn *c;
	struct xfer_req *reqs;
	uint32_t inflight;
	uint32_t max_inflight;
	uint64_t inflight_bytes;	/* READ/WRITE payload asked for, not answered */
	uint64_t moved;			/* payload answered, for -vv */
	unsigned tasks;			/* tasks taken, for -vv */
	unsigned opens;			/* ... and the OPENs they sent */
	uint64_t max_inflight_bytes;
	struct xfer_task **active;
	size_t nactive;
	size_t max_active;
	int id;				/* 1.. for -v */
	bool failed;			/* its connection died */
	bool broken;			/* ... because the server broke the protocol */
	char why[256];			/* why it failed, for -v */
};

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
	atomic_init(&f->size, it->size);
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

/* Queue a file as one task, or as pieces when several connections can
 * share it; pieces after the first wait until the first has opened it.
 * A resumed file is cut the same way over the ranges still missing. */
static void
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
			t->first = i == 0;
			t->only = n == 1;
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
	if (x->tail)
		x->tail->next = first;
	else
		x->head = first;
	x->tail = first;
}

/* Chunk 0 is open (or failed): let the other chunks go, or drop them. */
static void
xfer_release_rest(struct xfer *x, struct xfer_file *f, bool ok)
{
	struct xfer_task *rest = f->rest, *t;

	if (rest == NULL)
		return;
	f->rest = NULL;
	pthread_mutex_lock(&x->lock);
	x->unreleased--;
	if (ok) {
		for (t = rest; t->next; t = t->next)
			;
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
static bool
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
	x->taken++;
	return t;
}

/* The next task; with wait, block while others may still produce one. */
static struct xfer_task *
xfer_pop(struct xfer *x, bool wait)
{
	struct xfer_task *t = NULL;

	pthread_mutex_lock(&x->lock);
	while (x->head == NULL && wait && xfer_work_left(x) && !x->dead)
		pthread_cond_wait(&x->cond, &x->lock);
	if (x->head != NULL)
		t = xfer_shift(x);
	pthread_mutex_unlock(&x->lock);
	return t;
}

/* A new task at the end of the queue (a file that grew). */
static void
xfer_push(struct xfer *x, struct xfer_task *t)
{
	pthread_mutex_lock(&x->lock);
	t->next = NULL;
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
static struct xfer_task *
xfer_next_piece(struct xfer *x, const struct xfer_file *f, bool take)
{
	struct xfer_task *t;

	pthread_mutex_lock(&x->lock);
	t = x->head;
	if (t != NULL && (t->f != f || t->grow || t->state != T_NEW))
		t = NULL;
	if (t != NULL && take)
		t = xfer_shift(x);
	pthread_mutex_unlock(&x->lock);
	return t;
}

/* A task taken from the queue is finished (or given back). */
static void
xfer_untake(struct xfer *x, struct xfer_task *back)
{
	pthread_mutex_lock(&x->lock);
	x->taken--;
	if (back != NULL) {
		back->next = x->head;
		x->head = back;
		if (x->tail == NULL)
			x->tail = back;
	}
	if (back != NULL || x->taken == 0)
		pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
}

/* ---- progress --------------------------------------------------------- */

/* scp shows one meter line per file, in order.  Files complete out of
 * order here, so the meter follows the oldest unfinished file and prints
 * the finished ones before it as they are passed. */
static void
xfer_progress(struct xfer *x)
{
	struct progress *pm = x->p.progress;

	if (pm == NULL || pthread_mutex_trylock(&x->progress_lock) != 0)
		return;
	while (x->progress_idx < x->nfiles) {
		struct xfer_file *f = x->files[x->progress_idx];

		if (f->no_meter) {
			if (!atomic_load(&f->complete))
				break;
			x->progress_idx++;
			continue;
		}
		if (!f->progress_started) {
			progress_start(pm, f->name, (off_t)xfer_file_size(f));
			f->progress_started = true;
		}
		progress_update(pm, (off_t)atomic_load(&f->done));
		if (!atomic_load(&f->complete))
			break;
		progress_finish(pm);
		x->progress_idx++;
	}
	pthread_mutex_unlock(&x->progress_lock);
}

/* ---- file completion ---------------------------------------------------- */

/* Mark a file failed; scp's follow-up line ("Download of file ... failed")
 * comes right after the message that said why, once. */
static void
xfer_file_error(struct xfer_file *f)
{
	if (atomic_exchange(&f->failed, true))
		return;
	if (f->fail_msg != NULL)
		log_error("%s", f->fail_msg);
	if (f->grp != NULL)
		atomic_store(&f->grp->failed, true);
}

/* The first failure of a file, said in scp's words (pieces of one file on
 * several connections may fail at once: only one of them says it). */
static void
xfer_file_fail(struct xfer_file *f, const char *fmt, ...) FSCP_PRINTF(2, 3);

static void
xfer_file_fail(struct xfer_file *f, const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&f->failed, true))
		return;
	va_start(ap, fmt);
	log_verror(fmt, ap);
	va_end(ap);
	if (f->fail_msg != NULL)
		log_error("%s", f->fail_msg);
	if (f->grp != NULL)
		atomic_store(&f->grp->failed, true);
}

/* len bytes of piece t landed at off. */
static void
piece_wrote(struct xfer_file *f, const struct xfer_task *t, uint64_t off, uint64_t len)
{
	struct xfer_piece *p = &f->pieces[t->idx];

	p->written += len;
	if (off <= p->high && off + len > p->high)
		p->high = off + len;
}

/* Where the new data ends once the pieces are finished: the first byte not
 * known to be written.  The destination is written in place (as scp 9.2
 * does, so a file copied onto itself survives) and then cut here, so a
 * failed copy keeps no old tail that would make it look complete. */
static uint64_t
xfer_file_extent(const struct xfer_file *f)
{
	for (size_t i = 0; i < f->npieces; i++) {
		const struct xfer_piece *p = &f->pieces[i];

		if (p->written != p->end - p->off)
			return p->high;
	}
	return xfer_file_size(f);
}

/* The last chunk of a file is done: local finishing touches. */
static void
xfer_file_finish(struct xfer *x, struct xfer_file *f)
{
	if (f->dir == XFER_DOWN && f->fd >= 0) {
		if (ftruncate(f->fd, (off_t)xfer_file_extent(f)) == -1) {
			int e = errno;
			struct stat st;

			/* scp says so and counts the file copied: right for a
			 * device or FIFO (nothing to cut), not for a regular file,
			 * which would keep its old tail. */
			if (fstat(f->fd, &st) == 0 && !S_ISREG(st.st_mode)) {
				log_warn("local ftruncate \"%s\": %s", f->local, strerror(e));
			} else {
				log_error("local ftruncate \"%s\": %s", f->local, strerror(e));
				xfer_file_error(f);
			}
		}
		if (!atomic_load(&f->failed) && x->p.preserve) {
			struct timespec ts[2] = {
				{ .tv_sec = f->atime }, { .tv_sec = f->mtime },
			};

			/* sftp-client's do_download says these and still counts
			 * the file copied (a device on a read-only mount). */
			if (fchmod(f->fd, f->perm & 0777) == -1)
				log_warn("local chmod \"%s\": %s", f->local, strerror(errno));
			if (futimens(f->fd, ts) == -1)
				log_warn("local set times \"%s\": %s", f->local, strerror(errno));
		}
		journal_file_done(f->jf, !atomic_load(&f->failed));	/* resume hook: file done */
		if (close(f->fd) == -1 && !atomic_load(&f->failed)) {
			log_error("Couldn't write to \"%s\": %s", f->local, strerror(errno));
			xfer_file_error(f);
		}
	} else if (f->fd >= 0) {
		close(f->fd);
	}
	if (f->dir == XFER_UP)
		journal_file_done(f->jf, !atomic_load(&f->failed));	/* resume hook: file done */
	f->fd = -1;
	atomic_store(&f->complete, true);
}

static void
xfer_task_done(struct worker *w, struct xfer_task *t)
{
	struct xfer_file *f = t->f;

	t->state = T_DONE;
	if (atomic_fetch_sub(&f->chunks_left, 1) == 1)
		xfer_file_finish(w->x, f);
	xfer_untake(w->x, NULL);
}

/* ---- requests ------------------------------------------------------------ */

/* The piece that reaches the end of the file (and follows it when the
 * file grows). */
static bool
piece_is_last(const struct xfer_task *t)
{
	return t->idx + 1 == t->f->npieces;
}

static struct xfer_req *
worker_slot(struct worker *w, uint32_t *id)
{
	/* Skip ids whose slot still waits for an old reply. */
	for (;;) {
		*id = sftp_new_id(w->c);
		struct xfer_req *r = &w->reqs[*id & (XFER_REQ_SLOTS - 1)];

		if (!r->used)
			return r;
	}
}

static void
worker_track(struct worker *w, struct xfer_req *r, struct xfer_task *t, uint8_t type,
    uint64_t off, uint32_t len)
{
	r->t = t;
	r->type = type;
	r->off = off;
	r->len = len;
	r->cut = false;
	r->used = true;
	t->outstanding++;
	w->inflight++;
	w->inflight_bytes += len;
}

static void
send_open(struct worker *w, struct xfer_task *t)
{
	struct xfer_file *f = t->f;
	struct sftp_attrs a = { 0 };
	uint32_t id;
	struct xfer_req *r = worker_slot(w, &id);

	if (f->dir == XFER_UP) {
		/* No TRUNC: written in place, cut to size at the end. */
		a.flags = SSH_FILEXFER_ATTR_PERMISSIONS;
		a.perm = f->perm & 0777;
		sftp_msg_open(&w->c->out, id, f->remote, SSH_FXF_WRITE | SSH_FXF_CREAT, &a);
	} else {
		sftp_msg_open(&w->c->out, id, f->remote, SSH_FXF_READ, NULL);
	}
	worker_track(w, r, t, SSH_FXP_OPEN, 0, 0);
	w->opens++;
	t->state = T_OPENING;
}

/* Cut an uploaded file by name: the piece that would do it by handle
 * never opened, or a lone piece's size went out before a WRITE failed. */
static void
send_setstat_size(struct worker *w, struct xfer_task *t)
{
	struct sftp_attrs a = { .flags = SSH_FILEXFER_ATTR_SIZE, .size = xfer_file_extent(t->f) };
	uint32_t id;
	struct xfer_req *r = worker_slot(w, &id);

	sftp_msg_setstat(&w->c->out, id, t->f->remote, &a);
	worker_track(w, r, t, SSH_FXP_SETSTAT, 0, 0);
	t->state = T_CLOSING;
}

static struct xfer_req *
send_fsetstat(struct worker *w, struct xfer_task *t, const struct sftp_attrs *a)
{
	uint32_t id;
	struct xfer_req *r = worker_slot(w, &id);

	sftp_msg_fsetstat(&w->c->out, id, t->handle, t->hlen, a);
	worker_track(w, r, t, SSH_FXP_FSETSTAT, 0, 0);
	return r;
}

static void
send_close(struct worker *w, struct xfer_task *t)
{
	struct xfer_file *f = t->f;
	uint32_t id;
	struct xfer_req *r;

	/* The piece whose data is acknowledged last sets size, then mode and
	 * times, after all data (a lone piece closes right behind its WRITEs,
	 * which the server runs in order). */
	bool last = t->only;

	if (!t->only) {
		t->took_last = true;
		last = atomic_fetch_sub(&f->data_left, 1) == 1;
	}

	if (f->dir == XFER_UP && last) {
		/* A lone piece cannot wait for its replies: it sends the size
		 * it wrote and fixes it after the CLOSE if a WRITE failed. */
		struct sftp_attrs a = {
			.flags = SSH_FILEXFER_ATTR_SIZE,
			.size = t->only && !atomic_load(&f->failed) ? xfer_file_size(f) : xfer_file_extent(f),
		};

		f->size_sent = a.size;
		send_fsetstat(w, t, &a)->cut = true;
	}
	if (f->dir == XFER_UP && w->x->p.preserve && !atomic_load(&f->failed) && last) {
		struct sftp_attrs a = {
			.flags = SSH_FILEXFER_ATTR_PERMISSIONS | SSH_FILEXFER_ATTR_ACMODTIME,
			.perm = f->perm & 0777, .atime = f->atime, .mtime = f->mtime,
		};

		send_fsetstat(w, t, &a);
	}
	r = worker_slot(w, &id);
	sftp_msg_handle(&w->c->out, SSH_FXP_CLOSE, id, t->handle, t->hlen);
	worker_track(w, r, t, SSH_FXP_CLOSE, 0, 0);
	t->state = T_CLOSING;
}

static bool
send_write(struct worker *w, struct xfer_task *t)
{
	struct xfer_file *f = t->f;
	uint64_t left = t->end - t->next_off;
	uint32_t len = left < w->c->max_write ? (uint32_t)left : w->c->max_write;
	uint32_t id;

	/* -l paces uploads as they are sent (downloads as they arrive), on
	 * the one clock all connections share.  What is queued goes out
	 * first, so the wait does not hold it back; a failed flush shows at
	 * the next one. */
	if (w->x->p.bw != NULL) {
		(void)sftp_flush(w->c);
		bwlimit_account(w->x->p.bw, len);
	}

	struct xfer_req *r = worker_slot(w, &id);
	size_t start = sftp_msg_write_begin(&w->c->out, id, t->handle, t->hlen,
	    t->next_off, len);
	uint8_t *p = sftp_buf_reserve(&w->c->out, len);
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(f->fd, p + got, len - got, (off_t)(t->next_off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			w->c->out.len = start;
			xfer_file_fail(f, "read local \"%s\": %s", f->local, strerror(errno));
			t->next_off = t->end;
			return false;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got < len) {
		/* The file shrank under us: scp sends what there is, and the cut
		 * at the end makes the copy that prefix.  The header is the same
		 * size with the shorter length, so the data stays where it is. */
		w->c->out.len = start;
		if (got > 0) {
			(void)sftp_msg_write_begin(&w->c->out, id, t->handle, t->hlen,
			    t->next_off, (uint32_t)got);
			(void)sftp_buf_reserve(&w->c->out, got);
		}
		len = (uint32_t)got;
		if (t->only)
			xfer_file_resize(f, t, t->next_off + got);
		else
			t->eof = true;
		if (got == 0) {
			t->next_off = t->end;
			return false;
		}
	}
	sftp_msg_end(&w->c->out, start);
	worker_track(w, r, t, SSH_FXP_WRITE, t->next_off, len);
	t->next_off = t->eof ? t->end : t->next_off + len;
	return true;
}

static void
send_read(struct worker *w, struct xfer_task *t, uint64_t off, uint32_t len)
{
	uint32_t id;
	struct xfer_req *r = worker_slot(w, &id);

	sftp_msg_read(&w->c->out, id, t->handle, t->hlen, off, len);
	worker_track(w, r, t, SSH_FXP_READ, off, len);
}

/* scp uploads a local file to its end: the last piece follows a file that
 * grew since it was planned (true: there is more to send now). */
static bool
upload_grew(struct xfer_task *t)
{
	struct xfer_file *f = t->f;
	struct stat st;

	/* Once per end reached: a piece waiting for its replies asks again
	 * at every turn of the loop. */
	if (t->sized_at == t->end + 1)
		return false;
	t->sized_at = t->end + 1;
	if (f->fd < 0 || fstat(f->fd, &st) != 0 || (uint64_t)st.st_size <= t->end)
		return false;
	xfer_file_resize(f, t, (uint64_t)st.st_size);
	return true;
}

/* The worker owns t from now on (counted for -vv; a piece given back by
 * a dead connection says where it came from). */
static void
task_claim(struct worker *w, struct xfer_task *t)
{
	if (t->from != 0)
		log_verbose("connection %d takes over \"%s\" bytes %llu-%llu from connection %d",
		    w->id, t->f->remote, (unsigned long long)t->next_off,
		    (unsigned long long)t->end, t->from);
	t->from = 0;
	w->tasks++;
}

/* A piece that may pass its handle on once its replies are in. */
static bool
piece_hands_over(const struct xfer_task *t)
{
	return !t->only && !t->grow && !piece_is_last(t) && !t->short_seen;
}

/* A piece whose every reply is in passes its open handle to the file's
 * next piece in the queue instead of closing it: that piece sends data at
 * once, with no OPEN of its own.  Through a slow link an OPEN and its
 * reply wait behind the data already queued, and the link idles a round
 * trip per piece (SSM, 128 KiB pieces: sessions moved ~80% of the
 * channel's rate).  Not for the last piece (it probes the end or sets the
 * attributes) nor a failed file.  The caller's active slot gets the new
 * task; t is finished and freed.  Returns the new task, or NULL. */
static struct xfer_task *
task_hand_over(struct worker *w, struct xfer_task *t, size_t slot)
{
	struct xfer_file *f = t->f;
	struct xfer_task *n;

	if (!piece_hands_over(t) || t->outstanding != 0 || t->next_off < t->end || t->eof ||
	    atomic_load(&f->failed))
		return NULL;
	if ((n = xfer_next_piece(w->x, f, true)) == NULL)
		return NULL;
	task_claim(w, n);
	memcpy(n->handle, t->handle, t->hlen);
	n->hlen = t->hlen;
	n->state = T_DATA;
	/* Its data is done, as a CLOSE would have said (not the last: n's
	 * is still to come). */
	atomic_fetch_sub(&f->data_left, 1);
	w->active[slot] = n;
	xfer_task_done(w, t);
	free(t);
	return n;
}

/* Issue what this task can send now; true when it sent something. */
static bool
task_step(struct worker *w, struct xfer_task *t)
{
	if (t->state == T_NEW) {
		send_open(w, t);
		return true;
	}
	if (t->state != T_DATA)
		return false;
	if (t->next_off < t->end && !atomic_load(&t->f->failed)) {
		/* Enough bytes in flight for this link: let replies come first. */
		if (w->inflight_bytes >= w->max_inflight_bytes)
			return false;
		if (t->f->dir == XFER_UP) {
			return send_write(w, t);
		}
		uint64_t left = t->end - t->next_off;
		uint32_t len = left < w->c->max_read ? (uint32_t)left : w->c->max_read;

		send_read(w, t, t->next_off, len);
		t->next_off += len;
		return true;
	}
	if (atomic_load(&t->f->failed) || t->eof) {
		/* nothing more to find out */
	} else if (t->f->dir == XFER_DOWN && piece_is_last(t) && !t->probe_sent) {
		send_read(w, t, t->end, w->c->max_read);
		t->probe_sent = true;
		return true;
	} else if (t->f->dir == XFER_UP && piece_is_last(t) && upload_grew(t)) {
		return true;
	}
	/* Reading on until EOF: the answer to the probe decides. */
	if (t->grow && t->outstanding > 0)
		return false;
	/* All data requested.  The server answers one session's requests in
	 * order, so a download, or a lone upload chunk, can close right behind
	 * its READs or WRITEs and save a round trip per file.  Other upload
	 * chunks wait for their replies, so the last one knows it is last.  A
	 * download piece whose file has its next piece queued waits too: its
	 * handle goes on to that piece (task_hand_over). */
	if (t->f->dir == XFER_DOWN && t->outstanding > 0 && piece_hands_over(t) &&
	    xfer_next_piece(w->x, t->f, false) != NULL)
		return false;
	if (t->f->dir == XFER_DOWN || t->only || t->outstanding == 0) {
		send_close(w, t);
		return true;
	}
	return false;
}

/* ---- replies ------------------------------------------------------------- */

static void
on_open(struct worker *w, struct xfer_task *t, const struct sftp_reply *rep)
{
	struct xfer_file *f = t->f;

	if (rep->type != SSH_FXP_HANDLE) {
		uint32_t st = rep->type == SSH_FXP_STATUS ? rep->status : SSH_FX_FAILURE;
		char what[SFTP_HANDLE_ERRMSG];

		xfer_file_fail(f, "%s: %s", sftp_handle_errmsg(what, "%s open \"%s\"",
		    f->dir == XFER_UP ? "dest" : "remote", f->remote), sftp_status_text(st));
		if (t->first) {
			xfer_release_rest(w->x, f, false);
		} else if (f->dir == XFER_UP && atomic_fetch_sub(&f->data_left, 1) == 1) {
			/* The others are written and closed: cut by name. */
			send_setstat_size(w, t);
			return;
		}
		t->state = T_DONE;
		return;
	}
	memcpy(t->handle, rep->handle, rep->handle_len);
	t->hlen = rep->handle_len;
	t->state = T_DATA;
	if (f->fd < 0 && t->first) {
		if (f->dir == XFER_UP)
			f->fd = open(f->local, O_RDONLY | O_CLOEXEC);
		else
			f->fd = open(f->local, O_WRONLY | O_CREAT | O_CLOEXEC,
			    (f->perm & 0777) | S_IWUSR);
		if (f->fd < 0) {
			log_error("open local \"%s\": %s", f->local, strerror(errno));
			xfer_file_error(f);
		} else if (f->dir == XFER_DOWN) {
			journal_file_fd(f->jf, f->fd);	/* resume hook: target open */
		}
	}
	if (t->first)
		xfer_release_rest(w->x, f, !atomic_load(&f->failed));
	if (atomic_load(&f->failed))
		t->next_off = t->end;
}

/* The last piece of a download asks for one READ past the size it listed
 * (its "probe"), right behind its data: scp reads to end of file, so a
 * file that grew is copied whole.  EOF there is the usual answer. */

static void xfer_push(struct xfer *x, struct xfer_task *t);

/* The probe brought data: the file grew to at least new_end.  A task in
 * grow mode keeps probing on its handle; any other has its CLOSE on the
 * way, so a new task in grow mode reopens the file and reads on. */
static void
piece_grew(struct worker *w, struct xfer_task *t, uint64_t new_end)
{
	struct xfer_file *f = t->f;

	xfer_file_resize(f, t, new_end);
	t->next_off = new_end;
	if (t->grow) {
		t->probe_sent = t->probed = false;
		return;
	}
	struct xfer_task *c = xcalloc(1, sizeof(*c));

	c->f = f;
	c->idx = t->idx;
	c->off = c->end = c->next_off = new_end;
	c->grow = true;
	atomic_fetch_add(&f->chunks_left, 1);
	xfer_push(w->x, c);
}

static int
on_data(struct worker *w, const struct xfer_req *rq, const struct sftp_reply *rep)
{
	struct xfer_task *t = rq->t;
	struct xfer_file *f = t->f;
	bool probe = rq->off >= t->end;

	if (probe)
		t->probed = true;

	if (rep->type == SSH_FXP_STATUS) {
		if (rep->status == SSH_FX_EOF) {
			/* At the probe: the end, where it should be.  Before it:
			 * the file shrank; scp copies what there is, and the cut at
			 * the end keeps that prefix. */
			if (!probe)
				t->eof = true;
			t->next_off = t->end;
			return 0;
		}
		xfer_file_fail(f, "read remote \"%s\": %s", f->remote, sftp_status_text(rep->status));
		t->next_off = t->end;
		return 0;
	}
	/* scp's fatal() words for a broken reply (sftp-client.c). */
	if (rep->type != SSH_FXP_DATA) {
		snprintf(w->why, sizeof(w->why), "Expected SSH2_FXP_DATA(%u) packet, got %u",
		    SSH_FXP_DATA, rep->type);
		w->broken = true;
		return -1;
	}
	if (rep->data_len > rq->len) {
		snprintf(w->why, sizeof(w->why), "Received more data than asked for %u > %u",
		    rep->data_len, rq->len);
		w->broken = true;
		return -1;
	}
	/* A short READ behind a CLOSE left a gap; data after it means the
	 * gap is a hole we cannot fill (only EOF after it: the file shrank). */
	if (t->short_seen && rq->off >= t->short_at && rep->data_len > 0 &&
	    !atomic_load(&f->failed)) {
		xfer_file_fail(f, "read remote \"%s\": file changed during the copy", f->remote);
	}
	if (f->fd >= 0 && !atomic_load(&f->failed)) {
		size_t put = 0;

		while (put < rep->data_len) {
			ssize_t n = pwrite(f->fd, rep->data + put, rep->data_len - put,
			    (off_t)(rq->off + put));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				xfer_file_fail(f, "write local \"%s\": %s", f->local, strerror(errno));
				break;
			}
			put += (size_t)n;
		}
		piece_wrote(f, t, rq->off, put);
		journal_wrote(f->jf, rq->off, put);	/* resume hook: bytes in the target */
	}
	atomic_fetch_add(&f->done, rep->data_len);
	bwlimit_account(w->x->p.bw, rep->data_len);
	if (probe) {
		if (rep->data_len > 0 && !atomic_load(&f->failed))
			piece_grew(w, t, rq->off + rep->data_len);
		return 0;
	}
	/* Servers may return less than asked: ask again for the rest, unless
	 * the handle is already closed behind the last READ. */
	if (rep->data_len < rq->len && !t->eof && !atomic_load(&f->failed)) {
		if (t->state == T_CLOSING) {
			if (!t->short_seen) {
				t->short_at = rq->off + rep->data_len;
				t->short_seen = true;
			}
		} else {
			send_read(w, t, rq->off + rep->data_len, rq->len - rep->data_len);
		}
	}
	return 0;
}

static void
on_status(struct worker *w, const struct xfer_req *rq, const struct sftp_reply *rep)
{
	struct xfer_task *t = rq->t;
	struct xfer_file *f = t->f;
	uint32_t st = rep->type == SSH_FXP_STATUS ? rep->status : SSH_FX_BAD_MESSAGE;

	if (rq->type == SSH_FXP_WRITE) {
		if (st == SSH_FX_OK) {
			piece_wrote(f, t, rq->off, rq->len);
			journal_wrote(f->jf, rq->off, rq->len);	/* resume hook: acknowledged */
			atomic_fetch_add(&f->done, rq->len);
		} else {
			xfer_file_fail(f, "write remote \"%s\": %s", f->remote, sftp_status_text(st));
		}
		return;
	}
	if (st != SSH_FX_OK && rq->cut && !atomic_load(&f->failed)) {
		/* scp says so and counts the file copied.  A device or FIFO
		 * (EINVAL, which OpenSSH answers as "Bad message") has no size
		 * to cut; a regular file would keep its old tail: failed. */
		if (st == SSH_FX_BAD_MESSAGE) {
			log_warn("remote fsetstat: %s", sftp_status_text(st));
		} else {
			log_error("remote fsetstat: %s", sftp_status_text(st));
			xfer_file_error(f);
		}
	} else if (st != SSH_FX_OK && rq->type == SSH_FXP_FSETSTAT) {
		/* -p's mode and times: scp's do_fsetstat() says so, and the
		 * file still counts as copied. */
		if (!atomic_load(&f->failed))
			log_warn("remote fsetstat: %s", sftp_status_text(st));
	} else if (st != SSH_FX_OK && !atomic_load(&f->failed)) {
		if (rq->type == SSH_FXP_SETSTAT)
			log_error("remote setstat \"%s\": %s", f->remote, sftp_status_text(st));
		else
			log_error("close remote: %s", sftp_status_text(st));
		xfer_file_error(f);
	}
	/* All replies of a lone upload are in: cut what a failed WRITE left
	 * beyond the data written. */
	if (rq->type == SSH_FXP_CLOSE && f->dir == XFER_UP && t->only &&
	    atomic_load(&f->failed) && f->size_sent > xfer_file_extent(f))
		send_setstat_size(w, t);
}

/* 0, or -1 when the server broke the protocol: the connection is given
 * up like a dead one (w->why says why). */
static int
worker_dispatch(struct worker *w, const struct sftp_reply *rep)
{
	struct xfer_req *slot = &w->reqs[rep->id & (XFER_REQ_SLOTS - 1)];
	struct xfer_req rq;
	struct xfer_task *t;
	int rc = 0;

	if (!slot->used) {
		/* A reply nobody waits for: scp's do_upload and do_download
		 * say it in their own words. */
		bool up = w->nactive > 0 && w->active[0]->f->dir == XFER_UP;

		snprintf(w->why, sizeof(w->why), up ? "Can't find request for ID %u" :
		    "Unexpected reply %u", rep->id);
		w->broken = true;
		return -1;
	}
	/* A copy: the handlers may send new requests, which can take this slot. */
	rq = *slot;
	slot->used = false;
	w->inflight--;
	w->inflight_bytes -= rq.len;
	w->moved += rq.len;
	t = rq.t;
	t->outstanding--;
	switch (rq.type) {
	case SSH_FXP_OPEN:
		on_open(w, t, rep);
		break;
	case SSH_FXP_READ:
		rc = on_data(w, &rq, rep);
		break;
	default:
		on_status(w, &rq, rep);
		break;
	}
	if (rc == 0 && ((t->state == T_CLOSING && t->outstanding == 0) || t->state == T_DONE))
		xfer_task_done(w, t);
	return rc;
}

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
		while (w->inflight < w->max_inflight && sent) {
			sent = false;
			for (size_t i = 0; i < w->nactive && w->inflight < w->max_inflight; i++) {
				if (w->active[i]->state == T_DATA &&
				    task_hand_over(w, w->active[i], i) != NULL)
					sent = true;
				while (w->inflight < w->max_inflight && task_step(w, w->active[i])) {
					sent = true;
					/* Write as we go: queued WRITE data is memory. */
					if (w->c->out.len >= XFER_FLUSH_BYTES && sftp_flush(w->c) != 0)
						return -1;
				}
			}
			if (!sent && w->nactive < w->max_active &&
			    w->inflight_bytes + worker_pending(w) < w->max_inflight_bytes) {
				struct xfer_task *t = xfer_pop(x, w->inflight == 0 && w->nactive == 0);

				if (t != NULL) {
					worker_take(w, t);
					sent = true;
				}
			}
		}
		if (w->inflight == 0) {
			worker_reap(w);
			if (w->nactive == 0) {
				struct xfer_task *t = xfer_pop(x, true);

				if (t == NULL)
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

	if (f->dir == XFER_DOWN && (t->eof || (all && (!piece_is_last(t) || t->probed))))
		return false;	/* every byte is here (or EOF came); only the CLOSE was lost */
	if (all && f->dir == XFER_UP && !t->took_last && !t->only)
		return false;	/* acknowledged; the attributes are another's */
	if (t->took_last) {
		/* It was to set size, mode and times: it still is. */
		atomic_fetch_add(&f->data_left, 1);
		t->took_last = false;
	}
	atomic_fetch_sub(&f->done, p->written - (p->high - p->off));
	p->written = p->high - p->off;
	t->next_off = p->high;
	t->state = T_NEW;
	t->outstanding = 0;
	t->hlen = 0;
	t->eof = t->probe_sent = t->probed = false;
	t->short_seen = false;
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
		w->c->dead = true;
		w->failed = true;
		worker_salvage(w);
	}
	pthread_mutex_lock(&x->lock);
	if (rc != 0)
		snprintf(x->fatal, sizeof(x->fatal), "%s", w->broken ? w->why : "");
	x->alive--;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	return NULL;
}

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

static void
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

void
xfer_free(struct xfer *x)
{
	struct xfer_task *t;

	if (x == NULL)
		return;
	while ((t = xfer_pop(x, false)) != NULL)
		free(t);
	xfer_forget_files(x);
	free(x->files);
	free(x->dirs);
	pthread_mutex_destroy(&x->lock);
	pthread_cond_destroy(&x->cond);
	pthread_mutex_destroy(&x->progress_lock);
	free(x);
}

/* 0, or -1 when the connection died. */
static int
xfer_fix_dirs(struct xfer *x)
{
	/* Recorded after their contents were planned: children come first. */
	for (size_t i = 0; i < x->ndirs; i++) {
		struct xfer_dirfix *d = &x->dirs[i];

		if (d->remote) {
			int st = x->fix_conn != NULL ? sftp_setstat(x->fix_conn, d->path, &d->a) : -1;

			if (st < 0)
				return -1;
			if (st != SSH_FX_OK)
				log_error("remote setstat \"%s\": %s", d->path, sftp_status_text((uint32_t)st));
		} else {
			struct timeval tv[2] = {
				{ .tv_sec = d->a.atime }, { .tv_sec = d->a.mtime },
			};

			/* scp's error() lines: said, not counted. */
			if ((d->a.flags & SSH_FILEXFER_ATTR_ACMODTIME) && utimes(d->path, tv) == -1)
				log_warn("local set times on \"%s\": %s", d->path, strerror(errno));
			if ((d->a.flags & SSH_FILEXFER_ATTR_PERMISSIONS) &&
			    chmod(d->path, d->a.perm & 01777) == -1)
				log_warn("local chmod directory \"%s\": %s", d->path, strerror(errno));
		}
	}
	return 0;
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

static void
worker_init(struct worker *w, struct xfer *x, struct sftp_conn *c, bool up, int id)
{
	w->x = x;
	w->c = c;
	w->id = id;
	w->reqs = xcalloc(XFER_REQ_SLOTS, sizeof(*w->reqs));
	w->max_inflight = x->p.nrequests;
	if (w->max_inflight > XFER_REQ_SLOTS / 2)
		w->max_inflight = XFER_REQ_SLOTS / 2;
	w->max_inflight_bytes = up ? x->p.upload_inflight_bytes : x->p.inflight_bytes;
	if (w->max_inflight_bytes == 0)
		w->max_inflight_bytes = XFER_DEFAULT_INFLIGHT_BYTES;
	w->max_active = XFER_MAX_ACTIVE;
	if (w->c->max_handles > 8 && w->max_active > w->c->max_handles / 2)
		w->max_active = (size_t)(w->c->max_handles / 2);
	w->active = xcalloc(w->max_active, sizeof(*w->active));
}

static void
worker_free(struct worker *w)
{
	for (size_t j = 0; j < w->nactive; j++)
		free(w->active[j]);
	free(w->active);
	free(w->reqs);
	memset(w, 0, sizeof(*w));
}

/* Count the worker alive first: the copy is lost only when none is. */
static bool
worker_start(struct worker *w, pthread_t *tid)
{
	struct xfer *x = w->x;

	pthread_mutex_lock(&x->lock);
	x->alive++;
	pthread_mutex_unlock(&x->lock);
	if (pthread_create(tid, NULL, worker_thread, w) == 0)
		return true;
	pthread_mutex_lock(&x->lock);
	x->alive--;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	return false;
}

/* Nothing is left to hand out: a connection arriving now has no work. */
static bool
xfer_drained(struct xfer *x)
{
	bool drained;

	pthread_mutex_lock(&x->lock);
	drained = x->dead || (x->head == NULL && x->unreleased == 0);
	pthread_mutex_unlock(&x->lock);
	return drained;
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
	}
	pthread_mutex_lock(&x->lock);
	x->joiner_done = true;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	for (int i = 0; i < joining->started; i++)
		pthread_join(joining->tids[i], NULL);
	return NULL;
}

/* The copy is lost: what never finished is not reported as copied, and
 * a local file keeps only the bytes known to be written in order from its
 * start (never its full size with holes). */
static void
xfer_abandon(struct xfer *x)
{
	struct xfer_task *t;

	while ((t = xfer_pop(x, false)) != NULL)
		free(t);
	for (size_t i = 0; i < x->nfiles; i++) {
		struct xfer_file *f = x->files[i];

		while (f->rest != NULL) {
			t = f->rest;
			f->rest = t->next;
			free(t);
		}
		if (atomic_load(&f->complete))
			continue;
		atomic_store(&f->failed, true);
		if (f->fd >= 0) {
			if (f->dir == XFER_DOWN)
				(void)ftruncate(f->fd, (off_t)xfer_file_extent(f));
			close(f->fd);
			f->fd = -1;
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

	x->nplanned = x->nconns + extra;
	for (size_t i = 0; i < x->nfiles; i++) {
		up = up || x->files[i]->dir == XFER_UP;
		xfer_queue_file(x, x->files[i]);
	}
	joining.up = up;
	x->dead = false;
	x->fatal[0] = '\0';
	x->joiner_done = extra == 0;
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
	pthread_mutex_lock(&x->lock);
	while (xfer_work_left(x)) {
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

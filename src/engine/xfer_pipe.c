/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xfer's pipeline: the requests a task sends (OPEN, READ or WRITE, the
 * attributes, CLOSE) and what their replies do to it. */
#include "config.h"
#include "engine/xfer_impl.h"
#include "engine/journal.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "engine/bwlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void
xfer_task_done(struct worker *w, struct xfer_task *t)
{
	struct xfer_file *f = t->f;

	task_finished(t);
	w->finished++;
	if (atomic_fetch_sub(&f->chunks_left, 1) == 1)
		xfer_file_finish(w->x, f);
	xfer_untake(w->x, NULL);
}

/* ---- requests ------------------------------------------------------------ */

/* The piece that reaches the end of the file (and follows it when the
 * file grows). */
bool
piece_is_last(const struct xfer_task *t)
{
	return t->idx + 1 == t->f->npieces;
}

/* t's request id is outstanding: its reply comes to worker_dispatch. */
static void
worker_track(struct worker *w, uint32_t id, struct xfer_task *t, uint8_t type,
    uint64_t off, uint32_t len, uint8_t tag)
{
	sftp_track(w->tr, id, &(struct sftp_req){ .owner = t, .type = type, .off = off,
	    .len = len, .tag = tag });
	t->outstanding++;
}

static void
send_open(struct worker *w, struct xfer_task *t)
{
	struct xfer_file *f = t->f;
	struct sftp_attrs a = { 0 };
	uint32_t id = sftp_track_id(w->tr);

	if (f->dir == XFER_UP) {
		/* No TRUNC: written in place, cut to size at the end. */
		a.flags = SSH_FILEXFER_ATTR_PERMISSIONS;
		a.perm = f->perm & 0777;
		sftp_queue_open(w->c, id, f->remote, SSH_FXF_WRITE | SSH_FXF_CREAT, &a);
	} else {
		sftp_queue_open(w->c, id, f->remote, SSH_FXF_READ, NULL);
	}
	worker_track(w, id, t, SSH_FXP_OPEN, 0, 0, 0);
	w->opens++;
	task_opening(t);
}

/* Cut an uploaded file by name: the piece that would do it by handle
 * never opened, or a lone piece's size went out before a WRITE failed. */
static void
send_setstat_size(struct worker *w, struct xfer_task *t)
{
	struct sftp_attrs a = { .flags = SSH_FILEXFER_ATTR_SIZE, .size = xfer_file_extent(t->f) };
	uint32_t id = sftp_track_id(w->tr);

	sftp_queue_setstat(w->c, id, t->f->remote, &a);
	worker_track(w, id, t, SSH_FXP_SETSTAT, 0, 0, 0);
	task_closing(t);
}

/* tag: XFER_TAG_CUT for the FSETSTAT that sets an upload's size. */
static void
send_fsetstat(struct worker *w, struct xfer_task *t, const struct sftp_attrs *a, uint8_t tag)
{
	uint32_t id = sftp_track_id(w->tr);

	sftp_queue_fsetstat(w->c, id, t->handle, t->hlen, a);
	worker_track(w, id, t, SSH_FXP_FSETSTAT, 0, 0, tag);
}

static void
send_close(struct worker *w, struct xfer_task *t)
{
	struct xfer_file *f = t->f;
	uint32_t id;

	/* The piece whose data is acknowledged last sets size, then mode and
	 * times, after all data (a lone piece closes right behind its WRITEs,
	 * which the server runs in order). */
	bool last = task_only(t);

	if (!task_only(t)) {
		t->took_last = true;
		last = atomic_fetch_sub(&f->data_left, 1) == 1;
	}

	if (f->dir == XFER_UP && last) {
		/* A lone piece cannot wait for its replies: it sends the size
		 * it wrote and fixes it after the CLOSE if a WRITE failed. */
		struct sftp_attrs a = {
			.flags = SSH_FILEXFER_ATTR_SIZE,
			.size = task_only(t) && !atomic_load(&f->failed) ? xfer_file_size(f) : xfer_file_extent(f),
		};

		f->size_sent = a.size;
		send_fsetstat(w, t, &a, XFER_TAG_CUT);
	}
	if (f->dir == XFER_UP && w->x->p.preserve && !atomic_load(&f->failed) && last) {
		struct sftp_attrs a = {
			.flags = SSH_FILEXFER_ATTR_PERMISSIONS | SSH_FILEXFER_ATTR_ACMODTIME,
			.perm = f->perm & 0777, .atime = f->atime, .mtime = f->mtime,
		};

		send_fsetstat(w, t, &a, 0);
	}
	id = sftp_track_id(w->tr);
	sftp_queue_close(w->c, id, t->handle, t->hlen);
	worker_track(w, id, t, SSH_FXP_CLOSE, 0, 0, 0);
	task_closing(t);
}

static bool
send_write(struct worker *w, struct xfer_task *t)
{
	struct xfer_file *f = t->f;
	uint64_t left = t->end - t->next_off;
	uint32_t max = sftp_max_write(w->c);
	uint32_t len = left < max ? (uint32_t)left : max;

	/* -l paces uploads as they are sent (downloads as they arrive), on
	 * the one clock all connections share.  What is queued goes out
	 * first, so the wait does not hold it back; a failed flush shows at
	 * the next one. */
	if (w->x->p.bw != NULL) {
		(void)sftp_flush(w->c);
		bwlimit_account(w->x->p.bw, len);
	}

	uint32_t id = sftp_track_id(w->tr);
	uint8_t *p = sftp_queue_write(w->c, id, t->handle, t->hlen, t->next_off, len);
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(f->fd, p + got, len - got, (off_t)(t->next_off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sftp_queue_write_done(w->c, 0);
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
		 * at the end makes the copy that prefix. */
		len = (uint32_t)got;
		if (task_only(t))
			xfer_file_resize(f, t, t->next_off + got);
		else
			t->known_end = TE_SHORT;
		if (got == 0) {
			sftp_queue_write_done(w->c, 0);
			t->next_off = t->end;
			return false;
		}
	}
	sftp_queue_write_done(w->c, len);
	worker_track(w, id, t, SSH_FXP_WRITE, t->next_off, len, 0);
	t->next_off = task_short(t) ? t->end : t->next_off + len;
	return true;
}

static void
send_read(struct worker *w, struct xfer_task *t, uint64_t off, uint32_t len)
{
	uint32_t id = sftp_track_id(w->tr);

	sftp_queue_read(w->c, id, t->handle, t->hlen, off, len);
	worker_track(w, id, t, SSH_FXP_READ, off, len, 0);
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
void
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
	return (t->role == TR_FIRST || t->role == TR_PIECE) && !piece_is_last(t) &&
	    t->short_at == TASK_NO_SHORT;
}

/* A piece whose every reply is in passes its open handle to the file's
 * next piece in the queue instead of closing it: that piece sends data at
 * once, with no OPEN of its own.  Through a slow link an OPEN and its
 * reply wait behind the data already queued, and the link idles a round
 * trip per piece (SSM, 128 KiB pieces: sessions moved ~80% of the
 * channel's rate).  Not for the last piece (it probes the end or sets the
 * attributes) nor a failed file.  The caller's active slot gets the new
 * task; t is finished and freed.  Returns the new task, or NULL. */
struct xfer_task *
task_hand_over(struct worker *w, struct xfer_task *t, size_t slot)
{
	struct xfer_file *f = t->f;
	struct xfer_task *n;

	if (!piece_hands_over(t) || t->outstanding != 0 || t->next_off < t->end || task_short(t) ||
	    atomic_load(&f->failed) || atomic_load(&w->retire))
		return NULL;
	if ((n = xfer_next_piece(w->x, w, f, true)) == NULL)
		return NULL;
	task_claim(w, n);
	memcpy(n->handle, t->handle, t->hlen);
	n->hlen = t->hlen;
	task_opened(n);
	/* Its data is done, as a CLOSE would have said (not the last: n's
	 * is still to come). */
	atomic_fetch_sub(&f->data_left, 1);
	w->active[slot] = n;
	xfer_task_done(w, t);
	free(t);
	return n;
}

/* The probe's length: what it asks for counts in the bytes in flight,
 * and EOF is its usual answer, so a small file's probe is held to the
 * file's own size (at least XFER_PROBE_MIN): a full READ's worth per
 * file would let a channel keep only a few small files in flight.  A file
 * found grown is read on in full READs (piece_grew's task in grow mode). */
static uint32_t
probe_len(struct worker *w, const struct xfer_task *t)
{
	uint32_t max = sftp_max_read(w->c);
	uint64_t want = t->end - t->off;

	if (task_grows(t))
		return max;
	if (want < XFER_PROBE_MIN)
		want = XFER_PROBE_MIN;
	return want < max ? (uint32_t)want : max;
}

/* Issue what this task can send now; true when it sent something. */
bool
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
		if (sftp_tracked_bytes(w->tr) >= w->max_inflight_bytes)
			return false;
		if (t->f->dir == XFER_UP) {
			return send_write(w, t);
		}
		uint64_t left = t->end - t->next_off;
		uint32_t max = sftp_max_read(w->c);
		uint32_t len = left < max ? (uint32_t)left : max;

		send_read(w, t, t->next_off, len);
		t->next_off += len;
		return true;
	}
	if (atomic_load(&t->f->failed) || task_short(t)) {
		/* nothing more to find out */
	} else if (t->f->dir == XFER_DOWN && piece_is_last(t) && t->known_end == TE_PLANNED) {
		send_read(w, t, t->end, probe_len(w, t));
		t->known_end = TE_PROBING;
		return true;
	} else if (t->f->dir == XFER_UP && piece_is_last(t) && upload_grew(t)) {
		return true;
	}
	/* Reading on until EOF: the answer to the probe decides. */
	if (task_grows(t) && t->outstanding > 0)
		return false;
	/* All data requested.  The server answers one session's requests in
	 * order, so a download, or a lone upload chunk, can close right behind
	 * its READs or WRITEs and save a round trip per file.  Other upload
	 * chunks wait for their replies, so the last one knows it is last.  A
	 * download piece whose file has its next piece queued waits too: its
	 * handle goes on to that piece (task_hand_over). */
	if (t->f->dir == XFER_DOWN && t->outstanding > 0 && piece_hands_over(t) &&
	    !atomic_load(&w->retire) && xfer_next_piece(w->x, w, t->f, false) != NULL)
		return false;
	if (t->f->dir == XFER_DOWN || task_only(t) || t->outstanding == 0) {
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
		if (task_first(t)) {
			xfer_release_rest(w->x, f, false);
		} else if (f->dir == XFER_UP && atomic_fetch_sub(&f->data_left, 1) == 1) {
			/* The others are written and closed: cut by name. */
			send_setstat_size(w, t);
			return;
		}
		task_finished(t);
		return;
	}
	memcpy(t->handle, rep->handle, rep->handle_len);
	t->hlen = rep->handle_len;
	task_opened(t);
	if (f->fd < 0 && task_first(t)) {
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
	if (task_first(t))
		xfer_release_rest(w->x, f, !atomic_load(&f->failed));
	if (atomic_load(&f->failed))
		t->next_off = t->end;
}

/* The last piece of a download asks for one READ past the size it listed
 * (its "probe"), right behind its data: scp reads to end of file, so a
 * file that grew is copied whole.  EOF there is the usual answer. */

/* The probe brought data: the file grew to at least new_end.  A task in
 * grow mode keeps probing on its handle; any other has its CLOSE on the
 * way, so a new task in grow mode reopens the file and reads on. */
static void
piece_grew(struct worker *w, struct xfer_task *t, uint64_t new_end)
{
	struct xfer_file *f = t->f;

	xfer_file_resize(f, t, new_end);
	t->next_off = new_end;
	if (task_grows(t)) {
		t->known_end = TE_PLANNED;
		return;
	}
	struct xfer_task *c = xcalloc(1, sizeof(*c));

	c->f = f;
	c->idx = t->idx;
	c->off = c->end = c->next_off = new_end;
	c->role = TR_GROW;
	c->short_at = TASK_NO_SHORT;
	atomic_fetch_add(&f->chunks_left, 1);
	xfer_push(w->x, c);
}

static int
on_data(struct worker *w, const struct sftp_req *rq, const struct sftp_reply *rep)
{
	struct xfer_task *t = rq->owner;
	struct xfer_file *f = t->f;
	bool probe = rq->off >= t->end;

	if (probe && t->known_end == TE_PROBING)
		t->known_end = TE_PROBED;

	if (rep->type == SSH_FXP_STATUS) {
		if (rep->status == SSH_FX_EOF) {
			/* At the probe: the end, where it should be.  Before it:
			 * the file shrank; scp copies what there is, and the cut at
			 * the end keeps that prefix. */
			if (!probe)
				t->known_end = TE_SHORT;
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
	if (t->short_at != TASK_NO_SHORT && rq->off >= t->short_at && rep->data_len > 0 &&
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
	if (rep->data_len < rq->len && !task_short(t) && !atomic_load(&f->failed)) {
		if (t->state == T_CLOSING) {
			if (t->short_at == TASK_NO_SHORT)
				t->short_at = rq->off + rep->data_len;
		} else {
			send_read(w, t, rq->off + rep->data_len, rq->len - rep->data_len);
		}
	}
	return 0;
}

static void
on_status(struct worker *w, const struct sftp_req *rq, const struct sftp_reply *rep)
{
	struct xfer_task *t = rq->owner;
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
	if (st != SSH_FX_OK && rq->tag == XFER_TAG_CUT && !atomic_load(&f->failed)) {
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
	if (rq->type == SSH_FXP_CLOSE && f->dir == XFER_UP && task_only(t) &&
	    atomic_load(&f->failed) && f->size_sent > xfer_file_extent(f))
		send_setstat_size(w, t);
}

/* 0, or -1 when the server broke the protocol: the connection is given
 * up like a dead one (w->why says why). */
int
worker_dispatch(struct worker *w, const struct sftp_reply *rep)
{
	struct sftp_req rq;
	struct xfer_task *t;
	int rc = 0;

	/* Taken off first: the handlers may send new requests. */
	if (!sftp_untrack(w->tr, rep->id, &rq)) {
		/* A reply nobody waits for: scp's do_upload and do_download
		 * say it in their own words. */
		bool up = w->nactive > 0 && w->active[0]->f->dir == XFER_UP;

		snprintf(w->why, sizeof(w->why), up ? "Can't find request for ID %u" :
		    "Unexpected reply %u", rep->id);
		w->broken = true;
		return -1;
	}
	w->moved += rq.len;
	t = rq.owner;
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

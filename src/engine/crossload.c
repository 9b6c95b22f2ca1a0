/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "engine/crossload.h"
#include "util/log.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "policy/operand.h"
#include "sftp/sftp.h"
#include "sftp/sftp_track.h"
#include "engine/bwlimit.h"
#include "engine/plan.h"
#include "engine/progress.h"
#include "engine/xfer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* sftp-client.c's MAX_DIR_DEPTH. */
#define XL_MAX_DEPTH 64
/* Requests in flight per file unless -X nrequests= says otherwise, and
 * the most payload they may carry at once unless the sessions say. */
#define XL_DEFAULT_REQUESTS 64
#define XL_MAX_INFLIGHT (8u << 20)

enum xl_kind { XL_FILE, XL_DIRFIX };

struct xl_item {
	enum xl_kind kind;
	char *src, *dst;
	struct sftp_attrs a;	/* file: the source's; dirfix: SETSTAT attrs */
	bool in_tree;		/* a file under a -r source: scp adds a line on failure */
};

struct crossload_plan {
	struct crossload_params p;
	struct xl_item *items;
	size_t n, cap;
	long long bytes;
	/* A connection died under a synchronous request: nothing more is
	 * said or planned, and crossload_plan() returns PLAN_LOST for main
	 * to say scp's fatal() once every session is closed. */
	bool lost;
};

/* ---- helpers -------------------------------------------------------------- */

/* A synchronous call's status; a dead connection (-1) ends the planning,
 * as scp's fatal() ends scp: every caller returns at once when pl->lost. */
static int
xl_alive(struct crossload_plan *pl, int st)
{
	if (st < 0)
		pl->lost = true;
	return st;
}

static void
xl_add(struct crossload_plan *pl, enum xl_kind kind, const char *src, const char *dst,
    const struct sftp_attrs *a, bool in_tree)
{
	struct xl_item *it;

	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? pl->cap * 2 : 16;
		pl->items = xrealloc(pl->items, pl->cap * sizeof(*pl->items));
	}
	it = &pl->items[pl->n++];
	it->kind = kind;
	it->src = src ? xstrdup(src) : NULL;
	it->dst = xstrdup(dst);
	it->a = *a;
	it->in_tree = in_tree;
	if (kind == XL_FILE && (a->flags & SSH_FILEXFER_ATTR_SIZE))
		pl->bytes += (long long)a->size;
}

/* ---- planning: scp's throughlocal_sftp() and crossload_dir() ------------- */

/* A file do_crossload() would be given; a (NULL: a link, stat it now as
 * do_crossload does).  Returns -1 when scp's do_crossload would fail before
 * opening anything. */
static int
xl_plan_file(struct crossload_plan *pl, struct sftp_conn *from, const char *src,
    const char *dst, const struct sftp_attrs *a, bool in_tree)
{
	struct sftp_attrs la;

	if (a == NULL) {
		int st = xl_alive(pl, sftp_stat(from, src, true, &la));

		if (pl->lost)
			return -1;
		if (st != SSH_FX_OK) {
			log_error("stat remote: %s", sftp_status_text((uint32_t)st));
			return -1;
		}
		a = &la;
	}
	if ((a->flags & SSH_FILEXFER_ATTR_PERMISSIONS) && !S_ISREG(a->perm)) {
		/* scp's glob marks a directory with a '/'. */
		size_t n = strlen(src);

		log_error("download \"%s%s\": not a regular file", src,
		    !in_tree && S_ISDIR(a->perm) && n > 0 && src[n - 1] != '/' ? "/" : "");
		return -1;
	}
	xl_add(pl, XL_FILE, src, dst, a, in_tree);
	return 0;
}

static int xl_plan_dir(struct crossload_plan *pl, struct sftp_conn *from,
    struct sftp_conn *to, const char *src, const char *dst,
    const struct sftp_attrs *da, int depth);

/* The destination directory for src, created writable for the copy. */
static int
xl_plan_mkdir(struct crossload_plan *pl, struct sftp_conn *to, const char *dst,
    const struct sftp_attrs *cur)
{
	struct sftp_attrs ta;
	int st;

	if (xl_alive(pl, sftp_mkdir(to, dst, cur)) == SSH_FX_OK)
		return 0;
	if (pl->lost)
		return -1;
	/* SFTP has no EEXIST: see whether it is there already. */
	st = xl_alive(pl, sftp_stat(to, dst, true, &ta));
	if (pl->lost)
		return -1;
	if (st != SSH_FX_OK) {
		log_error("stat remote: %s", sftp_status_text((uint32_t)st));
		return -1;
	}
	if (!S_ISDIR(ta.perm)) {
		log_error("\"%s\" exists but is not a directory", dst);
		return -1;
	}
	return 0;
}

static int
xl_plan_entry(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    const char *src, const char *dst, const struct sftp_dirent *e, int depth)
{
	char *nsrc = plan_path_join(src, e->name), *ndst = plan_path_join(dst, e->name);
	int ret = 0;

	if (S_ISDIR(e->a.perm)) {
		ret = xl_plan_dir(pl, from, to, nsrc, ndst, &e->a, depth + 1);
	} else if (S_ISREG(e->a.perm) || S_ISLNK(e->a.perm)) {
		/* Links are followed (do_crossload stats them). */
		if (xl_plan_file(pl, from, nsrc, ndst, S_ISLNK(e->a.perm) ? NULL : &e->a,
		    true) != 0 && !pl->lost) {
			log_error("crossload \"%s\" to \"%s\" failed", nsrc, ndst);
			ret = -1;
		}
	} else {
		/* scp's logit(): shown, but not an error. */
		log_warn("origin \"%s\": not a regular file", nsrc);
	}
	free(nsrc);
	free(ndst);
	return ret;
}

static int
xl_plan_dir(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    const char *src, const char *dst, const struct sftp_attrs *da, int depth)
{
	struct sftp_attrs sa, cur;
	struct sftp_dirent *ents;
	size_t n;
	mode_t mode;
	int ret = 0, st;

	if (depth >= XL_MAX_DEPTH) {
		log_error("Maximum directory depth exceeded: %d levels", depth);
		return -1;
	}
	if (da == NULL) {
		if (xl_alive(pl, sftp_stat(from, src, true, &sa)) != SSH_FX_OK) {
			if (pl->lost)
				return -1;
			log_error("stat remote \"%s\" failed", src);
			return -1;
		}
		da = &sa;
	}
	if (!S_ISDIR(da->perm)) {
		log_error("\"%s\" is not a directory", src);
		return -1;
	}
	cur = *da;
	cur.flags &= ~(uint32_t)(SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_UIDGID);
	if (!(cur.flags & SSH_FILEXFER_ATTR_PERMISSIONS)) {
		cur.perm = S_IWUSR | S_IXUSR;
		cur.flags |= SSH_FILEXFER_ATTR_PERMISSIONS;
	}
	/* Writable while it is filled; its own mode (and, as in scp 9.2, its
	 * times, with or without -p) once its contents are in. */
	mode = cur.perm & 01777;
	cur.perm = mode | S_IWUSR | S_IXUSR;
	if (xl_plan_mkdir(pl, to, dst, &cur) != 0)
		return -1;
	cur.perm = mode;
	st = xl_alive(pl, sftp_readdir_all(from, src, &ents, &n));
	if (pl->lost)
		return -1;
	if (st == SSH_FX_BAD_MESSAGE) {
		log_error("%s: server sent an invalid file name", src);
	} else if (st != SSH_FX_OK) {
		log_error("origin readdir \"%s\" failed", src);
		return -1;
	}
	for (size_t i = 0; i < n && !pl->lost; i++)
		if (xl_plan_entry(pl, from, to, src, dst, &ents[i], depth) != 0)
			ret = -1;
	sftp_dirents_free(ents, n);
	if (pl->lost)
		return -1;
	xl_add(pl, XL_DIRFIX, NULL, dst, &cur, false);
	return ret;
}

/* crossload_dir(): the tree under its canonical name. */
static void
xl_plan_tree(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    const char *src, const char *dst)
{
	char *canon = NULL;

	if (xl_alive(pl, sftp_realpath(from, src, &canon)) != SSH_FX_OK) {
		if (pl->lost)
			return;
		log_error("crossload \"%s\": path canonicalization failed", src);
		return;
	}
	(void)xl_plan_dir(pl, from, to, canon, dst, NULL, 0);
	free(canon);
}

/* The matches of src: its glob's, or src itself when it exists. */
static bool
xl_matches(struct crossload_plan *pl, struct sftp_conn *from, const char *abs_src,
    const char *src, struct strv *out)
{
	struct sftp_attrs a;

	if (plan_has_glob(abs_src))
		plan_remote_glob(from, abs_src, out);
	if (out->n > 0)
		return true;
	/* GLOB_NOCHECK gave the pattern back: is it there at all? */
	if (xl_alive(pl, sftp_stat(from, abs_src, true, &a)) != SSH_FX_OK) {
		if (!pl->lost)
			log_error("%s: %s", src, strerror(ENOENT));
		return false;
	}
	strv_push(out, abs_src);
	return true;
}

enum plan_status
crossload_plan(struct sftp_conn *from, struct sftp_conn *to, const char *src,
    const char *targ, const struct crossload_params *p, struct crossload_plan **out)
{
	struct crossload_plan *pl = xcalloc(1, sizeof(*pl));
	char *abs_src = plan_remote_path(from, src);
	char *target = abs_src != NULL ? plan_remote_path(to, targ) : NULL;
	struct strv matches = { 0 };
	bool target_is_dir;

	pl->p = *p;
	if (target == NULL) {
		/* scp's cleanup_exit(255), after the expand error. */
		free(abs_src);
		*out = pl;
		return sftp_dead(from) || sftp_dead(to) ? PLAN_LOST : PLAN_FATAL;
	}
	target_is_dir = plan_remote_is_dir(to, target);
	if (!target_is_dir && p->target_should_be_dir) {
		log_error("%s: destination is not a directory", targ);
		goto out;
	}
	if (!xl_matches(pl, from, abs_src, src, &matches))
		goto out;
	for (size_t i = 0; i < matches.n && !pl->lost; i++) {
		const char *m = matches.v[i];
		char *name = operand_basename(m);
		char *dst = target_is_dir ? plan_path_join(target, name) : xstrdup(target);
		struct sftp_attrs a;
		int st = xl_alive(pl, sftp_stat(from, m, true, &a));

		if (st == SSH_FX_OK && S_ISDIR(a.perm) && p->recursive) {
			char *marked = plan_dir_marked(m);	/* GLOB_MARK */

			xl_plan_tree(pl, from, to, marked, dst);
			free(marked);
		} else if (!pl->lost)
			(void)xl_plan_file(pl, from, m, dst, st == SSH_FX_OK ? &a : NULL, false);
		free(name);
		free(dst);
	}
out:
	strv_free(&matches);
	free(abs_src);
	free(target);
	*out = pl;
	return pl->lost ? PLAN_LOST : PLAN_OK;
}

long long
crossload_plan_bytes(const struct crossload_plan *pl)
{
	return pl->bytes;
}

void
crossload_plan_free(struct crossload_plan *pl)
{
	if (pl == NULL)
		return;
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->items[i].src);
		free(pl->items[i].dst);
	}
	free(pl->items);
	free(pl);
}

/* ---- copying: do_crossload(), several files at once ------------------- */

/* Up to XL_WINDOW files are in flight at once (one with the progress
 * meter, which shows one file after the other), each opened on the source,
 * then on the target, read in pieces whose data goes on as WRITEs as it
 * arrives, then closed on both sides: a small file costs about three round
 * trips, overlapped with its neighbours', where scp waits for six in turn.
 * The READs and WRITEs of all files share one budget per side. */
#define XL_WINDOW 16

enum xl_state { XS_FREE, XS_OPENING, XS_DATA, XS_CLOSING };
enum xl_op { XO_OPEN, XO_READ, XO_WRITE, XO_CLOSE, XO_SIZE, XO_PRESERVE };

struct xl_handle {
	uint8_t h[256];
	uint32_t len;
	bool open;
};

struct xl_file {
	const struct xl_item *it;
	enum xl_state state;
	struct sftp_attrs a;		/* the target's OPEN and -p attrs */
	struct xl_handle fh, th;
	bool failed;			/* said why already; scp's follow-up line due */
	uint64_t size, next_off;
	uint64_t end;			/* highest byte written + 1 */
	uint64_t done;			/* bytes moved, for the meter */
	unsigned nreads, nwrites;	/* outstanding */
	unsigned closes_due;		/* answers due while closing */
	uint32_t read_err, write_err;	/* first failure status, 0 if none */
	int from_close, size_st, preserve_st, to_close;
	bool eof;
};

/* One connection and the requests outstanding on it (each tracked with
 * its file as owner and its xl_op as tag). */
struct xl_side {
	struct sftp_conn *c;
	struct sftp_tracker *tr;
	unsigned *ctl;		/* counts the ones that are not WRITEs, if set */
};

struct xl_run {
	const struct crossload_params *p;
	struct xl_side from, to;
	uint32_t buflen;
	unsigned max_reads, max_writes;
	unsigned reads, writes;		/* outstanding, all files */
	unsigned to_ctl;		/* outstanding on the target, not WRITEs */
	struct xl_file files[XL_WINDOW];
	unsigned window, nactive;
	char fatal[256];		/* scp's fatal() message that ends the run, or "" */
};

/* End the run with scp's fatal() message (said by the caller). */
static void
xl_fatal(struct xl_run *R, const char *fmt, ...) FSCP_PRINTF(2, 3);

static void
xl_fatal(struct xl_run *R, const char *fmt, ...)
{
	va_list ap;

	if (R->fatal[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(R->fatal, sizeof(R->fatal), fmt, ap);
	va_end(ap);
}

static void
xl_track(struct xl_side *s, uint32_t id, struct xl_file *f, enum xl_op op, uint64_t off,
    uint32_t len)
{
	if (s->ctl != NULL && op != XO_WRITE)
		(*s->ctl)++;
	sftp_track(s->tr, id, &(struct sftp_req){ .owner = f, .tag = (uint8_t)op, .off = off,
	    .len = len });
}

static void
xl_send_path(struct xl_side *s, struct xl_file *f, const char *path, uint32_t flags,
    const struct sftp_attrs *a)
{
	uint32_t id = sftp_track_id(s->tr);

	sftp_queue_open(s->c, id, path, flags, a);
	xl_track(s, id, f, XO_OPEN, 0, 0);
}

static void
xl_send_handle_op(struct xl_side *s, struct xl_file *f, const struct xl_handle *h,
    enum xl_op op, const struct sftp_attrs *a)
{
	uint32_t id = sftp_track_id(s->tr);

	if (op == XO_CLOSE)
		sftp_queue_close(s->c, id, h->h, h->len);
	else
		sftp_queue_fsetstat(s->c, id, h->h, h->len, a);
	xl_track(s, id, f, op, 0, 0);
	f->closes_due++;
}

static void
xl_send_read(struct xl_run *R, struct xl_file *f, uint64_t off, uint32_t len)
{
	uint32_t id = sftp_track_id(R->from.tr);

	sftp_queue_read(R->from.c, id, f->fh.h, f->fh.len, off, len);
	xl_track(&R->from, id, f, XO_READ, off, len);
	f->nreads++;
	R->reads++;
}

static void
xl_forward(struct xl_run *R, struct xl_file *f, uint64_t off, const uint8_t *data,
    uint32_t len)
{
	uint32_t id = sftp_track_id(R->to.tr);

	memcpy(sftp_queue_write(R->to.c, id, f->th.h, f->th.len, off, len), data, len);
	sftp_queue_write_done(R->to.c, len);
	xl_track(&R->to, id, f, XO_WRITE, off, len);
	f->nwrites++;
	R->writes++;
	if (off + len > f->end)
		f->end = off + len;
	f->done += len;
	bwlimit_account(R->p->bw, len);
	progress_update(R->p->progress, (off_t)f->done);
}

/* A file enters the window: open it on the source first (scp creates
 * nothing on the target for a source it cannot open). */
static void
xl_file_start(struct xl_run *R, struct xl_file *f, const struct xl_item *it)
{
	*f = (struct xl_file){ .it = it, .state = XS_OPENING, .a = it->a };
	f->size = (f->a.flags & SSH_FILEXFER_ATTR_SIZE) ? f->a.size : 0;
	f->a.flags &= ~(uint32_t)(SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_UIDGID);
	f->a.perm &= 0777;
	if (!R->p->preserve)
		f->a.flags &= ~(uint32_t)SSH_FILEXFER_ATTR_ACMODTIME;
	xl_send_path(&R->from, f, it->src, SSH_FXF_READ, NULL);
	R->nactive++;
}

/* Done with the data (or failed): close both ends at once.  The target is
 * cut to the bytes written (it was opened without TRUNC, as scp writes in
 * place); -p's mode and times follow only a clean copy. */
static void
xl_file_close(struct xl_run *R, struct xl_file *f)
{
	struct sftp_attrs sz = { .flags = SSH_FILEXFER_ATTR_SIZE, .size = f->end };

	if (f->state == XS_DATA && f->size != 0)
		progress_finish(R->p->progress);
	f->state = XS_CLOSING;
	f->from_close = f->size_st = f->preserve_st = f->to_close = SSH_FX_OK;
	if (f->fh.open)
		xl_send_handle_op(&R->from, f, &f->fh, XO_CLOSE, NULL);
	if (!f->th.open)
		return;
	if (!f->failed) {
		xl_send_handle_op(&R->to, f, &f->th, XO_SIZE, &sz);
		if (R->p->preserve && f->read_err == 0 && f->write_err == 0)
			xl_send_handle_op(&R->to, f, &f->th, XO_PRESERVE, &f->a);
	}
	xl_send_handle_op(&R->to, f, &f->th, XO_CLOSE, NULL);
}

/* scp's messages after the data, in its order. */
static void
xl_file_report(struct xl_file *f)
{
	const struct xl_item *it = f->it;
	int fs = f->size_st != SSH_FX_OK ? f->size_st : f->preserve_st;

	if (f->read_err != 0) {
		log_error("read origin \"%s\": %s", it->src, sftp_status_text(f->read_err));
		f->failed = true;
	} else if (f->write_err != 0) {
		log_error("write dest \"%s\": %s", it->dst, sftp_status_text(f->write_err));
		f->failed = true;
	}
	if (f->from_close != SSH_FX_OK) {
		log_error("close remote: %s", sftp_status_text((uint32_t)f->from_close));
		f->failed = true;
	}
	if (fs != SSH_FX_OK) {
		log_error("remote fsetstat: %s", sftp_status_text((uint32_t)fs));
		f->failed = true;
	}
	if (f->to_close != SSH_FX_OK) {
		log_error("close remote: %s", sftp_status_text((uint32_t)f->to_close));
		f->failed = true;
	}
	if (f->failed && it->in_tree)
		log_error("crossload \"%s\" to \"%s\" failed", it->src, it->dst);
}

/* Move a file on as far as it can go without an answer: READs within the
 * budgets, and the CLOSEs once its data is all in (with -p once the
 * target has acknowledged every WRITE). */
static void
xl_file_step(struct xl_run *R, struct xl_file *f)
{
	if (f->state != XS_DATA)
		return;
	while (!f->eof && f->next_off < f->size && R->reads < R->max_reads &&
	    R->writes < R->max_writes) {
		uint64_t left = f->size - f->next_off;
		uint32_t len = left < R->buflen ? (uint32_t)left : R->buflen;

		xl_send_read(R, f, f->next_off, len);
		f->next_off += len;
	}
	if (f->nreads == 0 && (f->eof || f->next_off >= f->size) &&
	    !(R->p->preserve && f->nwrites > 0))
		xl_file_close(R, f);
}

static void
xl_on_open(struct xl_run *R, bool source, struct xl_file *f, const struct sftp_reply *r)
{
	struct xl_handle *h = source ? &f->fh : &f->th;
	const char *path = source ? f->it->src : f->it->dst;

	if (r->type == SSH_FXP_HANDLE && r->handle_len <= sizeof(h->h)) {
		memcpy(h->h, r->handle, r->handle_len);
		h->len = r->handle_len;
		h->open = true;
	} else if (r->type == SSH_FXP_STATUS) {
		char what[SFTP_HANDLE_ERRMSG];

		log_error("%s: %s", sftp_handle_errmsg(what, "%s open \"%s\"",
		    source ? "origin" : "dest", path), sftp_status_text(r->status));
		f->failed = true;
	} else {
		xl_fatal(R, "Connection closed");
		return;
	}
	if (f->failed) {
		xl_file_close(R, f);
	} else if (source) {
		xl_send_path(&R->to, f, f->it->dst, SSH_FXF_WRITE | SSH_FXF_CREAT, &f->a);
	} else {
		f->state = XS_DATA;
		if (f->size != 0) {
			char *name = operand_basename(f->it->src);

			progress_start(R->p->progress, name, (off_t)f->size);
			free(name);
		}
	}
}

static void
xl_on_data(struct xl_run *R, struct xl_file *f, const struct sftp_req *rq,
    const struct sftp_reply *r)
{
	f->nreads--;
	R->reads--;
	if (r->type == SSH_FXP_STATUS) {
		if (r->status != SSH_FX_EOF && f->read_err == 0)
			f->read_err = r->status;
		f->eof = true;
		return;
	}
	if (r->type != SSH_FXP_DATA) {
		xl_fatal(R, "Expected SSH2_FXP_DATA(%u) packet, got %u", SSH_FXP_DATA, r->type);
		return;
	}
	if (r->data_len > rq->len) {
		xl_fatal(R, "Received more data than asked for %u > %u", r->data_len, rq->len);
		return;
	}
	if (r->data_len == 0) {
		f->eof = true;
		return;
	}
	xl_forward(R, f, rq->off, r->data, r->data_len);
	/* A short read: ask again for the rest, as scp does. */
	if (r->data_len < rq->len)
		xl_send_read(R, f, rq->off + r->data_len, rq->len - r->data_len);
}

/* An answer on the target: a WRITE's, or one of the closing ones. */
static void
xl_on_status(struct xl_run *R, struct xl_file *f, enum xl_op op, const struct sftp_reply *r)
{
	int st = (int)r->status;

	if (r->type != SSH_FXP_STATUS) {
		xl_fatal(R, "Connection closed");
		return;
	}
	if (op == XO_WRITE) {
		f->nwrites--;
		R->writes--;
		if (st != SSH_FX_OK && f->write_err == 0)
			f->write_err = (uint32_t)st;
		return;
	}
	if (op == XO_SIZE)
		f->size_st = st;
	else if (op == XO_PRESERVE)
		f->preserve_st = st;
	else
		f->to_close = st;
	f->closes_due--;
}

static void
xl_recv(struct xl_run *R, struct xl_side *s)
{
	struct sftp_reply r;
	struct sftp_req rq;
	struct xl_file *f;
	enum xl_op op;
	bool source = s == &R->from;

	if (sftp_recv(s->c, &r) != 0) {
		xl_fatal(R, "Connection closed");
		return;
	}
	if (!sftp_untrack(s->tr, r.id, &rq)) {
		xl_fatal(R, "Unexpected reply %u", r.id);
		return;
	}
	f = rq.owner;
	op = (enum xl_op)rq.tag;
	if (s->ctl != NULL && op != XO_WRITE)
		(*s->ctl)--;
	if (op == XO_OPEN) {
		xl_on_open(R, source, f, &r);
	} else if (op == XO_READ) {
		xl_on_data(R, f, &rq, &r);
	} else if (source) {
		if (r.type != SSH_FXP_STATUS) {
			xl_fatal(R, "Connection closed");
			return;
		}
		f->from_close = (int)r.status;
		f->closes_due--;
	} else {
		xl_on_status(R, f, op, &r);
	}
	if (f->state == XS_CLOSING && f->closes_due == 0 && f->nwrites == 0) {
		xl_file_report(f);
		f->state = XS_FREE;
		R->nactive--;
	}
}

/* Requests of buflen that fit in bytes (0: the default), at most n, and
 * at least two, so one is answered while the next travels. */
static unsigned
xl_fit(unsigned n, uint64_t bytes, uint32_t buflen)
{
	uint64_t fit = (bytes ? bytes : XL_MAX_INFLIGHT) / buflen;

	if (fit < 2)
		fit = 2;
	return fit < n ? (unsigned)fit : n;
}

/* Each side gets what its own round trip needs (the caller passes the
 * sessions' budgets; for the target its READ-sized one, as this is its only
 * connection: the engine's smaller upload budget is per connection of
 * several, and would make a far target the bottleneck); the WRITEs never
 * fewer than the READs whose data they carry on. */
static void
xl_limits(struct xl_run *R, uint64_t read_inflight, uint64_t write_inflight)
{
	unsigned n = R->p->nrequests ? R->p->nrequests : XL_DEFAULT_REQUESTS;
	uint32_t rmax = sftp_max_read(R->from.c), wmax = sftp_max_write(R->to.c);
	unsigned w;

	R->buflen = rmax < wmax ? rmax : wmax;
	if (R->buflen == 0)
		R->buflen = 32768;
	R->max_reads = xl_fit(n, read_inflight, R->buflen);
	w = xl_fit(n, write_inflight, R->buflen);
	R->max_writes = w > R->max_reads ? w : R->max_reads;
	R->window = R->p->progress != NULL ? 1 : XL_WINDOW;
}

/* A directory's mode and times, once everything before it is done. */
static void
xl_dirfix(struct xl_run *R, const struct xl_item *it)
{
	int st = sftp_setstat(R->to.c, it->dst, &it->a);

	if (st < 0)
		xl_fatal(R, "Connection closed");
	else if (st != SSH_FX_OK)
		log_error("remote setstat \"%s\": %s", it->dst, sftp_status_text((uint32_t)st));
}

/* Let files into the window, in plan order; a directory fix waits until
 * the window is empty.  Returns the next item not yet taken. */
static size_t
xl_admit(struct xl_run *R, const struct crossload_plan *pl, size_t next)
{
	while (next < pl->n && R->nactive < R->window) {
		const struct xl_item *it = &pl->items[next];
		unsigned slot;

		if (it->kind == XL_DIRFIX) {
			if (R->nactive > 0)
				break;
			xl_dirfix(R, it);
			next++;
			continue;
		}
		for (slot = 0; R->files[slot].state != XS_FREE; slot++)
			;
		xl_file_start(R, &R->files[slot], it);
		next++;
	}
	return next;
}

/* Which side to wait on.  Every request is answered in the end, so
 * waiting on a side with some outstanding always returns; the choice only
 * decides how well the two overlap.  A reply read in already comes first.
 * The target's answers to WRITEs may wait (in order, in its buffers) while
 * the source has something to say and the WRITE budget lasts, so a far
 * target does not hold up the reading; when files wait on the target's
 * OPENs or CLOSEs too, the side with the shorter round trip goes first. */
static struct xl_side *
xl_next_side(struct xl_run *R)
{
	struct sftp_conn *from = R->from.c, *to = R->to.c;

	unsigned nfrom = sftp_tracked(R->from.tr), nto = sftp_tracked(R->to.tr);

	if (nto > 0 && sftp_reply_buffered(to))
		return &R->to;
	if (nfrom > 0 && sftp_reply_buffered(from))
		return &R->from;
	if (nfrom == 0 || R->writes >= R->max_writes)
		return nto > 0 ? &R->to : &R->from;
	if (nto == 0 || R->to_ctl == 0)
		return &R->from;
	return sftp_rtt_ms(to) >= 0 && sftp_rtt_ms(to) < sftp_rtt_ms(from) ? &R->to : &R->from;
}

int
crossload_run(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    uint64_t read_inflight, uint64_t write_inflight, char *fatal, size_t fatallen)
{
	struct xl_run R = { .p = &pl->p, .from = { .c = from }, .to = { .c = to } };
	size_t next = 0;

	R.from.tr = sftp_tracker_new(from);
	R.to.tr = sftp_tracker_new(to);
	R.to.ctl = &R.to_ctl;
	xl_limits(&R, read_inflight, write_inflight);
	while ((next < pl->n || R.nactive > 0) && R.fatal[0] == '\0') {
		next = xl_admit(&R, pl, next);
		for (unsigned i = 0; i < R.window; i++)
			xl_file_step(&R, &R.files[i]);
		if (sftp_flush(from) != 0 || sftp_flush(to) != 0) {
			xl_fatal(&R, "Connection closed");
			break;
		}
		if (sftp_tracked(R.from.tr) == 0 && sftp_tracked(R.to.tr) == 0)
			break;	/* cannot happen: a file with nothing due is done */
		xl_recv(&R, xl_next_side(&R));
	}
	sftp_tracker_free(R.from.tr);
	sftp_tracker_free(R.to.tr);
	snprintf(fatal, fatallen, "%s", R.fatal);
	return R.fatal[0] != '\0' ? -1 : 0;
}

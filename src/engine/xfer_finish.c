/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xfer's file ends: the progress meter's order, a file's failure said once,
 * the truncation, mode and times when its last piece is done, directories
 * after the run, and what a lost run leaves behind. */
#include "config.h"
#include "engine/xfer_impl.h"
#include "engine/journal.h"
#include "util/log.h"
#include "engine/progress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* The owner of t's piece found the file's end moved: the piece and the
 * file end there. */
void
xfer_file_resize(struct xfer_file *f, struct xfer_task *t, uint64_t end)
{
	t->end = f->pieces[t->idx].end = end;
	xfer_file_set_size(f, end);
}

/* ---- progress --------------------------------------------------------- */

/* scp shows one meter line per file, in order.  Files complete out of
 * order here, so the meter follows the oldest unfinished file and prints
 * the finished ones before it as they are passed. */
void
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
void
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
void
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
void
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
uint64_t
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
void
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

int
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

/* The copy is lost: what never finished is not reported as copied, and
 * a local file keeps only the bytes known to be written in order from its
 * start (never its full size with holes). */
void
xfer_abandon(struct xfer *x)
{
	struct xfer_task *t;

	while ((t = xfer_pop(x, NULL, false)) != NULL)
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

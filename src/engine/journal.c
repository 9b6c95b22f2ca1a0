/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "engine/journal.h"
#include "engine/journal_text.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "sftp/sftp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Nothing is written before the copy ran this long: the many short copies
 * scripts make never leave a journal. */
#define JOURNAL_DELAY_S 5.0
/* Then the ranges are synced and recorded this often, or sooner once this
 * much is waiting: what a kill loses is about that much, and the syncs
 * are few enough to cost nothing measurable. */
#define JOURNAL_INTERVAL_S 0.5
#define JOURNAL_PENDING_BYTES (32u << 20)

struct journal_file {
	struct journal_rec rec;		/* what is durable; under j->lock */
	struct rangeset pending;	/* written, not yet synced and recorded */
	struct rangeset syncing;	/* being synced by a flush */
	bool have_target;		/* a download's target was opened */
	bool skip;			/* not journaled (a device as the target) */
	bool finished, ok;		/* the engine is done with it */
	struct journal *j;		/* the journal it belongs to */
	struct journal_file *next;
};

struct journal {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool thread_up, stop;
	bool preserve, resume;
	double start, delay;
	char *dir;			/* the directory's path */
	int dirfd;			/* open once it exists and was checked; -1 */
	bool dir_bad;			/* unusable: no journal this run (said once) */
	/* Named when first needed (journal_named): a copy that finds no
	 * journal in the directory needs no name. */
	struct strv key_parts;
	bool named;
	char name[80], tmpname[128];
	bool written;			/* the file exists from this run */
	bool dirty;
	uint64_t pending_bytes;
	struct journal_file *files, **tail;
	struct journal_doc prev;	/* the run before's, on resume */
	bool *prev_taken;
	bool flushing;			/* one flush at a time */
};

/* ---- the directory and the file --------------------------------------------- */

static void
journal_set_name(struct journal *j, const char *key)
{
	snprintf(j->name, sizeof(j->name), "%.64s.journal", key);
	snprintf(j->tmpname, sizeof(j->tmpname), "%.64s.%ld.tmp", key, (long)getpid());
	j->named = true;
}

static char *
journal_default_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	/* XDG: a relative value is to be ignored. */
	if (x != NULL && x[0] == '/')
		return xasprintf("%s/fscp", x);
	if (home == NULL || home[0] != '/') {
		struct passwd *pw = getpwuid(geteuid());

		home = pw != NULL ? pw->pw_dir : NULL;
	}
	if (home == NULL || home[0] != '/')
		return NULL;
	return xasprintf("%s/.cache/fscp", home);
}

/* A directory only this user can enter: no journal goes anywhere else. */
static bool
journal_dir_safe(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		log_warn("resume: journal directory %s is not a private directory of this user: "
		    "no journal", path);
		return false;
	}
	return true;
}

/* Open (create) the directory, once; false: none this run. */
static bool
journal_dir_open(struct journal *j, bool create)
{
	if (j->dirfd >= 0)
		return true;
	if (j->dir_bad || j->dir == NULL)
		return false;
	if (create) {
		/* mkdir -p; only the last one is ours to make private. */
		for (char *p = j->dir + 1; *p != '\0'; p++) {
			if (*p != '/')
				continue;
			*p = '\0';
			(void)mkdir(j->dir, 0700);
			*p = '/';
		}
		(void)mkdir(j->dir, 0700);
	}
	int fd = open(j->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno != ENOENT || create) {
			log_warn("resume: journal directory %s: %s: no journal", j->dir,
			    errno == ELOOP || errno == ENOTDIR ? "not a directory" : strerror(errno));
			j->dir_bad = true;
		}
		return false;
	}
	if (!journal_dir_safe(fd, j->dir)) {
		close(fd);
		j->dir_bad = true;
		return false;
	}
	j->dirfd = fd;
	return true;
}

/* The journal's file names, from its key; false: no journal this run
 * (its directory could not be had). */
static bool
journal_named(struct journal *j)
{
	char key[65];

	if (j->named)
		return true;
	if (j->dir_bad)
		return false;
	journal_key((const char *const *)j->key_parts.v, j->key_parts.n, key);
	journal_set_name(j, key);
	return true;
}

/* Does the directory hold any journal at all?  Most often not (a journal
 * is removed when its copy succeeds), and then a copy that succeeds has
 * none of its own to remove either, and no name to work out. */
static bool
journal_dir_has_any(struct journal *j)
{
	int fd = dup(j->dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	bool any = false;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return true;	/* cannot tell: look for ours */
	}
	while (!any && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		any = n > 8 && strcmp(e->d_name + n - 8, ".journal") == 0;
	}
	closedir(d);
	return any;
}

/* The journal the run before left, on resume; a missing one is no news,
 * anything odd is said and ignored (the copy is then whole). */
static void
journal_load(struct journal *j)
{
	char err[128];
	struct stat st;

	if (!journal_named(j))
		return;
	if (!journal_dir_open(j, false)) {
		log_verbose("resume: no journal of this command: copying whole files");
		return;
	}
	int fd = openat(j->dirfd, j->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			log_verbose("resume: no journal of this command: copying whole files");
		else
			log_warn("resume: journal %s/%s: %s: copying whole files", j->dir, j->name,
			    errno == ELOOP ? "a symbolic link" : strerror(errno));
		return;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0 || st.st_size > (off_t)JOURNAL_TEXT_MAX_BYTES) {
		log_warn("resume: journal %s/%s is not a private file of this user: "
		    "copying whole files", j->dir, j->name);
		close(fd);
		return;
	}
	size_t len = (size_t)st.st_size, got = 0;
	char *buf = xmalloc(len + 1);

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != len || journal_parse(buf, len, &j->prev, err, sizeof(err)) != 0) {
		log_warn("resume: journal %s/%s is corrupt (%s): copying whole files", j->dir,
		    j->name, got != len ? "short read" : err);
		memset(&j->prev, 0, sizeof(j->prev));
	} else {
		j->prev_taken = xcalloc(j->prev.n + 1, sizeof(*j->prev_taken));
		log_verbose("resume: journal %s/%s: %zu file%s recorded", j->dir, j->name,
		    j->prev.n, j->prev.n == 1 ? "" : "s");
	}
	free(buf);
}

/* Replace the journal file with text: written aside, synced, renamed (a
 * rename replaces a symbolic link planted there, never follows it). */
static void
journal_store(struct journal *j, const struct journal_buf *b)
{
	if (!journal_named(j) || !journal_dir_open(j, true))
		return;
	(void)unlinkat(j->dirfd, j->tmpname, 0);
	int fd = openat(j->dirfd, j->tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	size_t put = 0;

	if (fd < 0)
		goto fail;
	while (put < b->len) {
		ssize_t n = write(fd, b->p + put, b->len - put);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		put += (size_t)n;
	}
	if (put != b->len || fsync(fd) != 0) {
		close(fd);
		(void)unlinkat(j->dirfd, j->tmpname, 0);
		goto fail;
	}
	close(fd);
	if (renameat(j->dirfd, j->tmpname, j->dirfd, j->name) != 0) {
		(void)unlinkat(j->dirfd, j->tmpname, 0);
		goto fail;
	}
	(void)fsync(j->dirfd);
	j->written = true;
	return;
fail:
	log_warn("resume: cannot write journal %s/%s: %s", j->dir, j->name, strerror(errno));
	j->dir_bad = true;
	close(j->dirfd);
	j->dirfd = -1;
}

/* ---- recording ------------------------------------------------------------ */

/* A download's target, synced; its identity into st.  False when it is
 * no longer the file that was written (then nothing is recorded). */
static bool
journal_sync_target(const char *path, uint64_t dev, uint64_t ino, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = fdatasync(fd) == 0 && fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
	    (uint64_t)st->st_dev == dev && (uint64_t)st->st_ino == ino;
	close(fd);
	return ok;
}

static bool
journal_rec_worth(const struct journal_rec *r)
{
	return r->complete || r->done.n > 0;
}

/* Sync what was written since the last time, record it, rewrite the file.
 * Called by the journal's thread, and at the end (all: every download's
 * target is looked at again, as the engine may have cut it since). */
static void
journal_flush(struct journal *j, bool all)
{
	struct journal_buf b = { 0 };
	struct journal_file *jf;

	pthread_mutex_lock(&j->lock);
	if ((!j->dirty && !all) || j->flushing || j->dir_bad) {
		pthread_mutex_unlock(&j->lock);
		return;
	}
	j->flushing = true;
	j->dirty = false;
	j->pending_bytes = 0;
	size_t n = 0;
	struct journal_file *next = j->files;

	for (jf = j->files; jf != NULL; jf = jf->next, n++) {
		rangeset_merge(&jf->syncing, &jf->pending);
		rangeset_clear(&jf->pending);
	}
	pthread_mutex_unlock(&j->lock);

	/* The list only grows at its end and no file leaves it before the
	 * journal ends: its first n files, whose links were set before the
	 * lock was taken, are walked without it.  syncing is this flush's. */
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		bool finished, skip, have;
		uint64_t dev, ino;

		jf = next;
		if (i + 1 < n)
			next = jf->next;
		pthread_mutex_lock(&j->lock);
		finished = jf->finished && jf->ok && !jf->rec.complete;
		skip = jf->skip;
		have = jf->have_target;
		dev = jf->rec.tgt_dev;
		ino = jf->rec.tgt_ino;
		pthread_mutex_unlock(&j->lock);
		if (skip || (jf->syncing.n == 0 && !finished && !(all && !jf->rec.up &&
		    !jf->rec.complete)))
			continue;
		if (jf->rec.up) {
			pthread_mutex_lock(&j->lock);
			rangeset_merge(&jf->rec.done, &jf->syncing);
			if (finished) {
				jf->rec.complete = true;
				jf->rec.tgt_size = jf->rec.src_size;
			}
			pthread_mutex_unlock(&j->lock);
		} else if (have && journal_sync_target(jf->rec.local, dev, ino, &st)) {
			pthread_mutex_lock(&j->lock);
			rangeset_merge(&jf->rec.done, &jf->syncing);
			/* A failed or lost copy cuts the file: what is cut off
			 * is not there any more. */
			rangeset_clip(&jf->rec.done, (uint64_t)st.st_size);
			jf->rec.tgt_size = (uint64_t)st.st_size;
			jf->rec.tgt_mtime.s = st.st_mtim.tv_sec;
			jf->rec.tgt_mtime.ns = st.st_mtim.tv_nsec;
			if (finished)
				jf->rec.complete = true;
			pthread_mutex_unlock(&j->lock);
		}
		rangeset_clear(&jf->syncing);
	}

	pthread_mutex_lock(&j->lock);
	journal_format_begin(&b);
	for (jf = j->files; jf != NULL; jf = jf->next)
		if (!jf->skip && journal_rec_worth(&jf->rec))
			journal_format_rec(&b, &jf->rec);
	/* Files of the run before that this one has not reached yet. */
	for (size_t i = 0; i < j->prev.n; i++)
		if (!j->prev_taken[i])
			journal_format_rec(&b, &j->prev.recs[i]);
	pthread_mutex_unlock(&j->lock);
	journal_format_end(&b);
	journal_store(j, &b);
	journal_buf_free(&b);
	pthread_mutex_lock(&j->lock);
	j->flushing = false;
	pthread_mutex_unlock(&j->lock);
}

static void *
journal_thread(void *arg)
{
	struct journal *j = arg;
	double last = 0;

	pthread_mutex_lock(&j->lock);
	while (!j->stop) {
		double now = clock_now(), wake;

		if (now < j->start + j->delay) {
			wake = j->start + j->delay - now;
		} else if (j->dirty && (now >= last + JOURNAL_INTERVAL_S ||
		    j->pending_bytes >= JOURNAL_PENDING_BYTES)) {
			pthread_mutex_unlock(&j->lock);
			journal_flush(j, false);
			last = clock_now();
			pthread_mutex_lock(&j->lock);
			continue;
		} else {
			wake = last + JOURNAL_INTERVAL_S - now;
			if (wake < 0.05)
				wake = 0.05;
		}
		struct timespec ts = clock_deadline(wake);

		(void)pthread_cond_timedwait(&j->cond, &j->lock, &ts);
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* ---- public ------------------------------------------------------------------ */

struct journal *
journal_open(const struct journal_params *p)
{
	struct journal *j = xcalloc(1, sizeof(*j));

	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	j->tail = &j->files;
	j->dirfd = -1;
	j->preserve = p->preserve;
	j->resume = p->resume;
	j->start = clock_now();
	j->delay = p->delay_s >= 0 ? p->delay_s : JOURNAL_DELAY_S;
	j->dir = p->dir != NULL ? xstrdup(p->dir) : journal_default_dir();
	if (p->key != NULL)
		journal_set_name(j, p->key);
	for (size_t i = 0; i < p->nkey_parts; i++)
		strv_push(&j->key_parts, p->key_parts[i]);
	if (j->dir == NULL)
		log_verbose("resume: no home directory: no journal");
	if (j->resume)
		journal_load(j);
	if (pthread_create(&j->thread, NULL, journal_thread, j) == 0)
		j->thread_up = true;
	return j;
}

void
journal_end(struct journal *j, bool ok)
{
	if (j == NULL)
		return;
	pthread_mutex_lock(&j->lock);
	j->stop = true;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->lock);
	if (j->thread_up)
		pthread_join(j->thread, NULL);
	if (ok) {
		/* Also the journal a run before left: the copy is whole now. */
		if ((j->dirfd >= 0 || (!j->dir_bad && journal_dir_open(j, false))) &&
		    (j->written || journal_dir_has_any(j)) && journal_named(j))
			(void)unlinkat(j->dirfd, j->name, 0);
	} else if (j->written || j->prev.n > 0 || clock_now() >= j->start + j->delay) {
		journal_flush(j, true);
	}
	while (j->files != NULL) {
		struct journal_file *jf = j->files;

		j->files = jf->next;
		journal_rec_free(&jf->rec);
		rangeset_free(&jf->pending);
		rangeset_free(&jf->syncing);
		free(jf);
	}
	journal_doc_free(&j->prev);
	free(j->prev_taken);
	strv_free(&j->key_parts);
	if (j->dirfd >= 0)
		close(j->dirfd);
	free(j->dir);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
}

static bool
journal_time_eq(struct journal_time a, struct journal_time b)
{
	return a.s == b.s && a.ns == b.ns;
}

static bool
journal_time_ge(struct journal_time a, struct journal_time b)
{
	return a.s > b.s || (a.s == b.s && a.ns >= b.ns);
}

/* The record of the run before for this file, or NULL. */
static struct journal_rec *
journal_find_prev(struct journal *j, const struct journal_rec *r)
{
	for (size_t i = 0; i < j->prev.n; i++) {
		struct journal_rec *p = &j->prev.recs[i];

		if (!j->prev_taken[i] && p->up == r->up && strcmp(p->local, r->local) == 0 &&
		    strcmp(p->remote, r->remote) == 0) {
			j->prev_taken[i] = true;
			return p;
		}
	}
	return NULL;
}

/* Is the target still what the record's ranges were written to?  Says
 * why not under -v. */
static bool
journal_target_ok(const struct journal_rec *p, struct sftp_conn *c, const char *name)
{
	const char *why = NULL;
	uint64_t need = p->complete ? p->src_size : rangeset_end(&p->done);

	if (!p->up) {
		struct stat st;
		struct journal_time m;

		if (stat(p->local, &st) != 0 || !S_ISREG(st.st_mode)) {
			why = "target is gone";
		} else {
			m.s = st.st_mtim.tv_sec;
			m.ns = st.st_mtim.tv_nsec;
			if ((uint64_t)st.st_dev != p->tgt_dev || (uint64_t)st.st_ino != p->tgt_ino)
				why = "target was replaced";
			else if (p->complete && ((uint64_t)st.st_size != p->tgt_size ||
			    !journal_time_eq(m, p->tgt_mtime)))
				why = "target changed";
			else if (!p->complete && ((uint64_t)st.st_size < need ||
			    !journal_time_ge(m, p->tgt_mtime)))
				why = "target changed";
		}
	} else {
		struct sftp_attrs a;

		if (c == NULL || sftp_stat(c, p->remote, true, &a) != SSH_FX_OK ||
		    !(a.flags & SSH_FILEXFER_ATTR_SIZE))
			why = "target is gone";
		else if (p->complete ? a.size != p->src_size : a.size < need)
			why = "target changed";
		else if (p->complete && p->tgt_mtime.s != 0 &&
		    (!(a.flags & SSH_FILEXFER_ATTR_ACMODTIME) || a.mtime != p->tgt_mtime.s))
			why = "target changed";
	}
	if (why != NULL)
		log_verbose("resume: \"%s\": %s: copying it whole", name, why);
	return why == NULL;
}

enum journal_plan
journal_file_plan(struct journal *j, const struct journal_item *it, struct sftp_conn *c,
    struct journal_file **jfp, struct rangeset *todo)
{
	struct journal_file *jf;
	struct journal_rec *r, *p;
	struct stat st;
	const char *name = it->up ? it->local : it->remote;

	rangeset_clear(todo);
	rangeset_add(todo, 0, it->size);
	*jfp = NULL;
	if (j == NULL)
		return JOURNAL_COPY;
	jf = xcalloc(1, sizeof(*jf));
	jf->j = j;
	r = &jf->rec;
	r->up = it->up;
	r->local = xstrdup(it->local);
	r->remote = xstrdup(it->remote);
	r->src_size = it->size;
	r->src_mtime.s = it->mtime;
	if (it->up) {
		if (stat(it->local, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size == it->size) {
			r->src_dev = (uint64_t)st.st_dev;
			r->src_ino = (uint64_t)st.st_ino;
			r->src_mtime.s = st.st_mtim.tv_sec;
			r->src_mtime.ns = st.st_mtim.tv_nsec;
		} else {
			jf->skip = true;	/* not a plain file: nothing to resume */
		}
	}
	pthread_mutex_lock(&j->lock);
	p = j->resume && !jf->skip && j->prev.n > 0 ? journal_find_prev(j, r) : NULL;
	pthread_mutex_unlock(&j->lock);
	if (j->resume && !jf->skip && p == NULL && j->prev.n > 0)
		log_verbose("resume: \"%s\": not in the journal: copying it whole", name);
	if (p != NULL && (p->src_size != r->src_size || p->src_dev != r->src_dev ||
	    p->src_ino != r->src_ino || !journal_time_eq(p->src_mtime, r->src_mtime))) {
		log_verbose("resume: \"%s\": source changed: copying it whole", name);
		p = NULL;
	}
	if (p != NULL && !journal_target_ok(p, c, name))
		p = NULL;
	enum journal_plan ret = JOURNAL_COPY;

	if (p != NULL && p->complete) {
		rangeset_merge(&r->done, &p->done);
		r->complete = true;
		r->tgt_size = p->tgt_size;
		r->tgt_dev = p->tgt_dev;
		r->tgt_ino = p->tgt_ino;
		r->tgt_mtime = p->tgt_mtime;
		rangeset_clear(todo);
		log_verbose("resume: \"%s\": finished by the run before", name);
		ret = JOURNAL_SKIP;
	} else if (p != NULL && it->size > 0) {
		rangeset_merge(&r->done, &p->done);
		/* The last byte always moves: the piece that ends the file
		 * checks its end and sets its size, as in a fresh copy. */
		rangeset_clip(&r->done, it->size - 1);
		rangeset_gaps(&r->done, it->size, todo);
		r->tgt_dev = p->tgt_dev;
		r->tgt_ino = p->tgt_ino;
		r->tgt_mtime = p->tgt_mtime;
		r->tgt_size = p->tgt_size;
		log_verbose("resume: \"%s\": %llu of %llu bytes are there: moving %llu", name,
		    (unsigned long long)rangeset_bytes(&r->done), (unsigned long long)it->size,
		    (unsigned long long)rangeset_bytes(todo));
	}
	if (j->preserve && it->up)
		r->tgt_mtime.s = it->mtime;	/* -p sets it on the finished target */
	pthread_mutex_lock(&j->lock);
	*j->tail = jf;
	j->tail = &jf->next;
	if (journal_rec_worth(r))
		j->dirty = true;
	pthread_mutex_unlock(&j->lock);
	*jfp = jf;
	return ret;
}

void
journal_file_fd(struct journal_file *jf, int fd)
{
	struct stat st;
	bool reg;

	if (jf == NULL || jf->rec.up)
		return;
	/* Only a regular file can be synced and found again. */
	reg = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	pthread_mutex_lock(&jf->j->lock);
	if (!reg) {
		jf->skip = true;
	} else {
		/* Not the file checked at planning: what it had is not ours. */
		if (jf->rec.done.n > 0 && ((uint64_t)st.st_dev != jf->rec.tgt_dev ||
		    (uint64_t)st.st_ino != jf->rec.tgt_ino))
			rangeset_clear(&jf->rec.done);
		jf->rec.tgt_dev = (uint64_t)st.st_dev;
		jf->rec.tgt_ino = (uint64_t)st.st_ino;
		jf->have_target = true;
	}
	pthread_mutex_unlock(&jf->j->lock);
}

void
journal_wrote(struct journal_file *jf, uint64_t off, uint64_t len)
{
	struct journal *j;

	if (jf == NULL || len == 0)
		return;
	j = jf->j;
	pthread_mutex_lock(&j->lock);
	if (jf->skip) {
		pthread_mutex_unlock(&j->lock);
		return;
	}
	rangeset_add(&jf->pending, off, off + len);
	j->dirty = true;
	j->pending_bytes += len;
	/* Before the delay the thread would only wait again: a copy shorter
	 * than it wakes no one, a wake a write. */
	if (j->pending_bytes >= JOURNAL_PENDING_BYTES && clock_now() >= j->start + j->delay)
		pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
}

void
journal_file_done(struct journal_file *jf, bool ok)
{
	struct journal *j;

	if (jf == NULL)
		return;
	j = jf->j;
	pthread_mutex_lock(&j->lock);
	jf->finished = true;
	jf->ok = ok;
	j->dirty = true;
	pthread_mutex_unlock(&j->lock);
}

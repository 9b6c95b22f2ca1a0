/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* plan: scp's source/sink planning (see plan.h). */
#include "config.h"
#include "engine/plan.h"
#include "util/log.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "policy/operand.h"
#include "sftp/sftp.h"
#include "engine/xfer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* scp's (and sftp-client's) limit on tree depth. */
#define PLAN_MAX_DEPTH 64

struct plan {
	struct xfer *x;
	struct sftp_conn *c;
	bool recursive, preserve;
	/* Is the last upload target a directory?  Several sources to one
	 * target ask once. */
	char *target_cache;
	bool target_cache_dir;
	char fatal[1024];	/* a fatal error to say after the drain, or "" */
};

/* ---- small helpers ---------------------------------------------------- */

char *
plan_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	if (n == 0)
		return xstrdup(name);
	return xasprintf("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}

static int
strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The connection died under the planning (a synchronous call returned
 * -1): nothing more is said or planned, and the caller learns it from the
 * status, as scp learns it from its dead ssh. */
static bool
plan_lost(const struct plan *p)
{
	return sftp_dead(p->c);
}

static enum plan_status
plan_status_of(const struct plan *p, bool fatal)
{
	return plan_lost(p) ? PLAN_LOST : fatal ? PLAN_FATAL : PLAN_OK;
}

/* struct stat in SFTP terms, so both directions speak one language. */
static void
attrs_from_stat(struct sftp_attrs *a, const struct stat *st)
{
	memset(a, 0, sizeof(*a));
	a->flags = SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_PERMISSIONS |
	    SSH_FILEXFER_ATTR_ACMODTIME;
	a->size = (uint64_t)st->st_size;
	a->perm = (uint32_t)st->st_mode;
	a->atime = (uint32_t)st->st_atime;
	a->mtime = (uint32_t)st->st_mtime;
}

/* ---- public: setup ------------------------------------------------------ */

struct plan *
plan_new(struct xfer *x, struct sftp_conn *c, bool recursive, bool preserve)
{
	struct plan *p = xcalloc(1, sizeof(*p));

	p->x = x;
	p->c = c;
	p->recursive = recursive;
	p->preserve = preserve;
	return p;
}

void
plan_free(struct plan *p)
{
	if (p == NULL)
		return;
	free(p->target_cache);
	free(p);
}

const char *
plan_fatal_msg(const struct plan *p)
{
	return p->fatal[0] != '\0' ? p->fatal : NULL;
}

/* ---- remote helpers ----------------------------------------------------- */

char *
plan_dir_marked(const char *path)
{
	size_t n = strlen(path);

	return n > 0 && path[n - 1] == '/' ? xstrdup(path) : xasprintf("%s/", path);
}

char *
plan_remote_path(struct sftp_conn *c, const char *path)
{
	char *out = NULL;

	if (*path == '\0' || strcmp(path, "~") == 0)
		return xstrdup(".");
	if (*path != '~')
		return xstrdup(path);
	if (strncmp(path, "~/", 2) == 0) {
		path += 2;
		path += strspn(path, "/");
		return xstrdup(*path ? path : ".");
	}
	if (!sftp_has_expand_path(c)) {
		log_warn("server expand-path extension is required for ~user paths in SFTP mode");
		return NULL;
	}
	if (sftp_expand_path(c, path, &out) != SSH_FX_OK)
		return NULL;
	return out;
}

bool
plan_remote_is_dir(struct sftp_conn *c, const char *path)
{
	struct sftp_attrs a;
	int st = sftp_stat(c, path, true, &a);

	return st == SSH_FX_OK && (a.flags & SSH_FILEXFER_ATTR_PERMISSIONS) && S_ISDIR(a.perm);
}

bool
plan_has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static void
glob_walk(struct sftp_conn *c, const char *base, const char *rest, struct strv *out)
{
	const char *slash;
	char *comp, *next;

	while (*rest == '/')
		rest++;
	if (*rest == '\0') {
		strv_push(out, base);
		return;
	}
	slash = strchr(rest, '/');
	comp = slash ? strndup(rest, (size_t)(slash - rest)) : xstrdup(rest);
	if (!plan_has_glob(comp)) {
		next = *base ? plan_path_join(base, comp) : xstrdup(comp);
		if (slash == NULL) {
			struct sftp_attrs a;

			if (sftp_stat(c, next, false, &a) == SSH_FX_OK)
				strv_push(out, next);
		} else {
			glob_walk(c, next, slash, out);
		}
		free(next);
		free(comp);
		return;
	}
	struct sftp_dirent *ents;
	size_t n;
	/* glob(3) opens "dir/" (the pattern up to its '/'), or "." for a
	 * pattern without one: OpenSSH's messages name that path. */
	size_t bl = strlen(base);
	char *dir = bl == 0 ? xstrdup(".") : base[bl - 1] == '/' ? xstrdup(base) :
	    xasprintf("%s/", base);
	int st = sftp_readdir_all(c, dir, &ents, &n);

	free(dir);

	if (st == SSH_FX_OK || st == SSH_FX_BAD_MESSAGE) {
		struct strv names = { 0 };

		for (size_t i = 0; i < n; i++)
			if (fnmatch(comp, ents[i].name, FNM_PERIOD) == 0)
				strv_push(&names, ents[i].name);
		if (names.n > 1)
			qsort(names.v, names.n, sizeof(char *), strcmp_ptr);
		for (size_t i = 0; i < names.n; i++) {
			next = *base ? plan_path_join(base, names.v[i]) : xstrdup(names.v[i]);
			if (slash == NULL)
				strv_push(out, next);
			else
				glob_walk(c, next, slash, out);
			free(next);
		}
		strv_free(&names);
		sftp_dirents_free(ents, n);
	}
	free(comp);
}

void
plan_remote_glob(struct sftp_conn *c, const char *pattern, struct strv *out)
{
	glob_walk(c, *pattern == '/' ? "/" : "", pattern, out);
}

/* ---- one tree walker, two backends ------------------------------------------ */

/* What the walker makes of a source directory entry. */
enum walk_kind {
	WALK_FAILED,	/* the backend said why; the tree fails */
	WALK_DIR,
	WALK_FILE,
	WALK_LINK,
	WALK_OTHER,	/* not a file, directory or link: skipped, said */
};

struct walk_dir;	/* an open source directory of one backend */

/* One direction's side of a tree copy.  The walker calls these in scp's
 * order, so each direction's messages come where scp says them. */
struct walk_ops {
	/* Make (or accept) the destination directory for source directory
	 * src (attributes a).  At the top, either side may swap its path for
	 * the canonical one (*src or *dst set to *canon, which the walker
	 * frees).  0, or -1 after saying why. */
	int (*enter)(struct plan *p, const char **src, const char **dst, char **canon,
	    const struct sftp_attrs *a, bool top);
	/* Open src for listing; NULL after saying why. */
	struct walk_dir *(*open)(struct plan *p, const char *src, const char *dst);
	/* The next entry (false at the end): its name (the backend's) and,
	 * unless WALK_FAILED, its attributes (not followed). */
	bool (*next)(struct walk_dir *d, const char **name, struct sftp_attrs *a,
	    enum walk_kind *kind);
	void (*close)(struct walk_dir *d);
	/* A symlink: what it points to, in *a; 0 when that is to be copied as
	 * a file, -1 after saying why not. */
	int (*follow)(struct plan *p, const char *src, struct sftp_attrs *a);
	/* Plan one file; listed is false for a followed link.  0, or -1 after
	 * saying why (the walker then says o->fail_msg). */
	int (*file)(struct plan *p, struct walk_dir *d, const char *src, const char *dst,
	    const struct sftp_attrs *a, bool listed, const struct xfer_origin *o);
	/* scp's line after a failed file of this tree (a new string). */
	char *(*fail_msg)(const char *src, const char *dst);
	/* Say that entry name (path src) is skipped: scp's logit(), which
	 * shows it but counts no error. */
	void (*other)(const char *name, const char *src);
	/* After the contents: the directory's mode and times. */
	void (*leave)(struct plan *p, const char *dst, const struct sftp_attrs *a);
};

static int walk_tree(struct plan *p, const struct walk_ops *ops, const char *src,
    const char *dst, const struct sftp_attrs *a, struct xfer_group *g, int depth);

/* One entry of a directory being walked. */
static int
walk_entry(struct plan *p, const struct walk_ops *ops, struct walk_dir *d, const char *name,
    const char *src, const char *dst, enum walk_kind kind, struct sftp_attrs *a,
    struct xfer_group *g, int depth)
{
	char *msg;
	int r;

	switch (kind) {
	case WALK_FAILED:
		return -1;
	case WALK_DIR:
		return walk_tree(p, ops, src, dst, a, g, depth + 1);
	case WALK_OTHER:
		ops->other(name, src);
		return 0;
	case WALK_LINK:
	case WALK_FILE:
		break;
	}
	msg = ops->fail_msg(src, dst);
	if (kind == WALK_LINK && ops->follow(p, src, a) != 0) {
		r = -1;
	} else {
		struct xfer_origin o = { .fail_msg = msg, .group = g };

		r = ops->file(p, d, src, dst, a, kind == WALK_FILE, &o);
	}
	if (r != 0 && !plan_lost(p))
		log_error("%s", msg);
	free(msg);
	return r;
}

/* sftp-client's upload_dir_internal() / download_dir_internal(). */
static int
walk_tree(struct plan *p, const struct walk_ops *ops, const char *src, const char *dst,
    const struct sftp_attrs *a, struct xfer_group *g, int depth)
{
	struct walk_dir *d;
	char *canon = NULL;
	const char *name;
	struct sftp_attrs ea;
	enum walk_kind kind;
	int ret = 0;

	if (depth >= PLAN_MAX_DEPTH) {
		log_error("Maximum directory depth exceeded: %d levels", depth);
		return -1;
	}
	if (ops->enter(p, &src, &dst, &canon, a, depth == 0) != 0 ||
	    (d = ops->open(p, src, dst)) == NULL) {
		free(canon);
		return -1;
	}
	while (!plan_lost(p) && ops->next(d, &name, &ea, &kind)) {
		char *nsrc = plan_path_join(src, name);
		char *ndst = plan_path_join(dst, name);

		if (walk_entry(p, ops, d, name, nsrc, ndst, kind, &ea, g, depth) != 0)
			ret = -1;
		free(nsrc);
		free(ndst);
	}
	ops->close(d);
	ops->leave(p, dst, a);
	free(canon);
	return ret;
}

/* ---- uploads: the local directory backend -------------------------------------- */

/* An open source directory: local for uploads, remote for downloads. */
struct walk_dir {
	union {
		struct {
			DIR *dir;
			char *path;
		} up;
		struct {
			struct sftp_dirent *ents;
			size_t n, i;
			int dst_errno;	/* why files cannot be made under dst, or 0 */
		} down;
	};
};

/* One regular local file to the remote dst; -1 after saying why. */
static int
upload_file(struct plan *p, const char *src, const char *dst, const struct sftp_attrs *a,
    const struct xfer_origin *o)
{
	int fd;

	/* scp opens the local file before it touches the remote side, so an
	 * unreadable source leaves nothing behind there; only then does it
	 * refuse what is not a regular file (a FIFO waits in open(2) for a
	 * writer, a socket fails to open). */
	if ((fd = open(src, O_RDONLY | O_CLOEXEC)) == -1) {
		log_error("open local \"%s\": %s", src, strerror(errno));
		return -1;
	}
	close(fd);
	if (!S_ISREG(a->perm)) {
		log_error("local \"%s\" is not a regular file", src);
		return -1;
	}
	xfer_add(p->x, &(struct xfer_item){
		.dir = XFER_UP, .local = src, .remote = dst, .size = a->size,
		.perm = a->perm & 07777, .atime = a->atime, .mtime = a->mtime,
	}, o);
	return 0;
}

static int
up_enter(struct plan *p, const char **src, const char **dst, char **canon,
    const struct sftp_attrs *a, bool top)
{
	struct sftp_attrs ma = {
		.flags = SSH_FILEXFER_ATTR_PERMISSIONS,
		.perm = (a->perm & 01777) | S_IWUSR | S_IXUSR,
	};
	int r;

	(void)src;
	/* scp works on the canonical target path from the top of a tree. */
	if (top) {
		if (sftp_realpath(p->c, *dst, canon) != SSH_FX_OK) {
			if (!plan_lost(p))
				log_error("upload \"%s\": path canonicalization failed", *dst);
			return -1;
		}
		*dst = *canon;
	}
	if (sftp_mkdir(p->c, *dst, &ma) != SSH_FX_OK) {
		struct sftp_attrs da;

		r = sftp_stat(p->c, *dst, true, &da);
		if (r != SSH_FX_OK) {
			if (!plan_lost(p))
				log_error("stat remote: %s", sftp_status_text((uint32_t)r));
			return -1;
		}
		if (!S_ISDIR(da.perm)) {
			log_error("\"%s\" exists but is not a directory", *dst);
			return -1;
		}
	}
	return 0;
}

static struct walk_dir *
up_open(struct plan *p, const char *src, const char *dst)
{
	struct walk_dir *d;
	DIR *dir;

	(void)p;
	(void)dst;
	if ((dir = opendir(src)) == NULL) {
		log_error("local opendir \"%s\": %s", src, strerror(errno));
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	d->up.dir = dir;
	d->up.path = xstrdup(src);
	return d;
}

static bool
up_next(struct walk_dir *d, const char **name, struct sftp_attrs *a, enum walk_kind *kind)
{
	struct dirent *de;
	struct stat st;
	char *path;

	do {
		if ((de = readdir(d->up.dir)) == NULL)
			return false;
	} while (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0);
	*name = de->d_name;
	path = plan_path_join(d->up.path, *name);
	if (lstat(path, &st) == -1) {
		log_error("local lstat \"%s\": %s", path, strerror(errno));
		*kind = WALK_FAILED;
	} else {
		attrs_from_stat(a, &st);
		*kind = S_ISDIR(st.st_mode) ? WALK_DIR : S_ISLNK(st.st_mode) ? WALK_LINK :
		    S_ISREG(st.st_mode) ? WALK_FILE : WALK_OTHER;
	}
	free(path);
	return true;
}

static void
up_close(struct walk_dir *d)
{
	closedir(d->up.dir);
	free(d->up.path);
	free(d);
}

/* 9.2 follows links to files; links to directories and dangling links
 * fail (bz3611, fixed only in 9.5): the former in upload_file(). */
static int
up_follow(struct plan *p, const char *src, struct sftp_attrs *a)
{
	struct stat st;

	(void)p;
	if (stat(src, &st) == -1) {
		log_error("open local \"%s\": %s", src, strerror(errno));
		return -1;
	}
	attrs_from_stat(a, &st);
	return 0;
}

static int
up_file(struct plan *p, struct walk_dir *d, const char *src, const char *dst,
    const struct sftp_attrs *a, bool listed, const struct xfer_origin *o)
{
	(void)d;
	(void)listed;
	return upload_file(p, src, dst, a, o);
}

static char *
up_fail_msg(const char *src, const char *dst)
{
	return xasprintf("upload \"%s\" to \"%s\" failed", src, dst);
}

static void
up_other(const char *name, const char *src)
{
	(void)src;
	log_warn("%s: not a regular file", name);
}

/* Mode (and times with -p) go on after the contents, as scp does. */
static void
up_leave(struct plan *p, const char *dst, const struct sftp_attrs *a)
{
	struct sftp_attrs da = { .flags = SSH_FILEXFER_ATTR_PERMISSIONS, .perm = a->perm & 01777 };

	if (p->preserve) {
		da.flags |= SSH_FILEXFER_ATTR_ACMODTIME;
		da.atime = a->atime;
		da.mtime = a->mtime;
	}
	xfer_add_dirfix(p->x, true, dst, &da);
}

static const struct walk_ops upload_ops = {
	.enter = up_enter, .open = up_open, .next = up_next, .close = up_close,
	.follow = up_follow, .file = up_file, .fail_msg = up_fail_msg, .other = up_other,
	.leave = up_leave,
};

/* ---- uploads: scp's source_sftp() ------------------------------------------------- */

/* Is the target a directory?  Asked once for several sources. */
static bool
plan_target_is_dir(struct plan *p, const char *path)
{
	if (p->target_cache && strcmp(p->target_cache, path) == 0)
		return p->target_cache_dir;
	free(p->target_cache);
	p->target_cache = xstrdup(path);
	p->target_cache_dir = plan_remote_is_dir(p->c, path);
	return p->target_cache_dir;
}

enum plan_status
plan_upload(struct plan *p, const char *src, const char *targ, bool target_should_be_dir)
{
	struct stat st;
	struct sftp_attrs a;
	char *filename, *target, *abs_dst;
	bool target_is_dir;
	int r;

	if (stat(src, &st) != 0) {
		/* scp's fatal, said after what is planned has moved. */
		snprintf(p->fatal, sizeof(p->fatal), "stat local \"%s\": %s", src, strerror(errno));
		return PLAN_FATAL;
	}
	attrs_from_stat(&a, &st);
	if ((target = plan_remote_path(p->c, targ)) == NULL)
		return plan_lost(p) ? PLAN_LOST : PLAN_FATAL;	/* scp's cleanup_exit(255) */
	filename = operand_basename(src);
	target_is_dir = plan_target_is_dir(p, target);
	if (plan_lost(p)) {
		free(target);
		free(filename);
		return PLAN_LOST;
	}
	if (target_should_be_dir && !target_is_dir) {
		struct sftp_attrs ma = {
			.flags = SSH_FILEXFER_ATTR_PERMISSIONS,
			.perm = (st.st_mode & 07777) | 0700,
		};

		r = sftp_mkdir(p->c, target, &ma);
		if (r != SSH_FX_OK) {
			if (r >= 0)
				log_error("remote mkdir \"%s\": %s", target, sftp_status_text((uint32_t)r));
			free(target);
			free(filename);
			return plan_status_of(p, true);
		}
		p->target_cache_dir = true;
		target_is_dir = true;
	}
	abs_dst = target_is_dir ? plan_path_join(target, filename) : xstrdup(target);
	if (S_ISDIR(st.st_mode) && p->recursive) {
		char *msg = xasprintf("failed to upload directory %s to %s", src, targ);
		struct xfer_group *g = xfer_group_new(p->x, msg);

		if (walk_tree(p, &upload_ops, src, abs_dst, &a, g, 0) != 0 && !plan_lost(p)) {
			log_error("%s", msg);
			xfer_group_said(g);
		}
		free(msg);
	} else {
		char *msg = xasprintf("failed to upload file %s to %s", src, targ);
		struct xfer_origin o = { .fail_msg = msg };

		if (upload_file(p, src, abs_dst, &a, &o) != 0)
			log_error("%s", msg);
		free(msg);
	}
	free(abs_dst);
	free(target);
	free(filename);
	return plan_status_of(p, false);
}

/* ---- downloads: the remote READDIR backend ------------------------------------------ */

static void
download_file(struct plan *p, const char *src, const char *dst, const struct sftp_attrs *a,
    const struct xfer_origin *o)
{
	xfer_add(p->x, &(struct xfer_item){
		.dir = XFER_DOWN, .local = dst, .remote = src, .size = a->size,
		.perm = (a->flags & SSH_FILEXFER_ATTR_PERMISSIONS) ? (a->perm & 07777) : 0666,
		.atime = a->atime, .mtime = a->mtime,
		.no_meter = a->size == 0,	/* scp starts no meter for those */
	}, o);
}

static int
down_enter(struct plan *p, const char **src, const char **dst, char **canon,
    const struct sftp_attrs *a, bool top)
{
	mode_t mode = 0777;

	/* scp's download_dir() works on the canonical source path. */
	if (top) {
		if (sftp_realpath(p->c, *src, canon) != SSH_FX_OK) {
			if (!plan_lost(p))
				log_error("download \"%s\": path canonicalization failed", *src);
			return -1;
		}
		*src = *canon;
	}
	/* Writable while it is filled, as in scp; down_leave() gives it
	 * its own mode afterwards. */
	if (a->flags & SSH_FILEXFER_ATTR_PERMISSIONS)
		mode = (a->perm & 01777) | S_IWUSR | S_IXUSR;
	if (mkdir(*dst, mode) == -1 && errno != EEXIST) {
		log_error("mkdir %s: %s", *dst, strerror(errno));
		return -1;
	}
	return 0;
}

static struct walk_dir *
down_open(struct plan *p, const char *src, const char *dst)
{
	struct walk_dir *d = xcalloc(1, sizeof(*d));
	struct stat dst_st;
	int st = sftp_readdir_all(p->c, src, &d->down.ents, &d->down.n);

	if (st == SSH_FX_BAD_MESSAGE) {
		log_error("%s: server sent an invalid file name", src);
	} else if (st != SSH_FX_OK) {
		if (!plan_lost(p))
			log_error("remote readdir \"%s\" failed", src);
		free(d);
		return NULL;
	}
	/* Files cannot be created under a target that is not a directory:
	 * say so in listing order, as scp does, instead of after the run. */
	if (stat(dst, &dst_st) != 0)
		d->down.dst_errno = errno;
	else if (!S_ISDIR(dst_st.st_mode))
		d->down.dst_errno = ENOTDIR;
	return d;
}

static bool
down_next(struct walk_dir *d, const char **name, struct sftp_attrs *a, enum walk_kind *kind)
{
	if (d->down.i == d->down.n)
		return false;
	*name = d->down.ents[d->down.i].name;
	*a = d->down.ents[d->down.i].a;
	d->down.i++;
	*kind = S_ISDIR(a->perm) ? WALK_DIR : S_ISREG(a->perm) ? WALK_FILE :
	    S_ISLNK(a->perm) ? WALK_LINK : WALK_OTHER;
	return true;
}

static void
down_close(struct walk_dir *d)
{
	sftp_dirents_free(d->down.ents, d->down.n);
	free(d);
}

static int
down_follow(struct plan *p, const char *src, struct sftp_attrs *a)
{
	int st = sftp_stat(p->c, src, true, a);

	if (st == SSH_FX_OK && S_ISREG(a->perm))
		return 0;
	if (plan_lost(p))
		return -1;
	if (st != SSH_FX_OK)
		log_error("stat remote: %s", sftp_status_text((uint32_t)st));
	else
		log_error("download %s: not a regular file", src);
	return -1;
}

static int
down_file(struct plan *p, struct walk_dir *d, const char *src, const char *dst,
    const struct sftp_attrs *a, bool listed, const struct xfer_origin *o)
{
	/* A followed link under such a target fails when it is opened. */
	if (listed && d->down.dst_errno != 0) {
		log_error("open local \"%s\": %s", dst, strerror(d->down.dst_errno));
		return -1;
	}
	download_file(p, src, dst, a, o);
	return 0;
}

static char *
down_fail_msg(const char *src, const char *dst)
{
	return xasprintf("Download of file %s to %s failed", src, dst);
}

static void
down_other(const char *name, const char *src)
{
	(void)name;
	log_warn("download \"%s\": not a regular file", src);
}

/* scp's download_dir_internal() after the contents: times with -p, then
 * the mode when it differs from the writable one made by down_enter(). */
static void
down_leave(struct plan *p, const char *dst, const struct sftp_attrs *a)
{
	struct sftp_attrs fix = *a;

	fix.flags &= SSH_FILEXFER_ATTR_ACMODTIME | SSH_FILEXFER_ATTR_PERMISSIONS;
	if (!p->preserve)
		fix.flags &= ~(uint32_t)SSH_FILEXFER_ATTR_ACMODTIME;
	if ((a->perm & (S_IWUSR | S_IXUSR)) == (S_IWUSR | S_IXUSR))
		fix.flags &= ~(uint32_t)SSH_FILEXFER_ATTR_PERMISSIONS;
	if (fix.flags != 0)
		xfer_add_dirfix(p->x, false, dst, &fix);
}

static const struct walk_ops download_ops = {
	.enter = down_enter, .open = down_open, .next = down_next, .close = down_close,
	.follow = down_follow, .file = down_file, .fail_msg = down_fail_msg, .other = down_other,
	.leave = down_leave,
};

/* ---- downloads: scp's sink_sftp() --------------------------------------------------- */

enum plan_status
plan_download(struct plan *p, const char *src, const char *dst)
{
	struct strv matches = { 0 };
	struct stat lst;
	bool dst_is_dir, dst_exists;
	char *abs_src = plan_remote_path(p->c, src);

	if (abs_src == NULL) {
		if (plan_lost(p))
			return PLAN_LOST;
		log_count_error();
		return PLAN_OK;
	}
	if (plan_has_glob(abs_src))
		plan_remote_glob(p->c, abs_src, &matches);
	if (matches.n == 0)
		strv_push(&matches, abs_src);	/* GLOB_NOCHECK */

	dst_exists = stat(dst, &lst) == 0;
	dst_is_dir = dst_exists && S_ISDIR(lst.st_mode);
	if (matches.n > 1 && !dst_is_dir) {
		if (dst_exists) {
			log_error("Multiple files match pattern, but destination \"%s\" is not a directory", dst);
			goto out;
		}
		if (mkdir(dst, 0777) != 0) {
			log_error("local mkdir \"%s\": %s", dst, strerror(errno));
			goto out;
		}
		dst_is_dir = true;
	}
	for (size_t i = 0; i < matches.n; i++) {
		const char *m = matches.v[i];
		struct sftp_attrs a;
		char *filename, *abs_dst;

		if (sftp_stat(p->c, m, true, &a) != SSH_FX_OK) {
			if (plan_lost(p))
				break;
			log_error("%s: %s", src, strerror(ENOENT));
			continue;
		}
		filename = operand_basename(m);
		abs_dst = dst_is_dir ? plan_path_join(dst, filename) : xstrdup(dst);
		if (S_ISDIR(a.perm) && p->recursive) {
			/* glob(3)'s GLOB_MARK: scp names the tree "dir/" until
			 * its realpath. */
			char *marked = plan_dir_marked(m);

			(void)walk_tree(p, &download_ops, marked, abs_dst, &a, NULL, 0);
			free(marked);
		} else if (!S_ISREG(a.perm)) {
			/* scp globs with GLOB_MARK: a directory shows a '/'. */
			size_t ml = strlen(m);

			log_error("download %s%s: not a regular file", m,
			    S_ISDIR(a.perm) && ml > 0 && m[ml - 1] != '/' ? "/" : "");
		} else {
			download_file(p, m, abs_dst, &a, &(struct xfer_origin){ 0 });
		}
		free(filename);
		free(abs_dst);
	}
out:
	strv_free(&matches);
	free(abs_src);
	return plan_status_of(p, false);
}

/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proctree: this process's descendants and their CPU time, from /proc
 * (proctree.h). */
#include "config.h"
#include "util/proctree.h"
#include "util/fdio.h"
#include "util/xmalloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

bool
proctree_parse_stat(const char *line, pid_t *pid, char *state, pid_t *ppid,
    pid_t *sid, unsigned long long *ticks)
{
	/* "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime ...": comm may hold spaces
	 * and parentheses, so the fields are counted from its last ')'. */
	const char *p = strrchr(line, ')');
	long long id, pp, sess;
	unsigned long long v[4];
	char st;

	if (p == NULL || sscanf(line, "%lld", &id) != 1)
		return false;
	if (sscanf(p + 1, " %c %lld %*d %lld %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
	    &st, &pp, &sess, &v[0], &v[1], &v[2], &v[3]) != 7)
		return false;
	*pid = (pid_t)id;
	*state = st;
	*ppid = (pid_t)pp;
	*sid = (pid_t)sess;
	*ticks = v[0] + v[1] + v[2] + v[3];
	return true;
}

struct proctree_ent {
	pid_t pid, ppid, sid;
	char state;
	unsigned long long ticks;
};

static int
ent_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct proctree_ent *)a)->pid, y = ((const struct proctree_ent *)b)->pid;

	return x < y ? -1 : x > y;
}

static const struct proctree_ent *
ent_find(const struct proctree_ent *e, size_t n, pid_t pid)
{
	struct proctree_ent key = { .pid = pid };

	return bsearch(&key, e, n, sizeof(*e), ent_cmp);
}

/* ---- walking /proc ------------------------------------------------------- */

/* A list of pids to visit, with the depth each was found at. */
struct walk {
	pid_t *pid;
	int *depth;
	size_t n, cap;
};

static void
walk_push(struct walk *w, pid_t pid, int depth)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 32;
		w->pid = xrealloc(w->pid, w->cap * sizeof(*w->pid));
		w->depth = xrealloc(w->depth, w->cap * sizeof(*w->depth));
	}
	w->pid[w->n] = pid;
	w->depth[w->n++] = depth;
}

/* Read a small /proc file whole into *buf (grown as needed); its length,
 * -1 when it cannot be opened. */
static ssize_t
read_all(const char *path, char **buf, size_t *cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	for (;;) {
		if (*cap - n < 256) {
			*cap = *cap ? *cap * 2 : 1024;
			*buf = xrealloc(*buf, *cap);
		}
		if ((r = fdio_read(fd, *buf + n, *cap - n - 1)) <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	(*buf)[n] = '\0';
	return (ssize_t)n;
}

/* Offer pid's stat line to f. */
static bool
offer(pid_t pid, bool (*f)(pid_t, const char *, void *), void *arg, char **buf, size_t *cap)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	return read_all(path, buf, cap) > 0 && f(pid, *buf, arg);
}

/* Every process: what a machine without children lists gets. */
static bool
each_of_all(bool (*f)(pid_t, const char *, void *), void *arg, bool *none)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char *buf = NULL;
	size_t cap = 0;
	bool hit = false;

	*none = d == NULL;
	if (d == NULL)
		return false;
	while (!hit && (de = readdir(d)) != NULL)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			hit = offer((pid_t)atol(de->d_name), f, arg, &buf, &cap);
	closedir(d);
	free(buf);
	return hit;
}

/* Append the children of every task of pid to w, at depth. */
static void
push_children(struct walk *w, pid_t pid, int depth, char **buf, size_t *cap)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return;		/* gone meanwhile */
	while ((de = readdir(d)) != NULL) {
		char kids[300], *p, *end;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(kids, sizeof(kids), "/proc/%ld/task/%s/children", (long)pid, de->d_name);
		if (read_all(kids, buf, cap) <= 0)
			continue;
		for (p = *buf;; p = end) {
			long k = strtol(p, &end, 10);

			if (end == p)
				break;
			if (k > 0)
				walk_push(w, (pid_t)k, depth);
		}
	}
	closedir(d);
}

/* Does the kernel keep children lists, and do orphans of our tree come
 * to us? */
static bool
tree_walkable(void)
{
#if defined(__linux__) && defined(PR_GET_CHILD_SUBREAPER)
	char path[64];
	int reaper = 0;

	if (prctl(PR_GET_CHILD_SUBREAPER, &reaper) != 0 || !reaper)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)getpid(),
	    (long)getpid());
	return access(path, R_OK) == 0;
#else
	return false;
#endif
}

/* Deeper than any tree fscp starts: a pid reused while the walk reads
 * could otherwise lead it in a circle. */
#define PROCTREE_MAX_DEPTH 64

bool
proctree_each(int depth, bool (*f)(pid_t pid, const char *line, void *arg), void *arg,
    bool *none)
{
	struct walk w = { 0 };
	char *buf = NULL;
	size_t cap = 0;
	bool hit = false;

	if (!tree_walkable())
		return each_of_all(f, arg, none);
	*none = false;
	if (depth <= 0 || depth > PROCTREE_MAX_DEPTH)
		depth = PROCTREE_MAX_DEPTH;
	push_children(&w, getpid(), 1, &buf, &cap);
	for (size_t i = 0; !hit && i < w.n; i++) {
		hit = offer(w.pid[i], f, arg, &buf, &cap);
		if (!hit && w.depth[i] < depth)
			push_children(&w, w.pid[i], w.depth[i] + 1, &buf, &cap);
	}
	free(w.pid);
	free(w.depth);
	free(buf);
	return hit;
}

/* ---- the CPU of trees ------------------------------------------------------ */

struct collect {
	struct proctree_ent *e;
	size_t n, cap;
};

static bool
collect_one(pid_t pid, const char *line, void *arg)
{
	struct collect *c = arg;
	struct proctree_ent x;

	(void)pid;
	if (!proctree_parse_stat(line, &x.pid, &x.state, &x.ppid, &x.sid, &x.ticks))
		return false;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->e = xrealloc(c->e, c->cap * sizeof(*c->e));
	}
	c->e[c->n++] = x;
	return false;
}

/* The entries of this process's descendants (every process's where they
 * cannot be told apart), sorted by pid; NULL when /proc is not there. */
static struct proctree_ent *
proctree_read(size_t *n)
{
	struct collect c = { 0 };
	bool none;

	(void)proctree_each(0, collect_one, &c, &none);
	*n = c.n;
	if (none) {
		free(c.e);
		return NULL;
	}
	if (c.e == NULL)
		c.e = xcalloc(1, sizeof(*c.e));
	qsort(c.e, c.n, sizeof(*c.e), ent_cmp);
	return c.e;
}

/* Is x in root's tree: in the session root leads, or descended from it
 * (a parent chain is short; the depth cap stops a cycle read mid-change). */
static bool
in_tree(const struct proctree_ent *e, size_t n, const struct proctree_ent *x, pid_t root)
{
	if (x->sid == root)
		return true;
	for (int depth = 0; x != NULL && depth < 64; depth++) {
		if (x->pid == root)
			return true;
		if (x->ppid <= 1)
			return false;
		x = ent_find(e, n, x->ppid);
	}
	return false;
}

int
proctree_cpu(const pid_t *roots, int n, double *cpu_s, int *runnable)
{
	size_t ne;
	struct proctree_ent *e = proctree_read(&ne);
	long hz = sysconf(_SC_CLK_TCK);
	int found = 0;

	for (int i = 0; i < n; i++) {
		cpu_s[i] = -1;
		if (runnable != NULL)
			runnable[i] = 0;
	}
	if (e == NULL)
		return -1;
	if (hz <= 0)
		hz = 100;
	for (int i = 0; i < n; i++) {
		unsigned long long t = 0;

		if (roots[i] <= 0 || ent_find(e, ne, roots[i]) == NULL)
			continue;
		for (size_t k = 0; k < ne; k++)
			if (in_tree(e, ne, &e[k], roots[i])) {
				t += e[k].ticks;
				if (runnable != NULL && e[k].state == 'R')
					runnable[i]++;
			}
		cpu_s[i] = (double)t / (double)hz;
		found++;
	}
	free(e);
	return found;
}
